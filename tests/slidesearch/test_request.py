"""One input policy: every entry point (service, HTTP, MCP, CLI) accepts, cuts, merges and refuses alike."""

import anyio
import pytest
import serve_corpus
from fastapi.testclient import TestClient
from mcp import Client
from typer.testing import CliRunner

from cli.main import app as cli_app
from slidesearch.config import SearchConfig
from slidesearch.engine import SlideSearch
from slidesearch.request import RequestError, RequestPolicy, split_universes
from slidesearch.serve.http_api import create_app
from slidesearch.serve.mcp_server import build_mcp_server
from slidesearch.serve.service import SlideService

NINE_ANGLES = [f"customer analytics {word}" for word in
               ("retail", "banking", "pharma", "telecom", "insurance", "energy", "media", "travel", "mining")]
LONG_ANGLE = "fraud detection " + "analytics " * 120  # about 1,200 characters


class TestPolicy:
    def test_limits_come_from_the_search_config(self):
        policy = RequestPolicy.of(SearchConfig(max_angles=3, max_top_per_group=20))
        assert (policy.max_angles, policy.max_top_per_group, policy.section_cap) == (3, 20, 15)
        with pytest.raises(RequestError, match="between 1 and 20"):
            policy.top_per_group(21)

    @pytest.mark.parametrize("value", [0, -1, 51, True, "15"])
    def test_top_per_group_outside_its_range_is_refused(self, value):
        with pytest.raises(RequestError, match="top_per_group must be between 1 and 50"):
            RequestPolicy.of().top_per_group(value)

    def test_text_is_not_refused_for_its_length(self):
        policy = RequestPolicy.of()
        assert policy.query(NINE_ANGLES) == NINE_ANGLES and policy.query(LONG_ANGLE) == LONG_ANGLE.strip()
        with pytest.raises(RequestError, match="query is empty"):
            policy.query(["", " \u0000 "])

    def test_universes_are_a_list_commas_or_both(self):
        assert split_universes(["DAAIS", "S&R, EdTech", " "]) == ["DAAIS", "S&R", "EdTech"]
        assert split_universes("DAAIS,DAAIS") == ["DAAIS"] and split_universes([" , "]) is None


@pytest.fixture(scope="module")
def engine():
    return SlideSearch(serve_corpus.build_library())


@pytest.fixture()
def index(_isolated_seek_home):
    return serve_corpus.build_index(_isolated_seek_home)


def _service(engine, query, top_per_group=15):
    try:
        return "ok", SlideService(engine).search(query, top_per_group=top_per_group, channel="test").notes
    except RequestError as exc:
        return "refused", str(exc)


def _http(engine, query, top_per_group=15):
    with TestClient(create_app(SlideService(engine))) as client:
        response = client.post("/search", json={"query": query, "top_per_group": top_per_group})
    body = response.json()
    return ("ok", body["notes"]) if response.status_code == 200 else ("refused", body["error"])


def _mcp(engine, query, top_per_group=15):
    server = build_mcp_server(SlideService(engine))

    async def call():
        async with Client(server) as client:
            return await client.call_tool("search_v2", {"query": query, "top_per_group": top_per_group})

    result = anyio.run(call)
    return ("refused", result.content[0].text) if result.is_error else ("ok", result.structured_content["notes"])


def _cli(index, query, top_per_group=15):
    args = query if isinstance(query, list) else [query]
    result = CliRunner().invoke(cli_app, ["slides", "search", *args, "--top-per-group", str(top_per_group),
                                          "--index", str(index), "--json"])
    if result.exit_code:
        return "refused", " ".join(result.output.split())
    import json

    return "ok", json.loads(result.stdout)["notes"]


class TestEveryEntryPointAppliesTheSamePolicy:
    @pytest.mark.parametrize("query, note", [
        (NINE_ANGLES, "a brief has at most 8 angles; angles 8 to 9 were searched together as one"),
        (LONG_ANGLE, "an angle is searched on its first 1,000 characters; the rest was left out"),
    ])
    def test_an_oversized_brief_is_searched_with_a_note_everywhere(self, engine, index, query, note):
        answers = {"service": _service(engine, query), "http": _http(engine, query), "mcp": _mcp(engine, query),
                   "cli": _cli(index, query)}
        assert answers == {channel: ("ok", [note]) for channel in answers}

    @pytest.mark.parametrize("query, top_per_group, fragment", [
        (["  ", ""], 15, "query is empty"),
        ("customer analytics", 51, "top_per_group"),
        ("customer analytics", 0, "top_per_group"),
    ])
    def test_an_empty_query_or_a_number_out_of_range_is_refused_everywhere(self, engine, index, query,
                                                                            top_per_group, fragment):
        answers = {"service": _service(engine, query, top_per_group), "http": _http(engine, query, top_per_group),
                   "mcp": _mcp(engine, query, top_per_group), "cli": _cli(index, query, top_per_group)}
        assert {channel: status for channel, (status, _) in answers.items()} == dict.fromkeys(answers, "refused")
        assert all(fragment in message for _, message in answers.values()), answers

    def test_more_than_fifteen_per_section_shows_fifteen_and_says_so_everywhere(self, engine, index):
        # the serving corpus has fewer than 16 cards a section, so the cap's note is not due; the request is accepted
        answers = [_service(engine, "analytics", 30), _http(engine, "analytics", 30), _mcp(engine, "analytics", 30),
                   _cli(index, "analytics", 30)]
        assert all(status == "ok" for status, _ in answers) and len({tuple(notes) for _, notes in answers}) == 1
