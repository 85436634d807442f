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

def _service(index: Path | None, universes: list[str] | None):  # type: ignore[no-untyped-def]
    from core.settings import get_settings
    from slidesearch.engine import SlideSearch
    from slidesearch.library import LibraryError
    from slidesearch.serve.service import ServiceError, SlideService
    from slidesearch.serve.usage_log import UsageLog, usage_db_path

    settings = get_settings()
    if settings.postgres_url is not None:  # a replica of the shared library: follows its live generation
        from slidesearch.serve.live import LiveService

        if index is not None:
            fail("--index names a local index; unset SEEK_STORE to serve it (SEEK_STORE serves PostgreSQL's)")
        try:
            return LiveService(settings.postgres_url, scope=split_universes(universes),
                               usage_log=UsageLog.from_settings(usage_db_path(None)),
                               poll_seconds=settings.store_poll_seconds)
        except (LibraryError, ServiceError) as exc:
            fail(str(exc))
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
                           "DAAIS,S&R. The server serves these universes alone, as if the library held nothing "
                           "else (other universes and their slide ids are unknown to it); a call may narrow it.")] = None,
    index: Annotated[Path | None, typer.Option("--index", help="Index directory (default SEEK_HOME/slides/index).")] = None,
    insecure: Annotated[bool, typer.Option(
        "--insecure", help="Allow --host beyond loopback without SEEK_API_TOKEN (anyone who reaches it can search).")] = False,
    universes_alias: Annotated[list[str] | None, typer.Option("--universes", hidden=True)] = None,
) -> None:
    """Serve SlideSearch to assistants (MCP) or to browsers and programs (HTTP API + page).

    Over HTTP (the API, or MCP with --port) every data request needs `Authorization: Bearer <token>`
    when SEEK_API_TOKEN is set; an empty SEEK_API_TOKEN is refused, and so is a --host beyond
    loopback without a token unless --insecure is given.
    """
    from core.settings import get_settings
    from slidesearch.serve.auth import AuthConfigError, check_exposure, checked_token

    if mcp == http:
        fail("choose one of --mcp or --http")
    if mcp and stdio and port is not None:
        fail("--stdio and --port are alternatives for --mcp; give one")
    if http and stdio:
        fail("--stdio goes with --mcp, not --http")
    networked = http or port is not None
    try:
        token = checked_token(get_settings().api_token) if networked else None
        if networked:
            check_exposure(host, token, insecure)
    except AuthConfigError as exc:
        fail(str(exc))
    if networked and insecure and token is None:
        err_console.print(f"warning: serving on {host} without SEEK_API_TOKEN (--insecure): anyone on the network can search",
                          markup=False)
    service = _service(index, [*(universe or []), *(universes_alias or [])])
    scope = f" (universes: {', '.join(service.scope)})" if service.scope else ""
    try:
        if mcp:
            from slidesearch.serve.mcp_server import run_mcp

            if port is None:
                err_console.print(f"seek MCP server on stdio, {service.library.n:,} slides{scope}")
                run_mcp(service, transport="stdio")
            else:
                err_console.print(f"seek MCP server on http://{host}:{port}/mcp, {service.library.n:,} slides{scope}")
                run_mcp(service, transport="http", host=host, port=port, api_token=token)
            return
        import uvicorn

        from slidesearch.serve.http_api import create_app

        port = port or 8000
        err_console.print(f"seek HTTP API and page on http://{host}:{port}/, {service.library.n:,} slides{scope}")
        uvicorn.run(create_app(service, api_token=token), host=host, port=port, log_level="info")
    finally:
        if service.usage_log is not None:
            service.usage_log.close()  # the records still queued for the writer are written before the process ends


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
