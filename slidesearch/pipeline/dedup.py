"""Spec steps 09 and 10: exact-content dedup, then union-find near-duplicate dedup at cosine 0.90."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import numpy as np

from core.dedup import exact_dedup, near_duplicate_dedup
from core.text import normalise
from slidesearch.pipeline.context import SearchContext
from slidesearch.pipeline.state import SearchState


class ExactDedup:
    """09: a slide whose normalised snippet equals a higher-scored kept slide's is dropped."""

    name = "09 exact dedup"

    def __init__(self, context: SearchContext) -> None:
        self.context = context
        self._normalised: dict[int, str] = {}

    def _key(self, row: int) -> str:
        # A digest of the normalised snippet, computed once per slide: the same slides come back query after
        # query, and equal digests mean equal normalised texts.
        key = self._normalised.get(row)
        if key is None:
            digest = hashlib.blake2b(normalise(self.context.library.snippets[row]).encode(), digest_size=16)
            key = self._normalised[row] = digest.hexdigest()
        return key

    def run(self, state: SearchState) -> SearchState:
        cands = state.candidates
        keep = exact_dedup([self._key(c.row) for c in cands], [c.score for c in cands])
        return replace(state, candidates=tuple(cands[i] for i in keep))


class NearDuplicateDedup:
    """10: every candidate pair at cosine >= threshold joined by union-find; each group keeps its best.

    Not a greedy walk against what is kept: chains of copies smeared over 0.74-0.99 survive
    that (seed step 10; core.dedup).
    """

    name = "10 near-duplicate dedup"

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def run(self, state: SearchState) -> SearchState:
        cands = state.candidates
        if len(cands) < 2:
            return state
        rows = np.fromiter((c.row for c in cands), dtype=np.int64, count=len(cands))
        vectors = np.asarray(self.context.library.vectors[rows], dtype=np.float32)
        keep = near_duplicate_dedup(vectors, [c.score for c in cands], self.context.config.near_duplicate_threshold)
        return replace(state, candidates=tuple(cands[i] for i in keep))
