"""`seek demo`: the main job on embedded defaults, no keys, no network, no server."""

from __future__ import annotations

from pathlib import Path

import typer

from cli.console import console


def demo(
    home: Path | None = typer.Option(None, help="Where to build the demo state (default: SEEK_HOME/demo)."),
) -> None:
    """Build a sample slide library, answer a few searches, and run a short Ten Turns evaluation."""
    from core.settings import get_settings

    settings = get_settings()
    root = home or settings.home / "demo"
    root.mkdir(parents=True, exist_ok=True)
    console.print(f"[bold]seek demo[/] — state under {root}")
    console.print("Engines are added to the demo as they land; `seek doctor` shows what is installed.")
