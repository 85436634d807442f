"""Spec step 11: one canonical deck (draft and version markers stripped) at most twice in the whole response.

When the brief wants results ("a case study", "results with numbers"), a deck's places go to its
best-scored slides as before, except that the deck's best slide stating a quantified outcome takes
its last place if none of the kept ones states one: a case study's challenge and solution outscore
its results slide on the brief's words, but the results are what the rep came for. A brief asking
for a kind of slide by its role ("agenda slide") keeps a place so for the deck's slide of that role.
The slide keeps its own score; the floor (12) measures it by the place it took.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from slidesearch.pipeline.state import Candidate, SearchState
from slidesearch.roles import asked_roles, asks_for_results


def cap_per_deck(cands: tuple[Candidate, ...], decks: Sequence[str], cap: int,
                 preferred: NDArray[np.bool_] | None = None) -> tuple[Candidate, ...]:
    """Walk best-first, skipping a slide once its deck has appeared ``cap`` times (verified rows pass).

    With ``preferred`` (a flag per row), a deck none of whose kept slides is preferred gives its
    last (weakest) place to its best skipped preferred slide, which records the slide it replaced
    (``Candidate.took_place_of``); the output stays in the input's order.
    """
    kept_of: dict[str, list[int]] = {}
    keep = [False] * len(cands)
    swap_in: dict[str, int] = {}
    for i, c in enumerate(cands):
        if c.row < 0:
            keep[i] = True
            continue
        deck = decks[c.row]
        kept = kept_of.setdefault(deck, [])
        if len(kept) < cap:
            kept.append(i)
            keep[i] = True
        elif preferred is not None and preferred[c.row] and deck not in swap_in:
            swap_in[deck] = i
    out = list(cands)
    for deck, i in swap_in.items():
        kept = kept_of[deck]
        if not any(preferred[cands[k].row] for k in kept):  # type: ignore[index]
            keep[kept[-1]], keep[i] = False, True
            out[i] = cands[i].evolve(took_place_of=cands[kept[-1]])
    return tuple(c for c, k in zip(out, keep, strict=True) if k)


class GlobalDeckCap:
    """11: applied before grouping, so a compilation deck cannot take two slots in every section."""

    name = "11 global deck cap"
    reads: ClassVar[frozenset[str]] = frozenset({"distinct", "angles"})
    writes: ClassVar[frozenset[str]] = frozenset({"deck_capped"})
    output: ClassVar[str | None] = "deck_capped"

    def __init__(self, canonical_decks: Sequence[str], cap: int, states_results: NDArray[np.bool_] | None = None,
                 roles: Sequence[str] | None = None) -> None:
        if cap < 1:
            raise ValueError(f"the deck cap must be at least 1, got {cap}")
        for name, flags in (("results flags", states_results), ("roles", roles)):
            if flags is not None and len(flags) != len(canonical_decks):
                raise ValueError(f"{len(flags)} {name} for {len(canonical_decks)} slides")
        self.canonical_decks, self.cap, self.states_results = canonical_decks, cap, states_results
        self.roles = np.asarray(roles, dtype=str) if roles is not None else None

    def _preferred(self, angles: Sequence[str]) -> NDArray[np.bool_] | None:
        """The slides a deck keeps a place for: its results slides when the brief wants results, its slides of the
        role the brief asks for ("agenda slide": a deck's conclusion outscored its "Table of contents" on the
        brief's two words and took both places)."""
        preferred = self.states_results if asks_for_results(angles) else None
        asked = asked_roles(angles) if self.roles is not None else frozenset()
        if asked and self.roles is not None:
            of_role = np.isin(self.roles, sorted(asked))
            preferred = of_role if preferred is None else preferred | of_role
        return preferred

    def run(self, state: SearchState) -> SearchState:
        ordered = tuple(sorted(state.distinct, key=lambda c: (-c.score, c.row)))
        preferred = self._preferred(state.angles)
        return replace(state, deck_capped=cap_per_deck(ordered, self.canonical_decks, self.cap, preferred))
