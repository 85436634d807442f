"""Building the persistent index from the ingested store: ``seek slides index``.

The library is built in a hidden directory beside the live one (``.index.v-<pid>-<ns>``)
and published by pointing the live path, a symbolic link, at it with one atomic
rename; a failed or killed build leaves the previous index untouched and readers
never see half an index. Leftovers of killed builds (and the replaced version) are
removed after the next successful swap. The index records the store generation it
was built from (``slidesearch.freshness``), so an index older than the store is told
and rebuilt by the next ingest. Embeddings go
through ``core.embed.CachedEmbedder`` keyed by text hash, so re-indexing after a
small ingest embeds only the slides whose title or snippet changed.

Over a PostgreSQL store (``SEEK_STORE``) the build is published into that database instead, as a
new generation that every replica serving it picks up (``slidesearch.pg_library``).
"""

from __future__ import annotations

import os
import shutil
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from core.embed import CachedEmbedder, Embedder, make_embedder
from core.settings import get_settings
from slidesearch.freshness import record_sources
from slidesearch.library import Library
from slidesearch.library.storage import index_siblings
from slidesearch.store import LibraryStore, Store

Progress = Callable[[str, int, int], None]
EmbedMissing = Callable[[CachedEmbedder, list[str]], object]


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
    store: LibraryStore,
    out: Path | None = None,
    embedder: str | None = None,
    progress: Progress | None = None,
    embed_missing: EmbedMissing | None = None,
) -> IndexReport:
    """Build the library from every slide and master row in ``store`` and install it at ``out`` atomically.

    ``embedder`` is a settings name (minilm, minilm-full, fast); default ``settings.embedder``.
    ``embed_missing(cache, texts)``, when given, fills the cache with the texts it lacks
    (``slidesearch.ray_index`` fans them out over a Ray cluster): first the slide snippets and master
    documents, in one go, then before each of the build's embedding calls (the taxonomy terms are only
    known once mined), so the build itself finds every vector in the cache.
    A ``PostgresStore``'s library is published into its database (``out`` is not used).
    """
    started = time.perf_counter()
    out = Path(out) if out is not None else default_index_path()
    name = embedder or get_settings().embedder
    cached = CachedEmbedder(make_embedder(name), embedding_cache_path())
    with store.snapshot():  # one read snapshot: the slides, master rows and generation agree
        total = store.counts()["slides"]
        if progress:
            progress("load", 0, total)
        slides = list(store.iter_slides())
        master = store.master_rows()
        generation = store.generation
        sources = store.sources()
    if progress:
        progress("load", len(slides), total)
    model: Embedder = cached
    if embed_missing is not None:
        embed_missing(cached, [s.snippet for s in slides] + [m.document for m in master])
        model = _FilledFirst(cached, embed_missing)
    library = Library.from_slides(slides, master, embedder=model, progress=progress)
    library.embedder_name = name
    out.parent.mkdir(parents=True, exist_ok=True)
    version = out.parent / f".{out.name}.v-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    if progress:
        progress("save", 0, 1)
    published: str | None = None
    try:
        library.save(version)
        if isinstance(store, Store):
            # What the index was built from, so staleness can be told; written before meta.json counts it complete.
            record_sources(version, store.path, generation, sources)
            _swap_into_place(version, out)
        else:  # a PostgresStore (psycopg is an optional extra: imported only when one is in use)
            from slidesearch.pg_library import publish_library

            number = publish_library(store.url, library, version, generation, sources)  # type: ignore[attr-defined]
            published = f"{store.path} (library generation {number})"  # type: ignore[attr-defined]
            shutil.rmtree(version)
    except BaseException:
        shutil.rmtree(version, ignore_errors=True)
        raise
    if published is None:
        clean_leftovers(out)
    if progress:
        progress("save", 1, 1)
    return IndexReport(
        path=published or str(out),
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


class _FilledFirst:
    """The build's embedder when ``embed_missing`` is given: fills the cache with what a call lacks, then reads it."""

    def __init__(self, cache: CachedEmbedder, fill: EmbedMissing) -> None:
        self.cache, self.fill = cache, fill
        self.name, self.dim = cache.name, cache.dim

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]:
        self.fill(self.cache, list(texts))
        return self.cache.encode(texts, batch_size=batch_size)


def _swap_into_place(version: Path, out: Path) -> None:
    """Point the live index ``out`` at the complete build ``version`` with one atomic rename.

    ``out`` becomes a relative symbolic link (the home can be moved). An index of the old layout
    (a real directory) is first renamed aside; a kill in that one gap leaves two complete
    siblings, and ``live_index_dir`` opens the newest.
    """
    link = out.parent / f".{out.name}.link-{os.getpid()}"
    link.unlink(missing_ok=True)
    os.symlink(version.name, link)
    if out.is_dir() and not out.is_symlink():
        os.rename(out, out.parent / f".{out.name}.retired-{os.getpid()}")
    os.replace(link, out)
    _fsync_dir(out.parent)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_leftovers(out: Path) -> list[Path]:
    """Remove what killed or finished builds left beside the index ``out``; returns what was removed.

    Everything hidden beside it (``.index.*``) goes except the live version and the builds of
    processes still running.
    """
    live = os.readlink(out) if out.is_symlink() else None
    removed: list[Path] = []
    for entry in index_siblings(out):
        if entry.name == live:
            continue
        pid_part = entry.name[len(f".{out.name}."):].split("-")
        pid = int(pid_part[1]) if len(pid_part) > 1 and pid_part[1].isdigit() else None
        if pid is not None and pid != os.getpid() and _pid_alive(pid):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry)
    return removed
