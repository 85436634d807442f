"""Spec step 11: one canonical deck (draft and version markers stripped) at most twice in the whole response."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from slidesearch.pipeline.context import SearchContext
from slidesearch.pipeline.state import Candidate, SearchState


def cap_per_deck(cands: tuple[Candidate, ...], decks: list[str], cap: int) -> tuple[Candidate, ...]:
    """Walk best-first, skipping a slide once its deck has appeared ``cap`` times (verified rows pass)."""
    seen: Counter[str] = Counter()
    out = []
    for c in cands:
        if c.row < 0:
            out.append(c)
            continue
        deck = decks[c.row]
        if seen[deck] < cap:
            seen[deck] += 1
            out.append(c)
    return tuple(out)


class GlobalDeckCap:
    """11: applied before grouping, so a compilation deck cannot take two slots in every section."""

    name = "11 global deck cap"

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def run(self, state: SearchState) -> SearchState:
        ordered = tuple(sorted(state.candidates, key=lambda c: (-c.score, c.row)))
        kept = cap_per_deck(ordered, self.context.library.canonical_decks, self.context.config.global_deck_cap)
        return replace(state, candidates=kept)
