"""Input that breaks encoders, a locked usage log, and server paths: what the serving layer must survive (#18)."""

import http.client
import json
import sqlite3
import time

import pytest
import serve_corpus
from fastapi.testclient import TestClient
from pptx import Presentation

from slidesearch.engine import SlideSearch
from slidesearch.library import Library
from slidesearch.model import Slide
from slidesearch.serve.http_api import create_app, serve_in_thread
from slidesearch.serve.service import SlideService
from slidesearch.serve.usage_log import UsageLog

LONE_SURROGATE = '"\\ud800abc"'  # JSON text: a lone high surrogate, then "abc"


@pytest.fixture(scope="module")
def engine() -> SlideSearch:
    return SlideSearch(serve_corpus.build_library())


def _post(conn: http.client.HTTPConnection, path: str, body: str) -> tuple[int, dict]:
    conn.request("POST", path, body=body.encode(), headers={"content-type": "application/json"})
    response = conn.getresponse()
    return response.status, json.loads(response.read())


class TestLoneSurrogates:
    def test_a_lone_surrogate_is_searched_and_the_keep_alive_connection_survives(self, engine, tmp_path):
        log = UsageLog(tmp_path / "library.db")
        with serve_in_thread(create_app(SlideService(engine, usage_log=log))) as base:
            host, port = base.removeprefix("http://").split(":")
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
            try:
                status, _ = _post(conn, "/search", '{"query": "churn"}')
                socket_before = conn.sock
                results = [
                    _post(conn, "/search", f'{{"query": {LONE_SURROGATE}}}'),
                    _post(conn, "/search", f'{{"query": ["churn", {LONE_SURROGATE}]}}'),
                    _post(conn, "/explain", f'{{"query": {LONE_SURROGATE}, "slide_ids": ["d2"]}}'),
                    _post(conn, "/search", '{"query": "churn"}'),
                ]
                same_connection = conn.sock is socket_before
            finally:
                conn.close()
        assert status == 200 and [status for status, _ in results] == [200, 200, 200, 200]
        assert results[0][1]["angles"] == ["\ufffdabc"] and results[1][1]["angles"] == ["churn", "\ufffdabc"]
        assert same_connection
        assert [r.query for r in log.records()] == ["churn", "\ufffdabc", ["churn", "\ufffdabc"], "churn"]

    def test_every_text_field_of_the_service_is_cleaned(self, engine):
        service = SlideService(engine, scope=["DAAIS"])
        with pytest.raises(ValueError, match="unknown universe") as refused:
            service.search("churn", ["\ud800"], channel="test")
        assert "\ud800" not in str(refused.value)
        with pytest.raises(ValueError, match="unknown slide ids") as refused:
            service.explain("churn", ["d\udfff"], channel="test")
        assert "\udfff" not in str(refused.value)
        result = service.assemble(["d1"], title="Deck \ud800", channel="test")
        assert result.data and result.n_slides == 3  # cover, the slide, sources


class TestUsageLogNeverBlocksASearch:
    def test_a_write_lock_on_the_library_database_delays_the_record_not_the_search(self, engine, tmp_path):
        db = tmp_path / "library.db"
        log = UsageLog(db)
        log.record_search(channel="http", session_id="s0", query="warm", universes=None, slide_ids=[], latency_ms=1)
        ingest = sqlite3.connect(db, timeout=0)
        ingest.execute("BEGIN IMMEDIATE")  # what an ingest holds while it replaces a source's slides
        ingest.execute("INSERT INTO usage_log (time, session_id, channel, query, universes, slide_ids, latency_ms, "
                       "explained_ids) VALUES (0, 'ingest', 'x', '\"x\"', 'null', '[]', 0, '[]')")
        try:
            with TestClient(create_app(SlideService(engine, usage_log=log))) as client:
                started = time.monotonic()
                response = client.post("/search", json={"query": "churn", "session_id": "s1"})
                explained = client.post("/explain", json={"query": "churn", "slide_ids": ["d2"], "session_id": "s1"})
                elapsed = time.monotonic() - started
        finally:
            ingest.rollback()
            ingest.close()
        assert response.status_code == 200 and explained.status_code == 200
        assert elapsed < 5, f"the search waited {elapsed:.1f} s on the usage log's lock"
        logged = {r.session_id: r for r in log.records()}
        assert logged["s1"].query == "churn" and logged["s1"].explained_ids == ["d2"]


class TestAssembleNamesNoServerPath:
    def test_assemble_json_names_source_decks_by_their_place_in_the_library(self, tmp_path):
        root = tmp_path / "server-only" / "decks"
        real = root / "DAAIS" / "Sales" / "Pitch.pptx"
        real.parent.mkdir(parents=True)
        prs = Presentation()
        prs.slides.add_slide(prs.slide_layouts[1]).shapes.title.text = "Our pitch"
        prs.save(real)
        broken = root / "DAAIS" / "Sales" / "Broken.pptx"
        broken.write_bytes(b"not a deck")

        def slide(slide_id, deck, number, path):
            return Slide(slide_id=slide_id, deck_id=deck, deck_name=f"{deck}.pptx", folder="/DAAIS/Sales",
                         slide_number=number, title=f"{slide_id} title", text=f"{slide_id} text about pricing",
                         source_path=str(path))

        library = Library.from_slides([slide("p1", "Pitch", 1, real), slide("p9", "Pitch", 9, real),
                                       slide("gone", "Gone", 1, root / "DAAIS" / "Sales" / "Gone.pptx"),
                                       slide("bad", "Broken", 1, broken)], embedder="fast")
        with TestClient(create_app(SlideService(SlideSearch(library)))) as client:
            response = client.post("/assemble", json={"slide_ids": ["p1", "p9", "gone", "bad"], "format": "json"})
        assert response.status_code == 200
        body = response.json()
        assert str(tmp_path) not in response.text and "server-only" not in response.text
        assert body["template"] == "/DAAIS/Sales/Pitch.pptx"
        reasons = {s["slide_id"]: s["reason"] for s in body["slides"]}
        assert reasons["p9"] == "slide 9 not found in /DAAIS/Sales/Pitch.pptx (1 slides)"
        assert reasons["gone"] == "source file /DAAIS/Sales/Gone.pptx is missing"
        assert reasons["bad"].startswith("source file /DAAIS/Sales/Broken.pptx could not be opened")
