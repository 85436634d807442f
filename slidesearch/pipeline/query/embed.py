"""Spec step 03, the angles' vectors: each angle encoded once, for every stage that compares by meaning."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import SearchState


class EmbedAngles:
    """03: one vector per angle, with the library's own embedder (queries and slides must share one)."""

    name = "03 embed angles"
    reads: ClassVar[frozenset[str]] = frozenset({"angles"})
    writes: ClassVar[frozenset[str]] = frozenset({"query_vectors"})
    output: ClassVar[str | None] = None

    def __init__(self, view: LibraryView) -> None:
        self.view = view

    def run(self, state: SearchState) -> SearchState:
        return replace(state, query_vectors=self.view.embed(list(state.angles)))
