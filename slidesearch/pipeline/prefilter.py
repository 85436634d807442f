"""Spec step 06: the hard candidate pool, built before any search runs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from slidesearch.pipeline.context import SearchContext
from slidesearch.pipeline.names import entity_row_array
from slidesearch.pipeline.state import SearchState


class Prefilter:
    """06: every in-scope slide whose section is in search_types, plus every in-scope literal 06b match.

    Universe scope is enforced here for every entry point. If the sections chosen hold no
    in-scope slide, the pool falls back to every in-scope slide: an empty pool would mean
    an empty response, the one outcome the standing rule forbids.
    """

    name = "06 prefilter"

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def run(self, state: SearchState) -> SearchState:
        scope = self.context.scope_mask(state.universes)
        index = self.context.section_table.index
        wanted = np.asarray([index[s] for s in state.search_types], dtype=np.int8)
        mask = scope & np.isin(np.asarray(self.context.library.sections), wanted)
        mask[entity_row_array(state)] = True
        notes = state.notes
        if not mask.any():
            mask = scope
            notes = (*notes, "the chosen sections hold no slide in scope; searched every section instead")
        return replace(state, pool=np.flatnonzero(mask).astype(np.int64), notes=notes)
