"""Spec step 12: drop everything below 15% of this query's single best score."""

from __future__ import annotations

from dataclasses import replace

from slidesearch.pipeline.state import SearchState


class RelevanceFloor:
    """12: one floor across every section (a per-section floor does nothing for a uniformly weak section).

    With several angles the floor is taken per angle: a slide is measured against the best
    slide of the angle it answers most, so a brief's weaker topic is not floored away by its
    stronger one (spec 03: each angle is served on its own). Slides found only through
    expansion meet the overall floor. (Measuring against the best *headed* slide instead was
    tried and lost on both generated libraries: wrong share 0.241 / 0.205 against 0.201 /
    0.185.) The best candidate always clears its own floor, so a non-empty list stays
    non-empty.
    """

    name = "12 relevance floor"

    def __init__(self, share: float) -> None:
        if not 0.0 <= share < 1.0:
            raise ValueError(f"floor share must be in [0, 1), got {share}")
        self.share = share

    def run(self, state: SearchState) -> SearchState:
        if not state.candidates:
            return state
        overall = max(c.score for c in state.candidates)
        best: dict[int, float] = {}
        for c in state.candidates:
            if c.angle >= 0:
                best[c.angle] = max(best.get(c.angle, 0.0), c.score)
        if len(best) < 2:
            best = {}
        kept = tuple(c for c in state.candidates if c.score >= self.share * best.get(c.angle, overall))
        return replace(state, candidates=kept)
