"""Spec step 14: at most 15 cards per section (or fewer if the caller asked), then 50 in the whole response.

With an angle cap, each angle of the brief also keeps only its best ``angle_cap`` cards (a card belongs
to the angle that contributed most to its score; expansion-only cards form a group of their own): a
rep reads about a page of cards per thing asked, and cards past it only lowered the precision of the
answer, while a multi-part brief still gets a page for each part (spec 03: each angle is served on its own).

The caps are measured on the answer before 13's quantified gate (``blended``) and the gate's removals are
then applied, so a case study the gate drops frees no room for another section's card: spec 13 leaves the
other sections untouched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import ClassVar

from slidesearch.pipeline.state import Candidate, SearchState


class Caps:
    """14: the section cap first (min of top_per_group and 15), then each angle's best ``angle_cap``, then the
    globally best ``global_cap``."""

    name = "14 caps"
    reads: ClassVar[frozenset[str]] = frozenset({"blended", "quantified", "top_per_group"})
    writes: ClassVar[frozenset[str]] = frozenset({"capped", "cap_notes"})
    output: ClassVar[str | None] = "capped"

    def __init__(self, section_cap: int, global_cap: int, angle_cap: int | None = None) -> None:
        if section_cap < 1 or global_cap < 1 or (angle_cap is not None and angle_cap < 1):
            raise ValueError("caps must be at least 1")
        self.section_cap, self.global_cap, self.angle_cap = section_cap, global_cap, angle_cap

    def run(self, state: SearchState) -> SearchState:
        if state.quantified is None:
            return replace(state, capped=None)
        per_section = max(1, min(self.section_cap, state.top_per_group))
        notes: tuple[str, ...] = ()
        if state.top_per_group > self.section_cap and any(len(c) > self.section_cap for c in state.quantified.values()):
            notes = (f"a section shows at most {self.section_cap} cards; "
                     f"{state.top_per_group} per section were asked for",)
        ungated = state.blended if state.blended is not None else state.quantified
        kept = self._kept(ungated, per_section)
        groups = {s: tuple(c for c in cards if (s, c.row, c.master) in kept) for s, cards in state.quantified.items()}
        return replace(state, capped=groups, cap_notes=notes)

    def _kept(self, groups: Mapping[str, Sequence[Candidate]], per_section: int) -> set[tuple[str, int, int]]:
        """The (section, row, master row) of each card the section, angle and global caps keep in ``groups``."""
        capped = {s: cards[:per_section] for s, cards in groups.items()}
        everything = sorted(((c.score, s, i) for s, cards in capped.items() for i, c in enumerate(cards)), reverse=True)
        if self.angle_cap is not None:
            taken: dict[int, int] = {}
            within = []
            for item in everything:
                angle = capped[item[1]][item[2]].angle
                if taken.get(angle, 0) < self.angle_cap:
                    taken[angle] = taken.get(angle, 0) + 1
                    within.append(item)
            everything = within
        return {(s, capped[s][i].row, capped[s][i].master) for _, s, i in everything[: self.global_cap]}
