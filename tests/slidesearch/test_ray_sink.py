"""The cache writer of ``seek slides index --ray`` (``VectorSink``) and the cache calls it rests on, without Ray."""

import numpy as np
import pytest

from core.embed import CachedEmbedder, insert_new_vectors, make_embedder, open_vector_cache
from slidesearch.ray_index import RayEmbedMissing, VectorSink


def test_a_batch_written_twice_is_stored_once_and_counted_as_duplicates(tmp_path):
    sink = VectorSink(str(tmp_path / "cache.sqlite"))
    vectors = np.eye(3, dtype=np.float32)
    assert sink.write(["a", "b", "c"], vectors, node="n1") == 3
    assert sink.write(["b", "c", "d"], np.vstack([vectors[1:], vectors[:1]]), node="n2") == 1
    counts = sink.counts()
    assert counts["written"] == 4 and counts["duplicates"] == 2 and counts["by_node"] == {"n1": 3, "n2": 1}
    assert sorted(sink.written_of(["a", "d", "zz"])) == ["a", "d"]
    db = open_vector_cache(tmp_path / "cache.sqlite")
    stored = dict(db.execute("SELECT key, vec FROM vectors").fetchall())
    assert np.frombuffer(stored["b"], dtype=np.float32).tolist() == [0.0, 1.0, 0.0]  # the first write kept


def test_insert_new_vectors_keeps_what_is_there():
    import sqlite3

    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")
    assert insert_new_vectors(db, [("k", b"1"), ("k2", b"2")]) == 2
    assert insert_new_vectors(db, [("k", b"other")]) == 0
    assert db.execute("SELECT vec FROM vectors WHERE key = 'k'").fetchone()[0] == b"1"


def test_the_cache_names_each_missing_text_once_and_none_it_holds(tmp_path):
    cache = CachedEmbedder(make_embedder("fast"), tmp_path / "cache.sqlite")
    cache.encode(["held"])
    missing = cache.missing(["new", "held", "new", "other"])
    assert [text for _, text in missing] == ["new", "other"]
    assert [key for key, _ in missing] == [cache.key("new"), cache.key("other")]


def test_nothing_missing_needs_no_cluster(tmp_path):
    cache = CachedEmbedder(make_embedder("fast"), tmp_path / "cache.sqlite")
    cache.encode(["a", "b"])
    report = RayEmbedMissing("127.0.0.1:1", embedder="fast")(cache, ["a", "b", "a"])
    assert report.missing == 0 and report.texts_started == 0 and report.texts == 3


def test_bad_pool_settings_are_refused():
    with pytest.raises(ValueError, match="at least 1"):
        RayEmbedMissing("127.0.0.1:1", actors=0)


def test_a_job_past_its_deadline_is_an_error_and_a_job_error_reaches_the_caller():
    import threading

    from slidesearch.ray_index import run_with_deadline

    release = threading.Event()
    with pytest.raises(TimeoutError, match="the slow job did not finish within 0 s"):
        run_with_deadline(lambda: release.wait(30), 0.2, "the slow job")
    release.set()

    def broken():
        raise KeyError("lost")

    with pytest.raises(KeyError, match="lost"):
        run_with_deadline(broken, 5, "the broken job")
    assert run_with_deadline(lambda: 7, 5, "a quick job") == 7


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Ray Data's own, on first reading its DataContext
def test_a_process_joins_its_cluster_once_and_never_reconnects(tmp_path, monkeypatch):
    """Every Ray user of one process shares one session: reconnecting after ray.shutdown can SIGSEGV (ray#31145)."""
    import ray

    import core.ray_tasks as ray_tasks
    import slidesearch.ray_index as ray_index

    calls: list[str] = []
    up = {"on": False}

    def init(address, **_):
        calls.append(f"init {address}")
        up["on"] = True

    def shutdown(*_, **__):
        calls.append("shutdown")
        up["on"] = False

    monkeypatch.setattr(ray, "init", init)
    monkeypatch.setattr(ray, "shutdown", shutdown)
    monkeypatch.setattr(ray, "is_initialized", lambda: up["on"])
    monkeypatch.setattr(ray_tasks, "_session_address", None)

    def fan_out(self, ray_module, cache, missing):
        assert up["on"], "a fan-out ran without a session"
        cache.encode([text for _, text in missing])  # what the cluster's sink would have written
        return {"started": len(missing), "written": len(missing), "duplicates": 0, "skipped": 0,
                "batches": 1, "by_node": {"n1": len(missing)}}, 2

    monkeypatch.setattr(ray_index.RayEmbedMissing, "_fan_out", fan_out)
    cache = CachedEmbedder(make_embedder("fast"), tmp_path / "cache.sqlite")
    mapper = ray_tasks.RayMapper("127.0.0.1:7")
    mapper._ray = ray_tasks.connect(mapper.address)  # as its first call does: the deck readers of an ingest
    mapper.close()
    hook = RayEmbedMissing("127.0.0.1:7", embedder="fast")  # then the index build's two fan-outs
    hook(cache, ["slide one", "slide two"])
    hook(cache, ["slide one", "a taxonomy term"])
    hook(cache, ["slide two"])  # nothing missing: no cluster call at all
    assert ray_tasks.connect("127.0.0.1:7") is ray  # then the thumbnail renderer
    assert calls == ["init 127.0.0.1:7"]
    assert hook.report is not None and hook.report.missing == 3 and hook.report.texts_written == 3
    with pytest.raises(RuntimeError, match="one process reaches one cluster"):
        ray_tasks.connect("127.0.0.1:8")
