"""`seek slides search` and `seek slides explain`, registered on `cli.slides.app`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cli.console import console, fail, print_json
from cli.slides import app, warn_if_stale
from slidesearch.request import UNIVERSE_HELP

if TYPE_CHECKING:
    from slidesearch.engine import SlideSearch
    from slidesearch.response import Card


def _engine(index: Path | None) -> SlideSearch:
    from slidesearch.engine import SlideSearch
    from slidesearch.library import LibraryError
    from slidesearch.stores import open_library

    try:
        return SlideSearch(open_library(index))
    except LibraryError as exc:
        fail(str(exc))


def _card(card: Card, explanation: str | None, several_angles: bool = False) -> Text:
    line = Text()
    line.append(card.title or "(untitled)", style="bold")
    line.append(f"  ·  {card.deck_name}", style="cyan")
    line.append(f"  ·  {card.score:.4f}", style="magenta")
    if card.verified:
        line.append("  ✔ verified", style="bold green")
    if card.guaranteed:
        line.append("  ★ named in the query", style="yellow")
    line.append(f"\n{card.id}", style="dim")
    if several_angles and card.angle:
        line.append(f"  ·  answers: {card.angle}", style="dim")
    if card.preview:
        line.append(f"\n{card.preview}")
    if explanation:
        line.append(f"\nwhy: {explanation}", style="italic green")
    return line


def print_response(response, explanations: dict, max_sections: int | None = None) -> None:
    """Sections as panels of cards in the engine's order, the coverage note, and the trace when present."""
    console.print(f"[bold]{escape(response.query)}[/]  ·  {response.total_matches} card{'' if response.total_matches == 1 else 's'}  ·  intents {', '.join(response.intents)}"
                  f"  ·  llm {response.llm}")
    if response.expanded_terms:
        console.print(f"[dim]expanded: {escape(', '.join(response.expanded_terms))}[/]")
    for section, cards in list(response.groups.items())[:max_sections]:
        body = Group(*[_card(c, explanations[c.id].explanation if c.id in explanations else None, len(response.angles) > 1) for c in cards]) \
            if cards else Text("nothing in this section", style="dim")
        console.print(Panel(body, title=f"{section} ({len(cards)})", title_align="left"))
    if response.coverage_note:
        console.print(f"[yellow]note:[/] {escape(response.coverage_note)}")
    for note in response.notes:
        console.print(f"[yellow]note:[/] {escape(note)}")
    if response.trace is not None:
        table = Table("stage", "in", "out", "ms", title="candidates per stage")
        for row in response.trace:
            table.add_row(row.stage, str(row.candidates_in), str(row.candidates_out), f"{row.ms:.1f}")
        console.print(table)


def policy_query(engine: SlideSearch, query: list[str]) -> str | list[str]:
    """The CLI's arguments as a query, checked by the input policy every channel uses (one argument, one angle)."""
    from slidesearch.request import RequestError, RequestPolicy

    try:
        return RequestPolicy.of(engine.config).query(query[0] if len(query) == 1 else list(query))
    except RequestError as exc:
        fail(str(exc))


@app.command("search")
def search(
    query: Annotated[list[str], typer.Argument(help="The brief; several arguments are several angles.")],
    universe: Annotated[list[str] | None, typer.Option("--universe", help=UNIVERSE_HELP)] = None,
    top_per_group: Annotated[int, typer.Option(
        "--top-per-group", help="Cards per section, 1 to 50; a section shows at most 15 and says so when more "
                                "were asked.")] = 15,
    as_json: Annotated[bool, typer.Option("--json", help="Print the response model as JSON.")] = False,
    explain: Annotated[bool, typer.Option("--explain", help="Add a 'why this?' to every card.")] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Show how many candidates each stage took in and let out.")] = False,
    index: Annotated[Path | None, typer.Option("--index", help="Index directory (default SEEK_HOME/slides/index).")] = None,
    thumbnails: Annotated[bool, typer.Option("--thumbnails", help="Print each card's thumbnail file (after `seek slides render`).")] = False,
) -> None:
    """Search the slide library: sections of cards in the engine's order, plus the coverage note."""
    from slidesearch.engine import EmptyQueryError
    from slidesearch.request import RequestError, RequestPolicy, split_universes

    engine = _engine(index)
    warn_if_stale(index)
    text = policy_query(engine, query)
    try:
        top_per_group = RequestPolicy.of(engine.config).top_per_group(top_per_group)
        response = engine.search_v2(text, universes=split_universes(universe), top_per_group=top_per_group,
                                    trace=trace)
    except (EmptyQueryError, RequestError, ValueError) as exc:
        fail(str(exc))
    explanations = {e.slide_id: e for e in engine.explain_response(response)} if explain else {}
    pictures = _thumbnail_files(engine, response) if thumbnails else {}
    if as_json:
        data = response.model_dump(mode="json")
        if explain:
            data["explanations"] = [e.model_dump(mode="json") for e in explanations.values()]
        if thumbnails:
            data["thumbnail_files"] = {k: str(v) for k, v in pictures.items()}
        print_json(data)
        return
    print_response(response, explanations)
    if thumbnails:
        console.print(Text("thumbnails:", style="bold"))
        for card in response.cards():
            console.print(Text(f"  {card.id}  {pictures.get(card.id, '(not rendered: run `seek slides render`)')}"))


def _thumbnail_files(engine: SlideSearch, response) -> dict[str, Path]:
    from slidesearch.thumbnails import card_thumbnails

    return card_thumbnails(engine.library, [c.id for c in response.cards()])


@app.command("explain")
def explain_cmd(
    slide_ids: Annotated[list[str], typer.Argument(help="Card ids to explain.")],
    query: Annotated[list[str], typer.Option("--query", help="The query the cards were ranked for; repeat it for "
                                                              "the angles of a brief.")],
    universe: Annotated[list[str] | None, typer.Option("--universe", help=UNIVERSE_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the explanations as JSON.")] = False,
    index: Annotated[Path | None, typer.Option("--index", help="Index directory (default SEEK_HOME/slides/index).")] = None,
) -> None:
    """'Why this?' for cards under a query."""
    from slidesearch.request import split_universes

    engine = _engine(index)
    text = policy_query(engine, query)
    try:
        explanations = engine.explain(text, slide_ids, universes=split_universes(universe))
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        print_json([e.model_dump(mode="json") for e in explanations])
        return
    for e in explanations:
        console.print(f"[bold]{escape(e.slide_id)}[/] [dim]({e.llm})[/]\n  {escape(e.explanation)}")
