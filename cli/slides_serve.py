"""More `seek slides` commands, registered on `cli.slides.app` (kept in their own module so each part of the CLI has one owner)."""

from __future__ import annotations

from cli.slides import app

__all__ = ["app"]
