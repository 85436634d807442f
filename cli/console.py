"""Shared console helpers: one rich console, JSON printing and clean error exits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from core.ray_tasks import RayMapper

console = Console()
err_console = Console(stderr=True)


def print_json(data: Any) -> None:
    """Print machine-readable JSON on stdout (no rich markup)."""
    typer.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False))


def fail(message: str, code: int = 1) -> NoReturn:
    """Print a one-line error on stderr and exit with ``code``."""
    err_console.print(f"[bold red]error:[/] {escape(message)}")  # a message may quote "[/]" from the user
    raise typer.Exit(code)


@contextmanager
def ray_mapper(address: str | None, timeout_s: float, tasks: str = "tasks") -> Iterator[RayMapper | None]:
    """A ``RayMapper`` on the cluster at ``address`` (None without ``--ray``), closed on the way out with a line
    on stderr saying how many ``tasks`` ran there."""
    if address is None:
        yield None
        return
    from core.ray_tasks import RayMapper

    mapper = RayMapper(address, timeout_s=timeout_s)
    try:
        yield mapper
    finally:
        mapper.close()
        err_console.print(f"[dim]ray: {mapper.tasks} {tasks} on {escape(mapper.address)}[/]")
