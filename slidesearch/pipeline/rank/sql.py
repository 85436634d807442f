"""Spec steps 06 and 07 answered by a database (the PostgreSQL library, ``slidesearch.pg_library.SqlPool``).

The same reads, writes and output as ``prefilter.Prefilter`` and ``primary.DenseScores``, so every
later stage runs unchanged: the pool is a SQL ``WHERE`` (universe scope and searched sections, plus
the literal 06b rows), materialised as row numbers; the dense scores are the exact inner products
over that pool computed in SQL (pgvector, float32), never a filtered vector-index scan that loses recall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar, Protocol

import numpy as np
from numpy.typing import NDArray

from slidesearch.library.view import LibraryView
from slidesearch.pipeline.query.names import entity_row_array
from slidesearch.pipeline.state import SearchState


class PoolQueries(Protocol):
    """What a database answers for one published generation of the library."""

    def pool(self, universes: Sequence[str] | None, sections: Sequence[int],
             always: Sequence[int]) -> NDArray[np.int64]: ...

    def scope(self, universes: Sequence[str] | None) -> NDArray[np.int64]: ...

    def dot_products(self, pool: NDArray[np.int64], queries: NDArray[np.float32]) -> NDArray[np.float32]: ...


class SqlPrefilter:
    """06 in SQL: in-scope slides of the searched sections plus the literal 06b matches (``Prefilter``'s rule).

    When the sections hold no in-scope slide the pool falls back to every in-scope slide, as 06 does.
    """

    name = "06 prefilter"
    reads: ClassVar[frozenset[str]] = frozenset({"universes", "sections", "entity_rows"})
    writes: ClassVar[frozenset[str]] = frozenset({"pool", "pool_notes"})
    output: ClassVar[str | None] = "pool"

    def __init__(self, view: LibraryView, queries: PoolQueries) -> None:
        self.view, self.queries = view, queries

    def run(self, state: SearchState) -> SearchState:
        index = self.view.section_table.index
        wanted = [index[s] for s in state.sections.search]
        pool = self.queries.pool(state.universes, wanted, entity_row_array(state).tolist())
        notes: tuple[str, ...] = ()
        if pool.size == 0:
            pool = self.queries.scope(state.universes)
            notes = ("the chosen sections hold no slide in scope; searched every section instead",)
        return replace(state, pool=pool, pool_notes=notes)


class SqlDenseScores:
    """07 in SQL: the exact inner product of every pool slide with each angle and expansion term (``DenseScores``)."""

    name = "07 dense scores"
    reads: ClassVar[frozenset[str]] = frozenset({"pool", "query_vectors", "expansion"})
    writes: ClassVar[frozenset[str]] = frozenset({"angle_cosines", "term_cosines"})
    output: ClassVar[str | None] = None

    def __init__(self, view: LibraryView, queries: PoolQueries) -> None:
        self.view, self.queries = view, queries

    def run(self, state: SearchState) -> SearchState:
        if state.pool is None or state.query_vectors is None:
            raise ValueError("07 needs the pool (06) and the angle vectors (03)")
        angles = state.query_vectors
        terms = self.view.embed(list(state.expansion)) if state.expansion else angles[:0]
        product = self.queries.dot_products(state.pool, np.vstack([angles, terms]).astype(np.float32))
        return replace(state, angle_cosines=product[:, : len(angles)],
                       term_cosines=product[:, len(angles):] if state.expansion else None)
