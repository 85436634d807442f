"""``seek slides index --ray``: against a real two-node Ray cluster on loopback (``tests/ray_cluster.py``)."""

import json
import sqlite3
import time

import numpy as np
import pytest
from ray_cluster import running_cluster

from core.embed import CachedEmbedder, make_embedder
from slidesearch.generator import generate_library
from slidesearch.index import build_index, default_index_path, embedding_cache_path
from slidesearch.ingest import ingest_path
from slidesearch.library import Library
from slidesearch.store import Store

pytestmark = pytest.mark.integration

EMBEDDER = "minilm"  # one unpadded run per text: its vectors cannot depend on how texts were batched


def _ingest(home, n: int, seed: int, monkeypatch) -> None:
    monkeypatch.setenv("SEEK_HOME", str(home))
    generate_library(n, seed, home / "gen")
    store = Store()
    ingest_path(home / "gen", store)
    store.close()


def _last_json(stdout: str) -> dict:
    """The command's JSON report, which must be all of stdout: Ray's native logging ("Failed to connect to remote
    host" once a killed node's address refuses connections) goes to stderr (``cli.console.native_output_to_stderr``)."""
    return json.loads(stdout)


def _slide_texts(home, monkeypatch) -> list[str]:
    """The slide snippets and master documents of the store in ``home``: what the first fan-out embeds."""
    monkeypatch.setenv("SEEK_HOME", str(home))
    store = Store()
    try:
        return [s.snippet for s in store.iter_slides()] + [m.document for m in store.master_rows()]
    finally:
        store.close()


def _index_keys(home, monkeypatch) -> set[str]:
    """The cache keys of every text the index in ``home`` embeds: slide snippets, master documents, taxonomy terms."""
    texts = _slide_texts(home, monkeypatch) + Library.open(default_index_path()).taxonomy
    cache = CachedEmbedder(make_embedder(EMBEDDER), home / "unused-cache.sqlite")
    return {cache.key(t) for t in texts}


def test_a_ray_index_equals_the_local_build(ray_cluster, tmp_path, monkeypatch):
    ray_home, local_home = tmp_path / "ray", tmp_path / "local"
    _ingest(ray_home, 240, 5, monkeypatch)
    done = ray_cluster.seek("slides", "index", "--embedder", EMBEDDER, "--ray", ray_cluster.address, "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    report = _last_json(done.stdout)
    assert report["ray"]["nodes"] == 2 and report["ray"]["missing"] > 0
    assert report["ray"]["texts_written"] == report["ray"]["missing"]
    # Nothing is embedded on the driver: the taxonomy terms, mined during the build, went out too.
    assert report["embedded"] == 0 and report["n_taxonomy"] > 0

    monkeypatch.setenv("SEEK_HOME", str(ray_home))
    store = Store()
    ray_library = Library.open(default_index_path())
    monkeypatch.setenv("SEEK_HOME", str(local_home))
    build_index(store, out=local_home / "index", embedder=EMBEDDER)
    store.close()
    local = Library.open(local_home / "index")
    assert ray_library.ids == local.ids
    assert np.array_equal(ray_library.vectors, local.vectors)
    assert np.array_equal(ray_library.master_vectors, local.master_vectors)
    assert ray_library.taxonomy == local.taxonomy and np.array_equal(ray_library.taxonomy_vectors, local.taxonomy_vectors)


def test_a_second_ray_index_embeds_nothing_already_cached(ray_cluster, tmp_path, monkeypatch):
    _ingest(tmp_path / "home", 60, 9, monkeypatch)
    first = ray_cluster.seek("slides", "index", "--embedder", "fast", "--ray", ray_cluster.address, "--json")
    assert first.returncode == 0, first.stderr[-3000:]
    again = ray_cluster.seek("slides", "index", "--embedder", "fast", "--ray", ray_cluster.address, "--json")
    assert again.returncode == 0, again.stderr[-3000:]
    assert _last_json(first.stdout)["ray"]["texts_written"] > 0
    second = _last_json(again.stdout)
    assert second["ray"]["missing"] == 0 and second["ray"]["texts_started"] == 0 and second["embedded"] == 0


def test_a_ray_index_survives_losing_a_node_midway_and_writes_every_text_once(tmp_path_factory, tmp_path, monkeypatch):
    home = tmp_path / "home"
    _ingest(home, 500, 11, monkeypatch)
    cache_file = embedding_cache_path()
    slide_texts = len(set(_slide_texts(home, monkeypatch)))
    # Its own cluster: this test kills a node, and the other tests keep the session's two.
    with running_cluster(tmp_path_factory.mktemp("ray-kill")) as cluster:
        build = cluster.seek_background("slides", "index", "--embedder", EMBEDDER, "--ray", cluster.address,
                                        "--ray-batch", "12", "--ray-timeout", "400", "--json")
        try:
            rows_at_kill = _wait_for_rows(cache_file, slide_texts // 5, build)
            assert rows_at_kill < slide_texts, "the build ended before the node could be killed"
            cluster.kill_worker()
            assert cluster.pids()["worker"] == []
            stdout, stderr = build.communicate(timeout=420)
        finally:
            if build.poll() is None:
                build.kill()
                build.communicate()
    assert build.returncode == 0, stderr[-3000:]
    report = _last_json(stdout)
    ray = report["ray"]
    expected = _index_keys(home, monkeypatch)
    # Both nodes wrote (so the killed one had done part of the work), and every missing text was written once.
    assert len(ray["written_by_node"]) == 2 and all(n > 0 for n in ray["written_by_node"].values())
    assert ray["missing"] == len(expected) and ray["texts_written"] == len(expected)
    assert ray["duplicate_writes"] == 0 and report["embedded"] == 0
    # Embedded again after the kill: at most the batches the dead node had in hand (reported, not hidden).
    assert len(expected) <= ray["texts_started"] <= len(expected) + 2 * 12
    print(f"\nnode killed at {rows_at_kill}/{slide_texts} rows; texts handed to an encoder: "
          f"{ray['texts_started']} for {len(expected)} texts; skipped as already written on retry: "
          f"{ray['skipped_as_written']}")
    with sqlite3.connect(cache_file) as db:
        keys = [k for (k,) in db.execute("SELECT key FROM vectors")]
    assert set(keys) == expected  # none missed, nothing else stored


def _wait_for_rows(cache_file, at_least: int, build, timeout_s: float = 300) -> int:
    """Poll the cache until ``at_least`` vectors are written (the job is under way); returns the count seen."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert build.poll() is None, build.communicate()[1][-3000:]
        if cache_file.exists():
            try:
                with sqlite3.connect(cache_file, timeout=5) as db:
                    rows = db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
            except sqlite3.OperationalError:  # the table is not created yet
                rows = 0
            if rows >= at_least:
                return int(rows)
        time.sleep(0.1)
    raise AssertionError(f"fewer than {at_least} vectors written within {timeout_s} s")


def test_thumbnails_render_on_the_cluster_one_task_per_deck_and_once_per_deck_hash(ray_cluster, tmp_path, monkeypatch):
    from system_tools import require_tool

    from slidesearch.extract.convert import convert
    from slidesearch.thumbnails import ThumbnailStore
    from tests.visual_decks import write_visual_deck

    for tool, package in (("soffice", "libreoffice-impress-nogui"), ("pdftoppm", "poppler-utils")):
        require_tool(tool, package=package)
    home = tmp_path / "home"
    monkeypatch.setenv("SEEK_HOME", str(home))
    monkeypatch.setenv("SEEK_OCR", "off")
    pptx = write_visual_deck(tmp_path / "decks" / "Sales" / "Visual.pptx")
    convert(pptx, "pdf", pptx.parent)
    store = Store()
    ingest_path(tmp_path / "decks", store)
    store.close()

    rendered = ray_cluster.seek("slides", "render", "--ray", ray_cluster.address, "--json")
    assert rendered.returncode == 0, rendered.stderr[-3000:]
    report = _last_json(rendered.stdout)
    assert (report["decks_rendered"], report["thumbnails_written"], report["failures"]) == (2, 8, [])
    assert f"ray: 2 tasks on {ray_cluster.address}" in rendered.stderr
    thumbs = ThumbnailStore()
    assert all(thumbs.thumbnail(str(path), n) for path in (pptx, pptx.with_suffix(".pdf")) for n in range(1, 5))
    again = ray_cluster.seek("slides", "render", "--ray", ray_cluster.address, "--json")
    assert _last_json(again.stdout)["decks_unchanged"] == 2 and "ray: 0 tasks" in again.stderr


def test_ingest_reads_and_ocrs_the_changed_decks_on_the_cluster_as_a_local_ingest_does(ray_cluster, tmp_path,
                                                                                        monkeypatch):
    from system_tools import require_tool

    from slidesearch.extract.convert import convert
    from tests.visual_decks import write_visual_deck

    for tool, package in (("soffice", "libreoffice-impress-nogui"), ("pdftoppm", "poppler-utils"),
                          ("tesseract", "tesseract-ocr")):
        require_tool(tool, package=package)
    monkeypatch.setenv("SEEK_OCR", "on")
    pptx = write_visual_deck(tmp_path / "decks" / "Sales" / "Visual.pptx")
    convert(pptx, "pdf", pptx.parent)
    monkeypatch.setenv("SEEK_HOME", str(tmp_path / "local"))
    local = Store()
    ingest_path(tmp_path / "decks", local)
    expected = [s.model_dump() for s in local.iter_slides()]
    local.close()

    monkeypatch.setenv("SEEK_HOME", str(tmp_path / "ray"))
    done = ray_cluster.seek("slides", "ingest", str(tmp_path / "decks"), "--ray", ray_cluster.address,
                            "--no-reindex", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"ray: 2 deck-reading tasks on {ray_cluster.address}" in done.stderr
    remote = Store()
    got = [s.model_dump() for s in remote.iter_slides()]
    remote.close()
    assert got == expected and any(s["picture_text"] for s in got)  # the pictures were OCRed on the cluster
    again = ray_cluster.seek("slides", "ingest", str(tmp_path / "decks"), "--ray", ray_cluster.address,
                             "--no-reindex", "--json")
    assert "ray: 0 deck-reading tasks" in again.stderr and _last_json(again.stdout)["files_unchanged"] == 2
