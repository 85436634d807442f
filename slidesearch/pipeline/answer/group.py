"""Spec step 13 (grouping): the sections, only those with a heading, at most 2 slides per deck in each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import Cards, SearchState
from slidesearch.pipeline.trim.deckcap import cap_per_deck
from slidesearch.sections import SectionTable


class GroupSections:
    """13: each candidate goes to its own section (content type + carve-outs, computed at load).

    Only ``answer_sections`` get a heading; a slide of a section that was searched but not
    headed is dropped here. If that would leave no card at all while candidates exist, the
    sections those candidates belong to get headings instead (standing rule: never turn a
    non-empty pool into an empty response) — unless a candidate literally matches a 06b
    name: then the guaranteed slot (14b) puts it under the heading asked for, as the seed
    does for "blackrock case studies". A cover or other role slide naming it does not count:
    14b never places one.

    With several angles the same rule holds for each angle on its own (spec 03: each angle
    is served on its own): when none of an angle's floored candidates sits in a headed
    section, the sections they sit in get a heading holding that angle's slides only, with
    a note naming the angle, so grouping never drops a brief's second topic whole because the
    first topic filled the headings (the caps of 14 may still trim it like any section).
    An angle is left to 14b only when every one of its slides holds a 06b name and no headed
    slide does (then 14b, which acts when the top section holds no named slide, places one).
    """

    name = "13 group sections"
    reads: ClassVar[frozenset[str]] = frozenset({"floored", "sections", "entity_rows", "angles", "excluded"})
    writes: ClassVar[frozenset[str]] = frozenset({"grouped", "group_notes"})
    output: ClassVar[str | None] = "grouped"

    def __init__(self, table: SectionTable, canonical_decks: Sequence[str], deck_cap: int, open_rank: int = 0,
                 view: LibraryView | None = None) -> None:
        """``view``'s roles tell the slides 14b never places: a cover naming the client leaves no card for 14b
        to splice in, so it does not stand in for the fallback below (without a view every named slide does)."""
        if deck_cap < 1:
            raise ValueError(f"the per-section deck cap must be at least 1, got {deck_cap}")
        if open_rank < 0:
            raise ValueError(f"the heading rank must be 0 (off) or more, got {open_rank}")
        self.table, self.canonical_decks, self.deck_cap = table, canonical_decks, deck_cap
        self.open_rank, self.view = open_rank, view

    def _opened(self, state: SearchState, candidates: Cards, headed: list[str]) -> set[str]:
        """Topical sections not headed by 04 that hold one of the ``open_rank`` best candidates (never a carved-out
        one; a section a topic cannot fill, such as the covers, agendas and thank-you slides of Other, only by 04).

        The classifier reads the brief, not the slides: "content marketing strategy frameworks" heads
        Approach & Methodology only, and the best framework slides, filed under Capabilities & Overview
        or Data & Analytics, were dropped here although they outscored every headed card. With several
        angles each angle's own best count too (spec 03: each angle is served on its own), so a profile's
        bios cannot take every place from the pricing slides of the brief's second angle.
        """
        if not self.open_rank:
            return set()
        ranked = sorted(candidates, key=lambda c: -c.score)
        best = ranked[: self.open_rank]
        if len(state.angles) > 1:
            for a in range(len(state.angles)):
                best += [c for c in ranked if c.angle == a][: self.open_rank]
        shut = {*headed, *state.excluded}
        return {c.section for c in best if c.section in self.table.topical and c.section not in shut}

    def run(self, state: SearchState) -> SearchState:
        candidates = state.floored
        names = self.table.names
        headed = [s for s in names if s in state.sections.answer] or list(names)
        opened = self._opened(state, candidates, headed)
        headed = [s for s in names if s in headed or s in opened]
        notes: tuple[str, ...] = ()
        roles = self.view.roles if self.view is not None and state.entity_rows else None
        named = any(c.row in state.entity_rows and not (roles and c.row >= 0 and roles[c.row]) for c in candidates)
        if candidates and not named and not any(c.section in headed for c in candidates):
            headed = [s for s in names if any(c.section == s for c in candidates)]
            notes = (*notes, "nothing matched in the sections asked for; showing the sections that did match")
        missed = self._unheaded_angles(state, candidates, headed) if len(state.angles) > 1 else set()
        if missed:
            quoted = " or ".join(f'"{state.angles[a]}"' for a in sorted(missed))
            notes = (*notes, f"nothing for {quoted} in the sections asked for; showing the sections that did match")
        extra = {c.section for c in candidates if c.angle in missed}
        groups = {
            section: cap_per_deck(
                tuple(c for c in candidates if c.section == section and (section in headed or c.angle in missed)),
                self.canonical_decks, self.deck_cap,
            )
            for section in names if section in headed or section in extra
        }
        return replace(state, grouped=groups, group_notes=notes)

    @staticmethod
    def _unheaded_angles(state: SearchState, candidates: Cards, headed: list[str]) -> set[int]:
        """The angles with candidates, none of them headed, that 14b will not serve."""
        named_headed = any(c.section in headed and c.row in state.entity_rows for c in candidates)
        missed: set[int] = set()
        for number in range(len(state.angles)):
            own = [c for c in candidates if c.angle == number]
            if not own or any(c.section in headed for c in own):
                continue
            if not named_headed and all(c.row in state.entity_rows for c in own):
                continue  # 14b puts the best named slide under the heading asked for
            missed.add(number)
        return missed
