"""Spec step 05 as a stage: curated clusters, taxonomy, LLM world expansion; merged and capped at 10."""

from __future__ import annotations

from dataclasses import replace

from slidesearch.expand import cluster_terms, merge_terms, taxonomy_terms, world_terms
from slidesearch.pipeline.context import SearchContext
from slidesearch.pipeline.state import LLMPath, LLMStep, SearchState


class Expand:
    """05: each angle expanded on its own, then merged (deduped case-insensitively, at most ``expansion_cap``)."""

    name = "05 expand"

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def run(self, state: SearchState) -> SearchState:
        lib, cfg = self.context.library, self.context.config
        vectors = state.query_vectors if state.query_vectors is not None else self.context.embed(list(state.angles))
        per_angle: list[list[str]] = []
        paths: list[LLMPath] = []
        for angle, vector in zip(state.angles, vectors, strict=True):
            cluster = cluster_terms(angle, lib.clusters)
            taxonomy = taxonomy_terms(vector, lib.taxonomy, getattr(lib, "taxonomy_vectors", None),
                                      cfg.taxonomy_cutoff, cfg.taxonomy_candidates)
            world: list[str] = []
            if not cluster:
                world, path = world_terms(angle, vector, self.context.model, self.context.embed,
                                          cfg.world_expansion_cutoff)
                paths.append(path)
            per_angle.append([*cluster, *taxonomy, *world])
        terms = merge_terms(state.angles, per_angle, cfg.expansion_cap)
        return replace(state, expansion=tuple(terms), query_vectors=vectors,
                       llm_steps=state.with_llm_step("expand", LLMStep(tuple(dict.fromkeys(paths)))))
