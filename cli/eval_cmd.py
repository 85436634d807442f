"""`seek eval` commands: run, compare, report, datasets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from cli.console import console, fail, print_json, ray_mapper
from eval.product import ANSWERED, PRODUCT_HEADLINE, by_kind_table, target_checks

app = typer.Typer(no_args_is_help=True)


def _split(datasets: str | None) -> list[str] | None:
    return [d.strip() for d in datasets.split(",") if d.strip()] if datasets else None


@app.command("run")
def run(
    suite: str = typer.Option("all", "--suite", help="slides, turns or all."),
    datasets: str | None = typer.Option(
        None, "--datasets",
        help="Comma-separated: generated, slidevqa, slidevqa-topical, slidevqa-topical-cards, realdecks, "
        "realdecks-tune, realdecks-check, cranfield, cisi, log:PATH (a query log), public-sample, "
        "public-50k, synthetic-1/2/3. Default: the suite's.",
    ),
    config: Path | None = typer.Option(None, "--config", help="JSON config (a list of configs runs a sweep)."),
    as_json: bool = typer.Option(False, "--json", help="Print the run record(s) as JSON."),
    log: str | None = typer.Option(None, "--log", help="Append a line to docs/EXPERIMENT_LOG.md saying what changed."),
    ray: str | None = typer.Option(
        None, "--ray", metavar="ADDRESS",
        help="Run on the Ray cluster at ADDRESS: one retryable task per (config, dataset, chunk of queries "
        "or sessions), assembled into the same run as a local one."),
    ray_chunk: int = typer.Option(200, "--ray-chunk", min=1,
                                  help="With --ray: queries per slides task, sessions per turns task."),
    ray_timeout: float = typer.Option(3600.0, "--ray-timeout", min=1, help="With --ray: seconds each job may take."),
) -> None:
    """Run every dataset of a suite on a configuration, gate it and store it under SEEK_HOME/runs."""
    from eval.config import EvalConfig, load_sweep
    from eval.explog import append_log
    from eval.runs import runs_dir
    from eval.suite import run_suite

    try:
        configs = load_sweep(config) if config else [EvalConfig()]
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    records = []
    with ray_mapper(ray, ray_timeout) as mapper:
        remote: dict[str, Any] = {}
        if mapper is not None:
            from eval.ray_runs import ray_slides_runner
            from eval.turns_sweep import ChunkedPlayer

            remote = {"slides_run": ray_slides_runner(mapper, ray_chunk),
                      "turns_play": ChunkedPlayer(mapper, ray_chunk)}
        for cfg in configs:
            try:
                record = run_suite(suite, cfg, _split(datasets), log=log,
                                   progress=None if as_json else lambda name: console.print(f"[dim]running {name}…[/]"),
                                   **remote)
            except ValueError as exc:
                fail(str(exc))
            records.append(record)
            if log:
                line = append_log(record, log if len(configs) == 1 else f"{log} [{cfg.name}]")
                if not as_json:
                    console.print(f"[dim]logged:[/] {escape(line.strip())}")
            if not as_json:
                _print_run(record, runs_dir() / record.run_id)
    if as_json:
        print_json([r.model_dump(mode="json", exclude={"datasets": {"__all__": {"items"}}}) for r in records]
                   if len(records) > 1 else records[0].model_dump(mode="json", exclude={"datasets": {"__all__": {"items"}}}))
    if not all(r.passed for r in records):
        raise typer.Exit(1)


def _print_run(record, folder: Path) -> None:  # type: ignore[no-untyped-def]
    table = Table(title=f"run {record.run_id} · config {record.config.get('name')} · code {record.code_version[:10]}")
    for column in ("dataset", "items", "figures", "gates", "seconds"):
        table.add_column(column)
    for name, d in record.datasets.items():
        if d.error:
            table.add_row(name, "-", f"[red]{escape(d.error)}[/]", "[red]error[/]", "-")
            continue
        shown = ({k: d.summary[k] for k in PRODUCT_HEADLINE if k in d.summary} if d.primary == ANSWERED
                 else {k: v for k, v in d.summary.items() if k not in {"judged_cards", "n_sessions"}})
        figures = "  ".join(f"{k} {v:.4f}" for k, v in shown.items())
        gates = ", ".join(f"{g.name} {'[green]pass[/]' if g.passed else '[red]FAIL[/]: ' + escape(g.detail)}" for g in d.gates)
        table.add_row(name, str(len(d.items)), figures, gates, f"{d.seconds:.1f}")
    console.print(table)
    for name, d in record.datasets.items():
        if d.error is None and d.primary == ANSWERED:
            _print_by_kind(name, d)
    checks = [(name, *check) for name, d in record.datasets.items() if d.error is None
              for check in target_checks(name, d.summary)]
    if checks:
        console.print("issue #17 targets: " + "; ".join(
            f"{name} {escape(what)}: {value:.3f} {'[green]met[/]' if met else '[red]not met[/]'}"
            for name, what, value, met in checks))
    usage = record.usage
    console.print(f"llm tokens {usage.prompt_tokens + usage.completion_tokens} · cost ${usage.cost_usd:.4f} · "
                  f"stored in {folder} (report: {folder / 'report.html'})")


def _print_by_kind(name: str, d) -> None:  # type: ignore[no-untyped-def]
    """The product figures of one dataset by kind of brief, then overall (blank: not defined for that kind)."""
    header, rows = by_kind_table(d.summary, d.per_group)
    table = Table(title=f"{name} · product measure by kind of brief", show_edge=False)
    for k, title in enumerate(header):
        table.add_column(title, justify="left" if k == 0 else "right")
    for row in rows:
        table.add_row(*row)
    console.print(table)


@app.command("compare")
def compare(
    run_a: str = typer.Argument(..., help="Baseline run id (or 'latest', or a run folder)."),
    run_b: str = typer.Argument(..., help="Candidate run id."),
    as_json: bool = typer.Option(False, "--json"),
    metric: str | None = typer.Option(
        None, "--metric",
        help="Pair this per-item value instead of each dataset's primary: an item metric (mrr@10, precision "
        "of the shown cards, ...) or correct_share / not_wrong_share of the judged cards.",
    ),
) -> None:
    """Paired comparison per dataset (bootstrap over items) with the cross-dataset agreement gate's verdict."""
    from eval.compare import compare_runs
    from eval.runs import load_run

    try:
        result = compare_runs(load_run(run_a), load_run(run_b), metric)
    except (FileNotFoundError, ValueError) as exc:
        fail(str(exc))
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    table = Table(title=f"baseline {result.baseline} vs candidate {result.candidate}", show_edge=False)
    for column in ("dataset", "n", "base", "cand", "diff", "95% CI", "outcome"):
        table.add_column(column, no_wrap=column != "outcome")
    for row in result.datasets:
        p = row.paired
        if p is None:
            table.add_row(row.name, "-", "-", "-", "-", "-", f"not compared: {escape(row.note)}")
            continue
        colour = {"win": "green", "loss": "red", "tie": "yellow"}[p.outcome]
        gate_note = "" if row.candidate_gates_passed else " (candidate failed a gate)"
        table.add_row(row.name, str(p.n), f"{p.baseline_mean:.4f}", f"{p.candidate_mean:.4f}",
                      f"{p.diff:+.4f}", f"[{p.ci_low:+.3f}, {p.ci_high:+.3f}]", f"[{colour}]{p.outcome}[/]{gate_note}")
    console.print(table)
    primaries = sorted({f"{row.primary} ({row.name})" for row in result.datasets if row.paired is not None})
    console.print(f"[dim]paired per item on: {', '.join(primaries)}; 1,000 bootstrap resamples[/]")
    for label, names in (("only in baseline", result.only_in_baseline), ("only in candidate", result.only_in_candidate)):
        if names:
            console.print(f"[dim]{label}: {', '.join(names)}[/]")
    verdict = "[green]ACCEPT[/]" if result.verdict.accepted else "[red]REJECT[/]"
    console.print(f"agreement gate: {verdict} — {escape(result.verdict.detail)}")


@app.command("report")
def report(
    runs: list[str] = typer.Argument(..., help="One or more run ids ('latest' works)."),
    out: Path = typer.Option(Path("report.html"), "--out", help="HTML file to write; the main chart goes beside it as .png."),
) -> None:
    """Write a self-contained HTML report (embedded charts) over the runs, plus a PNG of the main chart."""
    from eval.report import render_report
    from eval.runs import load_run

    try:
        records = [load_run(r) for r in runs]
    except FileNotFoundError as exc:
        fail(str(exc))
    page, png = render_report(records, out)
    console.print(f"wrote {page}" + (f" and {png}" if png else ""))


@app.command("datasets")
def datasets(
    suite: str = typer.Option("all", "--suite", help="slides, turns or all."),
    names_option: str | None = typer.Option(None, "--datasets", help="Comma-separated dataset names."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List datasets with their sources and sha256; generated sets are made on first use, a missing one shows the path looked for."""
    from eval.dataset_types import SlidesDataset
    from eval.datasets import (
        dataset_suite,
        load_slides_dataset,
        load_turns_dataset,
        suite_datasets,
    )

    try:
        names = _split(names_option) or suite_datasets(suite)
        for name in names:
            dataset_suite(name)
    except ValueError as exc:
        fail(str(exc))
    rows: list[dict[str, Any]] = []
    for name in names:
        try:
            loaded = load_slides_dataset(name) if dataset_suite(name) == "slides" else load_turns_dataset(name)
            size = len(loaded.queries) if isinstance(loaded, SlidesDataset) else loaded.n_sessions
            rows.append({"name": name, "suite": dataset_suite(name), "items": size,
                         "sources": [s.model_dump() for s in loaded.sources], "error": None})
        except (FileNotFoundError, ValueError) as exc:
            rows.append({"name": name, "suite": dataset_suite(name), "items": None, "sources": [], "error": str(exc)})
    if as_json:
        print_json(rows)
        return
    table = Table(title="eval datasets")
    for column in ("name", "suite", "queries / sessions", "source", "sha256"):
        table.add_column(column)
    for row in rows:
        if row["error"]:
            table.add_row(row["name"], row["suite"], "-", f"[red]{escape(row['error'])}[/]", "-")
            continue
        for k, s in enumerate(row["sources"]):
            table.add_row(row["name"] if k == 0 else "", row["suite"] if k == 0 else "",
                          str(row["items"] or "") if k == 0 else "", s["path"], s["sha256"][:16] + "…")
    console.print(table)
