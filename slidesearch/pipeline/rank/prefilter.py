"""Spec step 06: the hard candidate pool, built before any search runs."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

import numpy as np

from slidesearch.library.view import LibraryView
from slidesearch.pipeline.query.names import entity_row_array
from slidesearch.pipeline.state import SearchState


class Prefilter:
    """06: every in-scope slide whose section is in the searched sections, plus every in-scope literal 06b match.

    Universe scope is enforced here for every entry point. If the sections chosen hold no
    in-scope slide, the pool falls back to every in-scope slide: an empty pool would mean
    an empty response, the one outcome the standing rule forbids.
    """

    name = "06 prefilter"
    reads: ClassVar[frozenset[str]] = frozenset({"universes", "sections", "entity_rows"})
    writes: ClassVar[frozenset[str]] = frozenset({"pool", "pool_notes"})
    output: ClassVar[str | None] = "pool"

    def __init__(self, view: LibraryView) -> None:
        self.view = view

    def run(self, state: SearchState) -> SearchState:
        scope = self.view.scope_mask(state.universes)
        index = self.view.section_table.index
        wanted = np.asarray([index[s] for s in state.sections.search], dtype=np.int8)
        mask = scope & np.isin(np.asarray(self.view.sections), wanted)
        mask[entity_row_array(state)] = True
        notes: tuple[str, ...] = ()
        if not mask.any():
            mask = scope
            notes = ("the chosen sections hold no slide in scope; searched every section instead",)
        return replace(state, pool=np.flatnonzero(mask).astype(np.int64), pool_notes=notes)


class AllSlides:
    """06, retrieval only: every slide in scope, no section filter (``SlideSearch.retrieve``)."""

    name = "06 whole library"
    reads: ClassVar[frozenset[str]] = frozenset({"universes"})
    writes: ClassVar[frozenset[str]] = frozenset({"pool"})
    output: ClassVar[str | None] = "pool"

    def __init__(self, view: LibraryView) -> None:
        self.view = view

    def run(self, state: SearchState) -> SearchState:
        return replace(state, pool=np.flatnonzero(self.view.scope_mask(state.universes)).astype(np.int64))
