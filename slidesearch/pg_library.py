"""The built library published in PostgreSQL by generation, and read back by every replica that serves it.

``publish_library`` writes one build in one transaction: a ``lib_generations`` row (the store
generation and sources it was built from), its slide rows in ``lib_slides`` (row number, id,
universe, section and the vector as pgvector ``vector``, the columns the SQL stages 06 and 07
query; no HNSW index: the pool is searched exactly) and every file of the saved index
(``Library.save``: columns, BM25 matrices, rarity, mined tables, meta) in ``lib_files``. The same
transaction flips ``lib_live`` to the new generation and drops the generations older than the one
it replaces, so a replica still answering from the previous one keeps its rows until it has moved.

``PublishedLibrary`` is the replica's side: the live generation (one cheap query, polled), and
the library of a generation, materialised once into a local cache folder by generation and opened
with ``Library.open`` (memory-mapped vectors, the saved bm25s arrays: BM25 stays the same BM25 over
the same texts, refreshed by generation). ``SqlPool`` answers stages 06 and 07 in SQL for one
generation (``slidesearch.pipeline.rank.sql``).
"""

from __future__ import annotations

import hashlib
import os
import queue
import shutil
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import numpy as np
import psycopg
from numpy.typing import NDArray
from pgvector.psycopg import register_vector
from psycopg.types.json import Jsonb

from core.settings import get_settings
from slidesearch.freshness import Freshness
from slidesearch.library import Library
from slidesearch.pg_store import connect, ensure_schema

_SCHEMA = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE IF NOT EXISTS lib_generations (
    generation bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, store_generation bigint NOT NULL,
    embedder text NOT NULL, n_slides integer NOT NULL, sources jsonb NOT NULL,
    published_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS lib_live (
    id integer PRIMARY KEY CHECK (id = 1), generation bigint NOT NULL REFERENCES lib_generations ON DELETE CASCADE
);
CREATE TABLE IF NOT EXISTS lib_slides (
    generation bigint NOT NULL REFERENCES lib_generations ON DELETE CASCADE, row integer NOT NULL,
    slide_id text NOT NULL, universe text NOT NULL, section smallint NOT NULL, embedding vector NOT NULL,
    PRIMARY KEY (generation, row)
);
CREATE TABLE IF NOT EXISTS lib_files (
    generation bigint NOT NULL REFERENCES lib_generations ON DELETE CASCADE, name text NOT NULL,
    data bytea NOT NULL, PRIMARY KEY (generation, name)
);
"""


def _vector_connection(url: str) -> psycopg.Connection[Any]:
    conn = connect(url)
    ensure_schema(conn, _SCHEMA)
    register_vector(conn)
    return conn


def publish_library(url: str, library: Library, saved: Path, store_generation: int,
                    sources: dict[str, str]) -> int:
    """Publish ``library`` (saved at ``saved``) as a new generation and make it the live one; its number."""
    files = sorted(p for p in saved.rglob("*") if p.is_file())
    with _vector_connection(url) as conn, conn.transaction():
        row = conn.execute(
            "INSERT INTO lib_generations (store_generation, embedder, n_slides, sources) "
            "VALUES (%s, %s, %s, %s::jsonb) RETURNING generation",
            (store_generation, library.embedder_name, library.n, Jsonb(sources))).fetchone()
        assert row is not None
        generation = int(row[0])
        vectors = np.asarray(library.vectors, dtype=np.float32)
        with conn.cursor().copy("COPY lib_slides (generation, row, slide_id, universe, section, embedding) "
                                "FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["bigint", "integer", "text", "text", "smallint", "vector"])
            for r in range(library.n):
                copy.write_row((generation, r, library.ids[r], library.universes[r], int(library.sections[r]),
                                vectors[r]))
        with conn.cursor().copy("COPY lib_files (generation, name, data) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["bigint", "text", "bytea"])
            for path in files:
                copy.write_row((generation, str(path.relative_to(saved)), path.read_bytes()))
        previous = conn.execute("SELECT generation FROM lib_live WHERE id = 1 FOR UPDATE").fetchone()
        conn.execute("INSERT INTO lib_live (id, generation) VALUES (1, %s) "
                     "ON CONFLICT (id) DO UPDATE SET generation = excluded.generation", (generation,))
        keep = previous[0] if previous else generation
        conn.execute("DELETE FROM lib_generations WHERE generation < %s", (min(keep, generation),))
    return generation


def _cache_root(url: str) -> Path:
    """This database's folder of materialised generations under SEEK_HOME (named by host, port and database)."""
    info = psycopg.conninfo.conninfo_to_dict(url)
    where = f"{info.get('host', '')}:{info.get('port', '')}/{info.get('dbname', '')}"
    return get_settings().slides_dir / "postgres" / hashlib.sha256(where.encode()).hexdigest()[:16]


class PublishedLibrary:
    """A replica's view of the published library: the live generation, and the library of any generation."""

    def __init__(self, url: str, cache: Path | None = None) -> None:
        self.url = url
        self.cache = Path(cache) if cache is not None else _cache_root(url)
        self._conn = _vector_connection(url)

    def close(self) -> None:
        self._conn.close()

    def _execute(self, query: str, params: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        """``query`` on the connection, opened again first when the server dropped it (a restart)."""
        if self._conn.closed or self._conn.broken:
            self._conn = _vector_connection(self.url)
        return self._conn.execute(query, params)

    def live(self) -> tuple[int, int] | None:
        """(live generation, the store generation it was built from), or None before the first publish."""
        row = self._execute("SELECT l.generation, g.store_generation FROM lib_live l "
                            "JOIN lib_generations g USING (generation) WHERE l.id = 1").fetchone()
        return (int(row[0]), int(row[1])) if row else None

    def store_generation(self) -> int:
        """The store's generation now (an ingest not yet published shows as a newer one; 0 without a store)."""
        row = self._execute("SELECT CASE WHEN to_regclass('store_metadata') IS NULL THEN NULL ELSE "
                            "(SELECT value FROM store_metadata WHERE key = 'generation') END").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def load(self, generation: int) -> Library:
        """The library of ``generation``, from the local cache (written from ``lib_files`` on first use)."""
        directory = self.cache / f"gen-{generation}"
        if not (directory / "meta.json").exists():
            self._materialise(generation, directory)
        return Library.open(directory)

    def _materialise(self, generation: int, directory: Path) -> None:
        building = directory.parent / f".{directory.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            names = [n for (n,) in self._execute("SELECT name FROM lib_files WHERE generation = %s ORDER BY name",
                                                 (generation,)).fetchall()]
            if not names:
                raise LookupError(f"generation {generation} is no longer published")
            for name in names:  # one file at a time: a large library's files never sit in memory together
                row = self._execute("SELECT data FROM lib_files WHERE generation = %s AND name = %s",
                                    (generation, name)).fetchone()
                if row is None:
                    raise LookupError(f"generation {generation} was dropped while it was being read")
                target = building / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(row[0])
            try:
                os.rename(building, directory)
            except OSError:  # another process of this home materialised it first
                if not (directory / "meta.json").exists():
                    raise
        finally:
            shutil.rmtree(building, ignore_errors=True)

    def forget_older(self, generation: int) -> None:
        """Remove the cached generations older than ``generation`` (the served one and newer stay)."""
        for entry in self.cache.glob("gen-*"):
            number = entry.name.removeprefix("gen-")
            if number.isdigit() and int(number) < generation:
                shutil.rmtree(entry, ignore_errors=True)


class SqlPool:
    """Stages 06 and 07 of one published generation in SQL (``pipeline.rank.sql.PoolQueries``), thread-safe.

    Each call borrows a connection from a small pool (one per concurrent request at most), so the
    server's worker threads never share one.
    """

    def __init__(self, url: str, generation: int) -> None:
        self.url, self.generation = url, generation
        self._idle: queue.SimpleQueue[psycopg.Connection[Any]] = queue.SimpleQueue()
        self._closed = False

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        try:
            conn = self._idle.get_nowait()
        except queue.Empty:
            conn = connect(self.url)
            register_vector(conn)
        try:
            yield conn
        except BaseException:
            conn.close()
            raise
        if self._closed:  # a request that was in flight when the server moved to a newer generation
            conn.close()
        else:
            self._idle.put(conn)

    def close(self) -> None:
        """Close the idle connections; those still lent out are closed when they come back."""
        self._closed = True
        while True:
            try:
                self._idle.get_nowait().close()
            except queue.Empty:
                return

    def pool(self, universes: Sequence[str] | None, sections: Sequence[int],
             always: Sequence[int]) -> NDArray[np.int64]:
        """Rows in scope whose section is among ``sections``, plus the rows ``always``, in row order."""
        with self._connection() as conn:
            row = conn.execute(
                "SELECT array_send(coalesce(array_agg(row ORDER BY row), '{}')) FROM lib_slides "
                "WHERE generation = %(g)s AND (((%(u)s::text[] IS NULL OR universe = ANY(%(u)s)) "
                "AND section = ANY(%(s)s::smallint[])) OR row = ANY(%(a)s::integer[]))",
                {"g": self.generation, "u": list(universes) if universes else None, "s": list(sections),
                 "a": list(always)}).fetchone()
        assert row is not None
        return _binary_array(row[0], ">i4").astype(np.int64)

    def scope(self, universes: Sequence[str] | None) -> NDArray[np.int64]:
        """Every row in scope, in row order."""
        with self._connection() as conn:
            row = conn.execute(
                "SELECT array_send(coalesce(array_agg(row ORDER BY row), '{}')) FROM lib_slides "
                "WHERE generation = %(g)s AND (%(u)s::text[] IS NULL OR universe = ANY(%(u)s))",
                {"g": self.generation, "u": list(universes) if universes else None}).fetchone()
        assert row is not None
        return _binary_array(row[0], ">i4").astype(np.int64)

    def dot_products(self, pool: NDArray[np.int64], queries: NDArray[np.float32]) -> NDArray[np.float32]:
        """Exact inner product of every pool row's vector with each query: shape (len(pool), len(queries)).

        One pass over the pool's rows (the primary key finds them; there is no vector index to lose
        recall), the products computed by pgvector in float32 and sent back as one binary (pool x
        queries) array: decoding a result row per slide in Python cost more than the products.
        """
        if pool.size == 0 or len(queries) == 0:
            return np.zeros((pool.size, len(queries)), dtype=np.float32)
        with self._connection() as conn:
            row = conn.execute(
                "SELECT array_send(array_agg(s.row ORDER BY s.row)), array_send(array_agg(ARRAY("
                "SELECT (-(s.embedding <#> q.v))::real FROM unnest(%(q)s::vector[]) WITH ORDINALITY AS q(v, k) "
                "ORDER BY q.k) ORDER BY s.row)) FROM lib_slides s "
                "WHERE s.generation = %(g)s AND s.row = ANY(%(p)s::integer[])",
                {"g": self.generation, "q": list(np.asarray(queries, dtype=np.float32)),
                 "p": pool.tolist()}).fetchone()
        found = _binary_array(row[0], ">i4") if row and row[0] is not None else np.zeros(0, dtype=np.int32)
        if found.size != np.unique(pool).size:
            raise LookupError(f"generation {self.generation} holds {found.size} of the pool's {pool.size} rows")
        products = _binary_array(row[1], ">f4").reshape(found.size, len(queries))  # type: ignore[index]
        return products[np.searchsorted(found, pool)]


#: PostgreSQL's binary array (``array_send``): ndim, has-nulls and element type, a (size, lower bound)
#: pair per dimension, then each element as its byte length and its big-endian value.
_ARRAY_HEADER = 12
_DIMENSION = 8


def _binary_array(data: bytes, dtype: str) -> NDArray[Any]:
    """The values of a null-free PostgreSQL binary array of 4-byte elements, flattened in row-major order."""
    ndim = int.from_bytes(data[:4], "big")
    if ndim == 0:
        return np.zeros(0, dtype=dtype)
    items = np.frombuffer(data, dtype=[("length", ">i4"), ("value", dtype)], offset=_ARRAY_HEADER + ndim * _DIMENSION)
    return items["value"].astype(dtype[1:])


def published_freshness(url: str) -> Freshness:
    """Whether the live generation was built from the store as it is now (``index_freshness`` for PostgreSQL)."""
    published = PublishedLibrary(url)
    try:
        live, now = published.live(), published.store_generation()
    finally:
        published.close()
    if live is None:
        return Freshness(status="no index", store_generation=now,
                         message="no library generation is published yet; run `seek slides index`")
    status: Literal["fresh", "stale"] = "fresh" if live[1] == now else "stale"
    message = ("the published library is up to date with the ingested library" if status == "fresh" else
               f"the published library (generation {live[0]}) was built from store generation {live[1]}, "
               f"the store is at {now}; run `seek slides index`")
    return Freshness(status=status, index_generation=live[1], store_generation=now, message=message)
