"""Spec step 14: at most 15 cards per section (or fewer if the caller asked), then 50 in the whole response."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from slidesearch.pipeline.state import SearchState


class Caps:
    """14: the section cap first (min of top_per_group and 15), then the globally best ``global_cap``."""

    name = "14 caps"
    reads: ClassVar[frozenset[str]] = frozenset({"quantified", "top_per_group"})
    writes: ClassVar[frozenset[str]] = frozenset({"capped", "cap_notes"})
    output: ClassVar[str | None] = "capped"

    def __init__(self, section_cap: int, global_cap: int) -> None:
        if section_cap < 1 or global_cap < 1:
            raise ValueError("caps must be at least 1")
        self.section_cap, self.global_cap = section_cap, global_cap

    def run(self, state: SearchState) -> SearchState:
        if state.quantified is None:
            return replace(state, capped=None)
        per_section = max(1, min(self.section_cap, state.top_per_group))
        notes: tuple[str, ...] = ()
        if state.top_per_group > self.section_cap and any(len(c) > self.section_cap for c in state.quantified.values()):
            notes = (f"a section shows at most {self.section_cap} cards; "
                     f"{state.top_per_group} per section were asked for",)
        groups = {s: cards[:per_section] for s, cards in state.quantified.items()}
        everything = sorted(((c.score, s, i) for s, cards in groups.items() for i, c in enumerate(cards)), reverse=True)
        if len(everything) > self.global_cap:
            keep = {(s, i) for _, s, i in everything[: self.global_cap]}
            groups = {s: tuple(c for i, c in enumerate(cards) if (s, i) in keep) for s, cards in groups.items()}
        return replace(state, capped=groups, cap_notes=notes)
