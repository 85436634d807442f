"""Shared console helpers: one rich console, JSON printing and clean error exits."""

from __future__ import annotations

import json
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

console = Console()
err_console = Console(stderr=True)


def print_json(data: Any) -> None:
    """Print machine-readable JSON on stdout (no rich markup)."""
    typer.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))


def fail(message: str, code: int = 1) -> NoReturn:
    """Print a one-line error on stderr and exit with ``code``."""
    err_console.print(f"[bold red]error:[/] {escape(message)}")  # a message may quote "[/]" from the user
    raise typer.Exit(code)
