"""The MCP server (`seek slides serve --mcp`): search_v2, explain and assemble_deck as tools.

Built on the official MCP Python SDK's ``MCPServer`` (mcp 2.x; FastMCP in 1.x).
Each tool's JSON schema comes from its typed signature, and its description
tells an assistant when to reach for it: ``search_v2`` for any request to find
slides, ``explain`` when the user asks why a card was returned, and
``assemble_deck`` once they have picked slides (or want "a deck about X").
Every call goes through the shared ``SlideService``, so the server-side
``--universes`` scope is intersected into every tool call whatever the caller
passes. The tool functions are synchronous; the SDK runs them on worker
threads, and the engine behind them is shared read-only.

Transports: stdio (an assistant spawns ``seek slides serve --mcp --stdio``) or
streamable HTTP on 127.0.0.1 (``--port P``, endpoint ``/mcp``). Over HTTP the server
enforces the HTTP API's bearer token (``SEEK_API_TOKEN``) on every request
(``slidesearch.serve.auth``); over stdio the caller is the process that spawned it.
"""

from __future__ import annotations

import base64
import time
import uuid
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from core.settings import get_settings
from slidesearch.assemble import MAX_DECK_SLIDES, AssembledSlide, AssembleError
from slidesearch.request import split_universes
from slidesearch.response import Explanation, SearchResponse
from slidesearch.sections import SECTIONS
from slidesearch.serve.auth import RequireBearer
from slidesearch.serve.service import MAX_TOP_PER_GROUP, ServiceError, SlideService

SERVER_NAME = "seek-slides"

INSTRUCTIONS = (
    "seek searches a sales team's slide library. Use search_v2 whenever the user wants slides, case studies, "
    "proof points, capabilities, team bios or pricing material; pass a multi-part brief as a list of angles. "
    "Results come grouped into sections in ranked order; show them in that order. Use explain only when the user "
    "asks why cards were returned, for all visible cards in one call. Use assemble_deck to build a .pptx once the "
    "user has chosen slides, or to build one straight from a query."
)

SEARCH_DESCRIPTION = (
    "Search the slide library. Use for any request to find slides or material: topics ('customer analytics'), "
    "clients + sections ('blackrock case studies'), people ('Anand S profile'), phrases, proof with figures, or "
    "a multi-part brief (pass a list, one angle per item). Exclusions in words work ('without case studies'). "
    "Returns cards grouped into up to eight sections (Case Studies, Approach & Methodology, Data & Analytics, "
    "Capabilities & Overview, Team & Credentials, Credibility & Recognition, Commercial & Contract Terms, Other) "
    "in ranked order, each card with id, title, deck, score and its factors, a 200-character preview and a "
    "verified flag; plus a coverage note when the library lacks the exact wording. The server may restrict "
    "universes; the result says which were searched."
)

EXPLAIN_DESCRIPTION = (
    "Explain why cards were returned for a query ('Why this?'). Call it only when the user asks why, with the "
    "same query the cards were ranked for and the ids of all the cards they can see, in one batch; returns one "
    "short explanation per id that names only connections present in the slide."
)

ASSEMBLE_DESCRIPTION = (
    "Build a PowerPoint deck. Give slide_ids (card ids from search_v2, in deck order) once the user has picked "
    "slides; or give only a query to take the top cards of the named sections (in the engine's order, at most "
    "max_slides). Slides from real .pptx files are copied with their content and layout; others become clean "
    "text slides; a Sources slide closes the deck. Returns a file path on this machine, or the file as base64."
)


class DeckResult(BaseModel):
    """What ``assemble_deck`` returns: where the deck is (or its bytes) and what happened to each slide."""

    path: str | None = Field(description="Where the .pptx was written, when return_as is 'path'.")
    base64: str | None = Field(description="The .pptx file, base64-encoded, when return_as is 'base64'.")
    n_slides: int
    slides: list[AssembledSlide]


class _Sessions:
    """The usage log's session id for a tool call.

    Over stdio one process serves one assistant connection, so the process is the
    session. Over HTTP the client's ``mcp-session-id`` header names it when the
    transport keeps sessions; a stateless call has none (the log gives its search a
    session of its own and matches its explain calls by query).
    """

    def __init__(self, stdio: bool) -> None:
        self._stdio = stdio
        self._process = uuid.uuid4().hex

    def of(self, ctx: Context | None) -> str | None:
        if self._stdio or ctx is None:
            return self._process
        session = (ctx.headers or {}).get("mcp-session-id")
        return str(session)[:64] if session else None


def build_mcp_server(service: SlideService, decks_dir: Path | None = None, stdio: bool = True) -> MCPServer:
    """An ``MCPServer`` whose three tools call ``service`` (and so respect its scope and usage log)."""
    mcp: MCPServer = MCPServer(SERVER_NAME, title="seek SlideSearch", instructions=INSTRUCTIONS, version="1")
    sessions = _Sessions(stdio)
    decks = decks_dir or get_settings().home / "decks"

    def refused(exc: Exception) -> ToolError:
        return ToolError(str(exc))

    @mcp.tool(name="search_v2", title="Search the slide library", description=SEARCH_DESCRIPTION,
              annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def search_v2(
        query: Annotated[str | list[str], Field(description="The request, or a list of angles for a multi-part brief.")],
        universes: Annotated[list[str] | str | None, Field(
            description="Universes to search (e.g. DAAIS, S&R, EdTech), a list or comma-separated; omit for all "
                        "the server allows.")] = None,
        top_per_group: Annotated[int, Field(ge=1, le=MAX_TOP_PER_GROUP, description="Cards per section at most.")] = 15,
        ctx: Context | None = None,
    ) -> SearchResponse:
        try:
            return service.search(query, split_universes(universes), top_per_group, channel="mcp",
                                  session_id=sessions.of(ctx))
        except ServiceError as exc:
            raise refused(exc) from exc

    @mcp.tool(name="explain", title="Why were these cards returned?", description=EXPLAIN_DESCRIPTION,
              annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def explain(
        query: Annotated[str | list[str], Field(description="The query the cards were ranked for, as sent to search_v2.")],
        slide_ids: Annotated[list[str], Field(min_length=1, description="Card ids from search_v2, all visible ones.")],
        universes: Annotated[list[str] | str | None, Field(
            description="The universes search_v2 was called with, if any.")] = None,
        ctx: Context | None = None,
    ) -> list[Explanation]:
        try:
            return service.explain(query, slide_ids, split_universes(universes), channel="mcp",
                                   session_id=sessions.of(ctx))
        except ServiceError as exc:
            raise refused(exc) from exc

    @mcp.tool(name="assemble_deck", title="Build a .pptx deck", description=ASSEMBLE_DESCRIPTION,
              annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False))
    def assemble_deck(
        slide_ids: Annotated[list[str] | None, Field(description="Card ids in deck order.")] = None,
        query: Annotated[str | list[str] | None, Field(
            description="The query the deck answers; alone, the deck takes its top cards.")] = None,
        sections: Annotated[list[str] | None, Field(
            description=f"With query alone: sections to take cards from, of {', '.join(SECTIONS)}.")] = None,
        max_slides: Annotated[int, Field(ge=1, le=MAX_DECK_SLIDES, description="With query alone: slide cap.")] = 12,
        title: Annotated[str | None, Field(max_length=200, description="Cover slide and deck title.")] = None,
        universes: Annotated[list[str] | str | None, Field(
            description="Universes (within the server's scope), a list or comma-separated.")] = None,
        return_as: Annotated[Literal["path", "base64"], Field(
            description="'path' writes the file on the server's machine; 'base64' returns its bytes.")] = "path",
        ctx: Context | None = None,
    ) -> DeckResult:
        out = None
        if return_as == "path":
            out = decks / f"deck-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}.pptx"
        try:
            result = service.assemble(slide_ids, query, sections=sections, max_slides=max_slides, title=title,
                                      universes=split_universes(universes), out=out, channel="mcp",
                                      session_id=sessions.of(ctx))
        except (ServiceError, AssembleError) as exc:
            raise refused(exc) from exc
        return DeckResult(
            path=str(result.path) if result.path else None,
            base64=base64.b64encode(result.data).decode() if result.data is not None else None,
            n_slides=result.n_slides, slides=result.slides,
        )

    return mcp


def mcp_http_app(service: SlideService, *, api_token: str | None, host: str = "127.0.0.1",
                 decks_dir: Path | None = None) -> Any:
    """The streamable-HTTP ASGI app of the tools (endpoint ``/mcp``), behind the bearer token when one is set."""
    app = build_mcp_server(service, decks_dir=decks_dir, stdio=False).streamable_http_app(host=host)
    return RequireBearer(app, api_token) if api_token is not None else app


def run_mcp(service: SlideService, *, transport: Literal["stdio", "http"], host: str = "127.0.0.1",
            port: int = 8765, api_token: str | None = None) -> None:
    """Serve the tools over stdio, or over streamable HTTP at ``http://host:port/mcp`` (token-guarded when set)."""
    if transport == "stdio":
        build_mcp_server(service, stdio=True).run("stdio")
        return
    import uvicorn

    uvicorn.run(mcp_http_app(service, api_token=api_token, host=host), host=host, port=port, log_level="info")
