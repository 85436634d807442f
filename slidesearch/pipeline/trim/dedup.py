"""Spec steps 09 and 10: exact-content dedup, then union-find near-duplicate dedup at cosine 0.90."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

import numpy as np

from core.dedup import exact_dedup, near_duplicate_dedup
from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import SearchState


class ExactDedup:
    """09: a slide whose normalised snippet equals a higher-scored kept slide's is dropped."""

    name = "09 exact dedup"
    reads: ClassVar[frozenset[str]] = frozenset({"scored"})
    writes: ClassVar[frozenset[str]] = frozenset({"unique"})
    output: ClassVar[str | None] = "unique"

    def __init__(self, view: LibraryView) -> None:
        self.view = view

    def run(self, state: SearchState) -> SearchState:
        cands = state.scored
        keep = exact_dedup([self.view.snippet_digest(c.row) for c in cands], [c.score for c in cands])
        return replace(state, unique=tuple(cands[i] for i in keep))


class NearDuplicateDedup:
    """10: every candidate pair at cosine >= threshold joined by union-find; each group keeps its best.

    Not a greedy walk against what is kept: chains of copies smeared over 0.74-0.99 survive
    that (seed step 10; core.dedup).
    """

    name = "10 near-duplicate dedup"
    reads: ClassVar[frozenset[str]] = frozenset({"unique"})
    writes: ClassVar[frozenset[str]] = frozenset({"distinct"})
    output: ClassVar[str | None] = "distinct"

    def __init__(self, view: LibraryView, threshold: float) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"near-duplicate threshold must be in (0, 1], got {threshold}")
        self.view, self.threshold = view, threshold

    def run(self, state: SearchState) -> SearchState:
        cands = state.unique
        if len(cands) < 2:
            return replace(state, distinct=cands)
        rows = np.fromiter((c.row for c in cands), dtype=np.int64, count=len(cands))
        vectors = np.asarray(self.view.vectors[rows], dtype=np.float32)
        keep = near_duplicate_dedup(vectors, [c.score for c in cands], self.threshold)
        return replace(state, distinct=tuple(cands[i] for i in keep))
