"""Spec step 15: sections ordered by their own best score; empty sections last, still listed."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from slidesearch.pipeline.state import SearchState
from slidesearch.sections import SectionTable


class OrderSections:
    """15: cards best-first inside each section, sections by their best card; ties keep the spec's order."""

    name = "15 order sections"
    reads: ClassVar[frozenset[str]] = frozenset({"slotted"})
    writes: ClassVar[frozenset[str]] = frozenset({"groups"})
    output: ClassVar[str | None] = "groups"

    def __init__(self, table: SectionTable) -> None:
        self.table = table

    def run(self, state: SearchState) -> SearchState:
        if state.slotted is None:
            return replace(state, groups=None)
        groups = {s: tuple(sorted(cards, key=lambda c: -c.score)) for s, cards in state.slotted.items()}
        order = sorted(groups, key=lambda s: (not groups[s], -(groups[s][0].score if groups[s] else 0.0),
                                              self.table.index[s]))
        return replace(state, groups={s: groups[s] for s in order})
