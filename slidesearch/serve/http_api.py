"""The HTTP API and the search page (`seek slides serve --http`).

Endpoints: ``GET``/``POST /search``, ``POST /explain``, ``POST /assemble`` (the
.pptx), ``GET /health``, ``GET /stats``, the OpenAPI schema at ``/openapi.json``
(docs at ``/docs``) and the page at ``/`` with its static files under ``/static``.

One engine is loaded once and shared read-only by every request. Its calls are
synchronous and CPU-bound, so each runs on a worker thread through one capacity
limiter: the event loop stays free to accept requests and the CPU is not
oversubscribed. Guards: an optional bearer token (``SEEK_API_TOKEN``) on every
data endpoint, a request-body cap enforced before any parsing, length limits on
queries and lists, and 4xx answers whose ``error`` field says what was wrong.
"""

from __future__ import annotations

import base64
import functools
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
import uvicorn
from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)
from starlette.exceptions import HTTPException as StarletteHTTPException

from slidesearch.assemble import MAX_DECK_SLIDES, AssembleError
from slidesearch.request import RequestError, split_universes
from slidesearch.response import Explanation, SearchResponse
from slidesearch.serve.auth import REFUSAL, bearer_ok, checked_token
from slidesearch.serve.service import (
    MAX_EXPLAIN_IDS,
    MAX_TOP_PER_GROUP,
    SlideService,
    clean_query,
)

STATIC_DIR = Path(__file__).parent / "static"
PPTX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.presentationml.presentation"

#: Request bodies above this are refused with 413 before parsing; the largest legitimate body (an explain or
#: assemble call for 200 ids) is under 16 kB.
MAX_BODY_BYTES = 64 * 1024
#: Worker threads running engine calls at once; more would only contend for the same cores.
DEFAULT_WORKERS = 4

QueryText = Annotated[str | list[str], AfterValidator(clean_query)]
"""A query (one string, or one string per angle of a brief), cleaned and bounded by ``clean_query``."""
SessionId = Annotated[str | None, Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
Universes = Annotated[list[Annotated[str, Field(min_length=1, max_length=64)]] | None, Field(default=None, max_length=20),
                      AfterValidator(split_universes)]
"""Universes as a list; an item may name several separated by commas, as on the command line."""
SlideIds = Annotated[list[Annotated[str, Field(min_length=1, max_length=200)]], Field(min_length=1)]


class SearchRequest(BaseModel):
    """``search_v2`` over HTTP: a query (or a brief of several angles), optional universes and the section cap."""

    model_config = ConfigDict(extra="forbid", strict=True)

    query: QueryText = Field(description="What to look for: a string, or a list of angles (a multi-part brief).")
    universes: Universes = Field(default=None, description="Universes to search (intersected with the server's scope).")
    top_per_group: int = Field(default=15, ge=1, le=MAX_TOP_PER_GROUP, description="Cards per section at most.")
    session_id: SessionId = Field(default=None, description="Groups the searches of one visit in the usage log.")


class ExplainRequest(BaseModel):
    """"Why this?" for the visible cards, in one batch, against the query they were ranked for."""

    model_config = ConfigDict(extra="forbid", strict=True)

    query: QueryText
    slide_ids: SlideIds = Field(max_length=MAX_EXPLAIN_IDS)
    universes: Universes = Field(default=None, description="The universes the cards were searched in.")
    session_id: SessionId = None


class AssembleRequest(BaseModel):
    """A deck from chosen slide ids, or from the top cards of a query (optionally of some sections only)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    slide_ids: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        default=None, max_length=MAX_DECK_SLIDES, description="Slides in deck order.")
    query: QueryText | None = Field(default=None, description="The query the deck answers; alone, it picks the slides.")
    sections: list[str] | None = Field(default=None, max_length=8, description="With query alone: sections to take cards from.")
    max_slides: int = Field(default=12, ge=1, le=MAX_DECK_SLIDES, validation_alias=AliasChoices("max_slides", "max"),
                            description="With query alone: at most this many slides (the MCP tool's name; "
                                        "'max' is accepted too).")
    title: str | None = Field(default=None, max_length=200, description="Cover slide and deck title.")
    universes: Universes = None
    session_id: SessionId = None
    format: Literal["pptx", "json"] = Field(default="pptx", description="pptx: the file; json: notes and base64.")

    @model_validator(mode="after")
    def _ids_or_query(self) -> AssembleRequest:
        if not self.slide_ids and not self.query:
            raise ValueError("give slide_ids (the slides to put in the deck) or a query (to take its top cards)")
        return self


class ExplainResponse(BaseModel):
    """One explanation per requested id, in the order asked."""

    query: str | list[str]
    explanations: list[Explanation]


class ErrorBody(BaseModel):
    error: str
    detail: list[dict[str, Any]] | None = None


class BodySizeLimit:
    """ASGI middleware refusing bodies over ``limit`` bytes with 413, by header or by counting a streamed body."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._too_large(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._too_large(send)
                return
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> dict[str, Any]:
            nonlocal delivered
            if delivered:
                return await receive()
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _too_large(self, send: Callable[..., Any]) -> None:
        payload = json.dumps({"error": f"request body too large; the limit is {self.limit} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})


_TYPE_TAG = re.compile(r"^(str|int|float|bool|list|dict|none|[a-z_-]+\[.*\])$")


def _message(errors: list[Any]) -> str:
    """One readable line from pydantic's errors: ``field: what was wrong``, alternatives of a union joined by "or"."""
    by_field: dict[str, list[str]] = {}
    for err in errors:
        loc = list(err.get("loc", ()))
        if loc and loc[0] in ("body", "query", "path", "header"):
            loc = loc[1:]
        where = ".".join(str(p) for p in loc if not _TYPE_TAG.match(str(p)))
        text = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        if err.get("type") == "json_invalid":
            where, text = "", f"the body is not valid JSON ({(err.get('ctx') or {}).get('error', 'decode error')})"
        if text not in by_field.setdefault(where, []):
            by_field[where].append(text)
    parts = [f"{where}: {' or '.join(texts)}" if where else " or ".join(texts) for where, texts in by_field.items()]
    return "invalid request: " + "; ".join(parts)


def create_app(service: SlideService, *, api_token: str | None = None, workers: int = DEFAULT_WORKERS,
               max_body_bytes: int = MAX_BODY_BYTES) -> FastAPI:
    """The FastAPI app over ``service``: the endpoints, the page, the token, the limits."""
    app = FastAPI(
        title="seek SlideSearch API",
        version="1",
        description="Grouped, ranked, deduplicated search over a slide library, 'Why this?' explanations, "
                    "and deck assembly. Send `Authorization: Bearer <token>` when the server has a token.",
    )
    limiter = anyio.CapacityLimiter(workers)

    async def in_thread(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs), limiter=limiter)

    api_token = checked_token(api_token)

    def require_token(authorization: Annotated[str | None, Header()] = None) -> None:
        if not bearer_ok(authorization, api_token):
            raise _HTTPError(401, REFUSAL, {"WWW-Authenticate": "Bearer"})

    def channel_of(x_seek_channel: Annotated[str | None, Header()] = None) -> str:
        return "page" if x_seek_channel == "page" else "http"

    guarded = [Depends(require_token)]
    errors: dict[int | str, dict[str, Any]] = {status: {"model": ErrorBody} for status in (400, 401, 413, 422)}

    @app.exception_handler(_HTTPError)
    async def _http_error(request: Request, exc: _HTTPError) -> JSONResponse:
        service.count_error(exc.status)
        return JSONResponse({"error": exc.message}, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _starlette_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        service.count_error(exc.status_code)
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        service.count_error(422)
        detail = [{"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")} for e in exc.errors()]
        return JSONResponse({"error": _message(list(exc.errors())), "detail": detail}, status_code=422)

    @app.exception_handler(RequestError)
    @app.exception_handler(AssembleError)
    async def _refused(request: Request, exc: ValueError) -> JSONResponse:
        service.count_error(400)
        return JSONResponse({"error": str(exc)}, status_code=400)

    @app.exception_handler(Exception)
    async def _crashed(request: Request, exc: Exception) -> JSONResponse:
        service.count_error(500)
        return JSONResponse({"error": "internal error; the server's log has the details"}, status_code=500)

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/health", summary="Liveness: the library is loaded, and whether its index is up to date")
    async def health() -> dict[str, Any]:
        # Tokenless: whether the index is current, and no more. How many files changed where, and the
        # index's path on this machine, are in the token-guarded /stats (a scoped server's /health must not
        # count other universes' files).
        index = service.freshness()
        return {"status": "ok", "slides": service.library.n,
                "index": None if index is None else {"status": index["status"]}}

    @app.get("/universes", dependencies=guarded, responses=errors, summary="The universes a search may name")
    async def universes() -> dict[str, Any]:
        return {"universes": service.searchable_universes()}

    @app.get("/stats", dependencies=guarded, responses=errors, summary="Library counts and what was served")
    async def stats() -> dict[str, Any]:
        return {**service.health(), **await in_thread(service.stats)}

    async def run_search(request: SearchRequest, channel: str) -> SearchResponse:
        return await in_thread(service.search, request.query, request.universes, request.top_per_group,
                               channel=channel, session_id=request.session_id)

    @app.post("/search", dependencies=guarded, responses=errors, summary="search_v2: grouped slide cards for a query")
    async def search_post(request: SearchRequest, channel: str = Depends(channel_of)) -> SearchResponse:
        return await run_search(request, channel)

    @app.get("/search", dependencies=guarded, responses=errors, summary="search_v2 with query parameters")
    async def search_get(
        q: Annotated[list[str], Query(description="The query; repeat q for the angles of a brief.")],
        universes: Annotated[str | None, Query(description="Comma-separated universes.")] = None,
        universe: Annotated[list[str] | None, Query(
            description="A universe; repeat it, or separate names with commas (the page's address uses it too).")] = None,
        top_per_group: Annotated[int, Query(ge=1, le=MAX_TOP_PER_GROUP)] = 15,
        session_id: Annotated[str | None, Query(max_length=64)] = None,
        channel: str = Depends(channel_of),
    ) -> SearchResponse:
        try:
            request = SearchRequest.model_validate({
                "query": q[0] if len(q) == 1 else q,
                "universes": split_universes([*([universes] if universes else []), *(universe or [])]),
                "top_per_group": top_per_group, "session_id": session_id,
            })
        except ValidationError as exc:
            raise RequestValidationError([{**e, "loc": ("query", *e["loc"])} for e in exc.errors()]) from exc
        return await run_search(request, channel)

    @app.post("/explain", dependencies=guarded, responses=errors, summary="'Why this?' for a batch of cards")
    async def explain(request: ExplainRequest, channel: str = Depends(channel_of)) -> ExplainResponse:
        explanations = await in_thread(service.explain, request.query, request.slide_ids, request.universes,
                                       channel=channel, session_id=request.session_id)
        return ExplainResponse(query=request.query, explanations=explanations)

    @app.post("/assemble", dependencies=guarded, summary="Build a .pptx deck from slide ids or a query",
              responses={**errors, 200: {"content": {PPTX_MEDIA_TYPE: {}}, "description": "The deck"}})
    async def assemble_deck(request: AssembleRequest, channel: str = Depends(channel_of)) -> Response:
        result = await in_thread(
            service.assemble, request.slide_ids, request.query, sections=request.sections, max_slides=request.max_slides,
            title=request.title, universes=request.universes, channel=channel, session_id=request.session_id,
        )
        data = result.data or b""
        if request.format == "json":
            return JSONResponse({**result.model_dump(mode="json", exclude={"path"}),
                                 "pptx_base64": base64.b64encode(data).decode()})
        filename = _filename(request.title)
        return Response(data, media_type=PPTX_MEDIA_TYPE, headers={
            "Content-Disposition": f'attachment; filename="{filename}"',
            "X-Seek-Slides-Copied": str(len(result.copied)),
            "X-Seek-Slides-As-Text": str(len(result.rendered_as_text)),
        })

    @app.get("/slides/{slide_id}/thumbnail.png", dependencies=guarded, summary="A slide's picture (PNG)",
             responses={**errors, 200: {"content": {"image/png": {}}, "description": "The thumbnail"}})
    async def thumbnail(slide_id: str, size: Literal["small", "large"] = "small") -> FileResponse:
        found = await in_thread(service.thumbnail_file, slide_id, size == "large")
        if found is None:
            raise _HTTPError(404, f"slide {slide_id} has no thumbnail yet; run `seek slides render`")
        return FileResponse(found, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

    app.add_middleware(BodySizeLimit, limit=max_body_bytes)
    return app


class _HTTPError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


def _filename(title: str | None) -> str:
    # ASCII only: the name travels in a header, which must be latin-1.
    stem = "".join(c for c in (title or "") if c.isascii() and (c.isalnum() or c in " -_")).strip().replace(" ", "-")
    return f"{stem[:60] or 'seek-deck'}.pptx"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_in_thread(app: Any, host: str = "127.0.0.1", port: int | None = None) -> Iterator[str]:
    """Run ``app`` under uvicorn on a background thread (tests, the load bench); yields its base URL."""
    port = port or free_port(host)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True, name="seek-http")
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the HTTP server did not start on {host}:{port}")
        time.sleep(0.02)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
