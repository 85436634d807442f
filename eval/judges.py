"""Judges: grade each result card correct / 50-50 / wrong.

``LabelJudge`` reads ground-truth gains. Its mapping, on the TREC-style graded
scale the generator and Cranfield use (higher is better):

    gain >= 2 (relevant or highly relevant)    -> correct
    gain == 1 (marginal / minimum interest)     -> 50-50
    gain == 0 or the slide is not judged        -> wrong

On a binary collection (a query whose judged gains are all 1, e.g. SlideVQA
evidence slides, CISI) a judged slide is ``correct``: there the single grade means
"relevant", not "marginal".

``LLMJudge`` is the seed's independent grader: one batched call per query (cut
into batches of at most ``JUDGE_BATCH``), each card given with its title, section,
the full 600-character snippet (the seed's measurement bug was a 200-character
one) and its "why this?" explanation, graded against the rubric below. The reply
array must have exactly one verdict per card (``batch_matches``); otherwise —
or when the model is offline or fails — the batch falls back to the label judge
when labels exist, else its cards are marked ``unjudged``. Responses are cached by
llm_adapters' cache (``SEEK_LLM_CACHE``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from llm_adapters import LanguageModel

UNJUDGED = "unjudged"
JUDGE_BATCH = 25
"""Seed: batching cut judge calls 10-15x with no loss of rubric fidelity; 25 cards keeps a reply short."""

JUDGE_RUBRIC = """You are an independent judge of a slide search engine used by a sales team.
For each numbered result you get the rep's query, the slide's section, title, its full indexed
text (600 characters) and the engine's "why this?" explanation. Grade the result AND its explanation:
- "correct": the slide genuinely serves the query (it is what the rep asked for, in the section they
  would expect) and every claim in the explanation is true of the slide text.
- "50-50": partly useful: tangential or background material, the right topic in the wrong form,
  or relevant but the explanation overstates the connection.
- "wrong": the slide does not serve the query, or the query explicitly excluded this kind of slide
  (e.g. "without case studies"), or the explanation claims a connection the slide text does not contain.
Compound queries (several clients, topics or angles): a slide that clearly serves at least one named
part is judged on that part; it is not wrong merely for not covering every part.
Return exactly one verdict per result, in the same order, as {"verdicts": [{"verdict": ..., "reason": ...}]}."""


class LabelJudge:
    """Graded relevance labels to verdicts with the documented mapping."""

    name = "label"

    def __init__(self, correct_min: float = 2.0, partial_min: float = 1.0) -> None:
        if not 0 < partial_min <= correct_min:
            raise ValueError(f"need 0 < partial_min <= correct_min, got {partial_min}, {correct_min}")
        self.correct_min, self.partial_min = correct_min, partial_min

    def verdict(self, slide_id: str, qrels: Mapping[str, float]) -> str:
        gain = qrels.get(slide_id, 0.0)
        binary = bool(qrels) and max(qrels.values()) <= 1.0
        if gain >= self.correct_min or (binary and gain > 0):
            return "correct"
        if gain >= self.partial_min:
            return "50-50"
        return "wrong"


class JudgeCard(BaseModel):
    """What the judge sees of one result."""

    id: str
    section: str
    title: str
    snippet: str
    explanation: str


class JudgeVerdict(BaseModel):
    model_config = ConfigDict(extra="ignore")

    verdict: Literal["correct", "50-50", "wrong"]
    reason: str = ""


class JudgeBatch(BaseModel):
    """The structured reply: one verdict per card, in order."""

    model_config = ConfigDict(extra="ignore")

    verdicts: list[JudgeVerdict] = Field(default_factory=list)


def judge_prompt(query: str | Sequence[str], cards: Sequence[JudgeCard]) -> str:
    """The batched judge prompt: the query then every card with its full snippet and explanation."""
    asked = query if isinstance(query, str) else " | ".join(query)
    lines = [f"Query: {asked}", f"{len(cards)} results:"]
    for n, card in enumerate(cards, start=1):
        lines.append(
            f"[{n}] section: {card.section}\ntitle: {card.title}\ntext: {card.snippet}\nwhy this: {card.explanation}"
        )
    return "\n\n".join(lines)


class LLMJudge:
    """Batched LLM grading with the seed's rubric; falls back per batch as the module docstring says."""

    def __init__(self, model: LanguageModel, fallback: LabelJudge | None = None, batch_size: int = JUDGE_BATCH) -> None:
        self.model = model
        self.fallback = fallback
        self.batch_size = batch_size
        self.name = f"llm:{model.id}"

    def judge(
        self, query: str | Sequence[str], cards: Sequence[JudgeCard], qrels: Mapping[str, float]
    ) -> list[tuple[str, str]]:
        """(verdict, judge path) for every card, in order."""
        from llm_adapters import LLMError, batch_matches

        out: list[tuple[str, str]] = []
        for start in range(0, len(cards), self.batch_size):
            batch = list(cards[start : start + self.batch_size])
            try:
                reply = self.model.complete_json(judge_prompt(query, batch), JudgeBatch, system=JUDGE_RUBRIC)
                if not batch_matches(reply.verdicts, len(batch)):
                    raise ValueError(f"judge returned {len(reply.verdicts)} verdicts for {len(batch)} cards")
                out.extend((v.verdict, self.name) for v in reply.verdicts)
            except (LLMError, ValueError):
                out.extend(self._fallback(card.id, qrels) for card in batch)
        return out

    def _fallback(self, card_id: str, qrels: Mapping[str, float]) -> tuple[str, str]:
        if self.fallback is not None and qrels:
            return self.fallback.verdict(card_id, qrels), self.fallback.name
        return UNJUDGED, UNJUDGED
