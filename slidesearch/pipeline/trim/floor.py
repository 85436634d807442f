"""Spec step 12: drop everything below 15% of this query's single best score."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import ClassVar

from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import Candidate, SearchState
from slidesearch.roles import asked_roles


class RelevanceFloor:
    """12: one floor across every section (a per-section floor does nothing for a uniformly weak section).

    With several angles the floor is taken per angle: a slide is measured against the best
    slide of the angle it answers most, so a brief's weaker topic is not floored away by its
    stronger one (spec 03: each angle is served on its own). Slides found only through
    expansion meet the overall floor. (Measuring against the best *headed* slide instead was
    tried and lost on both generated libraries: wrong share 0.241 / 0.205 against 0.201 /
    0.185.) The best-scoring candidate is always kept, so a non-empty list stays non-empty
    (with the cosine share on, it need not hold the best cosine).

    A slide of a role the brief asks for by name ("agenda slide": ``roles.asked_roles``) is an answer by
    its kind, not by how close its few words come to the best one's, so it is kept (with ``view``, whose
    ``roles`` say each slide's): "agenda slide" showed 3 of the real decks' 16 agendas.
    """

    name = "12 relevance floor"
    reads: ClassVar[frozenset[str]] = frozenset({"deck_capped", "entity_rows", "angles"})
    writes: ClassVar[frozenset[str]] = frozenset({"floored"})
    output: ClassVar[str | None] = "floored"

    def __init__(self, share: float, cosine_share: float = 0.0, entity_free: bool = False,
                 view: LibraryView | None = None) -> None:
        if not 0.0 <= share < 1.0:
            raise ValueError(f"floor share must be in [0, 1), got {share}")
        if not 0.0 <= cosine_share < 1.0:
            raise ValueError(f"floor cosine share must be in [0, 1), got {cosine_share}")
        self.share, self.cosine_share, self.entity_free, self.view = share, cosine_share, entity_free, view

    def _bar_value(self, c: Candidate) -> float:
        """What the floor measures: the score, or with ``entity_free`` the score without the 06b entity factor
        (nor 08's title factor: a slide the brief names by its title is named as an entity is).

        A named entity's x1.5 lifts its slides over the others, which is the ranking's job; measured
        against that lifted best the rest of the answer fell under the floor ("customer analytics
        case study" showed one card). A slide that took another's place at the deck cap (11) is measured
        by that place.
        """
        named = c.entity * c.titled
        own = c.score / named if self.entity_free and named > 0 else c.score
        return own if c.took_place_of is None else max(own, self._bar_value(c.took_place_of))

    def run(self, state: SearchState) -> SearchState:
        candidates = state.deck_capped
        if not candidates:
            return replace(state, floored=candidates)
        asked = asked_roles(state.angles) if self.view is not None else frozenset()
        roles = self.view.roles if self.view is not None else []

        def by_kind(c: Candidate) -> bool:
            return bool(asked) and c.row >= 0 and roles[c.row] in asked

        def answer(c: Candidate) -> bool:
            return c.row < 0 or not roles or not roles[c.row] or roles[c.row] in asked

        # A cover, agenda or closing slide the brief did not ask for is no answer (08 cuts it, 14b never
        # places it), so it neither sets the bar nor takes the place kept for the best: measured against a
        # cover that outscored every content slide, a brief kept only covers, which 13 does not head, and
        # showed no card at all.
        answers = tuple(c for c in candidates if answer(c)) or candidates
        score_floor = _per_angle(answers, self._bar_value, self.share)
        best = max(answers, key=lambda c: c.score)

        if self.cosine_share > 0:
            cosine_floor = _per_angle(candidates, lambda c: c.cosine, self.cosine_share)
            kept = tuple(
                c for c in candidates
                if c is best or by_kind(c)
                or (self._bar_value(c) >= score_floor(c) and (c.row in state.entity_rows or c.cosine >= cosine_floor(c)))
            )
        else:  # off: a slide with a negative cosine (found by BM25 alone) is judged on its score only
            kept = tuple(c for c in candidates if c is best or by_kind(c) or self._bar_value(c) >= score_floor(c))
        return replace(state, floored=kept)


def _per_angle(
    candidates: tuple[Candidate, ...], value: Callable[[Candidate], float], share: float
) -> Callable[[Candidate], float]:
    """``share`` of the best ``value`` of a candidate's own angle (of every candidate when there is one angle)."""
    overall = max(value(c) for c in candidates)
    best: dict[int, float] = {}
    for c in candidates:
        if c.angle >= 0:
            best[c.angle] = max(best.get(c.angle, float("-inf")), value(c))
    if len(best) < 2:
        best = {}
    return lambda c: share * best.get(c.angle, overall)
