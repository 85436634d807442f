"""Shared console helpers: one rich console, JSON printing and clean error exits."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import typer
from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from core.ray_tasks import RayMapper

console = Console()
err_console = Console(stderr=True)


def print_json(data: Any) -> None:
    """Print machine-readable JSON on stdout (no rich markup)."""
    typer.echo(json.dumps(data, indent=2, default=str, ensure_ascii=False), file=_output or sys.stdout)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print a one-line error on stderr and exit with ``code``."""
    err_console.print(f"[bold red]error:[/] {escape(message)}")  # a message may quote "[/]" from the user
    raise typer.Exit(code)


def native_output_to_stderr() -> bool:
    """Keep the command's own output alone on stdout while a library writes its log lines there.

    Ray writes past Python's logging: its C++ core and gRPC to the process's descriptor 1 ("Failed to connect to
    remote host" after a node was lost), its driver to ``sys.stdout`` ("(raylet) Task ... submit failed"), which
    broke a ``--json`` report into more than one document. From here on descriptor 1 and ``sys.stdout`` are
    stderr's (the Ray processes this one starts inherit that too), and the command's output (``print_json``,
    ``console``) goes to a copy of the original stdout. Returns whether it moved anything: not when stdout is not
    descriptor 1 (a test runner's capture) or it already ran. Never undone: native threads can still log while the
    process exits.
    """
    global _output
    if _output is not None:
        return False
    try:
        if sys.stdout.fileno() != 1:
            return False
        sys.stdout.flush()
        real = os.dup(1)
        os.dup2(2, 1)
    except (AttributeError, OSError, ValueError):  # no real descriptor behind sys.stdout
        return False
    _output = os.fdopen(real, "w", buffering=1, encoding=sys.stdout.encoding, errors=sys.stdout.errors)
    console.file = _output
    sys.stdout = sys.stderr
    return True


_output: TextIO | None = None
"""The original stdout once ``native_output_to_stderr`` moved descriptor 1 (None before)."""


@contextmanager
def ray_mapper(address: str | None, timeout_s: float, tasks: str = "tasks") -> Iterator[RayMapper | None]:
    """A ``RayMapper`` on the cluster at ``address`` (None without ``--ray``), closed on the way out with a line
    on stderr saying how many ``tasks`` ran there."""
    if address is None:
        yield None
        return
    from core.ray_tasks import RayMapper

    native_output_to_stderr()
    mapper = RayMapper(address, timeout_s=timeout_s)
    try:
        yield mapper
    finally:
        mapper.close()
        err_console.print(f"[dim]ray: {mapper.tasks} {tasks} on {escape(mapper.address)}[/]")
