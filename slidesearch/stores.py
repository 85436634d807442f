"""The store the settings name: ``SEEK_STORE=postgresql://…`` is PostgreSQL, unset (or ``local``) the files.

Both implement ``store.LibraryStore``; psycopg (the ``[scale]`` extra) is imported only when PostgreSQL is named.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from core.settings import get_settings
from slidesearch.freshness import Freshness, index_freshness
from slidesearch.library import Library, LibraryError
from slidesearch.store import LibraryStore, Store, writer_lock


def open_store(path: Path | None = None) -> LibraryStore:
    """The store the settings name: PostgreSQL when ``SEEK_STORE`` is a URL, else the local files at ``path``."""
    url = get_settings().postgres_url
    if url is not None:
        from slidesearch.pg_store import PostgresStore

        return PostgresStore(url)
    return Store(path)


@contextmanager
def store_writer_lock(on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """The writer lock of the store the settings name (``writer_lock``, or PostgreSQL's advisory lock)."""
    url = get_settings().postgres_url
    if url is None:
        with writer_lock(on_wait=on_wait):
            yield
        return
    from slidesearch.pg_store import advisory_writer_lock

    with advisory_writer_lock(url, on_wait=on_wait):
        yield


def served_freshness(index: Path | None = None) -> Freshness:
    """Whether the library a search reads is up to date: the index at ``index`` (default path), or, with
    ``SEEK_STORE`` naming PostgreSQL and no ``index``, the published live generation."""
    url = get_settings().postgres_url
    if url is None or index is not None:
        return index_freshness(index)
    from slidesearch.pg_library import published_freshness

    return published_freshness(url)


def open_library(index: Path | None = None) -> Library:
    """The library a search reads: the index at ``index``; else, with ``SEEK_STORE`` naming PostgreSQL, its live
    generation (materialised under SEEK_HOME on first use, as a replica does); else the default index."""
    url = get_settings().postgres_url
    if url is None or index is not None:
        return Library.open(index)
    from slidesearch.pg_library import PublishedLibrary

    published = PublishedLibrary(url)
    try:
        live = published.live()
        if live is None:
            raise LibraryError(f"no library generation is published in {store_location(url)}; "
                               "run `seek slides index`")
        return published.load(live[0])
    finally:
        published.close()


def store_location(url: str) -> str:
    """``url`` without its password, to name the database in a message."""
    from psycopg.conninfo import conninfo_to_dict

    info = conninfo_to_dict(url)
    return f"postgresql://{info.get('host', '')}:{info.get('port', '')}/{info.get('dbname', '')}"
