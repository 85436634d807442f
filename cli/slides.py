"""`seek slides` commands: ingest, generate, index, stats (search, serve and assemble register from their own modules)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from cli.console import console, err_console, fail, native_output_to_stderr, print_json, ray_mapper

app = typer.Typer(no_args_is_help=True)

#: The master-sheet header names read for each field; ``slidesearch.ingest.master_column_help`` is the source
#: (a test keeps the two equal; the ingest module is not imported here to keep the CLI's start fast).
MASTER_COLUMNS = ("row_id: row_id, id, #, row, no, s no, sno; client: client, client name, customer, account; "
                  "use_case: use_case, use case, usecase, use-case, solution area; title: title, case study, "
                  "case study title, name; summary: summary, description, details, impact, outcome; "
                  "universe: universe, business unit, practice")

_STAGE_LABELS = {
    "load": "loading slides",
    "embed": "embedding slides",
    "bm25": "BM25 index",
    "mine": "rarity, taxonomy terms",
    "clusters": "expansion clusters",
    "taxonomy": "embedding taxonomy",
    "master": "embedding master sheet",
    "save": "writing index",
    "slides": "generating slides",
    "build": "building the agent",
    "sessions": "playing sessions",
}


MIN_RATE_SECONDS = 0.05


@dataclass(frozen=True)
class RayOptions:
    """Where and how ``seek slides index --ray`` fans the embedding out."""

    address: str
    actors: int
    batch: int
    timeout_s: float


@contextmanager
def _progress_bars(enabled: bool = True) -> Iterator[Callable[[str, int, int], None]]:
    """A ``progress(stage, done, total)`` callback drawing one rich bar per stage with rate and ETA."""
    columns = (
        TextColumn("[bold]{task.description:<24}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:>10}"),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    tasks: dict[str, tuple[TaskID, float]] = {}
    with Progress(*columns, console=err_console, transient=False, disable=not enabled) as bars:

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = (
                    bars.add_task(_STAGE_LABELS.get(stage, stage), total=max(total, 1), rate=""),
                    time.perf_counter(),
                )
            task, start = tasks[stage]
            elapsed = time.perf_counter() - start
            # A rate over a few milliseconds ("1,500,000,000/s" for a stage done at once) says nothing.
            rate = f"{done / elapsed:,.0f}/s" if elapsed >= MIN_RATE_SECONDS else ""
            bars.update(task, completed=done if total else 1, total=max(total, 1), rate=rate)

        yield update


def _say_waiting(message: str) -> None:
    err_console.print(f"[yellow]waiting:[/] {escape(message)}")


def _index(embedder: str | None, as_json: bool, quiet: bool = False, ray: RayOptions | None = None) -> None:
    """Build the index and print what was built; the caller holds the store's writer lock.

    With ``ray``, the texts the embedding cache lacks are embedded over that Ray cluster first.
    """
    from slidesearch.index import build_index
    from slidesearch.stores import open_store

    fan_out = None
    if ray is not None:
        from slidesearch.ray_index import RayEmbedMissing

        native_output_to_stderr()
        fan_out = RayEmbedMissing(ray.address, embedder=embedder, actors=ray.actors, batch=ray.batch,
                                   timeout_s=ray.timeout_s)
    store = open_store()
    try:
        if store.counts()["slides"] == 0:
            fail("the library is empty; run `seek slides ingest PATH` or `seek slides generate` first")
        with _progress_bars(not as_json) as progress:
            report = build_index(store, embedder=embedder, progress=progress, embed_missing=fan_out)
    finally:
        store.close()
    ray_report = fan_out.report if fan_out is not None else None
    if as_json:
        print_json({**report.model_dump(), **({"ray": ray_report.model_dump()} if ray_report else {})})
    elif not quiet:
        console.print(
            f"indexed {report.n_slides:,} slides and {report.n_master:,} master rows with {report.embedder} "
            f"({report.embedded:,} embedded, {report.embed_cache_hits:,} from cache) in {report.seconds:.1f}s; "
            f"{report.n_clusters} clusters / {report.n_cluster_terms} terms, {report.n_taxonomy:,} taxonomy terms "
            f"-> {escape(report.path)}"
        )
        if ray_report is not None:
            console.print(
                f"on Ray at {escape(ray_report.address)} ({ray_report.nodes} nodes): {ray_report.missing:,} of "
                f"{ray_report.texts:,} texts missing from the cache, {ray_report.texts_written:,} written "
                f"({ray_report.texts_started:,} handed to an encoder, {ray_report.duplicate_writes:,} duplicate "
                f"writes ignored) in {ray_report.seconds:.1f}s"
            )


def warn_if_stale(index: Path | None) -> None:
    """Say on stderr when the index was built before the library's latest ingest (search still runs)."""
    from slidesearch.stores import served_freshness

    freshness = served_freshness(index)
    if freshness.stale:
        err_console.print(f"[yellow]warning:[/] {escape(freshness.message)}")


@app.command()
def ingest(
    path: Annotated[
        Path | None, typer.Argument(help="A .pptx or slides .jsonl file, or a folder tree of them.")
    ] = None,
    universe_from: Annotated[str | None, typer.Option(
        "--universe-from", metavar="top-folder|none|NAME",
        help="How a slide's universe is chosen: top-folder (default: the first folder under PATH; files directly "
             "in PATH get 'Library'), none (every slide in 'Library'), or a NAME for every slide. NAME and none also "
             "replace the universe a JSONL row names.")] = None,
    universe: Annotated[str | None, typer.Option(
        "--universe", help="The same as --universe-from NAME: this universe for every slide.")] = None,
    master: Annotated[Path | None, typer.Option(help=(
        "A master case-study sheet (.csv or .jsonl). Its rows are keyed by (sheet, row id): the sheet's id column "
        "when it has one, else the line number. Columns are read by header, case-insensitively: " + MASTER_COLUMNS
        + ". Other columns are named in a warning and not read."))] = None,
    dataset: Annotated[
        str | None, typer.Option(help="A named dataset from the shared data: slidevqa.")
    ] = None,
    reindex: Annotated[bool | None, typer.Option(
        "--reindex/--no-reindex", help="Rebuild the index when anything changed [default: reindex].",
        show_default=False)] = None,
    index_alias: Annotated[bool | None, typer.Option("--index/--no-index", hidden=True)] = None,
    embedder: Annotated[
        str | None, typer.Option(help="Embedder for the index: minilm+mpnet (default), minilm, mpnet, minilm-full, fast.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    thumbnails: Annotated[
        bool, typer.Option("--thumbnails", help="Then render thumbnails of the decks not rendered before.")
    ] = False,
    ray: Annotated[str | None, typer.Option(
        "--ray", metavar="ADDRESS",
        help="Do the heavy work on the Ray cluster at ADDRESS: read the changed decks (their pictures' OCR "
             "included) one retryable task each, embed what the index lacks, render thumbnails. The nodes must see "
             "the deck files and SEEK_HOME (one machine or a shared file system).")] = None,
    ray_timeout: Annotated[float, typer.Option(min=1, help="With --ray: seconds each Ray job may take.")] = 1800.0,
) -> None:
    """Ingest slides (pptx folders, JSONL, a master sheet or a named dataset), then rebuild the index.

    Each file is one transaction: a crash leaves it wholly old or wholly new. A file whose slide ids
    another file holds is refused (a conflict, named). One ingest of a SEEK_HOME runs at a time; a
    second waits and says so. A slide's text is cut at 20,000 characters (the cut is reported). The
    index is rebuilt when anything changed or when it is older than the library (an interrupted build).
    Files are named relative to PATH. Exit code 0 when every file was read, 1 when any file failed
    (each is named with the reason).
    """
    from slidesearch.ingest import IngestError, universe_rule
    from slidesearch.stores import store_writer_lock

    if path is None and dataset is None and master is None:
        fail("give a PATH, --master FILE or --dataset NAME")
    if universe is not None and universe_from is not None:
        fail("give --universe NAME or --universe-from, not both")
    try:
        rule = universe_rule(universe_from if universe is None else universe)
    except IngestError as exc:
        fail(str(exc))
    rebuild = next((flag for flag in (reindex, index_alias) if flag is not None), True)
    with store_writer_lock(on_wait=_say_waiting):  # held through the re-index, so the index matches this ingest
        _ingest_locked(path, master, dataset, rule, rebuild, embedder, as_json, thumbnails, ray, ray_timeout)


def _ingest_locked(path: Path | None, master: Path | None, dataset: str | None, rule: str | None,
                   rebuild: bool, embedder: str | None, as_json: bool, thumbnails: bool,
                   ray: str | None = None, ray_timeout: float = 1800.0) -> None:
    from slidesearch.ingest import IngestError, IngestReport, ingest_dataset, ingest_master, ingest_path
    from slidesearch.stores import open_store, served_freshness

    store = open_store()
    reports: list[IngestReport] = []
    with ray_mapper(ray, ray_timeout, "deck-reading tasks") as mapper:
        try:
            if dataset is not None:
                reports.append(ingest_dataset(dataset, store))
            if path is not None:
                reports.append(ingest_path(path, store, universe=rule, read_decks=mapper))
            if master is not None:
                reports.append(ingest_master(master, store))
            has_slides = store.counts()["slides"] > 0
        except IngestError as exc:
            fail(str(exc))
        finally:
            store.close()
    report = IngestReport.combine(reports)
    freshness = served_freshness()
    behind = has_slides and freshness.status != "fresh"  # e.g. a build killed after an earlier ingest
    if as_json:
        print_json(report.model_dump())
    else:
        console.print(
            f"{report.files_seen} files: {report.files_ingested} ingested, {report.files_unchanged} unchanged, "
            f"{report.files_removed} removed, "
            f"{len(report.failures)} failed; {report.slides_written:,} slides, {report.decks_written:,} decks, "
            f"{report.master_rows_written:,} master rows written"
        )
        for failure in report.failures:
            err_console.print(f"[red]failed[/] {escape(failure.path)}: {escape(failure.error)}")
        for other in report.skipped:
            err_console.print(f"[dim]skipped {escape(other.path)}: {escape(other.error)}[/]")
        for error in report.row_errors[:20]:
            err_console.print(f"[yellow]bad row[/] {escape(error)}")
        if len(report.row_errors) > 20:
            err_console.print(f"... and {len(report.row_errors) - 20} more bad rows")
        for cut in report.truncated:
            err_console.print(f"[yellow]cut[/] {escape(cut.path)}: {escape(cut.error)}")
        for warning in report.warnings:
            err_console.print(f"[yellow]warning:[/] {escape(warning)}")
        if (report.changed or behind) and not rebuild:
            err_console.print("[yellow]note:[/] the index was not rebuilt; search and stats read the old one "
                              "until `seek slides index`")
        elif behind and not report.changed:
            err_console.print(f"[yellow]note:[/] rebuilding the index: {escape(freshness.message)}")
    if rebuild and (report.changed or behind):
        options = RayOptions(address=ray, actors=2, batch=64, timeout_s=ray_timeout) if ray else None
        _index(embedder, as_json=False, quiet=as_json, ray=options)
    if thumbnails:
        render(workers=2, timeout=120.0, as_json=as_json, ray=ray, ray_timeout=ray_timeout)
    if report.failures:
        raise typer.Exit(1)


@app.command("index")
def index_cmd(
    embedder: Annotated[
        str | None, typer.Option(help="Embedder: minilm+mpnet, minilm, mpnet, minilm-full, fast (default SEEK_EMBEDDER).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    ray: Annotated[str | None, typer.Option(
        "--ray", metavar="ADDRESS",
        help="Embed the texts the cache lacks over the Ray cluster at ADDRESS (host:port) first.")] = None,
    ray_actors: Annotated[int, typer.Option(min=1, help="With --ray: embedding actors (one logical CPU each).")] = 2,
    ray_batch: Annotated[int, typer.Option(min=1, help="With --ray: texts per task (a lost task redoes at most this).")] = 64,
    ray_timeout: Annotated[float, typer.Option(min=1, help="With --ray: seconds the Ray job may take.")] = 1800.0,
    thumbnails: Annotated[bool, typer.Option(
        "--thumbnails", help="Then render the thumbnails of decks not rendered before (with --ray: one retryable "
        "task per deck on the cluster, whose nodes must see the deck files).")] = False,
) -> None:
    """Build the search index (embeddings, BM25, rarity, clusters, taxonomy) from the ingested library."""
    from core.settings import EMBEDDER_CHOICES

    if embedder is not None and embedder not in EMBEDDER_CHOICES:
        fail(f"unknown embedder {embedder!r}; choose one of {', '.join(EMBEDDER_CHOICES)}")
    from slidesearch.stores import store_writer_lock

    options = RayOptions(address=ray, actors=ray_actors, batch=ray_batch, timeout_s=ray_timeout) if ray else None
    with store_writer_lock(on_wait=_say_waiting):  # not while an ingest is writing the library
        _index(embedder, as_json, ray=options)
    if thumbnails:
        render(as_json=as_json, ray=ray, ray_timeout=ray_timeout)


@app.command()
def generate(
    slides: Annotated[
        int, typer.Option(min=1, help="How many slides (the original library had 122,623).")
    ] = 122_623,
    seed: Annotated[int, typer.Option(help="Random seed; the same seed and size give the same library.")] = 0,
    out: Annotated[
        Path, typer.Option(help="Output directory for slides.jsonl, master.jsonl, queries.jsonl.")
    ] = Path("generated-slides"),
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Generate a realistic synthetic slide library with a master sheet and labelled queries."""
    from slidesearch.generator import generate_library

    with _progress_bars(not as_json) as progress:
        summary = generate_library(slides, seed, out, progress=progress)
    if as_json:
        print_json(summary)
    else:
        console.print(
            f"wrote {summary['slides']:,} slides in {summary['decks']:,} decks, {summary['master_rows']:,} master rows "
            f"and {summary['queries']} queries to {out} in {summary['seconds']:.1f}s"
        )


@app.command()
def stats(
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    index: Annotated[Path | None, typer.Option("--index", help="Index directory (default SEEK_HOME/slides/index).")] = None,
) -> None:
    """Counts by universe, section, content type and deck; index sizes; the embedder in use; whether it is up to date."""
    from slidesearch.library import LibraryError
    from slidesearch.stats import library_stats
    from slidesearch.stores import open_library

    try:
        library = open_library(index)
    except LibraryError as exc:
        fail(str(exc))
    data = library_stats(library)
    if as_json:
        print_json(data)
        return
    if data["freshness"] and data["freshness"]["status"] == "stale":
        err_console.print(f"[yellow]warning:[/] {escape(data['freshness']['message'])}")
    console.print(
        f"[bold]{data['slides']:,} slides[/] in {data['decks']:,} decks ({data['canonical_decks']:,} canonical), "
        f"{data['folders']:,} folders, {data['master_rows']:,} master rows; embedder {data['embedder']} "
        f"({data['dim']}-d); index {data['index_bytes'] / 1e6:,.1f} MB at {escape(str(data['index_path']))}"
    )
    for title, counts in (
        ("universe", data["by_universe"]),
        ("section", data["by_section"]),
        ("content type", data["by_content_type"]),
    ):
        table = Table(title=f"by {title}", show_edge=False)
        table.add_column(title)
        table.add_column("slides", justify="right")
        table.add_column("share", justify="right")
        for name, count in counts.items():
            table.add_row(escape(str(name)), f"{count:,}", f"{count / max(data['slides'], 1):.1%}")
        console.print(table)
    console.print(
        f"clusters {data['clusters']['keys']} keys / {data['clusters']['terms']} terms; "
        f"taxonomy {data['taxonomy_terms']:,} terms; vocabulary {data['vocabulary']['words']:,} words, "
        f"{data['vocabulary']['phrases']:,} phrases"
    )


@app.command()
def render(
    workers: Annotated[int, typer.Option(min=1, help="Decks rendered at a time (each runs its own LibreOffice).")] = 2,
    timeout: Annotated[float, typer.Option(min=1, help="Seconds one deck may take before it is given up.")] = 120.0,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    ray: Annotated[str | None, typer.Option(
        "--ray", metavar="ADDRESS", help="Render on the Ray cluster at ADDRESS: one retryable task per deck "
        "(the nodes must see the deck files and SEEK_HOME, as on one machine or a shared file system).")] = None,
    ray_timeout: Annotated[float, typer.Option(min=1, help="With --ray: seconds the Ray job may take.")] = 1800.0,
) -> None:
    """Make slide thumbnails for every ingested deck not rendered before (LibreOffice + poppler-utils)."""
    from slidesearch.store import Store
    from slidesearch.thumbnails import ThumbnailStore, library_deck_paths, render_decks, rendering_available

    missing = rendering_available()
    if missing:
        fail(f"cannot render thumbnails: {missing}")
    store = Store()
    try:
        paths = library_deck_paths(store)
    finally:
        store.close()
    with ray_mapper(ray, ray_timeout) as mapper, _progress_bars(not as_json) as progress:
        report = render_decks(paths, ThumbnailStore(), workers=workers, timeout=timeout, progress=progress,
                              mapper=mapper)
    if as_json:
        print_json(report.model_dump())
        return
    console.print(f"{report.decks_seen} decks: {report.decks_rendered} rendered ({report.thumbnails_written:,} "
                  f"thumbnails), {report.decks_unchanged} unchanged, {len(report.failures)} failed, "
                  f"in {report.seconds:.1f}s")
    for failure in report.failures:
        err_console.print(f"[yellow]no thumbnails[/] {failure.path}: {failure.error} (its text cards stay)")
