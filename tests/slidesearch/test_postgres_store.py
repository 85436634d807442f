"""The PostgreSQL library (SEEK_STORE=postgresql://…) against a real server started by scripts/postgres.

The same answers as the local store on a generated library; replicas that follow an ingest without a
restart and without an error; the store's transactions, generation rule, conflicts and writer lock.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from slidesearch.engine import SlideSearch
from slidesearch.generator import generate_library
from slidesearch.index import build_index
from slidesearch.ingest import ingest_path
from slidesearch.model import Slide
from slidesearch.pipeline.rank.sql import SqlDenseScores, SqlPrefilter
from slidesearch.serve.http_api import free_port
from slidesearch.store import SourceConflict, Store
from tests.answers import assert_same_answer
from tests.postgres_server import fresh_database, postgres_url  # noqa: F401 - the session fixture

pytestmark = pytest.mark.integration
psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL tests need the [scale] extra")

from slidesearch.pg_library import PublishedLibrary, SqlPool  # noqa: E402 - needs psycopg
from slidesearch.pg_store import PostgresStore, advisory_writer_lock  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "replica-test-token"

#: A dozen varied requests over the generated library (its generator's query kinds, a scope, a name).
QUERIES: list[tuple[str | list[str], list[str] | None]] = [
    ("analyst recognition and awards", None),
    ("fraud detection for banking", None),
    ("mlops", None),
    ("commercial terms and pricing summary", None),
    ("Lummore Publishing case studies", None),
    ("Niall Novak profile", None),
    ("capital call reporting", None),
    (["transaction monitoring", "document ai use case"], None),
    ("fraud detection without case studies", None),
    ("mlops case studies with FTE savings", None),
    ("Fan360 audience analytics", None),
    ("esg analytics", ["DAAIS"]),
    ("what did we do for claims intake?", None),
]


@pytest.fixture
def database(postgres_url):  # noqa: F811 - the session fixture
    return fresh_database(postgres_url, f"t_{uuid.uuid4().hex[:12]}")


@pytest.fixture
def generated(tmp_path, monkeypatch):
    monkeypatch.setenv("SEEK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SEEK_STORE", raising=False)
    generate_library(300, 5, tmp_path / "gen")
    return tmp_path / "gen"


def _published_engine(url: str) -> SlideSearch:
    published = PublishedLibrary(url)
    try:
        live = published.live()
        assert live is not None
        return SlideSearch(published.load(live[0]), pool_queries=SqlPool(url, live[0]))
    finally:
        published.close()


class TestSameAnswers:
    def test_the_postgres_library_answers_every_request_as_the_local_store_does(self, generated, database, tmp_path):
        local = Store(tmp_path / "library.db")
        ingest_path(generated, local)
        build_index(local, out=tmp_path / "index", embedder="fast")
        local.close()
        shared = PostgresStore(database)
        ingest_path(generated, shared)
        report = build_index(shared, embedder="fast")
        shared.close()
        assert "library generation 1" in report.path and report.n_slides == 300

        local_engine = SlideSearch.open(tmp_path / "index")
        sql_engine = _published_engine(database)
        assert isinstance(sql_engine._stages[7], SqlPrefilter) and isinstance(sql_engine._stages[8], SqlDenseScores)
        for query, universes in QUERIES:
            expected = local_engine.search_v2(query, universes=universes).model_dump()
            got = sql_engine.search_v2(query, universes=universes).model_dump()
            assert expected["total_matches"] > 0, query
            assert_same_answer(expected, got)
        scoped = sql_engine.search_v2("esg analytics", universes=["DAAIS"])
        assert {c.universe for c in scoped.cards()} == {"DAAIS"}

    def test_the_sql_pool_and_dot_products_match_the_in_memory_stages(self, generated, database):
        import numpy as np

        shared = PostgresStore(database)
        ingest_path(generated, shared)
        build_index(shared, embedder="fast")
        shared.close()
        sql_engine = _published_engine(database)
        memory_engine = SlideSearch(sql_engine.library)
        for query, universes in QUERIES:
            sql_state, _ = sql_engine.run_state(query, universes)
            memory_state, _ = memory_engine.run_state(query, universes)
            assert np.array_equal(sql_state.pool, memory_state.pool), query
            assert np.allclose(sql_state.angle_cosines, memory_state.angle_cosines, rtol=1e-6, atol=1e-6), query


class TestCommandsReadThePublishedLibrary:
    def test_search_stats_and_doctor_read_the_live_generation_under_seek_store(self, generated, database, tmp_path):
        shared = PostgresStore(database)
        ingest_path(generated, shared)
        build_index(shared, embedder="fast")
        shared.close()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "SEEK_HOME": str(tmp_path / "cli-home"), "SEEK_STORE": database,
               "SEEK_EMBEDDER": "fast"}

        def seek(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env, capture_output=True,
                                  text=True, timeout=180)

        searched = seek("slides", "search", "fraud detection for banking", "--json")
        assert searched.returncode == 0, searched.stderr[-2000:]
        expected = _published_engine(database).search_v2("fraud detection for banking").cards()
        got = [card["id"] for cards in json.loads(searched.stdout)["groups"].values() for card in cards]
        assert got and got == [c.id for c in expected]  # no local index exists in this home: it read PostgreSQL's
        stats = seek("slides", "stats", "--json")
        assert stats.returncode == 0 and json.loads(stats.stdout)["slides"] == 300, stats.stderr[-2000:]
        doctor = seek("doctor", "--json")
        index = json.loads(doctor.stdout)["index"]
        assert index["freshness"] == "fresh" and index["path"].startswith("postgresql://") and "@" not in index["path"]


def _get(port: int, path: str) -> tuple[int, dict]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, {}


class _Replica:
    """One `seek slides serve --http` process over the PostgreSQL library, stopped by its PID."""

    def __init__(self, url: str, home: Path) -> None:
        self.port = free_port()
        env = {**os.environ, "SEEK_STORE": url, "SEEK_HOME": str(home), "SEEK_API_TOKEN": TOKEN,
               "SEEK_STORE_POLL_SECONDS": "0.3", "SEEK_USAGE_LOG": "false", "PYTHONPATH": str(ROOT)}
        self.log = home / "serve.log"
        home.mkdir(parents=True, exist_ok=True)
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "cli.main", "slides", "serve", "--http", "--port", str(self.port)],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, seconds: float = 120.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"the replica exited: {self.log.read_text()[-2000:]}")
            try:
                if _get(self.port, "/health")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        pytest.fail(f"the replica did not answer in {seconds:.0f}s: {self.log.read_text()[-2000:]}")

    def generation(self) -> int | None:
        status, stats = _get(self.port, "/stats")
        return stats["index_freshness"]["library_generation"] if status == 200 else None

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=20)


class TestReplicas:
    def test_two_replicas_serve_through_an_ingest_without_an_error_and_both_move_to_the_new_generation(
            self, generated, database, tmp_path, request):
        shared = PostgresStore(database)
        ingest_path(generated, shared)
        build_index(shared, embedder="fast")
        replicas = [_Replica(database, tmp_path / f"replica{i}") for i in range(2)]
        for replica in replicas:
            request.addfinalizer(replica.stop)
        for replica in replicas:
            replica.wait_ready()
        assert [r.generation() for r in replicas] == [1, 1]

        outcomes: list[int] = []
        stop = threading.Event()

        def search_loop(replica: _Replica) -> None:
            queries = ["fraud detection", "zorblax quantum ledgers", "mlops", "esg analytics"]
            while not stop.is_set():
                for query in queries:
                    status, _ = _get(replica.port, f"/search?q={query.replace(' ', '+')}")
                    outcomes.append(status)

        loops = [threading.Thread(target=search_loop, args=(r,)) for r in replicas]
        for loop in loops:
            loop.start()
        try:
            time.sleep(1.0)
            new = generated / "zz-new.jsonl"
            new.write_text("\n".join(json.dumps(Slide(
                slide_id=f"new_{i}", deck_id="new-deck", deck_name="Zorblax Quantum Ledgers.pptx",
                folder="/DAAIS/Sales", title=f"Zorblax quantum ledgers {i}",
                text="Zorblax quantum ledgers reconcile every payment in real time.",
            ).model_dump(mode="json")) for i in range(3)) + "\n")
            ingest_path(generated, shared)
            assert build_index(shared, embedder="fast").n_slides == 303
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and [r.generation() for r in replicas] != [2, 2]:
                time.sleep(0.3)
            time.sleep(1.0)  # requests keep running on the new generation
        finally:
            stop.set()
            for loop in loops:
                loop.join(timeout=60)
        shared.close()
        assert [r.generation() for r in replicas] == [2, 2]
        assert len(outcomes) > 20 and set(outcomes) == {200}, {s: outcomes.count(s) for s in set(outcomes)}
        for replica in replicas:
            status, response = _get(replica.port, "/search?q=zorblax+quantum+ledgers")
            ids = [c["id"] for cards in response["groups"].values() for c in cards]
            assert status == 200 and any(i.startswith("new_") for i in ids)


class TestStore:
    def test_a_replacement_bumps_the_generation_and_moves_the_source_to_the_end(self, database):
        store = PostgresStore(database)
        store.replace_source("a.jsonl", "jsonl", "h1", [Slide(slide_id="a1", deck_id="da")])
        store.replace_source("b.jsonl", "jsonl", "h2", [Slide(slide_id="b1", deck_id="db")])
        store.replace_source("a.jsonl", "jsonl", "h3", [Slide(slide_id="a2", deck_id="da")])
        assert store.generation == 3
        assert [s.slide_id for s in store.iter_slides()] == ["b1", "a2"]
        assert store.sources() == {"a.jsonl": "h3", "b.jsonl": "h2"}
        store.remove_source("b.jsonl")
        assert store.generation == 4 and store.counts()["slides"] == 1 and store.source_hash("b.jsonl") is None
        store.close()

    def test_an_id_held_by_another_source_is_a_conflict_and_nothing_is_written(self, database):
        store = PostgresStore(database)
        store.replace_source("a.jsonl", "jsonl", "h1", [Slide(slide_id="x", deck_id="da")])
        with pytest.raises(SourceConflict) as raised:
            store.replace_source("b.jsonl", "jsonl", "h2", [Slide(slide_id="x", deck_id="db"),
                                                             Slide(slide_id="y", deck_id="db")])
        assert raised.value.owners == {"a.jsonl": ["x"]}
        assert store.generation == 1 and store.counts()["slides"] == 1 and store.source_hash("b.jsonl") is None
        store.close()

    def test_a_failing_replacement_leaves_the_old_rows_and_hash(self, database):
        store = PostgresStore(database)
        store.replace_source("a.jsonl", "jsonl", "old", [Slide(slide_id=f"o{i}", deck_id="d") for i in range(10)])

        class BreaksHalfWay(list):
            def __iter__(self):
                for i, slide in enumerate(super().__iter__()):
                    if i == 500:
                        raise RuntimeError("the disk went away")
                    yield slide

        with pytest.raises(RuntimeError, match="went away"):
            store.replace_source("a.jsonl", "jsonl", "new",
                                 BreaksHalfWay(Slide(slide_id=f"n{i}", deck_id="d") for i in range(1000)))
        assert [s.slide_id for s in store.iter_slides()] == [f"o{i}" for i in range(10)]
        assert store.source_hash("a.jsonl") == "old" and store.generation == 1
        store.close()

    def test_a_second_writer_waits_for_the_advisory_lock_and_is_told_who_holds_it(self, database):
        told: list[str] = []
        order: list[str] = []
        with advisory_writer_lock(database):
            def second() -> None:
                with advisory_writer_lock(database, on_wait=told.append):
                    order.append("second")

            thread = threading.Thread(target=second)
            thread.start()
            deadline = time.monotonic() + 10
            while not told and time.monotonic() < deadline:
                time.sleep(0.05)
            order.append("first")
        thread.join(timeout=10)
        assert order == ["first", "second"]
        assert f"seek pid {os.getpid()}" in told[0]

    def test_the_store_setting_picks_postgres_for_a_url_and_the_files_otherwise(self, database, monkeypatch, tmp_path):
        from slidesearch.stores import open_store

        monkeypatch.setenv("SEEK_HOME", str(tmp_path))
        monkeypatch.setenv("SEEK_STORE", database)
        assert isinstance(store := open_store(), PostgresStore)
        store.close()
        monkeypatch.setenv("SEEK_STORE", "local")
        assert isinstance(store := open_store(), Store)
        store.close()


class TestPublishing:
    def test_a_live_service_says_it_is_behind_an_unpublished_ingest_and_moves_to_the_next_generation(
            self, generated, database):
        from slidesearch.serve.live import LiveService

        shared = PostgresStore(database)
        ingest_path(generated, shared)
        build_index(shared, embedder="fast")
        live = LiveService(database, poll_seconds=3600, warm=False)  # refreshed by hand below, not by its poller
        try:
            assert live.freshness()["status"] == "fresh" and live.stats()["index_freshness"]["library_generation"] == 1
            shared.replace_source("extra.jsonl", "jsonl", "h", [Slide(slide_id="extra-1", deck_id="extra",
                                                                       title="Quokka logistics")])
            behind = live.freshness()
            assert behind["status"] == "stale" and behind["store_generation"] > behind["index_generation"]
            assert live.refresh() is False  # nothing new is published yet
            build_index(shared, embedder="fast")
            assert live.refresh() is True and live.generation == 2
            assert live.freshness()["status"] == "fresh" and live.library.n == 301
            assert "extra-1" in live.library.id_to_row
        finally:
            live.close()
            shared.close()

    def test_a_publish_keeps_the_generation_it_replaces_and_drops_the_older_ones(self, generated, database):
        shared = PostgresStore(database)
        ingest_path(generated, shared)
        for _ in range(3):
            build_index(shared, embedder="fast")
        shared.close()
        with psycopg.connect(database) as conn:
            kept = [g for (g,) in conn.execute("SELECT generation FROM lib_generations ORDER BY 1")]
            rows = conn.execute("SELECT generation, count(*) FROM lib_slides GROUP BY 1 ORDER BY 1").fetchall()
        assert kept == [2, 3] and rows == [(2, 300), (3, 300)]
