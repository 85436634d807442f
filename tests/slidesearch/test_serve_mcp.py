"""The MCP server driven by the SDK's own client over stdio, as an assistant would spawn it."""

import base64
import io
import os
import sys
from pathlib import Path

import anyio
import pytest
import serve_corpus
from answers import assert_same_answer
from mcp import Client, StdioServerParameters
from pptx import Presentation

from slidesearch.engine import SlideSearch
from slidesearch.serve.http_api import serve_in_thread
from slidesearch.serve.mcp_server import build_mcp_server
from slidesearch.serve.service import SlideService
from slidesearch.serve.usage_log import UsageLog

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.integration


@pytest.fixture()
def index(_isolated_seek_home) -> Path:
    return serve_corpus.build_index(_isolated_seek_home)


def _server(home: Path, *extra: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k.startswith(("SEEK_", "HF_", "PYTHON"))}
    env["SEEK_HOME"] = str(home)
    return StdioServerParameters(command=sys.executable, args=["-m", "cli.main", "slides", "serve", "--mcp", "--stdio",
                                                               *extra], env=env, cwd=str(REPO))


def _run(params: StdioServerParameters, calls):
    async def session():
        async with Client(params, read_timeout_seconds=120) as client:
            return await calls(client)

    return anyio.run(session)


def _card_ids(structured) -> list[str]:
    return [card["id"] for cards in structured["groups"].values() for card in cards]


class TestUnscopedServer:
    def test_lists_tools_and_answers_like_the_library(self, index, _isolated_seek_home):
        async def calls(client):
            tools = (await client.list_tools()).tools
            search = await client.call_tool("search_v2", {"query": ["fraud detection", "regulatory compliance"]})
            ids = _card_ids(search.structured_content)[:4]
            explain = await client.call_tool("explain", {"query": ["fraud detection", "regulatory compliance"],
                                                         "slide_ids": ids})
            deck = await client.call_tool("assemble_deck", {"slide_ids": ids[:2], "return_as": "base64"})
            empty = await client.call_tool("search_v2", {"query": "   "})
            return tools, search, ids, explain, deck, empty

        tools, search, ids, explain, deck, empty = _run(_server(_isolated_seek_home), calls)

        by_name = {tool.name: tool for tool in tools}
        assert set(by_name) == {"search_v2", "explain", "assemble_deck"}
        schema = by_name["search_v2"].input_schema
        assert schema["required"] == ["query"] and {"query", "universes", "top_per_group"} <= set(schema["properties"])
        assert schema["properties"]["top_per_group"]["maximum"] == 50
        assert "Use for any request to find slides" in by_name["search_v2"].description
        assert "only when the user asks why" in by_name["explain"].description
        assert by_name["search_v2"].annotations.read_only_hint is True

        engine = SlideSearch.open(index)
        expected = engine.search_v2(["fraud detection", "regulatory compliance"])
        assert not search.is_error
        assert_same_answer(search.structured_content, expected.model_dump(mode="json"))
        explained = [e.model_dump(mode="json") for e in engine.explain(["fraud detection", "regulatory compliance"], ids)]
        assert_same_answer(explain.structured_content, {"result": explained})

        assert not deck.is_error
        prs = Presentation(io.BytesIO(base64.b64decode(deck.structured_content["base64"])))
        assert len(prs.slides) == 3 and deck.structured_content["path"] is None

        assert empty.is_error and "query is empty" in empty.content[0].text

        records = UsageLog(_isolated_seek_home / "slides" / "library.db").records()
        assert [r.channel for r in records] == ["mcp"]
        assert records[0].slide_ids == _card_ids(search.structured_content)
        assert records[0].explained_ids == ids


class TestScopedServer:
    def test_never_returns_a_slide_outside_its_scope(self, index, _isolated_seek_home):
        library = SlideSearch.open(index).library

        async def calls(client):
            return {
                "asks_other": await client.call_tool("search_v2", {"query": "customer analytics",
                                                                   "universes": ["DAAIS"]}),
                "asks_both": await client.call_tool("search_v2", {"query": "customer analytics",
                                                                  "universes": ["DAAIS", "EdTech"]}),
                "asks_own": await client.call_tool("search_v2", {"query": "customer analytics",
                                                                 "universes": ["edtech"]}),
                "asks_none": await client.call_tool("search_v2", {"query": "fraud detection case study"}),
                "explain_other": await client.call_tool("explain", {"query": "customer analytics",
                                                                    "slide_ids": ["e3", "d1"]}),
                "deck_other": await client.call_tool("assemble_deck", {"slide_ids": ["d3"], "return_as": "base64"}),
                "deck_query": await client.call_tool("assemble_deck", {"query": "analytics", "universes": ["DAAIS"],
                                                                       "return_as": "path"}),
                "deck_default": await client.call_tool("assemble_deck", {"query": "analytics", "max_slides": 3}),
            }

        results = _run(_server(_isolated_seek_home, "--universes", "EdTech"), calls)

        for key in ("asks_other", "asks_both"):  # a universe outside the scope is unknown, as in a library without it
            assert results[key].is_error
            assert "unknown universe(s) in universes: DAAIS; the library has EdTech" in results[key].content[0].text
        for key in ("asks_own", "asks_none"):
            result = results[key]
            assert not result.is_error and result.structured_content["universes"] == ["EdTech"]
            slides = [i for i in _card_ids(result.structured_content) if not i.startswith("verified:")]
            assert slides and {library.universes[library.id_to_row[i]] for i in slides} == {"EdTech"}
        assert results["explain_other"].is_error and "d1" in results["explain_other"].content[0].text
        assert results["deck_other"].is_error and "d3" in results["deck_other"].content[0].text
        assert results["deck_query"].is_error
        deck = results["deck_default"].structured_content
        assert Path(deck["path"]).is_file() and Path(deck["path"]).parent == _isolated_seek_home / "decks"
        assert deck["slides"] and all(library.universes[library.id_to_row[s["slide_id"]]] == "EdTech"
                                      for s in deck["slides"])


class TestStreamableHttpTransport:
    def test_http_transport_serves_the_same_scoped_tools(self, tmp_path):
        engine = SlideSearch(serve_corpus.build_library())
        log = UsageLog(tmp_path / "library.db")
        service = SlideService(engine, scope=["S&R"], usage_log=log)
        app = build_mcp_server(service, decks_dir=tmp_path / "decks", stdio=False).streamable_http_app()

        async def calls(client):
            search = await client.call_tool("search_v2", {"query": "customer analytics", "universes": ["s&r"]})
            ids = _card_ids(search.structured_content)
            explain = await client.call_tool("explain", {"query": "customer analytics", "slide_ids": ids})
            return search, ids, explain

        with serve_in_thread(app) as base:
            async def session():
                async with Client(f"{base}/mcp", read_timeout_seconds=60) as client:
                    return await calls(client)

            search, ids, explain = anyio.run(session)

        scoped = engine.within(["S&R"])  # the library a server scoped to S&R serves: S&R's alone
        assert_same_answer(search.structured_content, scoped.search_v2("customer analytics", ["S&R"]).model_dump(mode="json"))
        assert ids and all(engine.library.universes[engine.library.id_to_row[i]] == "S&R" for i in ids)
        assert [e["slide_id"] for e in explain.structured_content["result"]] == ids
        (record,) = log.records()
        assert record.channel == "mcp" and record.universes == ["S&R"]
        assert record.explained_ids == ids
