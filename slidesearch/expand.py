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
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from core.text import punctuation_insensitive
from slidesearch.pipeline.state import LLMPath

if TYPE_CHECKING:
    from llm_adapters import LanguageModel


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
