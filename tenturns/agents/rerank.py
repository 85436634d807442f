"""The LLM shortlist reranker (the seed's "phase 6"), off unless ``TECHJAM_PHASE6_MODE`` is set.

It reorders the top of the deterministic ranking with an LLM through
``llm_adapters``. The seed's version lost (0.694 -> 0.680 on a 30-session
pilot) and its write-up names why: the prompt held titles and categories but
not the phrase-match evidence the deterministic scorer ranks on, so the model
knew less than the ranking it reordered. Here every item carries its evidence:
which requirement phrases it matches and how (verbatim, punctuation-insensitive,
token overlap) with the phrase's rarity weight. Any LLM error, or a reply that
is not a permutation of the shortlist, keeps the deterministic order (fail
open); the path that ran is recorded in the turn's ``llm`` field and the tokens
spent in its ``usage``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from core.settings import Settings

if TYPE_CHECKING:
    from llm_adapters import LanguageModel

SHORTLIST_DEPTH = 10
TITLE_CHARS = 160
SYSTEM = (
    "You rerank a shopping shortlist. The shopper's stated requirements are listed, then numbered items with "
    "their titles and, for each requirement, how the item's catalog text matches it. Put the item most likely "
    "to be exactly what the shopper wants first. Reply with JSON only."
)


class ShortlistOrder(BaseModel):
    """The model's answer: the item numbers (1-based, as listed) from best to worst, each exactly once."""

    model_config = ConfigDict(extra="forbid")

    order: list[int]


def is_permutation(order: list[int], size: int) -> bool:
    """True when ``order`` lists 1..size, each once (the batched-reply check: one answer per input)."""
    return len(order) == size and sorted(order) == list(range(1, size + 1))


def shortlist_prompt(phrases: list[str], items: list[tuple[str, list[tuple[str, str, float]]]]) -> str:
    """The prompt: requirements, then each item's title and per-phrase match evidence."""
    lines = ["Shopper requirements:"]
    lines += [f"- {p}" for p in phrases] or ["- (none stated yet)"]
    lines.append("")
    lines.append("Items (evidence: requirement -> match tier, rarity weight):")
    for number, (title, evidence) in enumerate(items, start=1):
        lines.append(f"{number}. {title[:TITLE_CHARS]}")
        lines += [f"   - {phrase[:80]} -> {tier}, w={weight:.2f}" for phrase, tier, weight in evidence]
    lines.append("")
    lines.append(f'Answer as {{"order": [...]}} with all {len(items)} item numbers, best first.')
    return "\n".join(lines)


class RerankShortlist:
    """Pipeline stage: reorder the top ``depth`` of ``state.order`` with the model, failing open."""

    def __init__(self, model: LanguageModel, titles: list[str], depth: int = SHORTLIST_DEPTH) -> None:
        if depth < 2:
            raise ValueError(f"shortlist depth must be at least 2, got {depth}")
        self.model = model
        self.titles = titles
        self.depth = depth

    def run(self, state: Any) -> Any:
        from llm_adapters import LLMError

        scored, order = state.scored, state.order
        top = [int(i) for i in order[: self.depth]]
        if len(top) < 2:
            return state
        items = []
        for position in top:
            evidence = [(m.phrase, m.tier, m.weight) for m in scored.explain(position)]
            items.append((self.titles[int(scored.rows[position])], evidence))
        prompt = shortlist_prompt(list(scored.phrases), items)
        before = self.model.usage
        try:
            reply = self.model.complete_json(prompt, ShortlistOrder, system=SYSTEM)
            ok = is_permutation(reply.order, len(top))
        except LLMError:
            ok = False
        after = self.model.usage
        usage = (
            state.usage[0] + max(0, after.prompt_tokens - before.prompt_tokens),
            state.usage[1] + max(0, after.completion_tokens - before.completion_tokens),
        )
        if not ok:
            return replace(state, llm="fallback", usage=usage)
        reordered = np.asarray([top[n - 1] for n in reply.order] + [int(i) for i in order[self.depth:]], dtype=np.int64)
        return replace(state, order=reordered, llm=self.model.id, usage=usage)


def phase6_model_id(settings: Settings) -> str:
    """The model the flag names (``TECHJAM_PHASE6_MODE=anthropic:...``), or ``SEEK_LLM`` for a bare "1"/"on"."""
    mode = (settings.techjam_phase6_mode or "").strip()
    return mode if ":" in mode or mode == "offline" else settings.llm


def make_shortlist_reranker(settings: Settings, titles: list[str] | None = None) -> RerankShortlist | None:
    """The reranker stage when the phase-6 flag is on, else None (the default path spends no tokens)."""
    if not settings.phase6_enabled:
        return None
    from llm_adapters import get_model

    return RerankShortlist(get_model(phase6_model_id(settings)), titles or [])
