"""`seek slides assemble`: build a .pptx deck from slide ids or from a query, registered on `cli.slides.app`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from cli.console import console, fail, print_json
from cli.slides import app
from slidesearch.request import UNIVERSE_HELP


def _resolve(library, scope: list[str] | None) -> list[str] | None:
    """The library's own spelling of each universe asked for (matched case-insensitively); None for no scope."""
    resolved = library.resolve_universes(scope)
    return list(resolved) if resolved else None


@app.command("assemble")
def assemble(
    out: Annotated[Path, typer.Option("--out", help="The .pptx file to write.")],
    slide_ids: Annotated[list[str] | None, typer.Argument(help="Slide ids in deck order.", show_default=False)] = None,
    title: Annotated[str | None, typer.Option("--title", help="Adds a cover slide and names the deck.")] = None,
    query: Annotated[str | None, typer.Option(
        "--query", help="The query the deck answers (recorded in the deck); without ids, the deck takes its top cards.")] = None,
    sections: Annotated[str | None, typer.Option(
        "--sections", help='With --query alone: comma-separated sections, e.g. "Case Studies,Data & Analytics".')] = None,
    max_slides: Annotated[int | None, typer.Option(
        "--max-slides", help="With --query alone: at most this many slides, 1 to 200 [12].")] = None,
    universe: Annotated[list[str] | None, typer.Option("--universe", help=UNIVERSE_HELP)] = None,
    index: Annotated[Path | None, typer.Option("--index", help="Index directory (default SEEK_HOME/slides/index).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print what happened to each slide as JSON.")] = False,
    max_alias: Annotated[int | None, typer.Option("--max", hidden=True)] = None,
    universes_alias: Annotated[list[str] | None, typer.Option("--universes", hidden=True)] = None,
    preview: Annotated[bool, typer.Option("--preview", help="Render the written deck's slides to PNGs beside it.")] = False,
) -> None:
    """Build a deck: `seek slides assemble ID... --out deck.pptx`, or `--query "Q" [--sections ...] [--max-slides 12]`."""
    from slidesearch.assemble import AssembleError, pick_cards, validate_sections
    from slidesearch.assemble import assemble as build_deck
    from slidesearch.library import LibraryError
    from slidesearch.request import RequestError, RequestPolicy, split_universes
    from slidesearch.stores import open_library

    if max_slides is None:
        max_slides = max_alias  # --max, the name before the one vocabulary
    if query is not None and not query.strip():
        fail("the query is empty: type a few words describing the slides you want")
    if not slide_ids and not query:
        fail("give slide ids, or --query to take the top cards of a search")
    if slide_ids and (sections or max_slides is not None):
        fail("--sections and --max-slides pick cards for --query alone; with slide ids the deck holds exactly those")
    try:
        if max_slides is not None:
            RequestPolicy.of().max_slides(max_slides)
    except RequestError as exc:
        fail(str(exc))
    scope = split_universes([*(universe or []), *(universes_alias or [])])
    try:
        if slide_ids:
            library = open_library(index)
            scope = _resolve(library, scope)
            ids = list(slide_ids)
        else:
            from slidesearch.engine import SlideSearch

            wanted = validate_sections(sections.split(",")) if sections else None
            engine = SlideSearch(open_library(index))
            library = engine.library
            scope = _resolve(library, scope)
            response = engine.search_v2(query or "", universes=scope)
            ids = pick_cards(response.groups, wanted, 12 if max_slides is None else max_slides, library=library)
            if not ids:
                fail(f"the search for {query!r} returned no slides in {', '.join(wanted) if wanted else 'any section'}")
        result = build_deck(ids, title=title, query=query, library=library, out=out, universes=scope)
    except (AssembleError, LibraryError, ValueError) as exc:  # ValueError: an empty query or an unknown universe
        fail(str(exc))
    except OSError as exc:  # an unwritable --out: a missing parent under /proc, a file in the path, a name too long
        fail(f"cannot write the deck to {out}: {exc.strerror or exc}")
    pictures = _preview(result.path) if preview and result.path is not None else []
    if as_json:
        print_json({**result.model_dump(mode="json"), **({"preview": [str(p) for p in pictures]} if preview else {})})
        return
    table = Table("#", "slide", "deck", "how", "why", show_lines=False)
    for note in result.slides:
        table.add_row(str(note.position), escape(note.slide_id), escape(f"{note.deck_name} · {note.slide_number}"),
                      note.mode, escape(note.reason))
    console.print(table)
    console.print(f"wrote {escape(str(result.path))} ({result.n_slides} slides: {len(result.copied)} copied, "
                  f"{len(result.rendered_as_text)} as text) in {result.seconds:.2f} s")
    if pictures:
        console.print(f"preview: {len(pictures)} slide pictures in {escape(str(pictures[0].parent))}")


def _preview(deck: Path) -> list[Path]:
    """The written deck rendered to one PNG per slide in ``<deck>.preview/`` (fails with what to install)."""
    from slidesearch.thumbnails import render_deck, rendering_available

    missing = rendering_available()
    if missing:
        fail(f"cannot preview the deck: {missing}")
    out = deck.with_name(f"{deck.stem}.preview")
    record = render_deck(deck, "preview", out)
    if not record.ok:
        fail(f"the deck was written but could not be previewed: {record.error}")
    return [out / f"slide-{n}.png" for n in record.slides]
