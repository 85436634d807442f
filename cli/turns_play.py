"""`seek turns play`: a person plays the shopper against any agent, or watches a simulated session replayed.

Registered on `cli.turns.app` (kept in its own module so each part of the CLI has one owner).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
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


def _build_agent(name: str, catalog_path: Path, full_list: bool = False) -> Any:
    """The agent; with ``full_list`` the Ten Turns agent shows its full list every turn.

    Its scored width (one item while it can still learn) is tuned for the simulator's time-to-hit
    score; a person choosing from a list wants the list.
    """
    from tenturns.agents import agent_class
    from tenturns.agents.phrase import TenTurnsAgent, TenTurnsConfig

    try:
        cls = agent_class(name)
        if full_list and issubclass(cls, TenTurnsAgent):
            return cls(catalog_path, config=TenTurnsConfig(width_policy="seed", full_width_turn=1))
        return cls(catalog_path)
    except ValueError as exc:
        fail(str(exc))


#: Words too common to say whether a catalog holds anything like a request.
_FILLER = {"a", "an", "and", "the", "for", "with", "in", "of", "to", "on", "my", "me", "i", "im", "want", "need",
           "looking", "some", "something", "like", "that", "this", "please", "under", "over", "than", "less", "more",
           "about", "around", "any", "is", "it", "its", "be", "can", "you", "your", "good", "nice", "new", "best",
           # a budget or a size is a constraint, not a kind of product
           "dollars", "dollar", "bucks", "usd", "euros", "price", "cheap", "budget", "size", "color", "colour"}


def _words(text: str) -> set[str]:
    return {w for w in "".join(c.lower() if c.isalnum() else " " for c in text).split()
            if len(w) > 2 and w not in _FILLER and not w.isdigit()}


def _vocabulary(agent: Any) -> set[str]:
    """Every word of every title and category in the agent's catalog (built once per agent)."""
    if not hasattr(agent, "_play_vocabulary"):
        agent._play_vocabulary = set().union(*(_words(" ".join([p.title, *p.categories])) for p in agent.catalog.products))
    return agent._play_vocabulary  # type: ignore[no-any-return]


def _unheard_of(message: str, agent: Any) -> list[str]:
    """Words of the message no title or category uses (singular or plural): the catalog has nothing called that."""
    vocabulary = _vocabulary(agent)
    return sorted(w for w in _words(message) if not {w, w.removesuffix("s"), f"{w}s", w.removesuffix("es")} & vocabulary)


def _why_lines(agent: Any, session_id: str, index: int, limit: int = 3) -> list[str]:
    """Why the top items were shown, from the agent's trace of that turn (agents without traces give none)."""
    traces = agent.traces(session_id) if hasattr(agent, "traces") else []
    if index >= len(traces):
        return []
    lines = []
    for item in traces[index]["items"][:limit]:
        why = ", ".join(f"{p['phrase'][:40]!r} {p['tier']} +{p['contribution']:.2f}" for p in item["phrases"])
        card = f"card +{item['card_bonus']:.2f}; " if item.get("card_bonus") else ""
        lines.append(f"  why {item['parent_asin']}: prior +{item['prior']:.2f}; {card}{why or 'no phrases yet'}")
    return lines


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


def _asks(attribute: str | None) -> str | None:
    """The question's subject as a person reads it; 'other' is the simulator's open question, said by the message."""
    return None if not attribute or attribute == "other" else attribute


def _agent_turn(agent: Any, response: dict[str, Any], message: str, turn_index: int) -> list[str]:
    shown = [str(r.get("parent_asin", "")) for r in response.get("recommendations") or [] if isinstance(r, dict)]
    console.print(f"[bold cyan]agent:[/] {escape(str(response.get('message', '')))}")
    if _asks(response.get("ask_attribute")):
        console.print(f"[cyan]asks about:[/] {escape(str(response['ask_attribute']))}")
    unheard = _unheard_of(message, agent)
    if unheard or not shown:
        words = ", ".join(repr(w) for w in unheard)
        console.print(f"[yellow]nothing like that here:[/] no item in this catalog is called {words or 'what you asked'}"
                      + ("; these are the closest it has" if shown else ""))
    if shown:
        console.print(_items_table(agent, shown))
    for line in _why_lines(agent, "play", turn_index):
        console.print(escape(line), style="dim")
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
        shown = _agent_turn(agent, agent.respond("play", message, turn), message, turn - 1)
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
    session_key = next(reversed(agent.sessions)) if agent.sessions else ""
    for index, turn in enumerate(turns):
        console.rule(f"turn {turn['turn']}")
        console.print(f"[bold magenta]shopper:[/] {turn['user_message']}")
        console.print(f"[bold cyan]agent:[/] {turn['agent_message']}")
        if _asks(turn.get("ask_attribute")):
            console.print(f"[cyan]asks about:[/] {turn['ask_attribute']}")
        console.print(_items_table(agent, turn["shown"], session.target))
        for line in _why_lines(agent, session_key, index):
            console.print(escape(line))
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
    full_list: bool = typer.Option(
        True, "--full-list/--scored-width",
        help="Playing yourself: the Ten Turns agent shows its full list each turn (default), or the width it is "
             "scored with (one item while it can still learn). --watch always replays the scored width."),
) -> None:
    """Play the shopper against an agent in the terminal, or --watch a simulated session."""
    catalog_path, sessions_path = _catalog_and_sessions(catalog, dataset, sessions)
    built = _build_agent(agent, catalog_path, full_list=full_list and not watch)
    if watch:
        _watch(built, catalog_path, sessions_path, watch, step)
    else:
        _interactive(built)


__all__ = ["app", "play"]
