"""`seek turns play`: a person plays the shopper against any agent, or watches a simulated session replayed.

Registered on `cli.turns.app` (kept in its own module so each part of the CLI has one owner).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from cli.console import console, fail
from cli.turns import app

QUIT_WORDS = {"", "q", "quit", "exit"}
TITLE_CHARS = 90


def _catalog_and_sessions(catalog: Path | None, dataset: str | None, sessions: Path | None) -> tuple[Path, Path | None]:
    if (catalog is None) == (dataset is None):
        fail("give exactly one of --catalog PATH or --dataset NAME")
    if dataset is not None:
        from tenturns.datasets import resolve_dataset

        try:
            resolved = resolve_dataset(dataset)
        except (ValueError, FileNotFoundError) as exc:
            fail(str(exc))
        return Path(resolved.catalog_path), Path(sessions or resolved.sessions_path)
    assert catalog is not None
    if not catalog.is_file():
        fail(f"catalog not found: {catalog}")
    return catalog, sessions


def _build_agent(name: str, catalog_path: Path) -> Any:
    from tenturns.agents import make_agent

    try:
        return make_agent(name, catalog_path)
    except ValueError as exc:
        fail(str(exc))


def _items_table(agent: Any, shown: list[str], target: str | None = None) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("#", "asin", "price", "title"):
        table.add_column(column)
    for rank, asin in enumerate(shown, start=1):
        product = agent.catalog.get(asin)
        title = (product.title if product else "?")[:TITLE_CHARS]
        price = f"${product.price:g}" if product and product.price is not None else ""
        mark = "[bold green]" if asin == target else ""
        table.add_row(f"{mark}{rank}", f"{mark}{asin}", price, f"{mark}{title}")
    return table


def _agent_turn(agent: Any, response: dict[str, Any]) -> list[str]:
    shown = [str(r.get("parent_asin", "")) for r in response.get("recommendations") or [] if isinstance(r, dict)]
    console.print(f"[bold cyan]agent:[/] {response.get('message', '')}")
    if response.get("ask_attribute"):
        console.print(f"[cyan]asks about:[/] {response['ask_attribute']}")
    console.print(_items_table(agent, shown))
    return shown


def _interactive(agent: Any) -> None:
    console.print("You are the shopper. Say what you want; answer the agent's questions. "
                  "Type 'pick N' when item N is what you wanted, or 'quit'.")
    agent.reset("play", {})
    shown: list[str] = []
    turn = 0
    while turn < 10:
        message = typer.prompt(f"you (turn {turn + 1})", default="", show_default=False).strip()
        if message.lower() in QUIT_WORDS:
            console.print("bye.")
            return
        words = message.lower().split()
        if len(words) == 2 and words[0] == "pick" and words[1].isdigit():
            rank = int(words[1])
            if 1 <= rank <= len(shown):
                console.print(f"[bold green]found at turn {turn}, rank {rank}[/] ({shown[rank - 1]})")
                return
            console.print(f"there is no item {rank} on the list")
            continue
        turn += 1
        shown = _agent_turn(agent, agent.respond("play", message, turn))
    console.print("ten turns are up.")


def _watch(agent: Any, catalog_path: Path, sessions_path: Path | None, sample_id: str, step: bool) -> None:
    from tenturns.evaluate import load_sessions, play_session
    from tenturns.simulator import Shopper

    if sessions_path is None:
        fail("--watch needs session rows: use --dataset NAME or --sessions PATH")
    session = next((s for s in load_sessions(sessions_path) if s.sample_id == sample_id), None)
    if session is None:
        fail(f"no session {sample_id!r} in {sessions_path}")
    shopper = Shopper.for_session(session, agent.catalog.get(session.target))
    result, turns, (prompt, completion) = play_session(agent, session, shopper, agent.catalog.index_of)
    target = agent.catalog.get(session.target)
    console.print(f"[bold]{session.sample_id}[/] · {session.scenario_type} · shelf {shopper.shelf!r}")
    console.print(f"target {session.target}: {target.title[:TITLE_CHARS] if target else '?'}")
    console.print(f"hidden intent: hard {shopper.card.hard_constraints} · soft {shopper.card.soft_preferences}")
    explained = agent.traces(next(reversed(agent.sessions))) if hasattr(agent, "traces") else []
    for index, turn in enumerate(turns):
        console.rule(f"turn {turn['turn']}")
        console.print(f"[bold magenta]shopper:[/] {turn['user_message']}")
        console.print(f"[bold cyan]agent:[/] {turn['agent_message']}")
        if turn.get("ask_attribute"):
            console.print(f"[cyan]asks about:[/] {turn['ask_attribute']}")
        console.print(_items_table(agent, turn["shown"], session.target))
        if index < len(explained):
            for item in explained[index]["items"][:3]:
                why = ", ".join(f"{p['phrase'][:40]!r} {p['tier']} +{p['contribution']:.2f}" for p in item["phrases"])
                card = f"card +{item['card_bonus']:.2f}; " if item.get("card_bonus") else ""
                console.print(f"  why {item['parent_asin']}: prior +{item['prior']:.2f}; {card}{why or 'no phrases yet'}")
        if turn.get("target_rank"):
            note = "" if turn["counts"] else " (before the override: does not count)"
            console.print(f"[bold green]target shown at rank {turn['target_rank']}[/]{note}")
        if step and index + 1 < len(turns):
            typer.prompt("enter for the next turn", default="", show_default=False)
    outcome = f"hit at turn {result.first_hit_turn}, rank {result.best_rank}" if result.hit else "miss"
    console.print(f"[bold]{outcome}[/] · tokens {prompt}+{completion}")


@app.command("play")
def play(
    agent: str = typer.Option("tenturns", "--agent", help="Agent name: baseline, generic, tenturns."),
    catalog: Path | None = typer.Option(None, "--catalog", help="Catalog JSONL(.gz) to shop in."),
    dataset: str | None = typer.Option(None, "--dataset", help="A named dataset, e.g. public-sample, public-50k."),
    watch: str | None = typer.Option(None, "--watch", help="Replay this sample id's simulated session turn by turn."),
    sessions: Path | None = typer.Option(None, "--sessions", help="Session rows for --watch with --catalog."),
    step: bool = typer.Option(False, "--step", help="With --watch, wait for enter between turns."),
) -> None:
    """Play the shopper against an agent in the terminal, or --watch a simulated session."""
    catalog_path, sessions_path = _catalog_and_sessions(catalog, dataset, sessions)
    built = _build_agent(agent, catalog_path)
    if watch:
        _watch(built, catalog_path, sessions_path, watch, step)
    else:
        _interactive(built)


__all__ = ["app", "play"]
