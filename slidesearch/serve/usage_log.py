"""The usage log: every served search, recorded in the library's SQLite database.

One row per search served over MCP, HTTP or the page: when, which session, the
query (a string or its angles), the universes searched, the slide ids returned,
the latency, and the slide ids whose "Why this?" was asked for afterwards. The
eval loop runs on these real queries the way the seed's harness did: it learned
to keep only the first query of each session (later ones are refinements that
lean on earlier results) and to drop repeats; ``standalone_queries`` applies both.

A served search never waits on the log: the service hands each record to ``submit_search`` /
``submit_explanations``, which queue it for one writer thread and return at once, so an ingest
holding the database's write lock (the log shares ``library.db``) delays the record, never the
search. The writer retries a locked database and, past its attempts, drops the record with a
warning in the server's log; a full queue drops the newest the same way.

Turned off by ``settings.usage_log`` (SEEK_USAGE_LOG=false). Headers are never
recorded, and any configured token or provider key, or anything shaped like
one, is masked in the query text before it is stored.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import re
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import sqlite_utils
from pydantic import BaseModel

from core.settings import Settings, get_settings
from core.text import normalise
from slidesearch.store import default_store_path

TABLE = "usage_log"
REDACTED = "[redacted]"
#: Provider key variables whose values must never reach the log (the LLM adapters read these).
SECRET_ENV_VARS = ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "NVIDIA_API_KEY", "OPENAI_API_KEY")
#: Shapes of credentials pasted into a search box: Anthropic/OpenAI "sk-…", Google "AIza…", NVIDIA "nvapi-…",
#: and anything after "Bearer".
_SECRET_SHAPES = re.compile(
    r"\b(sk-[A-Za-z0-9_\-]{16,}|AIza[0-9A-Za-z_\-]{20,}|nvapi-[A-Za-z0-9_\-]{16,})|(?i:bearer)\s+\S+"
)

Query = str | list[str]

#: An explain call without a session attaches to the same channel's latest search of its query from this recently:
#: an assistant asks "why?" about the results it just got, within minutes.
ANONYMOUS_MATCH_SECONDS = 600
#: Records waiting for the writer at most; beyond it a record is dropped (with a warning), never waited for.
MAX_PENDING = 10_000
#: Tries per record against a locked database; each waits up to ``LOCK_TIMEOUT_S``, so a record survives an
#: ingest holding the write lock for about a minute.
WRITE_ATTEMPTS = 6
LOCK_TIMEOUT_S = 10

_log = logging.getLogger(__name__)


class UsageRecord(BaseModel):
    """One served search as stored."""

    id: int
    time: float
    session_id: str
    channel: str
    query: Query
    universes: list[str] | None
    slide_ids: list[str]
    latency_ms: float
    explained_ids: list[str]


class UsageLog:
    """Appends served searches to the ``usage_log`` table; safe to share across the server's threads."""

    def __init__(self, db_path: Path, enabled: bool = True, secrets: Iterable[str | None] = ()) -> None:
        self.db_path = Path(db_path)
        self.enabled = enabled
        self._secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)
        self._lock = threading.Lock()
        self._db: sqlite_utils.Database | None = None
        self._pending: queue.Queue[Callable[[], object]] = queue.Queue(maxsize=MAX_PENDING)
        self._writer: threading.Thread | None = None
        self._writer_lock = threading.Lock()  # not self._lock: the writer holds that while it waits on the database

    @classmethod
    def from_settings(cls, db_path: Path, settings: Settings | None = None) -> UsageLog:
        """A log that follows ``settings.usage_log`` and masks the API token and every provider key set."""
        settings = settings or get_settings()
        secrets = [settings.api_token, *(os.environ.get(var) for var in SECRET_ENV_VARS)]
        return cls(db_path, enabled=settings.usage_log, secrets=secrets)

    def _database(self) -> sqlite_utils.Database:
        if self._db is None:
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
            # One connection shared by the writer thread and the readers, serialised by self._lock; the timeout
            # waits out an ingest holding the database's write lock (on the writer thread, not a search's).
            conn = sqlite3.connect(str(self.db_path), check_same_thread=False, timeout=LOCK_TIMEOUT_S)
            db = sqlite_utils.Database(conn)
            if TABLE not in db.table_names():
                db.table(TABLE).create(
                    {"id": int, "time": float, "session_id": str, "channel": str, "query": str, "universes": str,
                     "slide_ids": str, "latency_ms": float, "explained_ids": str},
                    pk="id",
                )
                db.table(TABLE).create_index(["session_id", "time"])
            self._db = db
        return self._db

    def redact(self, text: str) -> str:
        """``text`` with configured secrets and credential-shaped strings replaced by ``[redacted]``."""
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return _SECRET_SHAPES.sub(REDACTED, text)

    def _redact_query(self, query: Query) -> Query:
        return self.redact(query) if isinstance(query, str) else [self.redact(angle) for angle in query]

    def record_search(
        self,
        *,
        channel: str,
        session_id: str | None,
        query: Query,
        universes: Sequence[str] | None,
        slide_ids: Sequence[str],
        latency_ms: float,
    ) -> int | None:
        """Store one served search; returns its row id (None when the log is off)."""
        if not self.enabled:
            return None
        row = {
            "time": time.time(),
            "session_id": session_id or new_session_id(),
            "channel": channel,
            "query": json.dumps(self._redact_query(query), ensure_ascii=False),
            "universes": json.dumps(list(universes) if universes is not None else None),
            "slide_ids": json.dumps(list(slide_ids)),
            "latency_ms": round(float(latency_ms), 3),
            "explained_ids": "[]",
        }
        with self._lock:
            table = self._database().table(TABLE)
            table.insert(row)
            return int(table.last_pk)

    def record_explanations(self, *, session_id: str | None, query: Query, slide_ids: Sequence[str],
                            channel: str | None = None) -> bool:
        """Add ``slide_ids`` to the explanations asked for on the latest matching logged search of ``query``.

        The match is this session's latest search of the query; a call without a session (a
        stateless MCP-over-HTTP client) matches the channel's latest search of the query within
        ``ANONYMOUS_MATCH_SECONDS``. Returns False (recording nothing) when the log is off or no
        search matches, e.g. an explain call for results served by another process.
        """
        if not self.enabled or not (session_id or channel):
            return False
        key = _query_key(self._redact_query(query))
        if session_id:
            sql = f"SELECT id, query, explained_ids FROM {TABLE} WHERE session_id = ?"
            params: list[Any] = [session_id]
        else:
            sql = f"SELECT id, query, explained_ids FROM {TABLE} WHERE channel = ? AND time >= ?"
            params = [channel, time.time() - ANONYMOUS_MATCH_SECONDS]
        with self._lock:
            db = self._database()
            rows = db.query(sql + " ORDER BY time DESC, id DESC", params)
            match = next((r for r in rows if _query_key(json.loads(r["query"])) == key), None)
            if match is None:
                return False
            explained = json.loads(match["explained_ids"])
            explained += [s for s in slide_ids if s not in explained]
            db.table(TABLE).update(match["id"], {"explained_ids": json.dumps(explained)})
            return True

    # ----------------------------------------------------------------- off the request path

    def submit_search(self, **record: Any) -> None:
        """``record_search`` on the writer thread: returns at once, whatever holds the database."""
        if self.enabled:
            self._submit(lambda: self.record_search(**record))

    def submit_explanations(self, **record: Any) -> None:
        """``record_explanations`` on the writer thread (after every search submitted before it)."""
        if self.enabled:
            self._submit(lambda: self.record_explanations(**record))

    def flush(self) -> None:
        """Wait until every submitted record is written (or dropped)."""
        self._pending.join()

    def _submit(self, job: Callable[[], object]) -> None:
        with self._writer_lock:
            if self._writer is None or not self._writer.is_alive():
                self._writer = threading.Thread(target=self._write_pending, daemon=True, name="seek-usage-log")
                self._writer.start()
        try:
            self._pending.put_nowait(job)
        except queue.Full:
            _log.warning("usage log: %d records already waiting for %s; one was dropped", MAX_PENDING, self.db_path)

    def _write_pending(self) -> None:
        while True:
            job = self._pending.get()
            try:
                for attempt in range(1, WRITE_ATTEMPTS + 1):
                    try:
                        job()
                        break
                    except sqlite3.OperationalError as exc:
                        if attempt == WRITE_ATTEMPTS:
                            _log.warning("usage log: a record was dropped after %d tries (%s)", attempt, exc)
            except Exception:  # the log must never take the server down; the record is lost, and said so
                _log.exception("usage log: a record could not be written")
            finally:
                self._pending.task_done()

    # ----------------------------------------------------------------- reading

    def records(self) -> list[UsageRecord]:
        """Every logged search, oldest first (after the records still waiting are written)."""
        self.flush()
        if not self.db_path.exists():
            return []
        with self._lock:
            db = self._database()
            rows = list(db.query(f"SELECT * FROM {TABLE} ORDER BY time, id"))
        return [
            UsageRecord(
                id=r["id"], time=r["time"], session_id=r["session_id"], channel=r["channel"],
                query=json.loads(r["query"]), universes=json.loads(r["universes"]),
                slide_ids=json.loads(r["slide_ids"]), latency_ms=r["latency_ms"],
                explained_ids=json.loads(r["explained_ids"]),
            )
            for r in rows
        ]

    def standalone_queries(self) -> list[dict[str, Any]]:
        """The first query of each session, repeats (same normalised text) dropped, oldest first.

        Rows have the fields the eval harness's query-log loader reads (``id``, ``query``)
        plus ``universes``, ``session_id`` and ``time`` for provenance.
        """
        first_of_session: dict[str, UsageRecord] = {}
        for record in self.records():
            first_of_session.setdefault(record.session_id, record)
        seen: set[str] = set()
        rows: list[dict[str, Any]] = []
        for record in first_of_session.values():
            key = _query_key(record.query)
            if not key or key in seen:
                continue
            seen.add(key)
            rows.append({
                "id": f"log-{len(rows) + 1:04d}", "query": record.query, "universes": record.universes,
                "session_id": record.session_id, "time": record.time,
            })
        return rows

    def export(self, out: Path, standalone: bool = True) -> int:
        """Write ``standalone_queries`` (or with ``standalone=False`` every record) as JSONL; returns the count.

        Written to a temporary file and renamed, so a failed export never leaves half a query set.
        """
        rows = self.standalone_queries() if standalone else [r.model_dump() for r in self.records()]
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(f".{out.name}.{uuid.uuid4().hex}.tmp")
        try:
            tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
            os.replace(tmp, out)
        finally:
            tmp.unlink(missing_ok=True)
        return len(rows)

    def close(self) -> None:
        self.flush()
        with self._lock:
            if self._db is not None:
                self._db.conn.close()
                self._db = None


def usage_db_path(index_path: Path | None = None) -> Path:
    """The library database beside an index directory (``SEEK_HOME/slides/library.db`` for the default index)."""
    return Path(index_path).parent / "library.db" if index_path is not None else default_store_path()


def new_session_id() -> str:
    return uuid.uuid4().hex


def _query_key(query: Query) -> str:
    angles = [query] if isinstance(query, str) else query
    return "\n".join(normalise(a) for a in angles if normalise(a))
