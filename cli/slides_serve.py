"""`seek slides serve` (MCP or HTTP) and `seek slides log export`, registered on `cli.slides.app`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cli.console import err_console, fail, print_json
from cli.slides import app, warn_if_stale
from slidesearch.request import split_universes

log_app = typer.Typer(no_args_is_help=True, help="The usage log of served searches.")
app.add_typer(log_app, name="log")

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def _service(index: Path | None, universes: list[str] | None):  # type: ignore[no-untyped-def]
    from slidesearch.engine import SlideSearch
    from slidesearch.library import LibraryError
    from slidesearch.serve.service import ServiceError, SlideService
    from slidesearch.serve.usage_log import UsageLog, usage_db_path

    try:
        engine = SlideSearch.open(index)
    except LibraryError as exc:
        fail(str(exc))
    warn_if_stale(index)
    engine.warm_up()  # the model loads now, not during the first request (about 4 s on two cores)
    scope = split_universes(universes)
    try:
        return SlideService(engine, scope=scope, usage_log=UsageLog.from_settings(usage_db_path(index)),
                            index_path=index)
    except ServiceError as exc:
        fail(str(exc))


@app.command("serve")
def serve(
    mcp: Annotated[bool, typer.Option("--mcp", help="Serve the MCP tools (search_v2, explain, assemble_deck).")] = False,
    stdio: Annotated[bool, typer.Option("--stdio", help="MCP over stdin/stdout (the default for --mcp).")] = False,
    http: Annotated[bool, typer.Option("--http", help="Serve the HTTP API and the search page.")] = False,
    port: Annotated[int | None, typer.Option("--port", min=1, max=65535,
                                             help="Port: MCP over streamable HTTP, or the HTTP API (default 8000).")] = None,
    host: Annotated[str, typer.Option("--host", help="Address to bind; loopback unless you mean otherwise.")] = "127.0.0.1",
    universe: Annotated[list[str] | None, typer.Option(
        "--universe", help="The scope of every call: repeat the option or separate names with commas, e.g. "
                           "DAAIS,S&R; a call may narrow it, never widen it.")] = None,
    index: Annotated[Path | None, typer.Option("--index", help="Index directory (default SEEK_HOME/slides/index).")] = None,
    universes_alias: Annotated[list[str] | None, typer.Option("--universes", hidden=True)] = None,
) -> None:
    """Serve SlideSearch to assistants (MCP) or to browsers and programs (HTTP API + page)."""
    from core.settings import get_settings

    if mcp == http:
        fail("choose one of --mcp or --http")
    if mcp and stdio and port is not None:
        fail("--stdio and --port are alternatives for --mcp; give one")
    if http and stdio:
        fail("--stdio goes with --mcp, not --http")
    settings = get_settings()
    if host not in _LOOPBACK and not settings.api_token:
        err_console.print(f"[yellow]warning:[/] binding {host} without SEEK_API_TOKEN lets anyone on the network search")
    service = _service(index, [*(universe or []), *(universes_alias or [])])
    scope = f" (universes: {', '.join(service.scope)})" if service.scope else ""
    if mcp:
        from slidesearch.serve.mcp_server import run_mcp

        if port is None:
            err_console.print(f"seek MCP server on stdio, {service.library.n:,} slides{scope}")
            run_mcp(service, transport="stdio")
        else:
            err_console.print(f"seek MCP server on http://{host}:{port}/mcp, {service.library.n:,} slides{scope}")
            run_mcp(service, transport="http", host=host, port=port)
        return
    import uvicorn

    from slidesearch.serve.http_api import create_app

    port = port or 8000
    err_console.print(f"seek HTTP API and page on http://{host}:{port}/, {service.library.n:,} slides{scope}")
    uvicorn.run(create_app(service, api_token=settings.api_token), host=host, port=port, log_level="info")


@log_app.command("export")
def export(
    out: Annotated[Path, typer.Option("--out", help="JSONL file to write.")],
    standalone: Annotated[bool, typer.Option(
        "--standalone", help="Only the first query of each session, repeats dropped (a query set for the eval).")] = False,
    index: Annotated[Path | None, typer.Option("--index", help="Index directory whose library database to read.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the count as JSON.")] = False,
) -> None:
    """Export the usage log: every served search, or with --standalone a query set `seek eval` can run."""
    from slidesearch.serve.usage_log import UsageLog, usage_db_path

    db = usage_db_path(index)
    if not db.exists():
        fail(f"no library database at {db}; nothing has been served from this SEEK_HOME yet")
    log = UsageLog(db)
    try:
        n = log.export(out, standalone=standalone)
    finally:
        log.close()
    if as_json:
        print_json({"out": str(out), "queries" if standalone else "searches": n})
    else:
        err_console.print(f"wrote {n} {'standalone queries' if standalone else 'searches'} to {out}")
