"""Spec step 14b: after every trim, one guaranteed slot for a named entity, phrase or person."""

from __future__ import annotations

from dataclasses import replace

from slidesearch.pipeline.context import SearchContext
from slidesearch.pipeline.quantified import states_figure
from slidesearch.pipeline.state import SearchState
from slidesearch.sections import SectionTable


def top_section(state: SearchState, table: SectionTable) -> str | None:
    """The section the answer leads with: the first section the brief asked for by name that has a heading,
    else the answer section (a heading classify chose) with the best card, else the first answer section
    headed, else the headed section with the best card. A section headed only because one angle of a brief
    found nothing under the chosen headings (13) leads only when no answer section is headed."""
    groups = state.groups or {}
    for angle in state.angles:
        for section in table.asked(angle):
            if section in groups:
                return section
    answer = [s for s in groups if s in state.answer_sections]
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

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def _admissible(self, row: int, section: str, state: SearchState) -> bool:
        if section != self.context.section_table.case_studies or not state.quantified_demand:
            return True
        lib = self.context.library
        return states_figure(f"{lib.titles[row]}\n{lib.snippets[row]}", state.quantified_demand)

    def run(self, state: SearchState) -> SearchState:
        if not state.entity_rows or not state.groups:
            return state
        section = top_section(state, self.context.section_table)
        if section is None:
            return state
        if any(c.row in state.entity_rows for c in state.groups[section]):
            return state
        matches = [c for c in state.scored if c.row in state.entity_rows and c.section not in state.excluded
                   and self._admissible(c.row, section, state)]
        if not matches:
            return state
        best = max(matches, key=lambda c: (c.score, -c.row))
        groups = {s: tuple(c for c in cards if c.row != best.row or c.row < 0) for s, cards in state.groups.items()}
        spliced = best.evolve(section=section, guaranteed=True)
        groups[section] = tuple(sorted((*groups[section], spliced), key=lambda c: -c.score))
        return replace(state, groups=groups)
