"""Spec step 14b: after every trim, one guaranteed slot for a named entity, phrase or person."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from slidesearch.library.view import LibraryView
from slidesearch.pipeline.answer.quantified import states_figure
from slidesearch.pipeline.state import Candidate, Groups, SearchState
from slidesearch.sections import SectionTable


def top_section(groups: Groups, angles: Sequence[str], answer_sections: Sequence[str],
                table: SectionTable) -> str | None:
    """The section the answer leads with: the first section the brief asked for by name that has a heading,
    else the answer section (a heading classify chose) with the best card, else the first answer section
    headed, else the headed section with the best card. A section headed only because one angle of a brief
    found nothing under the chosen headings (13) leads only when no answer section is headed."""
    for angle in angles:
        for section in table.asked(angle):
            if section in groups:
                return section
    answer = [s for s in groups if s in answer_sections]
    for pool in (answer, list(groups)):
        scored = [(groups[s][0].score, s) for s in pool if groups[s]]
        if scored:
            return max(scored)[1]
        if pool:
            return pool[0]
    return None


class EntitySlot:
    """14b: if 06b found a term and none of its literal matches is in the top section, splice in the best one.

    Runs on the final groups (the seed's first placement, before the caps, was cut straight
    back out). Exactly one extra card, never from a section the brief excluded, never one the
    quantified-claim gate would refuse in the case-studies section; the card is moved, not copied, if it
    already sits in another section.
    """

    name = "14b guaranteed entity slot"
    reads: ClassVar[frozenset[str]] = frozenset({"capped", "entity_rows", "entity_terms", "angles", "sections", "scored",
                                                 "excluded", "quantified_demand"})
    writes: ClassVar[frozenset[str]] = frozenset({"slotted", "slot_notes"})
    output: ClassVar[str | None] = "slotted"

    def __init__(self, view: LibraryView) -> None:
        self.view = view

    def _admissible(self, row: int, section: str, state: SearchState) -> bool:
        # A cover or other role slide names the entity in its title but says nothing about it.
        if self.view.roles[row]:
            return False
        if section != self.view.section_table.case_studies or not state.quantified_demand:
            return True
        return states_figure(f"{self.view.titles[row]}\n{self.view.snippets[row]}", state.quantified_demand)

    def _only_on_role_slides(self, state: SearchState, groups: Groups) -> tuple[str, ...]:
        """A note when the names 06b found are on no card shown and, in the library, only on role slides.

        "Wexridge Engineering case studies": the client is named on one proposal's cover, which is never an
        answer nor the guaranteed slot, so no card shown names it; the rep is told where the name is.
        """
        if any(c.row in state.entity_rows for cards in groups.values() for c in cards):
            return ()
        named = [c for c in state.scored if c.row in state.entity_rows]
        if not named or any(not self.view.roles[c.row] for c in named):
            return ()
        terms = " or ".join(f'"{t}"' for t in state.entity_terms)
        first = _best(named).row
        where = f'{self.view.roles[first]} slide "{self.view.titles[first]}"' if self.view.titles[first] \
            else f"{self.view.roles[first]} slide"
        more = f" and {len(named) - 1} more like it" if len(named) > 1 else ""
        return (f"{terms} appears only on a {where}{more}, which is not shown as an answer; no card shown names it",)

    def run(self, state: SearchState) -> SearchState:
        capped = state.capped
        if not state.entity_rows or not capped:
            return replace(state, slotted=capped)
        section = top_section(capped, state.angles, state.sections.answer, self.view.section_table)
        if section is None or any(c.row in state.entity_rows for c in capped[section]):
            return replace(state, slotted=capped)
        matches = [c for c in state.scored if c.row in state.entity_rows and c.section not in state.excluded
                   and self._admissible(c.row, section, state)]
        if not matches:
            return replace(state, slotted=capped, slot_notes=self._only_on_role_slides(state, capped))
        best = _best(matches)
        groups = {s: tuple(c for c in cards if c.row != best.row or c.row < 0) for s, cards in capped.items()}
        spliced = best.evolve(section=section, guaranteed=True)
        groups[section] = tuple(sorted((*groups[section], spliced), key=lambda c: -c.score))
        return replace(state, slotted=groups)


def _best(candidates: Sequence[Candidate]) -> Candidate:
    """The best-scoring candidate, the earlier row on a tie."""
    return max(candidates, key=lambda c: (c.score, -c.row))
