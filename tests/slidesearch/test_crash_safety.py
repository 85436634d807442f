"""Crash safety of the store and the index: real child processes killed with SIGKILL at every point.

Each child runs the real code with a hook that kills the child itself (``os.kill(getpid(), SIGKILL)``)
at the k-th point of interest: the k-th SQL statement the store sends (``set_trace_callback``), or the
k-th filesystem step of the index swap (before and after each rename, replace, symlink and fsync).
The parent then opens what is on disk and checks it is wholly the old state or wholly the new one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from slidesearch.library import Library
from slidesearch.store import Store

REPO = Path(__file__).resolve().parents[2]


def _child(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=120)


def _slide(slide_id: str, deck: str) -> dict[str, object]:
    return {"slide_id": slide_id, "deck_id": deck, "deck_name": deck, "title": f"title {slide_id}", "text": "body"}


REPLACE_CHILD = """
    import os, signal, sys
    from slidesearch.model import Deck, Slide, VerifiedCaseStudy
    from slidesearch.store import Store

    store = Store(sys.argv[1])
    kill_at, seen = int(sys.argv[2]), [0]

    def statement(sql):
        seen[0] += 1
        if seen[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    store.db.conn.set_trace_callback(statement)
    if sys.argv[3] == "slides":
        slides = [Slide(slide_id=f"new_{i}", deck_id="deck_new", title=f"t{i}") for i in range(5)]
        store.replace_source("a.jsonl", "jsonl", "hash-new", slides, [Deck(deck_id="deck_new", n_slides=5)])
    else:
        rows = [VerifiedCaseStudy(row_id=str(i), title=f"case {i}") for i in range(4)]
        store.replace_source("sheet-a.csv", "master", "hash-new", master=rows)
    print(seen[0])
"""


def _old_store(path: Path) -> None:
    from slidesearch.model import Deck, Slide, VerifiedCaseStudy

    store = Store(path)
    store.replace_source("a.jsonl", "jsonl", "hash-old", [Slide.model_validate(_slide(f"old_{i}", "deck_old"))
                                                           for i in range(3)], [Deck(deck_id="deck_old", n_slides=3)])
    store.replace_source("b.jsonl", "jsonl", "hash-b", [Slide.model_validate(_slide("b_0", "deck_b"))])
    store.replace_source("sheet-a.csv", "master", "hash-old", master=[VerifiedCaseStudy(row_id="1", title="old")])
    store.replace_source("sheet-b.csv", "master", "hash-b", master=[VerifiedCaseStudy(row_id="1", title="b")])
    store.close()


def _state(path: Path) -> tuple[object, ...]:
    store = Store(path)
    try:
        slides = sorted(s.slide_id for s in store.iter_slides())
        master = sorted((r["source_key"], r["row_id"], r["title"]) for r in store.db.query("SELECT * FROM master"))
        sources = sorted(store.db.execute("SELECT source_key, content_hash, n_items FROM sources").fetchall())
        decks = sorted(r["deck_id"] for r in store.decks())
        return slides, master, sources, decks, store.generation
    finally:
        store.close()


class TestStoreTransactions:
    @pytest.mark.parametrize("what", ["slides", "master"])
    def test_a_kill_at_any_statement_leaves_exactly_the_old_or_the_new_store(self, tmp_path, what):
        clean = tmp_path / "clean.db"
        _old_store(clean)
        old = _state(clean)
        done = _child(REPLACE_CHILD, str(clean), "0", what)
        assert done.returncode == 0, done.stderr
        statements = int(done.stdout)
        new = _state(clean)
        assert new != old and new[4] == old[4] + 1
        outcomes = set()
        for kill_at in range(1, statements + 1):
            db = tmp_path / f"kill-{kill_at}.db"
            _old_store(db)
            killed = _child(REPLACE_CHILD, str(db), str(kill_at), what)
            assert killed.returncode == -signal.SIGKILL, killed.stderr
            state = _state(db)
            assert state in (old, new), f"killed at statement {kill_at} of {statements}: {state}"
            outcomes.add(state == new)
        assert outcomes == {False}  # the commit is the last statement: every earlier kill keeps the old store

    def test_a_failing_replacement_leaves_the_old_rows_and_hash(self, tmp_path):
        from slidesearch.model import Slide

        db = tmp_path / "library.db"
        _old_store(db)
        old = _state(db)

        class BreaksHalfWay(list):
            def __iter__(self):
                for i, slide in enumerate(super().__iter__()):
                    if i == 4_500:
                        raise RuntimeError("the disk went away")
                    yield slide

        slides = BreaksHalfWay(Slide(slide_id=f"n{i}", deck_id="deck_new") for i in range(6_000))
        store = Store(db)
        with pytest.raises(RuntimeError, match="went away"):
            store.replace_source("a.jsonl", "jsonl", "hash-new", slides)
        store.close()
        assert _state(db) == old


INDEX_CHILD = """
    import os, shutil, signal, sys
    from slidesearch.index import build_index
    from slidesearch.store import Store

    kill_at, seen = int(sys.argv[2]), [0]

    def step():
        seen[0] += 1
        if seen[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    def killable(fn):
        def wrapped(*args, **kwargs):
            step()
            result = fn(*args, **kwargs)
            step()
            return result
        return wrapped

    for name in ("rename", "replace", "symlink", "fsync"):
        setattr(os, name, killable(getattr(os, name)))
    shutil.rmtree = killable(shutil.rmtree)
    store = Store(sys.argv[1])
    build_index(store, embedder="fast")
    print(seen[0])
"""


def _home_with_index(home: Path, layout: str) -> Path:
    """A SEEK_HOME whose index holds 2 slides and whose store then holds 3 (the next build has 3)."""
    from slidesearch.index import build_index
    from slidesearch.model import Slide

    store = Store(home / "slides" / "library.db")
    store.replace_source("a.jsonl", "jsonl", "h1", [Slide.model_validate(_slide(f"s{i}", "d")) for i in range(2)])
    build_index(store, out=home / "slides" / "index", embedder="fast")
    index = home / "slides" / "index"
    if layout == "directory" and index.is_symlink():  # an index written by an older seek: a real directory
        target = index.resolve()
        index.unlink()
        os.rename(target, index)
    store.replace_source("b.jsonl", "jsonl", "h2", [Slide.model_validate(_slide("s9", "e"))])
    store.close()
    return index


class TestIndexSwap:
    @pytest.mark.parametrize("layout", ["link", "directory"])
    def test_a_kill_at_any_step_of_the_swap_leaves_a_complete_index_and_the_next_build_cleans_up(
            self, tmp_path, monkeypatch, layout):
        template = tmp_path / "template"
        _home_with_index(template, layout)
        monkeypatch.setenv("SEEK_HOME", str(template))
        done = _child(INDEX_CHILD, str(template / "slides" / "library.db"), "0")
        assert done.returncode == 0, done.stderr
        steps = int(done.stdout)
        assert steps >= 4
        for kill_at in range(1, steps + 1):
            home = tmp_path / f"kill-{kill_at}"
            index = _home_with_index(home, layout)
            monkeypatch.setenv("SEEK_HOME", str(home))
            killed = _child(INDEX_CHILD, str(home / "slides" / "library.db"), str(kill_at))
            assert killed.returncode == -signal.SIGKILL, killed.stderr
            assert Library.open(index).n in (2, 3), f"killed at step {kill_at} of {steps}"
            store = Store(home / "slides" / "library.db")
            from slidesearch.index import build_index

            build_index(store, out=index, embedder="fast")
            store.close()
            assert Library.open(index).n == 3
            hidden = [p.name for p in index.parent.iterdir() if p.name.startswith(".index")]
            assert hidden == [os.readlink(index)], f"leftovers after a kill at step {kill_at}: {hidden}"


def _health() -> dict[str, object]:
    from fastapi.testclient import TestClient

    from slidesearch.engine import SlideSearch
    from slidesearch.serve.http_api import create_app
    from slidesearch.serve.service import SlideService

    with TestClient(create_app(SlideService(SlideSearch.open()))) as client:
        return client.get("/health").json()


INGEST_KILLED_IN_INDEXING = """
    import os, signal, sys
    from slidesearch.library import Library
    from cli.main import app

    def killed(self, directory):
        os.kill(os.getpid(), signal.SIGKILL)

    Library.save = killed
    app(["slides", "ingest", sys.argv[1], "--embedder", "fast"])
"""


class TestIndexBehindTheStore:
    def test_an_ingest_after_a_build_killed_mid_way_rebuilds_the_index(self, tmp_path, _isolated_seek_home):
        from typer.testing import CliRunner

        from cli.main import app

        tree = tmp_path / "tree"
        tree.mkdir()
        (tree / "a.jsonl").write_text("\n".join(json.dumps(_slide(f"a{i}", "da")) for i in range(3)) + "\n")
        runner = CliRunner()
        first = runner.invoke(app, ["slides", "ingest", str(tree), "--embedder", "fast"])
        assert first.exit_code == 0, first.output
        (tree / "b.jsonl").write_text("\n".join(json.dumps(_slide(f"b{i}", "db")) for i in range(4)) + "\n")
        killed = _child(INGEST_KILLED_IN_INDEXING, str(tree))
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert Library.open().n == 3  # the store has 7 slides, the index 3
        stats = json.loads(runner.invoke(app, ["slides", "stats", "--json"]).stdout)
        assert stats["freshness"]["status"] == "stale"
        assert stats["freshness"]["index_generation"] < stats["freshness"]["store_generation"]
        doctor = json.loads(runner.invoke(app, ["doctor", "--no-embedder", "--json"]).stdout)["index"]
        assert doctor["freshness"] == "stale" and doctor["index_generation"] < doctor["store_generation"]
        assert _health()["index"]["status"] == "stale"
        again = runner.invoke(app, ["slides", "ingest", str(tree), "--embedder", "fast"])
        assert again.exit_code == 0, again.output
        assert "0 ingested, 2 unchanged" in " ".join(again.output.split())
        assert Library.open().n == 7
        assert json.loads(runner.invoke(app, ["slides", "stats", "--json"]).stdout)["freshness"]["status"] == "fresh"
