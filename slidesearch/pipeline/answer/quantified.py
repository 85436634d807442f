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
from typing import ClassVar

from pydantic import BaseModel

from llm_adapters import LanguageModel
from slidesearch.library.view import LibraryView
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
    reads: ClassVar[frozenset[str]] = frozenset({"blended", "angles"})
    writes: ClassVar[frozenset[str]] = frozenset({"quantified_demand", "quantified_step", "quantified",
                                                  "quantified_notes"})
    output: ClassVar[str | None] = "quantified"

    def __init__(self, view: LibraryView, model: LanguageModel) -> None:
        self.view, self.model = view, model

    def demand(self, text: str) -> tuple[tuple[str, ...], LLMPath]:
        from llm_adapters import LLMError

        try:
            reply = self.model.complete_json(demand_prompt(text), DemandReply, system=DEMAND_SYSTEM)
        except LLMError:
            return demanded_kinds(text), "offline"
        said = reply.model_dump()
        return tuple(k for k in KINDS if said[k]), "llm"

    def row_text(self, card: Candidate) -> str:
        if card.master >= 0:
            return self.view.master[card.master].document
        return f"{self.view.titles[card.row]}\n{self.view.snippets[card.row]}"

    def run(self, state: SearchState) -> SearchState:
        groups = state.blended
        if groups is None:
            return replace(state, quantified=groups)
        kinds, path = self.demand(" ".join(state.angles))
        step, cases = LLMStep((path,)), self.view.section_table.case_studies
        if not kinds or cases not in groups:
            return replace(state, quantified_demand=kinds, quantified_step=step, quantified=groups)
        kept = tuple(c for c in groups[cases] if states_figure(self.row_text(c), kinds))
        gated = {**groups, cases: kept}
        if any(groups.values()) and not any(gated.values()):
            note = "no case study states the figure asked for, and nothing else matched; the gate was not applied"
            return replace(state, quantified_demand=kinds, quantified_step=step, quantified=groups,
                           quantified_notes=(note,))
        return replace(state, quantified_demand=kinds, quantified_step=step, quantified=gated)
