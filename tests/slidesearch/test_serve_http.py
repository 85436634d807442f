import base64
import io
import re
import threading

import httpx
import pytest
import serve_corpus
from fastapi.testclient import TestClient
from pptx import Presentation

from slidesearch.engine import SlideSearch
from slidesearch.serve.http_api import MAX_BODY_BYTES, PPTX_MEDIA_TYPE, create_app, serve_in_thread
from slidesearch.serve.service import SlideService
from slidesearch.serve.usage_log import UsageLog


@pytest.fixture(scope="module")
def engine() -> SlideSearch:
    return SlideSearch(serve_corpus.build_library())


@pytest.fixture()
def log(tmp_path) -> UsageLog:
    return UsageLog(tmp_path / "library.db")


@pytest.fixture()
def client(engine, log):
    with TestClient(create_app(SlideService(engine, usage_log=log))) as client:
        yield client


def _ids(body) -> list[str]:
    return [card["id"] for cards in body["groups"].values() for card in cards]


class TestSearch:
    def test_post_returns_the_engines_response(self, client, engine):
        response = client.post("/search", json={"query": "customer analytics"})
        assert response.status_code == 200
        assert response.json() == engine.search_v2("customer analytics").model_dump(mode="json")

    def test_get_with_repeated_q_is_a_brief_of_angles(self, client, engine):
        response = client.get("/search", params=[("q", "fraud detection"), ("q", "regulatory compliance")])
        assert response.status_code == 200
        body = response.json()
        assert body["angles"] == ["fraud detection", "regulatory compliance"]
        assert body == engine.search_v2(["fraud detection", "regulatory compliance"]).model_dump(mode="json")

    def test_get_universes_are_comma_separated(self, client, engine):
        body = client.get("/search", params={"q": "customer analytics", "universes": "S&R,EdTech"}).json()
        universes = {engine.library.universes[engine.library.id_to_row[i]] for i in _ids(body)}
        assert body["universes"] == ["S&R", "EdTech"] and universes <= {"S&R", "EdTech"}

    def test_searches_are_logged_with_their_channel_and_session(self, client, log):
        client.post("/search", json={"query": "churn", "session_id": "visit-1"}, headers={"X-Seek-Channel": "page"})
        client.get("/search", params={"q": "capital call"})
        first, second = log.records()
        assert (first.channel, first.session_id, first.query) == ("page", "visit-1", "churn")
        assert second.channel == "http" and second.query == "capital call"


class TestExplainAndAssemble:
    def test_explain_answers_every_id_in_one_call(self, client):
        response = client.post("/explain", json={"query": "customer analytics", "slide_ids": ["d1", "e3", "s3"]})
        assert response.status_code == 200
        assert [e["slide_id"] for e in response.json()["explanations"]] == ["d1", "e3", "s3"]

    def test_explain_unknown_ids_is_a_400_listing_them(self, client):
        response = client.post("/explain", json={"query": "analytics", "slide_ids": ["d1", "nope"]})
        assert response.status_code == 400 and "unknown slide ids: nope" in response.json()["error"]

    def test_explain_is_noted_on_the_logged_search(self, client, log):
        client.post("/search", json={"query": "churn", "session_id": "v2"})
        client.post("/explain", json={"query": "churn", "slide_ids": ["d2"], "session_id": "v2"})
        assert log.records()[0].explained_ids == ["d2"]

    def test_assemble_returns_a_pptx_that_opens(self, client):
        response = client.post("/assemble", json={"slide_ids": ["d3", "e2"], "query": "case studies",
                                                  "title": "Proof points"})
        assert response.status_code == 200
        assert response.headers["content-type"] == PPTX_MEDIA_TYPE
        assert 'filename="Proof-points.pptx"' in response.headers["content-disposition"]
        prs = Presentation(io.BytesIO(response.content))
        assert len(prs.slides) == 4 and prs.core_properties.subject == "case studies"

    def test_assemble_json_gives_notes_and_base64(self, client):
        body = client.post("/assemble", json={"slide_ids": ["d1"], "format": "json"}).json()
        assert body["slides"][0]["slide_id"] == "d1" and body["slides"][0]["mode"] == "text"
        assert len(Presentation(io.BytesIO(base64.b64decode(body["pptx_base64"]))).slides) == 2

    @pytest.mark.parametrize("size", ["max_slides", "max"])  # max_slides as over MCP; max, the older name
    def test_assemble_from_a_query_alone(self, client, size):
        response = client.post("/assemble", json={"query": "fraud detection case study", "sections": ["Case Studies"],
                                                  size: 1})
        assert response.status_code == 200 and response.headers["x-seek-slides-as-text"] == "1"


class TestOneVocabulary:
    def test_get_takes_universe_repeated_or_comma_separated_like_the_cli(self, client):
        repeated = client.get("/search", params=[("q", "customer analytics"), ("universe", "S&R"), ("universe", "EdTech")])
        commas = client.get("/search", params={"q": "customer analytics", "universe": "S&R,EdTech"})
        assert repeated.json()["universes"] == commas.json()["universes"] == ["S&R", "EdTech"]

    def test_post_universes_may_hold_comma_separated_names(self, client):
        body = client.post("/search", json={"query": "customer analytics", "universes": ["S&R, EdTech"]}).json()
        assert body["universes"] == ["S&R", "EdTech"]

    def test_universes_lists_what_a_search_may_name(self, engine):
        with TestClient(create_app(SlideService(engine))) as client:
            assert client.get("/universes").json() == {"universes": ["DAAIS", "EdTech", "S&R"]}
        with TestClient(create_app(SlideService(engine, scope=["S&R"]))) as client:
            assert client.get("/universes").json() == {"universes": ["S&R"]}

    def test_health_says_when_the_index_on_disk_is_stale(self, _isolated_seek_home, tmp_path):
        from slidesearch.freshness import record_sources
        from slidesearch.store import Store

        index = serve_corpus.build_index(_isolated_seek_home)
        store = Store(index.parent / "library.db")
        record_sources(index, store.path)
        service = SlideService(SlideSearch.open(index), index_path=index)
        with TestClient(create_app(service)) as client:
            assert client.get("/health").json()["index"]["status"] == "fresh"
            store.replace_source(str(tmp_path / "new.jsonl"), "jsonl", "abc")
            assert client.get("/health").json()["index"] == {"status": "stale"}  # the counts and paths: /stats
            assert client.get("/stats").json()["index_freshness"]["status"] == "stale"
        store.close()

    def test_assemble_unknown_ids_is_a_400_and_no_file(self, client):
        response = client.post("/assemble", json={"slide_ids": ["d1", "ghost"]})
        assert response.status_code == 400 and "ghost" in response.json()["error"]


class TestBadInput:
    @pytest.mark.parametrize("body, fragment", [
        ({"query": ""}, "query is empty"),
        ({"query": ["  ", ""]}, "query is empty"),
        ({"query": "\u0000"}, "query is empty"),
        ({"query": ["\u0001\u0002", " "]}, "query is empty"),
        ({"query": 123}, "query"),
        ({"query": "ok", "top_per_group": 51}, "top_per_group"),
        ({"query": "ok", "top_per_group": "many"}, "top_per_group"),
        ({"query": "ok", "top_per_group": 0}, "top_per_group"),
        ({"query": "ok", "universes": "DAAIS"}, "universes"),
        ({"query": "ok", "colour": "blue"}, "colour"),
        ({}, "query: Field required"),
    ])
    def test_bad_search_bodies_are_422_with_a_clear_message(self, client, body, fragment):
        response = client.post("/search", json=body)
        assert response.status_code == 422
        assert response.json()["error"].startswith("invalid request:") and fragment in response.json()["error"]

    def test_malformed_json_is_422(self, client):
        response = client.post("/search", content=b"{not json", headers={"Content-Type": "application/json"})
        assert response.status_code == 422 and "JSON" in response.json()["error"]

    def test_get_without_q_is_422(self, client):
        response = client.get("/search")
        assert response.status_code == 422 and "q: Field required" in response.json()["error"]

    def test_get_blank_q_is_422(self, client):
        assert "query is empty" in client.get("/search", params={"q": "  "}).json()["error"]
        control = client.get("/search", params={"q": "\u0000"})
        assert control.status_code == 422 and "query is empty" in control.json()["error"]

    def test_huge_declared_body_is_413_before_parsing(self, client):
        response = client.post("/search", json={"query": "a" * (MAX_BODY_BYTES + 10)})
        assert response.status_code == 413 and "too large" in response.json()["error"]

    def test_huge_streamed_body_is_413(self, client):
        def chunks():
            for _ in range(20):
                yield b"x" * 8192

        response = client.post("/search", content=chunks(), headers={"Content-Type": "application/json"})
        assert response.status_code == 413

    def test_too_many_explain_ids_is_422(self, client):
        response = client.post("/explain", json={"query": "a", "slide_ids": [f"d{i}" for i in range(101)]})
        assert response.status_code == 422 and "slide_ids" in response.json()["error"]

    def test_assemble_needs_ids_or_a_query(self, client):
        response = client.post("/assemble", json={"title": "Empty"})
        assert response.status_code == 422 and "give slide_ids" in response.json()["error"]

    def test_non_ascii_title_gives_an_ascii_file_name(self, client):
        response = client.post("/assemble", json={"slide_ids": ["d1"], "title": "日本 pitch ü"})
        assert response.status_code == 200 and 'filename="pitch.pptx"' in response.headers["content-disposition"]

    def test_an_engine_crash_is_a_json_500_without_details(self, engine):
        class BrokenEngine(SlideSearch):
            def __init__(self):
                super().__init__(engine.library)

            def search_v2(self, *args, **kwargs):
                raise RuntimeError("index file vanished: /secret/path")

        app = create_app(SlideService(BrokenEngine()))
        with TestClient(app, raise_server_exceptions=False) as client:
            response = client.post("/search", json={"query": "churn"})
        assert response.status_code == 500 and "/secret/path" not in response.text
        assert response.json() == {"error": "internal error; the server's log has the details"}

    def test_unknown_path_is_a_json_404(self, client):
        response = client.get("/nowhere")
        assert response.status_code == 404 and response.json() == {"error": "Not Found"}


class TestToken:
    @pytest.fixture()
    def guarded(self, engine):
        with TestClient(create_app(SlideService(engine), api_token="s3cret-token")) as client:
            yield client

    def test_data_endpoints_need_the_bearer_token(self, guarded):
        for method, path, body in [("post", "/search", {"query": "churn"}), ("get", "/stats", None),
                                   ("post", "/explain", {"query": "churn", "slide_ids": ["d2"]}),
                                   ("post", "/assemble", {"slide_ids": ["d2"]})]:
            response = guarded.request(method, path, json=body)
            assert response.status_code == 401, path
            assert response.headers["www-authenticate"] == "Bearer"
            assert "bearer token" in response.json()["error"]

    def test_wrong_token_is_refused_and_right_token_served(self, guarded):
        wrong = guarded.post("/search", json={"query": "churn"}, headers={"Authorization": "Bearer nope"})
        right = guarded.post("/search", json={"query": "churn"}, headers={"Authorization": "Bearer s3cret-token"})
        assert wrong.status_code == 401 and right.status_code == 200

    def test_health_page_and_schema_stay_open(self, guarded):
        assert guarded.get("/health").status_code == 200
        assert guarded.get("/").status_code == 200
        assert guarded.get("/openapi.json").status_code == 200


class TestServiceEndpoints:
    def test_health(self, client):
        assert client.get("/health").json() == {"status": "ok", "slides": 17, "index": None}  # a library in memory

    def test_stats_report_the_library_and_what_was_served(self, client):
        client.post("/search", json={"query": "churn"})
        client.post("/search", json={"query": ""})
        stats = client.get("/stats").json()
        assert stats["library"]["slides"] == 17 and stats["library"]["universes"] == {"DAAIS": 9, "EdTech": 4, "S&R": 4}
        assert stats["served"]["search"] == 1 and stats["served"]["errors_4xx"] == 1
        assert stats["served"]["search_latency_ms"]["n"] == 1 and stats["usage_log"] is True

    def test_openapi_schema_lists_the_endpoints_and_request_models(self, client):
        schema = client.get("/openapi.json").json()
        assert {"/search", "/explain", "/assemble", "/health", "/stats"} <= set(schema["paths"])
        assert {"get", "post"} <= set(schema["paths"]["/search"])
        assert {"SearchRequest", "SearchResponse", "Card", "ExplainResponse"} <= set(schema["components"]["schemas"])

    def test_page_and_static_files_are_served(self, client):
        page = client.get("/")
        assert page.status_code == 200 and "text/html" in page.headers["content-type"]
        assert "Download deck" in page.text and "/static/app.js" in page.text
        assert "Why this?" in client.get("/static/app.js").text
        assert client.get("/static/style.css").status_code == 200

    def test_the_page_reads_the_response_fields_it_shows(self, client):
        # The page is plain JS over the JSON of /search: each field it reads must exist in the response model.
        script = client.get("/static/app.js").text
        card_fields = set(client.get("/openapi.json").json()["components"]["schemas"]["Card"]["properties"])
        response_fields = set(client.get("/openapi.json").json()["components"]["schemas"]["SearchResponse"]["properties"])
        dom = {"classList", "querySelector"}  # `card` also names a card's DOM node in the explain handler
        assert set(re.findall(r"\bcard\.(\w+)", script)) - dom <= card_fields
        assert set(re.findall(r"\bdata\.(\w+)", script)) - {"explanations"} <= response_fields
        assert {"angle", "title", "preview"} <= set(re.findall(r"\bcard\.(\w+)", script))

    def test_scoped_server_refuses_a_search_outside_its_scope(self, engine):
        with TestClient(create_app(SlideService(engine, scope=["EdTech"]))) as client:
            response = client.post("/search", json={"query": "customer analytics", "universes": ["DAAIS"]})
            assert response.status_code == 400
            assert response.json()["error"] == "unknown universe(s) in universes: DAAIS; the library has EdTech"
            body = client.post("/search", json={"query": "customer analytics"}).json()
            assert _ids(body) and all(i.startswith("e") or i.startswith("verified:") for i in _ids(body))


class TestConcurrency:
    def test_concurrent_requests_on_one_engine_match_serial_answers(self, engine):
        queries = ["customer analytics", "fraud detection", "capital call", "learning analytics",
                   "payment terms", "Anand S profile", "churn dashboard", "curriculum design"]
        expected = {q: engine.search_v2(q).model_dump(mode="json") for q in queries}
        results: list[tuple[str, int, dict]] = []
        lock = threading.Lock()
        with serve_in_thread(create_app(SlideService(engine), workers=4)) as base:
            def worker(offset: int) -> None:
                with httpx.Client(base_url=base, timeout=30) as http:
                    for i in range(6):
                        query = queries[(offset + i) % len(queries)]
                        response = http.post("/search", json={"query": query})
                        with lock:
                            results.append((query, response.status_code, response.json()))

            threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        assert len(results) == 48
        assert all(status == 200 for _, status, _ in results)
        assert all(body == expected[query] for query, _, body in results)
