"""Spec step 13 (verified blend): master-sheet rows searched by cosine, appended after every real case study."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from slidesearch.pipeline.context import SearchContext
from slidesearch.pipeline.state import Candidate, SearchState


class MasterBlend:
    """13: verified rows join the case-studies section below its weakest real slide, decaying, never displacing one.

    Row i (best cosine first) scores ``base x (1 - master_decay x (i + 1))`` where ``base`` is
    the weakest real case-study score (or, when the section has no real slide, the
    weakest card in the response): strictly below every real match, on the same scale
    (the seed's scale-mismatch bug put raw cosines of 0.5-0.9 next to RRF scores of 0.01).
    Only rows with cosine >= ``master_min_similarity`` to some angle are considered, and in a
    scoped search only rows of those universes or of none (company-wide).
    """

    name = "13 verified master blend"

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def run(self, state: SearchState) -> SearchState:
        lib, cfg = self.context.library, self.context.config
        cases = self.context.section_table.case_studies
        if state.groups is None or cases not in state.groups or not lib.master:
            return state
        if state.query_vectors is None or len(lib.master_vectors) == 0:
            return state
        per_angle = np.asarray(lib.master_vectors, dtype=np.float32) @ state.query_vectors.T
        sims, angles = per_angle.max(axis=1), per_angle.argmax(axis=1)
        if state.universes is not None:  # a row of another universe is out of scope like its slides
            sims[[i for i, row in enumerate(lib.master) if not lib.in_scope(row.card_id, state.universes)]] = -2.0
        order = [i for i in np.argsort(-sims, kind="stable")[: cfg.section_cap] if sims[i] >= cfg.master_min_similarity]
        if not order:
            return state
        real = state.groups[cases]
        every = [c.score for cards in state.groups.values() for c in cards]
        base = min((c.score for c in real), default=min(every, default=1.0))
        verified = tuple(
            Candidate(master=int(i), section=cases, verified=True, similarity=float(sims[i]),
                      score=base * (1 - cfg.master_decay * (rank + 1)), angle=int(angles[i]))
            for rank, i in enumerate(order)
        )
        return replace(state, groups={**state.groups, cases: (*real, *verified)})
