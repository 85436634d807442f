"""Spec step 12: drop everything below 15% of this query's single best score."""

from __future__ import annotations

from dataclasses import replace

from slidesearch.pipeline.state import SearchState


class RelevanceFloor:
    """12: one floor across every section (a per-section floor does nothing for a uniformly weak section).

    The best candidate always clears its own floor, so a non-empty list stays non-empty.
    """

    name = "12 relevance floor"

    def __init__(self, share: float) -> None:
        if not 0.0 <= share < 1.0:
            raise ValueError(f"floor share must be in [0, 1), got {share}")
        self.share = share

    def run(self, state: SearchState) -> SearchState:
        if not state.candidates:
            return state
        floor = self.share * max(c.score for c in state.candidates)
        return replace(state, candidates=tuple(c for c in state.candidates if c.score >= floor))
