"""The official agent contract every Ten Turns agent implements.

``Agent(catalog_path)``, ``reset(session_id, user_profile)`` once per session and
``respond(session_id, user_message, turn, top_k=10) -> dict`` each turn, returning
``{"message", "ask_attribute", "recommendations": [{"parent_asin", "score"}], "usage"}``
(``shared/specs/tenturns.md``, "Agent interface"). Keeping it lets any
official-style evaluator drive our agents and ours drive theirs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tenturns.catalog import Catalog, load_catalog


class BaseAgent:
    """Loads the catalog (shared per process) and keeps one state dict per session."""

    def __init__(self, catalog_path: str | Path) -> None:
        self.catalog_path = Path(catalog_path)
        self.catalog: Catalog = load_catalog(self.catalog_path)
        self.sessions: dict[str, dict[str, Any]] = {}

    def reset(self, session_id: str, user_profile: dict[str, Any] | None) -> None:
        """Start a session; the profile is anonymised and may be used for personalisation."""
        self.sessions[session_id] = {"user_profile": dict(user_profile or {}), "messages": []}

    def respond(self, session_id: str, user_message: str, turn: int, top_k: int = 10) -> dict[str, Any]:
        """One turn: a message, an optional question and up to ``top_k`` recommendations."""
        raise NotImplementedError

    def session(self, session_id: str) -> dict[str, Any]:
        """The state of a session started with ``reset``; responding without one is a caller error."""
        try:
            return self.sessions[session_id]
        except KeyError:
            raise RuntimeError(f"reset must be called before respond (session {session_id!r})") from None
