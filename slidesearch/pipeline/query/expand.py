"""Spec step 05: expansion terms for one angle from three sources, merged, de-duplicated and capped.

1. Curated clusters mined from the library: a trigger found as whole words in the angle
   adds every term of its cluster.
2. Taxonomy terms whose embedding has cosine >= 0.68 with the angle (up to 300 considered).
3. LLM "world" expansion, only when no cluster fired; each suggestion is kept only if its
   own embedding has cosine >= 0.5 with the angle. The seed calibrated 0.5 on real
   term/query pairs (real synonyms 0.55-0.90, tangents 0.33-0.45).

Terms equal to the angle itself are dropped; at most ``cap`` survive (seed: 10).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from core.text import punctuation_insensitive
from llm_adapters import LanguageModel
from slidesearch.config import SearchConfig
from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import LLMPath, LLMStep, SearchState


class WorldReply(BaseModel):
    """The JSON the LLM world expansion must return."""

    terms: list[str]


def cluster_terms(angle: str, clusters: Mapping[str, Sequence[str]]) -> list[str]:
    """Terms of every cluster whose trigger occurs in the angle as whole words."""
    padded = f" {punctuation_insensitive(angle)} "
    out: list[str] = []
    for trigger, terms in clusters.items():
        key = punctuation_insensitive(trigger)
        if key and f" {key} " in padded:
            out.extend(terms)
    return out


def taxonomy_terms(
    angle_vector: NDArray[np.float32],
    taxonomy: Sequence[str],
    vectors: NDArray[np.float32] | None,
    cutoff: float,
    candidates: int,
) -> list[str]:
    """Taxonomy terms at cosine >= cutoff, best first, among the ``candidates`` nearest."""
    if vectors is None or len(taxonomy) == 0 or candidates == 0:
        return []
    sims = np.asarray(vectors, dtype=np.float32) @ angle_vector
    top = np.argsort(-sims, kind="stable")[:candidates]
    return [taxonomy[i] for i in top if sims[i] >= cutoff]


WORLD_SYSTEM = "You suggest search synonyms for a sales slide library. Answer with JSON only."


def world_prompt(angle: str) -> str:
    return (
        f"Brief: {angle!r}\nSuggest up to 10 short search terms (synonyms, standard industry names, "
        f"common abbreviations) a slide answering this brief would likely contain. Prefer fewer, closer terms. "
        f'Return {{"terms": [...]}}.'
    )


def world_terms(
    angle: str,
    angle_vector: NDArray[np.float32],
    model: LanguageModel,
    embed: Callable[[Sequence[str]], NDArray[np.float32]],
    cutoff: float,
) -> tuple[list[str], LLMPath]:
    """LLM suggestions that clear the cosine cutoff, and the path taken ("offline" when the call failed)."""
    from llm_adapters import LLMError

    try:
        reply = model.complete_json(world_prompt(angle), WorldReply, system=WORLD_SYSTEM)
    except LLMError:
        return [], "offline"
    suggestions = [t.strip() for t in reply.terms if isinstance(t, str) and t.strip()][:20]
    if not suggestions:
        return [], "llm"
    sims = embed(suggestions) @ angle_vector
    return [t for t, s in zip(suggestions, sims, strict=True) if s >= cutoff], "llm"


def merge_terms(angles: Sequence[str], per_angle: Sequence[Sequence[str]], cap: int) -> list[str]:
    """Round-robin over angles so each keeps a share, de-duplicated case-insensitively, angles themselves dropped."""
    seen = {punctuation_insensitive(a) for a in angles}
    out: list[str] = []
    queues = [list(terms) for terms in per_angle]
    while len(out) < cap and any(queues):
        for queue in queues:
            while queue:
                term = queue.pop(0).strip()
                key = punctuation_insensitive(term)
                if key and key not in seen:
                    seen.add(key)
                    out.append(term)
                    break
            if len(out) >= cap:
                break
    return out



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
    writes: ClassVar[frozenset[str]] = frozenset({"expansion", "expand_step"})
    output: ClassVar[str | None] = None

    def __init__(self, view: LibraryView, limits: ExpansionLimits, model: LanguageModel) -> None:
        self.view, self.limits, self.model = view, limits, model

    def run(self, state: SearchState) -> SearchState:
        if state.query_vectors is None:
            raise ValueError("05 needs the angle vectors (03)")
        view, limits = self.view, self.limits
        per_angle: list[list[str]] = []
        paths: list[LLMPath] = []
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
        return replace(state, expansion=tuple(terms), expand_step=LLMStep(tuple(dict.fromkeys(paths))))
