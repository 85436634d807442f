"""More `seek turns` commands, registered on `cli.turns.app` (kept in their own module so each part of the CLI has one owner)."""

from __future__ import annotations

from cli.turns import app

__all__ = ["app"]
