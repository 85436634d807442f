"""The store the settings name: ``SEEK_STORE=postgresql://…`` is PostgreSQL, unset (or ``local``) the files.

Both implement ``store.LibraryStore``; psycopg (the ``[scale]`` extra) is imported only when PostgreSQL is named.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from core.settings import get_settings
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
