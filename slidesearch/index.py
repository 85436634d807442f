"""Building the persistent index from the ingested store: ``seek slides index``.

The library is built in a temporary directory beside the live one and renamed
into place only when complete, so a failed or interrupted build leaves the
previous index untouched and readers never see half an index. Embeddings go
through ``core.embed.CachedEmbedder`` keyed by text hash, so re-indexing after a
small ingest embeds only the slides whose title or snippet changed.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from core.embed import CachedEmbedder, make_embedder
from core.settings import get_settings
from slidesearch.freshness import record_sources
from slidesearch.library import Library
from slidesearch.store import Store

Progress = Callable[[str, int, int], None]


class IndexReport(BaseModel):
    path: str
    n_slides: int
    n_master: int
    embedder: str
    embedded: int
    embed_cache_hits: int
    n_clusters: int
    n_cluster_terms: int
    n_taxonomy: int
    seconds: float


def default_index_path() -> Path:
    return get_settings().slides_dir / "index"


def embedding_cache_path() -> Path:
    return get_settings().cache_dir / "embeddings.sqlite"


def build_index(
    store: Store,
    out: Path | None = None,
    embedder: str | None = None,
    progress: Progress | None = None,
) -> IndexReport:
    """Build the library from every slide and master row in ``store`` and install it at ``out`` atomically.

    ``embedder`` is a settings name (minilm, minilm-full, fast); default ``settings.embedder``.
    """
    started = time.perf_counter()
    out = Path(out) if out is not None else default_index_path()
    name = embedder or get_settings().embedder
    cached = CachedEmbedder(make_embedder(name), embedding_cache_path())
    total = store.counts()["slides"]
    if progress:
        progress("load", 0, total)
    slides = list(store.iter_slides())
    if progress:
        progress("load", len(slides), total)
    library = Library.from_slides(slides, store.master_rows(), embedder=cached, progress=progress)
    library.embedder_name = name
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.building-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    if progress:
        progress("save", 0, 1)
    try:
        library.save(staging)
        record_sources(staging, store.path)  # what the index was built from, so staleness can be told
        _swap_into_place(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if progress:
        progress("save", 1, 1)
    return IndexReport(
        path=str(out),
        n_slides=library.n,
        n_master=len(library.master),
        embedder=name,
        embedded=cached.misses,
        embed_cache_hits=cached.hits,
        n_clusters=len(library.clusters),
        n_cluster_terms=sum(len(t) for t in library.clusters.values()),
        n_taxonomy=len(library.taxonomy),
        seconds=round(time.perf_counter() - started, 2),
    )


def _swap_into_place(staging: Path, out: Path) -> None:
    """Rename the finished build over the live index; the old one is moved aside first and then deleted."""
    retired = out.parent / f".{out.name}.retired-{os.getpid()}"
    if out.exists():
        os.rename(out, retired)
    try:
        os.rename(staging, out)
    except OSError:
        if retired.exists():
            os.rename(retired, out)
        raise
    shutil.rmtree(retired, ignore_errors=True)
