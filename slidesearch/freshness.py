"""Is the search index up to date with the ingested library? (`stats`, `search`, `doctor` and `/health` ask.)

Ingest records every source file with the sha256 of its bytes in the store's ``sources``
table, and every committed change bumps the store's ``generation`` (``slidesearch.store``).
When an index is built, the generation and the sources it was built from are written beside
it as ``sources.json`` (``record_sources``). An index whose generation is older than the
store's is stale, whatever the cause (``--no-reindex``, a kill during indexing); comparing
the sources says what changed (files added, changed or removed). An index that records
sources but no generation (an older seek) is judged by its sources alone; one that records
neither is "unknown", never called fresh. The next ``seek slides ingest`` rebuilds any index
that is not fresh.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from core.settings import get_settings
from slidesearch.library.storage import live_index_dir
from slidesearch.store import store_generation

SOURCES_FILE = "sources.json"

Status = Literal["fresh", "stale", "unknown", "no index"]


class Freshness(BaseModel):
    """How the index compares with the store it was built from; ``message`` is the sentence to show a person."""

    status: Status
    added: int = 0
    changed: int = 0
    removed: int = 0
    #: The store generation the index was built from, and the store's now (None when unrecorded or no store).
    index_generation: int | None = None
    store_generation: int | None = None
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


def record_sources(
    index_dir: Path, store_path: Path, generation: int | None = None, sources: dict[str, str] | None = None
) -> None:
    """Write what the index in ``index_dir`` is built from: the store, its generation and its sources.

    ``generation`` and ``sources`` default to the store's now; pass the ones read with the slides.
    """
    if sources is None:
        sources = _store_sources(store_path) or {}
    if generation is None:
        generation = store_generation(store_path)
    (Path(index_dir) / SOURCES_FILE).write_text(
        json.dumps({"store": str(store_path), "generation": generation, "sources": sources})
    )


def index_freshness(index_dir: Path | None = None, store_path: Path | None = None) -> Freshness:
    """Compare the index at ``index_dir`` (default ``SEEK_HOME/slides/index``) with its store now."""
    asked = Path(index_dir) if index_dir is not None else get_settings().slides_dir / "index"
    live = live_index_dir(asked)
    if live is None:
        return Freshness(status="no index", message=f"no index at {asked}; run `seek slides index`")
    try:
        recorded = json.loads((live / SOURCES_FILE).read_text())
        built_from: dict[str, str] = dict(recorded["sources"])
        store = Path(store_path or recorded["store"])
        built_generation = recorded.get("generation")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return Freshness(status="unknown", message="the index does not record what it was built from (built by an "
                                                   "older seek); `seek slides index` rebuilds it with the record")
    now = _store_sources(store)
    if now is None:
        return Freshness(status="unknown", message=f"the library database the index was built from ({store}) is gone")
    generation = store_generation(store)
    generations = {"index_generation": built_generation if isinstance(built_generation, int) else None,
                   "store_generation": generation}
    added = sum(1 for key in now if key not in built_from)
    removed = sum(1 for key in built_from if key not in now)
    changed = sum(1 for key, digest in now.items() if key in built_from and built_from[key] != digest)
    older = generations["index_generation"] is not None and generations["index_generation"] != generation
    if not added and not removed and not changed and not older:
        return Freshness(status="fresh", message="the index is up to date with the ingested library", **generations)
    parts = [f"{n} {what}" for n, what in ((added, "added"), (changed, "changed"), (removed, "removed")) if n]
    what = f"{', '.join(parts)} file(s)" if parts else "the library changed"
    since = (f" (index generation {generations['index_generation']}, library generation {generation})"
             if generations["index_generation"] is not None else "")
    return Freshness(status="stale", added=added, changed=changed, removed=removed, **generations,
                     message=f"the index is out of date: {what} since it was built{since}; "
                             "run `seek slides index` (the next `seek slides ingest` also rebuilds it) to search them")


def served_freshness(served: Path, index_dir: Path | None = None) -> Freshness:
    """``index_freshness`` for a process serving the index it loaded from ``served`` (``Library.path``).

    When the index at ``index_dir`` has been rebuilt since (it now stands for another build), the
    process still answers from the old one: that is stale, and the message says to restart it.
    """
    asked = Path(index_dir) if index_dir is not None else get_settings().slides_dir / "index"
    live = live_index_dir(asked)
    if live is not None and live != Path(served).resolve():
        return Freshness(status="stale", message="the index was rebuilt since this server loaded it; it still "
                                                 "answers from the old one: restart it to serve the new index")
    return index_freshness(asked)
