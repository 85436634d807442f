"""Spec step 11: one canonical deck (draft and version markers stripped) at most twice in the whole response."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from slidesearch.pipeline.state import Candidate, SearchState


def cap_per_deck(cands: tuple[Candidate, ...], decks: Sequence[str], cap: int) -> tuple[Candidate, ...]:
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
    reads: ClassVar[frozenset[str]] = frozenset({"distinct"})
    writes: ClassVar[frozenset[str]] = frozenset({"deck_capped"})
    output: ClassVar[str | None] = "deck_capped"

    def __init__(self, canonical_decks: Sequence[str], cap: int) -> None:
        if cap < 1:
            raise ValueError(f"the deck cap must be at least 1, got {cap}")
        self.canonical_decks, self.cap = canonical_decks, cap

    def run(self, state: SearchState) -> SearchState:
        ordered = tuple(sorted(state.distinct, key=lambda c: (-c.score, c.row)))
        return replace(state, deck_capped=cap_per_deck(ordered, self.canonical_decks, self.cap))
