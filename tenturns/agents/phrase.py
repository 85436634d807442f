"""The Ten Turns agent: shelf restriction, disclosure draining, rarity-weighted phrases, emission width.

Each turn runs these stages in order (``shared/specs/tenturns.md``, "The agent"):

1. ``ReadMessage`` — what the shopper disclosed, retracted or named as the shelf;
2. ``RestrictToShelf`` — the candidates are the shelf named in the opening
   (the target is provably there); with no shelf, the generic pipeline's
   lexical shortlist over the whole catalog;
3. ``ScorePhrases`` — rarity-weighted phrase scoring (``phrase_index``);
4. ``DropShown`` — items shown at a turn that counted are not the target;
5. ``ChooseWidth`` — the spec's widths (1 while at most two requirements are
   known, 2 at three, 10 at four, always 10 from turn 4) or, the measured
   default, one item while more can be learned and then the width that
   maximises the expected score over the turns left (``width.py``);
6. ``ChooseQuestion`` — ask ``other`` until the shopper has nothing left.

With ``TECHJAM_PHASE6_MODE`` set, ``RerankShortlist`` (``rerank.py``) reorders
the top of the ranking with an LLM between stages 4 and 5. Every turn leaves a
trace explaining each shown item's score by phrase (``TenTurnsAgent.traces``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from core.settings import get_settings
from tenturns.agents.base import BaseAgent
from tenturns.agents.dialogue import PHRASE_SEPARATOR as PHRASE_JOIN
from tenturns.agents.dialogue import Kind, Reading, ShelfMatcher, read_opening, read_reply
from tenturns.agents.phrase_index import CandidateView, PhraseIndex, Scored, phrase_index
from tenturns.agents.rerank import RerankShortlist, make_shortlist_reranker
from tenturns.agents.width import plan_width, target_probabilities

FULL_WIDTH = 10
LAST_TURN = 10
MAX_REQUIREMENTS = 4
"""An intent card holds at most two hard constraints and two soft preferences (spec, "Hidden intent card")."""


class TenTurnsConfig(BaseModel):
    """Every tunable of the Ten Turns agent; the defaults are the measured choices (docs/EXPERIMENT_LOG.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    idf_scope: Literal["shelf", "catalog"] = Field(
        default="shelf", description="Token document frequencies over the recovered shelf or the whole catalog."
    )
    widths: tuple[int, int, int] = Field(
        default=(1, 2, 10), description="Items shown with <=2, 3, >=4 known requirements (spec step 6)."
    )
    full_width_turn: int = Field(default=4, description="From this turn on, always show the full width.")
    width_policy: Literal["seed", "spread", "expected"] = Field(
        default="expected",
        description="seed: widths by known requirements; spread: one item while more can be learned, then "
        "the remaining candidates spread evenly over the turns left; expected: one item while more can be "
        "learned, then the width maximising the expected score (width.py).",
    )
    wait_for_information: bool = Field(
        default=True, description="expected policy: show one item while more requirements can still come."
    )
    rule_out_shown: bool = Field(
        default=True, description="Never re-show an item shown at a turn where a hit would have counted."
    )
    sharpness: float = Field(default=4.0, description="expected policy: q_i ∝ exp(sharpness · evidence gap).")
    override: Literal["replace", "keep"] = Field(
        default="keep",
        description="On 'ignore my earlier preference': drop the opening's phrase (replace), or keep it — the "
        "simulated shopper's old preference is still true of the target, and keeping it measured better.",
    )
    card_consistency: bool = Field(
        default=True, description="Break equal-evidence ties by which item's own intent card holds every phrase."
    )
    fallback_candidates: int = Field(default=300, description="Shortlist size from the generic route when no shelf matches.")


@dataclass
class Memory:
    """What the agent knows about one session so far."""

    opened: bool = False
    shelf: str | None = None
    opening_requirement: str | None = None
    requirements: list[tuple[str, ...]] = field(default_factory=list)
    drained: bool = False
    override_pending: bool = False
    excluded: set[int] = field(default_factory=set)
    disclosed: set[tuple[str, ...]] = field(default_factory=set)
    free_text: list[str] = field(default_factory=list)
    traces: list[dict[str, Any]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        """Nothing more can be learned: four requirements (the most a session holds) or "nothing left"."""
        return self.drained or len(self.disclosed) >= MAX_REQUIREMENTS

    @property
    def phrases(self) -> list[str]:
        seen: dict[str, None] = {}
        for requirement in self.requirements:
            for fragment in requirement:
                seen.setdefault(fragment, None)
        return list(seen)


@dataclass(frozen=True)
class Turn:
    """The state a turn's stages pass along."""

    message: str
    turn: int
    top_k: int
    memory: Memory
    reading: Reading | None = None
    view: CandidateView | None = None
    scored: Scored | None = None
    order: NDArray[np.int64] | None = None
    width: int = FULL_WIDTH
    ask: str | None = None
    llm: str = "off"
    usage: tuple[int, int] = (0, 0)


class ReadMessage:
    """Stage 1: fold the shopper's message into the session memory."""

    def __init__(self, matcher: ShelfMatcher, override: str) -> None:
        self.matcher = matcher
        self.override = override

    def run(self, state: Turn) -> Turn:
        memory = state.memory
        if not memory.opened:
            reading = read_opening(state.message, self.matcher)
            memory.opened = True
            memory.shelf = reading.shelf
            memory.override_pending = reading.override_pending
            if reading.phrases:
                memory.opening_requirement = reading.phrases[0]
        else:
            reading = read_reply(state.message)
        if reading.kind == Kind.NOTHING_LEFT and reading.attribute == "other":
            memory.drained = True
        if reading.kind == Kind.OVERRIDE:
            memory.override_pending = False
        if reading.retract_opening and self.override == "replace" and memory.opening_requirement:
            retracted = (memory.opening_requirement,)
            memory.requirements = [r for r in memory.requirements if r != retracted]
        if reading.kind == Kind.FREE_TEXT:
            memory.free_text.append(state.message)
        self._add(memory, reading)
        return replace(state, reading=reading)

    @staticmethod
    def _add(memory: Memory, reading: Reading) -> None:
        if not reading.phrases:
            return
        # A reply holds at most two requirements; extra parts come from a phrase that contained "; ".
        groups = [reading.phrases[:1], reading.phrases[1:]] if reading.counted == 2 else [reading.phrases]
        for group in groups:
            requirement = tuple(group)
            if requirement and requirement not in memory.requirements:
                memory.requirements.append(requirement)
            if requirement:
                memory.disclosed.add(requirement)


class RestrictToShelf:
    """Stage 2: candidates are the recovered shelf; without one, a lexical shortlist over the catalog."""

    def __init__(self, index: PhraseIndex, fallback: Any, size: int) -> None:
        self.index = index
        self.fallback = fallback
        self.size = size

    def run(self, state: Turn) -> Turn:
        shelf = state.memory.shelf
        if shelf is not None:
            return replace(state, view=self.index.view(shelf))
        query = " ".join(state.memory.phrases + state.memory.free_text)
        rows = self.fallback().shortlist(query, self.size)
        return replace(state, view=self.index.rows_view(np.sort(rows)))


class ScorePhrases:
    """Stage 3: S(d) over the candidates from the known phrases, best first."""

    def __init__(self, index: PhraseIndex, idf_scope: str) -> None:
        self.index = index
        self.idf_scope = idf_scope

    def run(self, state: Turn) -> Turn:
        assert state.view is not None
        scored = self.index.score(state.view, state.memory.phrases, self.idf_scope)
        return replace(state, scored=scored, order=scored.ranking())


class CardConsistency:
    """Stage 4b (optional): among equally matching items, prefer one whose own intent card holds every phrase.

    The simulated shopper's requirements are the target's intent card (spec, "Hidden
    intent card"); a near-twin that matches the same phrases in its text but would
    not have stated one of them is less likely. The card of each of the top
    ``depth`` surviving items is built with the simulator's published rule and cached; a
    consistent item gains ``bonus`` — above the rating prior's 0.3 ceiling, so it
    decides between items of equal phrase evidence.
    """

    def __init__(self, products: list[Any], depth: int = 20, bonus: float = 0.5) -> None:
        self.products, self.depth, self.bonus = products, depth, bonus
        self._cards: dict[int, frozenset[str]] = {}

    def _card(self, row: int) -> frozenset[str]:
        card = self._cards.get(row)
        if card is None:
            from tenturns.simulator import intent_card

            built = intent_card(self.products[row])
            card = self._cards[row] = frozenset(built.hard_constraints + built.soft_preferences)
        return card

    def run(self, state: Turn) -> Turn:
        assert state.scored is not None and state.order is not None
        stated = [PHRASE_JOIN.join(r) for r in state.memory.requirements]
        if not stated:
            return state
        scored, order = state.scored, state.order
        bonus = np.zeros(len(scored.rows))
        for position in order[: self.depth].tolist():
            card = self._card(int(scored.rows[position]))
            if all(phrase in card for phrase in stated):
                bonus[position] = self.bonus
        rescored = replace(scored, scores=scored.scores + bonus, bonus=bonus)
        # Re-sort only the surviving order: items already ruled out stay out.
        reordered = order[np.lexsort((scored.rows[order], -rescored.scores[order]))]
        return replace(state, scored=rescored, order=reordered)


class DropShown:
    """Stage 4: never show again an item shown at a turn where a hit would have counted.

    Showing the target ends the session, so an item shown at a turn that counted and
    followed by another turn is not the target. Before an announced intent override
    a hit does not count, so nothing shown then is ruled out. When every candidate
    is ruled out the shelf guess was wrong: the generic route's shortlist takes over.
    """

    def __init__(self, index: PhraseIndex, fallback: Any, size: int) -> None:
        self.index, self.fallback, self.size = index, fallback, size

    def run(self, state: Turn) -> Turn:
        assert state.scored is not None and state.order is not None
        excluded = state.memory.excluded
        if not excluded:
            return state
        ruled_out = np.isin(state.scored.rows[state.order], np.fromiter(excluded, dtype=np.int64))
        if not ruled_out.all():
            return replace(state, order=state.order[~ruled_out])
        query = " ".join(state.memory.phrases + state.memory.free_text)
        rows = [r for r in self.fallback().shortlist(query, self.size + len(excluded)).tolist() if r not in excluded]
        view = self.index.rows_view(np.sort(np.asarray(rows, dtype=np.int64)))
        scored = self.index.score(view, state.memory.phrases, "catalog")
        return replace(state, view=view, scored=scored, order=scored.ranking())


class ChooseWidth:
    """Stage 5: how many items to show — a bet on how specific the known intent already is."""

    def __init__(self, widths: tuple[int, int, int], full_width_turn: int, policy: str, sharpness: float,
                 wait_for_information: bool = True) -> None:
        self.widths = widths
        self.full_width_turn = full_width_turn
        self.policy = policy
        self.sharpness = sharpness
        self.wait_for_information = wait_for_information

    def run(self, state: Turn) -> Turn:
        if self.policy == "seed":
            width = self._seed(state)
        elif self.policy == "spread":
            width = self._spread(state)
        else:
            width = self._expected(state)
        return replace(state, width=max(0, min(width, state.top_k)))

    def _expected(self, state: Turn) -> int:
        """One item while more can be learned; then the width of the best plan over the turns left."""
        if self.wait_for_information and state.turn < LAST_TURN and not state.memory.complete:
            return 1
        assert state.scored is not None and state.order is not None
        evidence = (state.scored.scores - state.scored.prior)[state.order]
        return plan_width(target_probabilities(evidence, self.sharpness), state.turn)

    def _seed(self, state: Turn) -> int:
        known = len(state.memory.requirements)
        few, three, many = self.widths
        if state.turn >= self.full_width_turn:
            return FULL_WIDTH
        return few if known <= 2 else three if known == 3 else many

    @staticmethod
    def _spread(state: Turn) -> int:
        """A hit at rank r is worth 0.3/r against 0.02 per turn of delay, so one item a turn beats a list
        until about rank 15; the remaining candidates are spread over the turns left so all are shown by
        the last one."""
        turns_left = LAST_TURN - state.turn + 1
        if turns_left <= 1:
            return FULL_WIDTH
        if not state.memory.complete:
            return 1
        assert state.order is not None
        return max(1, math.ceil(len(state.order) / turns_left))


class ChooseQuestion:
    """Stage 6: ask ``other`` (it bypasses the shopper's classifier) until nothing is left to disclose."""

    def run(self, state: Turn) -> Turn:
        return replace(state, ask=None if state.memory.drained else "other")


class TenTurnsAgent(BaseAgent):
    """The default Ten Turns agent (zero tokens unless TECHJAM_PHASE6_MODE turns the LLM reranker on)."""

    def __init__(self, catalog_path: str | Path, config: TenTurnsConfig | None = None, reranker: Any = None) -> None:
        super().__init__(catalog_path)
        self.config = config or TenTurnsConfig()
        self.index = phrase_index(self.catalog)
        self.matcher = ShelfMatcher(self.catalog.shelves)
        self._generic: Any = None
        self.reranker: RerankShortlist | None = reranker if reranker is not None else make_shortlist_reranker(
            get_settings(), [p.title for p in self.catalog.products]
        )
        self.stages: list[Any] = [
            ReadMessage(self.matcher, self.config.override),
            RestrictToShelf(self.index, self._fallback, self.config.fallback_candidates),
            ScorePhrases(self.index, self.config.idf_scope),
            DropShown(self.index, self._fallback, self.config.fallback_candidates),
            *([CardConsistency(self.catalog.products)] if self.config.card_consistency else []),
        ]
        if self.reranker is not None:
            self.stages.append(self.reranker)
        self.stages += [
            ChooseWidth(self.config.widths, self.config.full_width_turn, self.config.width_policy,
                        self.config.sharpness, self.config.wait_for_information),
            ChooseQuestion(),
        ]

    def _fallback(self) -> Any:
        if self._generic is None:
            from tenturns.agents.generic import LexicalRoute

            self._generic = LexicalRoute(self.catalog)
        return self._generic

    def reset(self, session_id: str, user_profile: dict[str, Any] | None) -> None:
        super().reset(session_id, user_profile)
        self.sessions[session_id]["memory"] = Memory()

    def respond(self, session_id: str, user_message: str, turn: int, top_k: int = 10) -> dict[str, Any]:
        session = self.session(session_id)
        session["messages"].append(user_message)
        state = Turn(message=user_message or "", turn=turn, top_k=top_k, memory=session["memory"])
        for stage in self.stages:
            state = stage.run(state)
        return self._response(state)

    def traces(self, session_id: str) -> list[dict[str, Any]]:
        """The per-turn traces of a session: each shown item's score broken down by phrase."""
        memory: Memory = self.session(session_id)["memory"]
        return memory.traces

    def _response(self, state: Turn) -> dict[str, Any]:
        assert state.scored is not None and state.order is not None
        scored, products = state.scored, self.catalog.products
        shown = state.order[: state.width]
        recommendations = [
            {"parent_asin": products[int(scored.rows[i])].parent_asin, "score": round(float(scored.scores[i]), 6)}
            for i in shown
        ]
        trace = {
            "turn": state.turn,
            "shelf": state.memory.shelf,
            "candidates": int(len(scored.rows)),
            "requirements": len(state.memory.requirements),
            "width": state.width,
            "ask": state.ask,
            "llm": state.llm,
            "items": [
                {
                    "parent_asin": products[int(scored.rows[i])].parent_asin,
                    "score": round(float(scored.scores[i]), 6),
                    "prior": round(float(scored.prior[i]), 6),
                    **({"card_bonus": float(scored.bonus[i])} if scored.bonus is not None else {}),
                    "phrases": [
                        {"phrase": m.phrase, "weight": round(m.weight, 6), "tier": m.tier,
                         "factor": round(m.factor, 6), "contribution": round(m.contribution, 6)}
                        for m in scored.explain(int(i))
                    ],
                }
                for i in shown
            ],
        }
        state.memory.traces.append(trace)
        if self.config.rule_out_shown and not state.memory.override_pending:
            state.memory.excluded.update(int(scored.rows[i]) for i in shown)
        return {
            "message": self._message(state),
            "ask_attribute": state.ask,
            "recommendations": recommendations,
            "usage": {"prompt_tokens": state.usage[0], "completion_tokens": state.usage[1]},
        }

    @staticmethod
    def _message(state: Turn) -> str:
        where = f" in {state.memory.shelf}" if state.memory.shelf else ""
        lead = f"Here {'is my best match' if state.width == 1 else f'are my top {state.width}'}{where}."
        if state.ask == "other":
            return f"{lead} What else matters to you about it?"
        return lead
