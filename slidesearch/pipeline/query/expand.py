"""Spec step 05 as a stage: curated clusters, taxonomy, LLM world expansion; merged and capped at 10."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from slidesearch.config import SearchConfig
from slidesearch.expand import cluster_terms, merge_terms, taxonomy_terms, world_terms
from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import SearchState


@dataclass(frozen=True)
class ExpansionLimits:
    """05's settings (``SearchConfig``): the taxonomy cutoff and breadth, the LLM cutoff, the merged cap."""

    taxonomy_cutoff: float
    taxonomy_candidates: int
    world_cutoff: float
    cap: int

    def __post_init__(self) -> None:
        if self.taxonomy_candidates < 0 or self.cap < 0:
            raise ValueError("taxonomy_candidates and the expansion cap must be non-negative")

    @classmethod
    def from_config(cls, config: SearchConfig) -> ExpansionLimits:
        return cls(config.taxonomy_cutoff, config.taxonomy_candidates, config.world_expansion_cutoff,
                   config.expansion_cap)


class Expand:
    """05: each angle expanded on its own, then merged (deduped case-insensitively, at most ``limits.cap``)."""

    name = "05 expand"
    reads: ClassVar[frozenset[str]] = frozenset({"angles", "query_vectors"})
    writes: ClassVar[frozenset[str]] = frozenset({"expansion", "expand_path"})
    output: ClassVar[str | None] = None

    def __init__(self, view: LibraryView, limits: ExpansionLimits, model: Any) -> None:
        self.view, self.limits, self.model = view, limits, model

    def run(self, state: SearchState) -> SearchState:
        if state.query_vectors is None:
            raise ValueError("05 needs the angle vectors (03)")
        view, limits = self.view, self.limits
        per_angle: list[list[str]] = []
        paths: list[str] = []
        for angle, vector in zip(state.angles, state.query_vectors, strict=True):
            cluster = cluster_terms(angle, view.clusters)
            taxonomy = taxonomy_terms(vector, view.taxonomy, view.taxonomy_vectors, limits.taxonomy_cutoff,
                                      limits.taxonomy_candidates)
            world: list[str] = []
            if not cluster:
                world, path = world_terms(angle, vector, self.model, view.embed, limits.world_cutoff)
                paths.append(path)
            per_angle.append([*cluster, *taxonomy, *world])
        terms = merge_terms(state.angles, per_angle, limits.cap)
        path = "+".join(dict.fromkeys(paths)) or "not needed"
        return replace(state, expansion=tuple(terms), expand_path=path)
