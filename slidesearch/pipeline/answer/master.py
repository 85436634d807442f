"""Spec step 13 (verified blend): master-sheet rows searched by cosine, appended after every real case study."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

import numpy as np

from slidesearch.library.view import LibraryView
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
    reads: ClassVar[frozenset[str]] = frozenset({"grouped", "query_vectors", "universes"})
    writes: ClassVar[frozenset[str]] = frozenset({"blended"})
    output: ClassVar[str | None] = "blended"

    def __init__(self, view: LibraryView, most: int, min_similarity: float, decay: float) -> None:
        """At most ``most`` rows (the section cap), each at cosine >= ``min_similarity``, ``decay`` apart."""
        if most < 1 or not 0 < decay * (most + 1) < 1 or not -1 <= min_similarity <= 1:
            raise ValueError("most must be at least 1, decay positive and small enough that the last row's score "
                             "stays positive (decay x (most + 1) < 1), and min_similarity a cosine in [-1, 1]")
        self.view, self.most, self.min_similarity, self.decay = view, most, min_similarity, decay

    def run(self, state: SearchState) -> SearchState:
        view, groups = self.view, state.grouped
        cases = view.section_table.case_studies
        if groups is None or cases not in groups or not view.master:
            return replace(state, blended=groups)
        if state.query_vectors is None or len(view.master_vectors) == 0:
            return replace(state, blended=groups)
        per_angle = np.asarray(view.master_vectors, dtype=np.float32) @ state.query_vectors.T
        sims, angles = per_angle.max(axis=1), per_angle.argmax(axis=1)
        if state.universes is not None:  # a row of another universe is out of scope like its slides
            sims[[i for i in range(len(view.master)) if not view.master_in_scope(i, state.universes)]] = -2.0
        order = [i for i in np.argsort(-sims, kind="stable")[: self.most] if sims[i] >= self.min_similarity]
        if not order:
            return replace(state, blended=groups)
        real = groups[cases]
        every = [c.score for cards in groups.values() for c in cards]
        base = min((c.score for c in real), default=min(every, default=1.0))
        verified = tuple(
            Candidate(master=int(i), section=cases, verified=True, similarity=float(sims[i]),
                      score=base * (1 - self.decay * (rank + 1)), angle=int(angles[i]))
            for rank, i in enumerate(order)
        )
        return replace(state, blended={**groups, cases: (*real, *verified)})
