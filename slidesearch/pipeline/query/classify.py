"""Spec steps 04 and 04b: classify each angle, carve out explicit exclusions, then the Case Studies safety net."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from core.text import punctuation_insensitive
from slidesearch.classify import SECTION_DESCRIPTIONS, Classification, classify_llm, classify_offline, merge
from slidesearch.library.view import LibraryView
from slidesearch.model import SECTIONS
from slidesearch.pipeline.state import SearchState, SectionChoice

CASE_STUDIES = "Case Studies"


class Classify:
    """04: one classification per angle (LLM or offline), merged; client / use case read from the master sheet."""

    name = "04 classify"
    reads: ClassVar[frozenset[str]] = frozenset({"angles", "query_vectors"})
    writes: ClassVar[frozenset[str]] = frozenset({"intents", "classified", "client", "use_case", "classify_path"})
    output: ClassVar[str | None] = None

    def __init__(self, view: LibraryView, model: Any) -> None:
        self.view, self.model = view, model

    @cached_property
    def _section_vectors(self) -> NDArray[np.float32]:
        return self.view.embed([SECTION_DESCRIPTIONS[s] for s in SECTIONS])

    @cached_property
    def _master_names(self) -> tuple[dict[str, str], dict[str, str]]:
        clients = {punctuation_insensitive(r.client): r.client for r in self.view.master if r.client}
        cases = {punctuation_insensitive(r.use_case): r.use_case for r in self.view.master if r.use_case}
        return clients, cases

    def _named(self, angle: str, names: dict[str, str]) -> str | None:
        padded = f" {punctuation_insensitive(angle)} "
        hits = [original for key, original in names.items() if key and f" {key} " in padded]
        return max(hits, key=len) if hits else None

    def run(self, state: SearchState) -> SearchState:
        if state.query_vectors is None:
            raise ValueError("04 needs the angle vectors (03)")
        results = []
        for angle, vector in zip(state.angles, state.query_vectors, strict=True):
            def offline(angle: str = angle, vector: NDArray[np.float32] = vector) -> Classification:
                return classify_offline(angle, vector, self._section_vectors)
            results.append(classify_llm(angle, self.model, offline))
        merged = merge(results)
        clients, cases = self._master_names
        client = merged.client or next((c for a in state.angles if (c := self._named(a, clients))), None)
        use_case = merged.use_case or next((u for a in state.angles if (u := self._named(a, cases))), None)
        return replace(
            state, intents=tuple(merged.intents),
            classified=SectionChoice(tuple(merged.search_types), tuple(merged.answer_sections)),
            client=client, use_case=use_case, classify_path=merged.path,
        )


_NEGATION = (r"(?:\bw/o|\bw/out|\b(?:without|excluding|exclude|except(?: for)?|no|not|not including|but not|"
             r"other than|sans|skip|skipping|leave out|leaving out|omit|omitting|minus|(?:do not|don['’]t) include))\s+")
_FILLER = r"(?:any |the |more |other )?"
#: How a brief names each section when it asks to leave it out.
SECTION_NAME_PATTERNS: dict[str, str] = {
    "Case Studies": r"case[- ]?stud(?:y|ies)|success stor(?:y|ies)",
    "Approach & Methodology": r"approach(?:es)?(?: (?:and|&) methodolog(?:y|ies))?|methodolog(?:y|ies)",
    "Data & Analytics": r"data (?:and|&) analytics|analytics|dashboards?",
    "Capabilities & Overview": r"capabilit(?:y|ies)(?: (?:and|&) overviews?)?|overviews?",
    "Team & Credentials": r"team(?: (?:and|&) credentials)?(?: slides| bios| profiles)?|credentials|bios|profiles",
    "Credibility & Recognition": r"credibility(?: (?:and|&) recognition)?|recognition|awards?",
    "Commercial & Contract Terms": r"commercial(?:s| (?:and|&) contract terms)?|contract terms|pricing",
    "Other": r"other (?:slides|section)",
}
_ANY_SECTION = "|".join(f"(?:{p})" for p in SECTION_NAME_PATTERNS.values())
_SLIDE_WORD = r"(?: slides?| sections?| cards?)?"
#: A negation word followed by a list of section names ("without case studies and demos",
#: "no pricing or team slides"); the list ends at the first item that is not a section name.
EXCLUSION = re.compile(
    rf"{_NEGATION}{_FILLER}(?:{_ANY_SECTION}){_SLIDE_WORD}"
    rf"(?:\s*(?:,|and|or|nor|&|/)\s*(?:{_FILLER})?(?:[a-z]+\s+)?(?:{_ANY_SECTION}){_SLIDE_WORD})*",
    re.IGNORECASE,
)


def excluded_sections(text: str) -> frozenset[str]:
    """Sections the text explicitly asks to leave out (spec 04b), for every section name."""
    found: set[str] = set()
    for match in EXCLUSION.finditer(text):
        span = match.group(0)
        for section, pattern in SECTION_NAME_PATTERNS.items():
            if re.search(rf"\b(?:{pattern})\b", span, re.IGNORECASE):
                found.add(section)
    return frozenset(found)


class ExclusionCarveOut:
    """04b: "without / excluding / no … <section>" removes that section from both lists for this query."""

    name = "04b exclusion carve-out"
    reads: ClassVar[frozenset[str]] = frozenset({"angles", "classified"})
    writes: ClassVar[frozenset[str]] = frozenset({"excluded", "carved"})
    output: ClassVar[str | None] = None

    def run(self, state: SearchState) -> SearchState:
        excluded = frozenset().union(*(excluded_sections(a) for a in state.angles))
        if not excluded:
            return replace(state, carved=state.classified)
        search = tuple(s for s in state.classified.search if s not in excluded)
        answer = tuple(s for s in state.classified.answer if s not in excluded)
        if not search:  # everything the classifier chose was excluded: search the rest rather than nothing
            search = tuple(s for s in SECTIONS if s not in excluded)
        if not answer:
            answer = search
        return replace(state, carved=SectionChoice(search, answer), excluded=excluded)


class CaseStudiesSafetyNet:
    """04: Case Studies is always searched and shown, unless the query excluded it (04b)."""

    name = "04 case-studies safety net"
    reads: ClassVar[frozenset[str]] = frozenset({"excluded", "carved"})
    writes: ClassVar[frozenset[str]] = frozenset({"sections"})
    output: ClassVar[str | None] = None

    def run(self, state: SearchState) -> SearchState:
        if CASE_STUDIES in state.excluded:
            return replace(state, sections=state.carved)
        search = tuple(s for s in SECTIONS if s in state.carved.search or s == CASE_STUDIES)
        answer = tuple(s for s in SECTIONS if s in state.carved.answer or s == CASE_STUDIES)
        return replace(state, sections=SectionChoice(search, answer))
