"""`seek demo`: the main job on embedded defaults — no keys, no network, no server to start.

It generates a small realistic slide library, ingests and indexes it with the
default embedder, answers one query of each kind reps type, and plays a short
Ten Turns evaluation (the tenturns agent beside the BM25 baseline) on the public
TechJam sessions when the shared data is present. All state goes under one folder.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import typer

from cli.console import console, fail

DEMO_QUERY_KINDS = ("topic", "client_section", "person_profile", "exclusion", "multi_part", "absent_term")


def demo(
    home: Path | None = typer.Option(None, help="Where the demo keeps its state (default: SEEK_HOME/demo)."),
    slides: int = typer.Option(1500, min=200, help="Size of the generated slide library."),
    sessions: int = typer.Option(40, min=1, max=200, help="Public Ten Turns sessions to play."),
    seed: int = typer.Option(0, help="Generator seed."),
) -> None:
    """Build a sample slide library, answer a few searches, and run a short Ten Turns evaluation."""
    from core.settings import get_settings

    root = (home or get_settings().home / "demo").resolve()
    root.mkdir(parents=True, exist_ok=True)
    # Everything the demo builds (store, index, caches) lives under its own folder.
    os.environ["SEEK_HOME"] = str(root)
    console.print(f"[bold]seek demo[/] — state under {root}")
    _slides_demo(root, slides, seed)
    _turns_demo(sessions)


def _slides_demo(root: Path, n_slides: int, seed: int) -> None:
    from cli.slides import _progress_bars
    from cli.slides_search import print_response
    from slidesearch.engine import SlideSearch
    from slidesearch.generator import generate_library
    from slidesearch.index import build_index
    from slidesearch.ingest import ingest_path
    from slidesearch.store import Store

    console.rule("SlideSearch: a generated library")
    generated = root / "generated"
    with _progress_bars() as progress:
        summary = generate_library(n_slides, seed, generated, progress=progress)
    console.print(f"generated {summary['slides']:,} slides in {summary['decks']} decks with {summary['queries']} labelled queries")
    store = Store()
    try:
        report = ingest_path(generated, store)
        if report.changed or not (root / "slides" / "index").exists():
            started = time.perf_counter()
            with _progress_bars() as progress:
                index_report = build_index(store, progress=progress)
            console.print(f"indexed with {index_report.embedder} in {time.perf_counter() - started:.1f} s")
    finally:
        store.close()
    engine = SlideSearch.open()
    queries = [json.loads(line) for line in (generated / "queries.jsonl").read_text().splitlines() if line.strip()]
    for kind in DEMO_QUERY_KINDS:
        query = next((q["query"] for q in queries if q["kind"] == kind), None)
        if query is None:
            continue
        console.rule(f"[bold]{kind.replace('_', ' ')}[/]: {query if isinstance(query, str) else ' | '.join(query)}")
        response = engine.search_v2(query, top_per_group=3)
        print_response(response, {e.slide_id: e for e in engine.explain_response(response)}, max_sections=3)


def _turns_demo(n_sessions: int) -> None:
    from rich.table import Table

    from tenturns.datasets import resolve_dataset
    from tenturns.evaluate import evaluate_agent, load_sessions

    console.rule("Ten Turns: the TechJam shopper simulator")
    try:
        dataset = resolve_dataset("public-sample")
    except (FileNotFoundError, ValueError) as exc:
        console.print(f"[yellow]skipped:[/] {exc}")
        return
    rows = load_sessions(dataset.sessions_path)[:n_sessions]
    table = Table(title=f"{len(rows)} public sessions over the real catalog rows")
    for column in ("agent", "HR@10", "MRR", "MTTC", "TechnicalScore", "tokens", "seconds"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for agent in ("baseline", "tenturns"):
        try:
            report = evaluate_agent(agent, dataset.catalog_path, rows)
        except (FileNotFoundError, ValueError) as exc:
            fail(str(exc))
        table.add_row(agent, f"{report.hr10:.3f}", f"{report.mrr:.3f}", f"{report.mttc:.2f}",
                      f"{report.technical_score:.6f}", str(report.prompt_tokens + report.completion_tokens),
                      f"{report.wall_seconds:.2f}")
    console.print(table)
