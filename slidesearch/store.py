"""The ingested library on disk: one SQLite database (sqlite-utils) that ingestion writes and indexing reads.

Tables: ``slides`` (the model's fields plus insertion order), ``decks``,
``master`` (verified case studies, keyed by sheet and row id), ``sources`` (every
ingested file with the sha256 of its bytes, so an unchanged file is skipped and a
changed one replaces its slides) and ``metadata`` (the store's ``generation``).

Each source is replaced in one SQLite transaction (sqlite-utils' ``Database.atomic``;
its own batched inserts nest inside as savepoints, so nothing commits half way): a
failure or a kill at any point leaves exactly the earlier state or exactly the new
one. Every committed change bumps ``generation`` in the same transaction, and the
index records the generation it was built from, so a stale index can always be told.

A source owns its slide and deck ids: an id another source already holds is a
``SourceConflict``, never a silent transfer. ``writer_lock`` serialises the
processes writing one store (two ingests of one SEEK_HOME run one after the other).

``LibraryStore`` is what ingest and ``build_index`` need of a store; ``Store`` (these files, the
embedded default) and ``slidesearch.pg_store.PostgresStore`` (``SEEK_STORE=postgresql://…``)
implement it with the same transactions, generation rule, writer lock and conflicts.
``slidesearch.stores`` picks the one the settings name.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import date
from pathlib import Path
from typing import Any, Protocol

from core.settings import get_settings
from slidesearch.model import Deck, Slide, VerifiedCaseStudy

SLIDE_COLUMNS = (
    "slide_id",
    "deck_id",
    "deck_name",
    "folder",
    "slide_number",
    "title",
    "text",
    "content_type",
    "universe",
    "deck_date",
    "source_path",
)
#: Text columns added after the first stores were written: an older store gains them empty on open.
EXTRA_SLIDE_COLUMNS = ("notes", "smartart_text", "chart_text", "picture_text", "source_format")


#: How many ids a conflict message names before "and N more".
CONFLICT_EXAMPLES = 3


Owners = Callable[[str, str, Sequence[str]], dict[str, list[str]]]
"""``(table, id column, ids) -> {other source_key: the ids it holds}``: one store's lookup of who holds which ids."""


def keys_under(keys: Iterable[str], root: str) -> list[str]:
    """The source keys among ``keys`` of files under the folder ``root`` (every store's rule)."""
    prefix = root.rstrip("/") + "/"
    return [key for key in keys if key.startswith(prefix)]


def refuse_held_ids(source_key: str, slides: Sequence[Slide], decks: Sequence[Deck], owners_of: Owners,
                    tables: tuple[str, str]) -> None:
    """Raise ``SourceConflict`` when another source holds one of these slide or deck ids (every store's rule:
    ids are never moved between sources silently). ``tables`` names the store's slide and deck tables."""
    owners = owners_of(tables[0], "slide_id", [s.slide_id for s in slides])
    deck_ids = sorted({s.deck_id for s in slides} | {d.deck_id for d in decks})
    for owner, held in owners_of(tables[1], "deck_id", deck_ids).items():
        owners.setdefault(owner, []).extend(f"deck {deck_id}" for deck_id in held)
    if owners:
        raise SourceConflict(source_key, owners)


class SourceConflict(ValueError):
    """A source's slide or deck ids are already held by other sources; nothing of it was written."""

    def __init__(self, source_key: str, owners: dict[str, list[str]]) -> None:
        self.source_key = source_key
        self.owners = owners  # other source_key -> the ids of this source it holds
        super().__init__(f"{sum(len(v) for v in owners.values())} slide or deck id(s) already belong to "
                         f"{len(owners)} other file(s)")


def default_store_path() -> Path:
    return get_settings().slides_dir / "library.db"


def store_generation(path: Path) -> int | None:
    """The generation of the store at ``path`` read without opening it for writing; None when there is none."""
    if not Path(path).exists():
        return None
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
            row = conn.execute("SELECT value FROM metadata WHERE key = 'generation'").fetchone()
    except sqlite3.Error:
        return None
    return int(row[0]) if row else 0


class LibraryStore(Protocol):
    """The ingested library as ingest writes it and ``build_index`` reads it (see the module docstring)."""

    @property
    def generation(self) -> int: ...

    def source_hash(self, source_key: str) -> str | None: ...

    def replace_source(self, source_key: str, kind: str, content_hash: str, slides: Sequence[Slide] = (),
                       decks: Sequence[Deck] = (), master: Sequence[VerifiedCaseStudy] = ()) -> None: ...

    def remove_source(self, source_key: str) -> None: ...

    def sources(self) -> dict[str, str]: ...

    def sources_under(self, root: str) -> list[str]: ...

    def snapshot(self) -> AbstractContextManager[Any]: ...

    def iter_slides(self) -> Iterator[Slide]: ...

    def master_rows(self) -> list[VerifiedCaseStudy]: ...

    def counts(self) -> dict[str, int]: ...

    def decks(self) -> Iterable[dict[str, Any]]: ...

    def close(self) -> None: ...


@contextmanager
def writer_lock(store_path: Path | None = None, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the store's writer lock (a ``flock`` on ``library.lock`` beside it) for the block.

    A second writer of the same SEEK_HOME waits here; ``on_wait`` is told once, with the holder's
    pid, before it waits. The lock is the kernel's, so a killed holder never leaves it taken.
    """
    path = (Path(store_path) if store_path is not None else default_store_path()).with_suffix(".lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
            if on_wait is not None:
                on_wait(f"another seek process (pid {holder}) is writing this library ({path.parent}); "
                        "waiting for it to finish")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


class Store:
    """The ingestion database. Not shared across threads; open one per command."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Imported here: sqlite-utils imports pandas whenever it is installed (the [scale] extra brings it), about
        # 0.3 s that a search, which only reads the store's generation, should not pay.
        import sqlite_utils

        self.db = sqlite_utils.Database(self.path)
        # WAL with NORMAL sync keeps each per-file transaction atomic and durable against crashes
        # of seek itself, without an fsync per insert batch (which made a 122k-slide ingest take minutes).
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self._ensure_schema()

    def _ensure_schema(self) -> None:
        if "slides" not in self.db.table_names():
            self.db.table("slides").create(
                {
                    "slide_id": str,
                    "deck_id": str,
                    "deck_name": str,
                    "folder": str,
                    "slide_number": int,
                    "title": str,
                    "text": str,
                    "content_type": str,
                    "universe": str,
                    "deck_date": str,
                    "source_path": str,
                    "source_key": str,
                },
                pk="slide_id",
            )
            self.db.table("slides").create_index(["deck_id"])
            self.db.table("slides").create_index(["source_key"])
        missing = [c for c in EXTRA_SLIDE_COLUMNS if c not in self.db["slides"].columns_dict]
        for column in missing:  # a store made before slides had these fields: re-ingest fills them
            self.db["slides"].add_column(column, str)
        if "decks" not in self.db.table_names():
            self.db.table("decks").create(
                {
                    "deck_id": str,
                    "deck_name": str,
                    "folder": str,
                    "universe": str,
                    "deck_date": str,
                    "n_slides": int,
                    "source_path": str,
                    "source_key": str,
                },
                pk="deck_id",
            )
        if "master" not in self.db.table_names():
            self.db.table("master").create(
                {
                    "source_key": str,
                    "row_id": str,
                    "client": str,
                    "use_case": str,
                    "title": str,
                    "summary": str,
                    "universe": str,
                },
                pk=("source_key", "row_id"),
            )
        else:
            with self.db.atomic():  # a store made before rows had a universe, or were keyed by their sheet
                if "universe" not in self.db["master"].columns_dict:
                    self.db["master"].add_column("universe", str)
                if self.db["master"].pks != ["source_key", "row_id"]:
                    self.db["master"].transform(pk=("source_key", "row_id"))
        if "sources" not in self.db.table_names():
            self.db.table("sources").create(
                {"source_key": str, "kind": str, "content_hash": str, "n_items": int}, pk="source_key"
            )
        if "metadata" not in self.db.table_names():
            self.db.table("metadata").create({"key": str, "value": str}, pk="key")

    def close(self) -> None:
        self.db.conn.close()

    def snapshot(self) -> AbstractContextManager[Any]:
        """One read transaction: the slides, master rows, sources and generation read inside it agree."""
        return self.db.atomic()

    # ----------------------------------------------------------------- sources

    def source_hash(self, source_key: str) -> str | None:
        rows = list(self.db.query("SELECT content_hash FROM sources WHERE source_key = ?", [source_key]))
        return rows[0]["content_hash"] if rows else None

    @property
    def generation(self) -> int:
        """How many committed changes the store has seen; the index records the one it was built from."""
        row = self.db.execute("SELECT value FROM metadata WHERE key = 'generation'").fetchone()
        return int(row[0]) if row else 0

    def _bump_generation(self) -> None:
        self.db.execute(
            "INSERT INTO metadata (key, value) VALUES ('generation', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    def replace_source(
        self,
        source_key: str,
        kind: str,
        content_hash: str,
        slides: Sequence[Slide] = (),
        decks: Sequence[Deck] = (),
        master: Sequence[VerifiedCaseStudy] = (),
    ) -> None:
        """Replace everything a source file contributed with its new slides, decks and master rows, atomically.

        Raises ``SourceConflict`` (and writes nothing) when another source holds one of its slide or
        deck ids: ids are never moved between sources silently.
        """
        with self.db.atomic():
            for table in ("slides", "decks", "master"):
                self.db.execute(f"DELETE FROM {table} WHERE source_key = ?", [source_key])
            refuse_held_ids(source_key, slides, decks, self._owners, ("slides", "decks"))
            self.db.table("slides").insert_all((_slide_row(s, source_key) for s in slides), batch_size=2_000)
            self.db.table("decks").insert_all(
                ({**_deck_row(d), "source_key": source_key} for d in decks), batch_size=2_000
            )
            self.db.table("master").insert_all(
                ({**m.model_dump(), "source_key": source_key} for m in master), batch_size=2_000
            )
            self.db.table("sources").insert(
                {
                    "source_key": source_key,
                    "kind": kind,
                    "content_hash": content_hash,
                    "n_items": len(slides) + len(master),
                },
                replace=True,
            )
            self._bump_generation()

    def _owners(self, table: str, column: str, ids: Sequence[str]) -> dict[str, list[str]]:
        """``other source_key -> ids`` of those among ``ids`` that ``table`` already holds."""
        owners: dict[str, list[str]] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start : start + 500])
            marks = ",".join("?" * len(chunk))
            for key, held in self.db.execute(
                f"SELECT source_key, {column} FROM {table} WHERE {column} IN ({marks})", chunk
            ).fetchall():
                owners.setdefault(key, []).append(held)
        return owners

    def remove_source(self, source_key: str) -> None:
        """Forget a source file and everything it contributed (its file is gone), atomically."""
        with self.db.atomic():
            for table in ("slides", "decks", "master", "sources"):
                self.db.execute(f"DELETE FROM {table} WHERE source_key = ?", [source_key])
            self._bump_generation()

    def sources(self) -> dict[str, str]:
        """``source_key -> content_hash`` of every ingested file."""
        return dict(self.db.execute("SELECT source_key, content_hash FROM sources").fetchall())

    def sources_under(self, root: str) -> list[str]:
        """Source keys of the files ingested from under the folder ``root``."""
        return keys_under((r["source_key"] for r in self.db.query("SELECT source_key FROM sources")), root)

    # ----------------------------------------------------------------- reads

    def iter_slides(self) -> Iterator[Slide]:
        """Every slide in ingestion order, as models."""
        names = SLIDE_COLUMNS + EXTRA_SLIDE_COLUMNS
        for row in self.db.execute(f"SELECT {', '.join(names)} FROM slides ORDER BY rowid").fetchall():
            record = dict(zip(names, row, strict=True))
            record.update({c: record[c] or "" for c in EXTRA_SLIDE_COLUMNS})
            record["deck_date"] = date.fromisoformat(record["deck_date"]) if record["deck_date"] else None
            yield Slide.model_validate(record)

    def master_rows(self) -> list[VerifiedCaseStudy]:
        """Every master row; a row id that an earlier sheet also uses is told apart as ``<id>@<sheet file name>``."""
        rows: list[VerifiedCaseStudy] = []
        first_sheet: dict[str, str] = {}
        for r in self.db.query("SELECT * FROM master ORDER BY rowid"):
            record = {k: r[k] for k in ("row_id", "client", "use_case", "title", "summary", "universe")}
            sheet = first_sheet.setdefault(record["row_id"], r["source_key"])
            if sheet != r["source_key"]:
                record["row_id"] = f"{record['row_id']}@{Path(r['source_key']).name}"
            rows.append(VerifiedCaseStudy(**record))
        return rows

    def counts(self) -> dict[str, int]:
        return {name: self.db[name].count for name in ("slides", "decks", "master", "sources")}

    def decks(self) -> Iterable[dict[str, Any]]:
        return self.db.query("SELECT * FROM decks ORDER BY deck_id")


def _slide_row(slide: Slide, source_key: str) -> dict[str, Any]:
    row = slide.model_dump()
    row["deck_date"] = slide.deck_date.isoformat() if slide.deck_date else None
    row["source_key"] = source_key
    return row


def _deck_row(deck: Deck) -> dict[str, Any]:
    row = deck.model_dump()
    row["deck_date"] = deck.deck_date.isoformat() if deck.deck_date else None
    return row
