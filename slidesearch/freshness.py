"""Is the search index up to date with the ingested library? (`stats`, `search`, `doctor` and `/health` ask.)

Ingest records every source file with the sha256 of its bytes in the store's ``sources``
table (``slidesearch.store``). When an index is built, the same table is written beside it
as ``sources.json`` (``record_sources``); comparing the two says whether files were added,
changed or removed since, which is what ``seek slides ingest --no-reindex`` leaves behind.
An index built before this record existed is "unknown", never called fresh.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from core.settings import get_settings

SOURCES_FILE = "sources.json"

Status = Literal["fresh", "stale", "unknown", "no index"]


class Freshness(BaseModel):
    """How the index compares with the store it was built from; ``message`` is the sentence to show a person."""

    status: Status
    added: int = 0
    changed: int = 0
    removed: int = 0
    message: str

    @property
    def stale(self) -> bool:
        return self.status == "stale"


def _store_sources(db: Path) -> dict[str, str] | None:
    """``source_key -> content_hash`` of the store at ``db``; None when there is no readable store."""
    if not db.exists():
        return None
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return dict(conn.execute("SELECT source_key, content_hash FROM sources").fetchall())
    except sqlite3.Error:
        return None


def record_sources(index_dir: Path, store_path: Path) -> None:
    """Write the store's sources (as the index is built from them) beside the index in ``index_dir``."""
    sources = _store_sources(store_path) or {}
    (Path(index_dir) / SOURCES_FILE).write_text(json.dumps({"store": str(store_path), "sources": sources}))


def index_freshness(index_dir: Path | None = None, store_path: Path | None = None) -> Freshness:
    """Compare the index at ``index_dir`` (default ``SEEK_HOME/slides/index``) with its store's sources now."""
    index_dir = Path(index_dir) if index_dir is not None else get_settings().slides_dir / "index"
    if not (index_dir / "meta.json").exists():
        return Freshness(status="no index", message=f"no index at {index_dir}; run `seek slides index`")
    try:
        recorded = json.loads((index_dir / SOURCES_FILE).read_text())
        built_from: dict[str, str] = dict(recorded["sources"])
        store = Path(store_path or recorded["store"])
    except (OSError, ValueError, KeyError, TypeError):
        return Freshness(status="unknown", message="the index does not record what it was built from (built by an "
                                                   "older seek); `seek slides index` rebuilds it with the record")
    now = _store_sources(store)
    if now is None:
        return Freshness(status="unknown", message=f"the library database the index was built from ({store}) is gone")
    added = sum(1 for key in now if key not in built_from)
    removed = sum(1 for key in built_from if key not in now)
    changed = sum(1 for key, digest in now.items() if key in built_from and built_from[key] != digest)
    if not added and not removed and not changed:
        return Freshness(status="fresh", message="the index is up to date with the ingested library")
    parts = [f"{n} {what}" for n, what in ((added, "added"), (changed, "changed"), (removed, "removed")) if n]
    return Freshness(status="stale", added=added, changed=changed, removed=removed,
                     message=f"the index is out of date: {', '.join(parts)} file(s) since it was built; "
                             "run `seek slides index` to search them")
