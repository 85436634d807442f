"""`seek bench` commands: speed, memory and scaling figures, each beside a named baseline in the same run."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import typer

from cli.console import console, fail, print_json

app = typer.Typer(no_args_is_help=True)


@app.command("run")
def run(
    quick: bool = typer.Option(False, "--quick", help="Small sizes; finishes in a few minutes."),
    only: str | None = typer.Option(None, help="Comma-separated sections (core, slides, turns, cold_cli, soak)."),
    out: Path | None = typer.Option(None, help="Output folder (default SEEK_HOME/bench/<timestamp>)."),
    summary: bool = typer.Option(True, "--summary/--no-summary", help="Append a markdown summary to docs/BENCHMARKS.md."),
    json_output: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """Run the benchmarks and write results.json, PNG plots and a markdown summary."""
    from bench.run import append_summary, markdown_summary, run_benchmarks
    from core.settings import get_settings

    out_dir = out or get_settings().home / "bench" / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    try:
        results = run_benchmarks(out_dir, quick=quick, only=only.split(",") if only else None,
                                 progress=lambda msg: console.print(msg, style="dim"))
    except ValueError as exc:
        fail(str(exc))
    if summary:
        append_summary(results)
    if json_output:
        print_json(results)
    else:
        console.print(markdown_summary(results))
        console.print(f"figures: {out_dir / 'results.json'}")
    if not all(section.get("ok") for section in results["sections"].values()):  # type: ignore[attr-defined]
        raise typer.Exit(1)


@app.command("summary")
def summary_cmd(
    results_path: Path = typer.Argument(..., help="A results.json written by `seek bench run`."),
    append: bool = typer.Option(True, "--append/--no-append", help="Append the summary to docs/BENCHMARKS.md."),
) -> None:
    """Print (and append) the markdown summary of an earlier run, e.g. one stopped part-way."""
    import json

    from bench.run import append_summary, markdown_summary

    try:
        results = json.loads(results_path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        fail(f"cannot read benchmark results from {results_path}: {exc}")
    if append:
        append_summary(results)
    console.print(markdown_summary(results))
