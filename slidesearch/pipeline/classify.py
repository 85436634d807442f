"""Spec steps 04 and 04b: classify each angle, carve out explicit exclusions, then the case-studies safety net."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cached_property, lru_cache

import numpy as np
from numpy.typing import NDArray

from core.text import punctuation_insensitive
from slidesearch.classify import Classification, classify_llm, classify_offline, merge
from slidesearch.pipeline.context import SearchContext
from slidesearch.pipeline.state import LLMStep, SearchState
from slidesearch.sections import SectionTable


class Classify:
    """04: one classification per angle (LLM or offline), merged; client / use case read from the master sheet."""

    name = "04 classify"

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    @cached_property
    def _section_vectors(self) -> NDArray[np.float32]:
        return self.context.embed([s.description for s in self.context.section_table.sections])

    @cached_property
    def _master_names(self) -> tuple[dict[str, str], dict[str, str]]:
        clients = {punctuation_insensitive(r.client): r.client for r in self.context.library.master if r.client}
        cases = {punctuation_insensitive(r.use_case): r.use_case for r in self.context.library.master if r.use_case}
        return clients, cases

    def _named(self, angle: str, names: dict[str, str]) -> str | None:
        padded = f" {punctuation_insensitive(angle)} "
        hits = [original for key, original in names.items() if key and f" {key} " in padded]
        return max(hits, key=len) if hits else None

    def run(self, state: SearchState) -> SearchState:
        vectors = self.context.embed(list(state.angles))
        table = self.context.section_table
        results = []
        for angle, vector in zip(state.angles, vectors, strict=True):
            def offline(angle: str = angle, vector: NDArray[np.float32] = vector) -> Classification:
                return classify_offline(angle, vector, self._section_vectors, table)
            results.append(classify_llm(angle, self.context.model, offline, table))
        merged = merge(results, table)
        clients, cases = self._master_names
        client = merged.client or next((c for a in state.angles if (c := self._named(a, clients))), None)
        use_case = merged.use_case or next((u for a in state.angles if (u := self._named(a, cases))), None)
        return replace(
            state, intents=tuple(merged.intents), search_types=tuple(merged.search_types),
            answer_sections=tuple(merged.answer_sections), client=client, use_case=use_case,
            query_vectors=vectors, llm_steps=state.with_llm_step("classify", LLMStep(merged.paths)),
        )


_NEGATION = (r"(?:\bw/o|\bw/out|\b(?:without|excluding|exclude|except(?: for)?|no|not|not including|but not|"
             r"other than|sans|skip|skipping|leave out|leaving out|omit|omitting|minus|(?:do not|don['’]t) include))\s+")
_FILLER = r"(?:any |the |more |other )?"
_SLIDE_WORD = r"(?: slides?| sections?| cards?)?"


@lru_cache(maxsize=8)
def exclusion_pattern(table: SectionTable) -> re.Pattern[str]:
    """A negation word followed by a list of section names ("without case studies and demos", "no pricing or
    team slides"), each named as its section's ``exclusion`` says; the list ends at the first item that is not a
    section name. Built once per table."""
    any_section = "|".join(f"(?:{s.exclusion})" for s in table.sections)
    return re.compile(
        rf"{_NEGATION}{_FILLER}(?:{any_section}){_SLIDE_WORD}"
        rf"(?:\s*(?:,|and|or|nor|&|/)\s*(?:{_FILLER})?(?:[a-z]+\s+)?(?:{any_section}){_SLIDE_WORD})*",
        re.IGNORECASE,
    )


def excluded_sections(text: str, table: SectionTable) -> frozenset[str]:
    """Sections the text explicitly asks to leave out (spec 04b), for every section of ``table``."""
    found: set[str] = set()
    for match in exclusion_pattern(table).finditer(text):
        span = match.group(0)
        for section in table.sections:
            if re.search(rf"\b(?:{section.exclusion})\b", span, re.IGNORECASE):
                found.add(section.name)
    return frozenset(found)


class ExclusionCarveOut:
    """04b: "without / excluding / no … <section>" removes that section from both lists for this query."""

    name = "04b exclusion carve-out"

    def __init__(self, table: SectionTable) -> None:
        self.table = table

    def run(self, state: SearchState) -> SearchState:
        excluded = frozenset().union(*(excluded_sections(a, self.table) for a in state.angles))
        if not excluded:
            return state
        search = tuple(s for s in state.search_types if s not in excluded)
        answer = tuple(s for s in state.answer_sections if s not in excluded)
        if not search:  # everything the classifier chose was excluded: search the rest rather than nothing
            search = tuple(s for s in self.table.names if s not in excluded)
        if not answer:
            answer = search
        return replace(state, search_types=search, answer_sections=answer, excluded=excluded)


class CaseStudiesSafetyNet:
    """04: the case-studies section is always searched and shown, unless the query excluded it (04b)."""

    name = "04 case-studies safety net"

    def __init__(self, table: SectionTable) -> None:
        self.table = table

    def run(self, state: SearchState) -> SearchState:
        cases = self.table.case_studies
        if cases in state.excluded:
            return state
        search = tuple(s for s in self.table.names if s in state.search_types or s == cases)
        answer = tuple(s for s in self.table.names if s in state.answer_sections or s == cases)
        return replace(state, search_types=search, answer_sections=answer)
