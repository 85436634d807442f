"""The ingested library on disk: one SQLite database (sqlite-utils) that ingestion writes and indexing reads.

Tables: ``slides`` (the model's fields plus insertion order), ``decks``,
``master`` (verified case studies), ``sources`` (every ingested file with the
sha256 of its bytes, so an unchanged file is skipped and a changed one replaces
its slides) and ``metadata``. Each file's slides are replaced in one
transaction: a failure half way through leaves the earlier state intact.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import date
from pathlib import Path
from typing import Any

import sqlite_utils

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


def default_store_path() -> Path:
    return get_settings().slides_dir / "library.db"


class Store:
    """The ingestion database. Not shared across threads; open one per command."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
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
                    "row_id": str,
                    "client": str,
                    "use_case": str,
                    "title": str,
                    "summary": str,
                    "universe": str,
                    "source_key": str,
                },
                pk="row_id",
            )
        elif "universe" not in self.db["master"].columns_dict:  # a store made before rows had a universe
            self.db["master"].add_column("universe", str)
        if "sources" not in self.db.table_names():
            self.db.table("sources").create(
                {"source_key": str, "kind": str, "content_hash": str, "n_items": int}, pk="source_key"
            )

    def close(self) -> None:
        self.db.conn.close()

    # ----------------------------------------------------------------- sources

    def source_hash(self, source_key: str) -> str | None:
        rows = list(self.db.query("SELECT content_hash FROM sources WHERE source_key = ?", [source_key]))
        return rows[0]["content_hash"] if rows else None

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

        A slide id or deck id that another source already holds is taken over by this one
        (the newest ingest of a deck wins).
        """
        with self.db.conn:
            self.db.execute("DELETE FROM slides WHERE source_key = ?", [source_key])
            self.db.execute("DELETE FROM decks WHERE source_key = ?", [source_key])
            self.db.execute("DELETE FROM master WHERE source_key = ?", [source_key])
            deck_ids = sorted({s.deck_id for s in slides} | {d.deck_id for d in decks})
            for start in range(0, len(deck_ids), 500):
                chunk = deck_ids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                self.db.execute(f"DELETE FROM slides WHERE deck_id IN ({marks})", chunk)
            self.db.table("slides").insert_all(
                (_slide_row(s, source_key) for s in slides), batch_size=2_000, replace=True
            )
            self.db.table("decks").insert_all(
                ({**_deck_row(d), "source_key": source_key} for d in decks), batch_size=2_000, replace=True
            )
            self.db.table("master").insert_all(
                ({**m.model_dump(), "source_key": source_key} for m in master), batch_size=2_000, replace=True
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

    def remove_source(self, source_key: str) -> None:
        """Forget a source file and everything it contributed (its file is gone), atomically."""
        with self.db.conn:
            for table in ("slides", "decks", "master", "sources"):
                self.db.execute(f"DELETE FROM {table} WHERE source_key = ?", [source_key])

    def sources_under(self, root: str) -> list[str]:
        """Source keys of the files ingested from under the folder ``root``."""
        prefix = root.rstrip("/") + "/"
        return [
            r["source_key"]
            for r in self.db.query("SELECT source_key FROM sources")
            if r["source_key"].startswith(prefix)
        ]

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
        return [
            VerifiedCaseStudy(**{k: r[k] for k in ("row_id", "client", "use_case", "title", "summary", "universe")})
            for r in self.db.query("SELECT * FROM master ORDER BY rowid")
        ]

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
