"""Spec step 13 (quantified-claim gate): when the brief demands a dollar, percent or FTE figure, the case-studies
section keeps only rows whose own text states that kind of figure.

The demand is read by a separate LLM call (seed: deliberately not folded into classify)
or, offline or on failure, by a deterministic pattern. The check on each row is always a
regex on the row's own title + snippet (a verified row: its title, client, use case and
summary), never a guess. Other sections are untouched; with no demand the gate is a no-op.
"""

from __future__ import annotations

import re
from dataclasses import replace

from pydantic import BaseModel

from slidesearch.pipeline.context import SearchContext
from slidesearch.pipeline.state import Candidate, LLMPath, LLMStep, SearchState

KINDS = ("dollar", "percent", "fte")

#: What a brief says when it demands a kind of figure.
DEMAND: dict[str, re.Pattern[str]] = {
    "dollar": re.compile(r"\b(dollars?|usd)\b|\$|\b(revenue|savings?|cost) (figures?|numbers?)\b", re.I),
    "percent": re.compile(r"\b(percent(ages?)?|per cent)\b|%", re.I),
    "fte": re.compile(r"\b(ftes?|full[- ]time equivalents?|headcount|man[- ]?hours|staff reduction)\b", re.I),
}
#: A figure of each kind stated in a row's own text.
STATES: dict[str, re.Pattern[str]] = {
    "dollar": re.compile(
        r"[$€£]\s?\d|\b\d[\d,.]*\s?(k|m|mn|mm|bn|million|billion|thousand)?\s?(usd|dollars|eur|euros|gbp)\b"
        r"|\b(usd|us\$)\s?\d", re.I),
    "percent": re.compile(r"\d\s?(%|percent\b|per cent\b|pct\b)", re.I),
    "fte": re.compile(r"\b\d[\d,.]*\s?(k\s?)?(ftes?|full[- ]time (equivalents?|employees)|headcount|man[- ]?hours|"
                      r"person[- ]?(hours|days|months))\b|\bftes?\s*(of|by|:)?\s*\d", re.I),
}


class DemandReply(BaseModel):
    """The JSON the LLM demand check must return."""

    dollar: bool
    percent: bool
    fte: bool


def demanded_kinds(text: str) -> tuple[str, ...]:
    """Deterministic demand: the kinds of figure the brief explicitly asks for."""
    return tuple(k for k in KINDS if DEMAND[k].search(text))


def states_figure(text: str, kinds: tuple[str, ...]) -> bool:
    """True when ``text`` states a figure of at least one of ``kinds``."""
    return any(STATES[k].search(text) for k in kinds)


DEMAND_SYSTEM = "You check what kind of quantified proof a sales brief demands. Answer with JSON only."


def demand_prompt(text: str) -> str:
    return (
        f"Brief: {text!r}\nDoes the brief EXPLICITLY demand proof stated as a dollar/currency figure, a percentage, "
        f"or an FTE/headcount figure? A brief about cost or efficiency that does not ask for a figure demands none. "
        f'Return {{"dollar": bool, "percent": bool, "fte": bool}}.'
    )


class QuantifiedGate:
    """13: drop case-studies rows that do not state a demanded kind of figure; a no-op without a demand."""

    name = "13 quantified-claim gate"

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def demand(self, text: str) -> tuple[tuple[str, ...], LLMPath]:
        from llm_adapters import LLMError

        model = self.context.model
        try:
            reply = model.complete_json(demand_prompt(text), DemandReply, system=DEMAND_SYSTEM)
        except LLMError:
            return demanded_kinds(text), "offline"
        return tuple(k for k in KINDS if getattr(reply, k)), "llm"

    def row_text(self, card: Candidate) -> str:
        lib = self.context.library
        if card.master >= 0:
            return lib.master[card.master].document
        return f"{lib.titles[card.row]}\n{lib.snippets[card.row]}"

    def run(self, state: SearchState) -> SearchState:
        if state.groups is None:
            return state
        kinds, path = self.demand(" ".join(state.angles))
        steps = state.with_llm_step("quantified", LLMStep((path,)))
        cases = self.context.section_table.case_studies
        if not kinds or cases not in state.groups:
            return replace(state, quantified_demand=kinds, llm_steps=steps)
        kept = tuple(c for c in state.groups[cases] if states_figure(self.row_text(c), kinds))
        groups = {**state.groups, cases: kept}
        if state.size(0) and not any(groups.values()):
            note = "no case study states the figure asked for, and nothing else matched; the gate was not applied"
            return replace(state, quantified_demand=kinds, llm_steps=steps, notes=(*state.notes, note))
        return replace(state, groups=groups, quantified_demand=kinds, llm_steps=steps)
