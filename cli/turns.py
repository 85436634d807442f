"""`seek turns` commands: evaluate an agent, build the 50k catalog, draw synthetic sessions."""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer
from rich.table import Table

from cli.console import console, fail, print_json, ray_mapper

#: Bad catalog rows named in the human report; --json lists every one.
CATALOG_ERRORS_SHOWN = 10

app = typer.Typer(no_args_is_help=True)
catalog_app = typer.Typer(no_args_is_help=True, help="Build catalogs.")
sessions_app = typer.Typer(no_args_is_help=True, help="Draw synthetic session sets.")
app.add_typer(catalog_app, name="catalog")
app.add_typer(sessions_app, name="sessions")


@app.command("eval")
def eval_command(
    agent: str = typer.Option(..., "--agent", help="Agent name: baseline, generic or tenturns."),
    catalog: Path | None = typer.Option(None, "--catalog", help="Catalog JSONL(.gz); with --sessions."),
    sessions: Path | None = typer.Option(None, "--sessions", help="Session set JSONL; with --catalog."),
    dataset: str | None = typer.Option(None, "--dataset",
                                       help="public-sample, public-50k, synthetic-1, synthetic-2 or synthetic-3."),
    json_output: bool = typer.Option(False, "--json", help="Print the full report as JSON."),
    trace_dir: Path | None = typer.Option(None, "--trace-dir", help="Write one trace file per session to this folder."),
    trace_alias: Path | None = typer.Option(None, "--trace", hidden=True),
    show_progress: bool = typer.Option(True, "--progress/--no-progress",
                                       help="Progress bars on stderr while the agent is built and the sessions play."),
) -> None:
    """Play every session with an agent in the TechJam simulator and print HR@10, MRR, MTTC and TechnicalScore."""
    from cli.slides import _progress_bars
    from tenturns.datasets import resolve_dataset
    from tenturns.evaluate import evaluate_agent

    trace = trace_dir or trace_alias  # --trace, the folder's name before it meant a switch elsewhere

    if dataset is not None and (catalog is not None or sessions is not None):
        fail("give either --dataset or --catalog with --sessions, not both")
    try:
        if dataset is not None:
            resolved = resolve_dataset(dataset)
            catalog, sessions = resolved.catalog_path, resolved.sessions_path
        elif catalog is None or sessions is None:
            fail("give --catalog and --sessions, or --dataset")
        with _progress_bars(show_progress and not json_output) as progress:
            report = evaluate_agent(agent, catalog, sessions, trace_dir=trace, progress=progress)
    except (ValueError, FileNotFoundError) as exc:
        fail(str(exc))
    if json_output:
        print_json(report.model_dump(mode="json"))
        return
    if report.catalog_skipped:
        shown = report.catalog_errors[:CATALOG_ERRORS_SHOWN]
        more = report.catalog_skipped - len(shown)
        console.print(f"catalog {Path(report.catalog_path).name}: {report.catalog_skipped} bad row(s) skipped: "
                      + "; ".join(shown) + (f"; and {more} more (--json lists them all)" if more else ""),
                      markup=False, style="yellow")
    table = Table(title=f"{report.agent} on {dataset or sessions.name} ({report.n_sessions} sessions)")
    for column in ("scope", "sessions", "HR@10", "MRR", "MTTC"):
        table.add_column(column, justify="left" if column == "scope" else "right")
    table.add_row("all", str(report.n_sessions), f"{report.hr10:.6f}", f"{report.mrr:.6f}", f"{report.mttc:.6f}")
    for name, metrics in report.per_scenario.items():
        mttc = "-" if metrics.mttc is None else f"{metrics.mttc:.6f}"
        table.add_row(name, str(metrics.n_sessions), f"{metrics.hr10:.6f}", f"{metrics.mrr:.6f}", mttc)
    console.print(table)
    console.print(f"efficiency {report.efficiency:.6f}   [bold]TechnicalScore {report.technical_score:.6f}[/]")
    console.print(f"tokens: prompt {report.prompt_tokens}, completion {report.completion_tokens}   "
                  f"wall {report.wall_seconds:.2f} s (agent build {report.build_seconds:.2f} s)")
    if trace is not None:
        console.print(f"traces in {trace}")


@catalog_app.command("build")
def catalog_build(
    base: Path = typer.Option(..., "--base", help="The real catalog rows (JSONL or JSONL.gz)."),
    size: int = typer.Option(50_000, "--size", help="Rows in the output, the real ones included."),
    seed: int = typer.Option(0, "--seed", help="Generator seed; the same seed gives the same file."),
    out: Path = typer.Option(..., "--out", help="Output path (.jsonl.gz is gzipped)."),
) -> None:
    """Grow an approximation of the frozen 50k catalog from real rows, deterministically per seed."""
    from tenturns.catalog_gen import GeneratorConfig, build_catalog_file

    if not base.is_file():
        fail(f"base catalog not found: {base}")
    started = time.perf_counter()
    try:
        rows, errors, sha = build_catalog_file(base, out, GeneratorConfig(size=size, seed=seed))
    except ValueError as exc:
        fail(str(exc))
    for error in errors:
        console.print(f"[yellow]skipped {base.name} {error}[/]")
    console.print(f"wrote {rows} rows to {out} in {time.perf_counter() - started:.1f} s (sha256 {sha[:16]}…)")


@sessions_app.command("draw")
def sessions_draw(
    catalog: Path = typer.Option(..., "--catalog", help="Catalog to draw targets from."),
    n: int = typer.Option(200, "--n", help="Number of sessions."),
    seed: int = typer.Option(0, "--seed", help="Draw seed; recorded in every row with the catalog's sha256."),
    out: Path = typer.Option(..., "--out", help="Output JSONL path."),
    public: Path | None = typer.Option(None, "--public", help="Public sessions to draw profiles from "
                                       "(default: SEEK_DATA_DIR/techjam/public_set.jsonl)."),
) -> None:
    """Draw a synthetic session set: uniform targets, the official scenario mix, public-like profiles."""
    from core.settings import get_settings
    from tenturns.sessions import draw_sessions_file

    public_path = public or get_settings().data_dir / "techjam" / "public_set.jsonl"
    try:
        sha = draw_sessions_file(catalog, n, seed, out, public_path)
    except (ValueError, FileNotFoundError) as exc:
        fail(str(exc))
    console.print(f"wrote {n} sessions to {out} (sha256 {sha[:16]}…)")


@app.command("sweep")
def sweep_command(
    config: Path = typer.Option(..., "--config", help="GRID: a JSON or TOML file of agent option values to try."),
    datasets: str | None = typer.Option(None, "--datasets",
                                        help="Comma-separated turns datasets (default: the grid's, else public-sample)."),
    ray: str | None = typer.Option(None, "--ray", metavar="ADDRESS",
                                   help="Play on the Ray cluster at ADDRESS: one task per (config, dataset, chunk)."),
    chunk: int = typer.Option(200, "--chunk", min=1, help="Sessions per task."),
    ray_timeout: float = typer.Option(3600.0, "--ray-timeout", min=1, help="With --ray: seconds the sweep may take."),
    out: Path | None = typer.Option(None, "--out", help="Folder for sweep.json and sweep.md (default SEEK_HOME/runs/sweep-ID)."),
    json_output: bool = typer.Option(False, "--json", help="Print the rows as JSON."),
) -> None:
    """Every combination of the grid's agent options on each dataset: TechnicalScore, HR@10, MRR, MTTC per config."""
    from eval.datasets import load_turns_dataset
    from eval.runs import atomic_write, new_run_id, runs_dir
    from eval.turns_sweep import load_grid, local_map, run_sweep, sweep_markdown

    try:
        grid = load_grid(config)
        names = [d.strip() for d in datasets.split(",") if d.strip()] if datasets else grid.datasets or ["public-sample"]
        infos = [load_turns_dataset(name) for name in names]
        grid.configs()  # validates every combination before any work starts
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    started = time.perf_counter()
    with ray_mapper(ray, ray_timeout) as mapper:
        try:
            rows = run_sweep(grid, infos, mapper or local_map, chunk)
        except ValueError as exc:
            fail(str(exc))
    seconds = time.perf_counter() - started
    folder = out or runs_dir() / f"sweep-{new_run_id(runs_dir())}"
    folder.mkdir(parents=True, exist_ok=True)
    payload = {"grid": grid.model_dump(mode="json"), "datasets": names, "ray": ray, "chunk": chunk,
               "seconds": round(seconds, 2), "rows": [r.model_dump() for r in rows]}
    atomic_write(folder / "sweep.json", json.dumps(payload, indent=1))
    atomic_write(folder / "sweep.md", sweep_markdown(rows))
    if json_output:
        print_json(payload)
        return
    table = Table(title=f"{grid.agent} sweep: {len(rows)} runs in {seconds:.1f} s" + (f" on Ray at {ray}" if ray else ""))
    for column in ("config", "dataset", "sessions", "TechnicalScore", "HR@10", "MRR", "MTTC"):
        table.add_column(column, justify="left" if column in {"config", "dataset"} else "right")
    for row in sorted(rows, key=lambda r: (r.dataset, -r.technical_score)):
        table.add_row(row.config, row.dataset, str(row.n_sessions), f"{row.technical_score:.6f}", f"{row.hr10:.6f}",
                      f"{row.mrr:.6f}", f"{row.mttc:.6f}")
    console.print(table)
    console.print(f"written to {folder / 'sweep.md'} and sweep.json")
