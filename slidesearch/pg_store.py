"""The ingested library in PostgreSQL (``SEEK_STORE=postgresql://…``): ``Store``'s contract over psycopg 3.

The same tables as the SQLite store, prefixed ``store_`` (``store_slides``, ``store_decks``,
``store_master``, ``store_sources``, ``store_metadata``), with a ``seq`` identity column standing
for SQLite's rowid (ingestion order: a replaced source's rows go to the end, as they do there).
Each source is replaced in one SQL transaction; every committed change bumps ``generation`` in it;
an id another source holds is a ``SourceConflict`` and nothing is written. The writer lock is a
session advisory lock (``advisory_writer_lock``): the server releases it when the holder's
connection ends, so a killed ingest never leaves it taken.

Connections use ``prepare_threshold=None``: psycopg 3 prepares a statement after five runs, and a
prepared plan was measured ignoring a later ``SET``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import psycopg

from slidesearch.model import Deck, Slide, VerifiedCaseStudy
from slidesearch.store import EXTRA_SLIDE_COLUMNS, SLIDE_COLUMNS, keys_under, refuse_held_ids

#: The advisory lock keys (one bigint each): the writers of the library, and the creation of its schema.
WRITER_LOCK_KEY = 0x5EE_C021
SCHEMA_LOCK_KEY = 0x5EE_C022

_SLIDE_FIELDS = SLIDE_COLUMNS + EXTRA_SLIDE_COLUMNS
_DECK_FIELDS = ("deck_id", "deck_name", "folder", "universe", "deck_date", "n_slides", "source_path")
_MASTER_FIELDS = ("row_id", "client", "use_case", "title", "summary", "universe")

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS store_slides (
    seq bigint GENERATED ALWAYS AS IDENTITY,
    {", ".join(f"{c} {'integer' if c == 'slide_number' else 'text'}" for c in _SLIDE_FIELDS if c != "slide_id")},
    slide_id text PRIMARY KEY,
    source_key text NOT NULL
);
CREATE INDEX IF NOT EXISTS store_slides_source ON store_slides (source_key);
CREATE INDEX IF NOT EXISTS store_slides_seq ON store_slides (seq);
CREATE TABLE IF NOT EXISTS store_decks (
    deck_id text PRIMARY KEY, deck_name text, folder text, universe text, deck_date text, n_slides integer,
    source_path text, source_key text NOT NULL
);
CREATE INDEX IF NOT EXISTS store_decks_source ON store_decks (source_key);
CREATE TABLE IF NOT EXISTS store_master (
    seq bigint GENERATED ALWAYS AS IDENTITY, source_key text NOT NULL, row_id text NOT NULL, client text,
    use_case text, title text, summary text, universe text, PRIMARY KEY (source_key, row_id)
);
CREATE TABLE IF NOT EXISTS store_sources (
    source_key text PRIMARY KEY, kind text, content_hash text, n_items integer
);
CREATE TABLE IF NOT EXISTS store_metadata (key text PRIMARY KEY, value text);
"""


def connect(url: str, *, autocommit: bool = True) -> psycopg.Connection[Any]:
    """A connection to the library's database, named after this process (the lock holder is told by it)."""
    return psycopg.connect(url, autocommit=autocommit, prepare_threshold=None,
                           application_name=f"seek pid {os.getpid()}")


def ensure_schema(conn: psycopg.Connection[Any], statements: str) -> None:
    """Create what ``statements`` create, once: concurrent first opens would otherwise race in the catalog."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))
        conn.execute(statements)


@contextmanager
def advisory_writer_lock(url: str, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the library's writer lock (a PostgreSQL session advisory lock) for the block.

    A second writer waits here; ``on_wait`` is told once, naming the holder's process, before it waits.
    The lock lives on a connection of its own, so it lasts exactly as long as the block (or the process).
    """
    with connect(url) as conn:
        taken = conn.execute("SELECT pg_try_advisory_lock(%s)", (WRITER_LOCK_KEY,)).fetchone()
        if not (taken and taken[0]):
            holder = conn.execute(
                "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = %s",
                (WRITER_LOCK_KEY,)).fetchone()
            if on_wait is not None:
                on_wait(f"another seek process ({holder[0] if holder else '?'}) is writing this library "
                        f"({conn.info.host}:{conn.info.port}/{conn.info.dbname}); waiting for it to finish")
            conn.execute("SELECT pg_advisory_lock(%s)", (WRITER_LOCK_KEY,))
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (WRITER_LOCK_KEY,))


class PostgresStore:
    """The ingestion database in PostgreSQL (see the module docstring). Not shared across threads."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.conn = connect(url)
        ensure_schema(self.conn, _SCHEMA)

    @property
    def path(self) -> str:
        """Where the store is, without its password (what an index records as its store)."""
        info = self.conn.info
        return f"postgresql://{info.host}:{info.port}/{info.dbname}"

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """One repeatable-read transaction: the slides, master rows, sources and generation read inside it agree."""
        with self.conn.transaction():
            self.conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield

    # ----------------------------------------------------------------- sources

    def source_hash(self, source_key: str) -> str | None:
        row = self.conn.execute("SELECT content_hash FROM store_sources WHERE source_key = %s",
                                (source_key,)).fetchone()
        return row[0] if row else None

    @property
    def generation(self) -> int:
        """How many committed changes the store has seen; the library records the one it was built from."""
        row = self.conn.execute("SELECT value FROM store_metadata WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    def _bump_generation(self) -> None:
        self.conn.execute(
            "INSERT INTO store_metadata (key, value) VALUES ('generation', '1') ON CONFLICT (key) "
            "DO UPDATE SET value = (store_metadata.value::bigint + 1)::text")

    def replace_source(
        self,
        source_key: str,
        kind: str,
        content_hash: str,
        slides: Sequence[Slide] = (),
        decks: Sequence[Deck] = (),
        master: Sequence[VerifiedCaseStudy] = (),
    ) -> None:
        """Replace everything a source file contributed, in one transaction (``Store.replace_source``).

        Raises ``SourceConflict`` (and writes nothing) when another source holds one of its slide or deck ids.
        """
        with self.conn.transaction():
            for table in ("store_slides", "store_decks", "store_master"):
                self.conn.execute(f"DELETE FROM {table} WHERE source_key = %s", (source_key,))
            refuse_held_ids(source_key, slides, decks, self._owners, ("store_slides", "store_decks"))
            self._copy("store_slides", (*_SLIDE_FIELDS, "source_key"),
                       ((*_slide_values(s), source_key) for s in slides))
            self._copy("store_decks", (*_DECK_FIELDS, "source_key"), ((*_deck_values(d), source_key) for d in decks))
            self._copy("store_master", (*_MASTER_FIELDS, "source_key"),
                       ((*(getattr(m, f) for f in _MASTER_FIELDS), source_key) for m in master))
            self.conn.execute(
                "INSERT INTO store_sources (source_key, kind, content_hash, n_items) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (source_key) DO UPDATE SET kind = excluded.kind, content_hash = excluded.content_hash, "
                "n_items = excluded.n_items", (source_key, kind, content_hash, len(slides) + len(master)))
            self._bump_generation()

    def _copy(self, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        with self.conn.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    def _owners(self, table: str, column: str, ids: Sequence[str]) -> dict[str, list[str]]:
        """``other source_key -> ids`` of those among ``ids`` that ``table`` already holds."""
        owners: dict[str, list[str]] = {}
        if not ids:
            return owners
        for key, held in self.conn.execute(
            f"SELECT source_key, {column} FROM {table} WHERE {column} = ANY(%s)", (list(ids),)
        ).fetchall():
            owners.setdefault(key, []).append(held)
        return owners

    def remove_source(self, source_key: str) -> None:
        """Forget a source file and everything it contributed (its file is gone), in one transaction."""
        with self.conn.transaction():
            for table in ("store_slides", "store_decks", "store_master", "store_sources"):
                self.conn.execute(f"DELETE FROM {table} WHERE source_key = %s", (source_key,))
            self._bump_generation()

    def sources(self) -> dict[str, str]:
        """``source_key -> content_hash`` of every ingested file."""
        return dict(self.conn.execute("SELECT source_key, content_hash FROM store_sources").fetchall())

    def sources_under(self, root: str) -> list[str]:
        """Source keys of the files ingested from under the folder ``root``."""
        return keys_under((key for (key,) in self.conn.execute("SELECT source_key FROM store_sources").fetchall()), root)

    # ----------------------------------------------------------------- reads

    def iter_slides(self) -> Iterator[Slide]:
        """Every slide in ingestion order, as models."""
        rows = self.conn.execute(f"SELECT {', '.join(_SLIDE_FIELDS)} FROM store_slides ORDER BY seq").fetchall()
        for row in rows:
            record = dict(zip(_SLIDE_FIELDS, row, strict=True))
            record.update({c: record[c] or "" for c in EXTRA_SLIDE_COLUMNS})
            record["deck_date"] = date.fromisoformat(record["deck_date"]) if record["deck_date"] else None
            yield Slide.model_validate(record)

    def master_rows(self) -> list[VerifiedCaseStudy]:
        """Every master row; a row id an earlier sheet also uses is told apart as ``<id>@<sheet file name>``."""
        rows: list[VerifiedCaseStudy] = []
        first_sheet: dict[str, str] = {}
        for values in self.conn.execute(
            f"SELECT source_key, {', '.join(_MASTER_FIELDS)} FROM store_master ORDER BY seq"
        ).fetchall():
            source_key, record = values[0], dict(zip(_MASTER_FIELDS, values[1:], strict=True))
            sheet = first_sheet.setdefault(record["row_id"], source_key)
            if sheet != source_key:
                record["row_id"] = f"{record['row_id']}@{Path(source_key).name}"
            rows.append(VerifiedCaseStudy(**record))
        return rows

    def counts(self) -> dict[str, int]:
        return {name: int(self.conn.execute(f"SELECT count(*) FROM store_{name}").fetchone()[0])  # type: ignore[index]
                for name in ("slides", "decks", "master", "sources")}

    def decks(self) -> Iterable[dict[str, Any]]:
        cur = self.conn.execute(f"SELECT {', '.join(_DECK_FIELDS)}, source_key FROM store_decks ORDER BY deck_id")
        names = [d.name for d in cur.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def _slide_values(slide: Slide) -> tuple[Any, ...]:
    row = slide.model_dump()
    row["deck_date"] = slide.deck_date.isoformat() if slide.deck_date else None
    return tuple(row[c] for c in _SLIDE_FIELDS)


def _deck_values(deck: Deck) -> tuple[Any, ...]:
    row = deck.model_dump()
    row["deck_date"] = deck.deck_date.isoformat() if deck.deck_date else None
    return tuple(row.get(c) for c in _DECK_FIELDS)
