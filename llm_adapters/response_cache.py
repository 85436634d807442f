"""A response cache so re-running an evaluation does not pay for the same call twice.

Keyed by a SHA-256 of (model id, system prompt, prompt, JSON schema); stores the raw
reply text of calls that succeeded (and, for structured calls, validated). One SQLite
file under ``SEEK_HOME/llm_cache``; a connection per operation keeps it safe to share
between threads and processes (SQLite's own locking, WAL journal).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_SCHEMA = "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, text TEXT NOT NULL, created REAL NOT NULL)"


class CacheError(RuntimeError):
    """The cache file is damaged; not an ``LLMError``, so it stops the run instead of hiding behind fallbacks."""


def cache_key(model_id: str, system: str | None, prompt: str, schema: dict[str, Any] | None) -> str:
    """The cache key: a hash of everything that determines the request's content."""
    payload = json.dumps([model_id, system, prompt, schema], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    """Reply texts by cache key in one SQLite file, created on the first write."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @classmethod
    def under(cls, home: Path) -> ResponseCache:
        """The cache at ``home / "llm_cache" / "responses.sqlite3"`` (``home`` is SEEK_HOME)."""
        return cls(Path(home) / "llm_cache" / "responses.sqlite3")

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """An open connection; a damaged file becomes one clear error that says how to recover."""
        try:
            conn = sqlite3.connect(self.path, timeout=30)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(_SCHEMA)
                yield conn
            finally:
                conn.close()
        except sqlite3.DatabaseError as exc:
            raise CacheError(
                f"LLM response cache {self.path} is unreadable ({exc}); delete it or set SEEK_LLM_CACHE=0"
            ) from exc

    def get(self, key: str) -> str | None:
        """The stored reply for ``key``, or None (a missing file is an empty cache)."""
        if not self.path.exists():
            return None
        with self._connection() as conn:
            row = conn.execute("SELECT text FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, model_id: str, text: str) -> None:
        """Store (or replace) the reply for ``key``."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connection() as conn, conn:
            conn.execute(
                "INSERT OR REPLACE INTO responses (key, model, text, created) VALUES (?, ?, ?, ?)",
                (key, model_id, text, time.time()),
            )

    def __len__(self) -> int:
        if not self.path.exists():
            return 0
        with self._connection() as conn:
            return int(conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
