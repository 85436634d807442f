"""Spec step 04: what one angle wants (ranking intents) and which sections to search and to show.

Two classifiers share one result type:

* ``classify_offline`` — deterministic. Keywords catch explicit asks ("case studies",
  "profile", "pricing"); cosine similarity between the angle and a one-line
  description of each section catches topical ones ("customer analytics" sits
  nearest the data and analytics description). ``search_types`` is generous (the
  topical sections, every section asked for, every section close to the angle);
  ``answer_sections`` is what was asked for plus the sections nearest the angle.
* ``classify_llm`` — one ``complete_json`` call per angle. On ``LLMUnavailable`` (offline
  or no key) the offline classifier runs; on any other ``LLMError`` both lists fail
  open to every section and intents come from the keyword heuristic (spec 04).

Sections, their descriptions and ask patterns come from a section table
(``slidesearch.sections``; the pipeline passes its library's). The stages
at the end of this module run it: 04 classify, then 04b the exclusion carve-out and the
case-studies safety net, separate stages so each can be tested alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cached_property, lru_cache
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, Field

from core.text import punctuation_insensitive
from llm_adapters import LanguageModel
from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import LLMPath, LLMStep, SearchState, SectionChoice
from slidesearch.sections import SectionTable

INTENTS: tuple[str, ...] = ("case_study", "approach", "capability", "collateral", "demo")

INTENT_SIGNALS: dict[str, re.Pattern[str]] = {
    "case_study": re.compile(
        r"\b(case[- ]?stud(y|ies)|success stor(y|ies)|proof points?|references?|testimonials?|track record)\b",
        re.I,
    ),
    "approach": re.compile(
        r"\b(approach(es)?|methodolog(y|ies)|frameworks?|how (do )?we|roadmaps?|process)\b", re.I
    ),
    "demo": re.compile(r"\b(demos?|demoes|demonstrations?|walk[- ]?through)\b", re.I),
    "collateral": re.compile(
        r"\b(collateral|brochures?|one[- ]pagers?|leave[- ]behinds?|pitch (deck|material)|sales material)\b",
        re.I,
    ),
    "capability": re.compile(r"\b(capabilit(y|ies)|offerings?|services|what we (do|offer)|overview)\b", re.I),
}

#: Offline: a section whose description is within this cosine of the angle's nearest one is
#: searched (and shown when nothing was asked for explicitly). Chosen on the generated set.
SIMILARITY_MARGIN = 0.05


class Classification(BaseModel):
    """One angle's (or the merged) classification; ``paths`` names how the classifier call(s) behind it went."""

    intents: list[str] = Field(default_factory=list)
    search_types: list[str] = Field(default_factory=list)
    answer_sections: list[str] = Field(default_factory=list)
    client: str | None = None
    use_case: str | None = None
    paths: tuple[LLMPath, ...] = ("offline",)


class ClassifyReply(BaseModel):
    """The JSON the LLM classifier must return."""

    intents: list[str]
    search_types: list[str]
    answer_sections: list[str]
    client: str | None = None
    use_case: str | None = None


def keyword_intents(angle: str) -> list[str]:
    """Ranking intents by explicit signal, in the order they appear; ``capability`` when none is explicit."""
    found = [
        (m.start(), intent) for intent, pattern in INTENT_SIGNALS.items() if (m := pattern.search(angle))
    ]
    return [intent for _, intent in sorted(found)] or ["capability"]


def classify_offline(
    angle: str, angle_vector: NDArray[np.float32], section_vectors: NDArray[np.float32], table: SectionTable
) -> Classification:
    """Keyword asks plus nearest section descriptions (``section_vectors`` in ``table`` order); see the module docstring."""
    asked = set(table.asked(angle))
    sims = section_vectors @ angle_vector
    near = {table.names[i] for i in np.flatnonzero(sims >= sims.max() - SIMILARITY_MARGIN)}
    search = set(table.topical) | asked | near
    answer = asked if asked else (near | set(table.topical))
    return Classification(
        intents=keyword_intents(angle),
        search_types=table.in_order(search),
        answer_sections=table.in_order(answer & search),
        paths=("offline",),
    )


def fail_open(angle: str, path: LLMPath, table: SectionTable) -> Classification:
    """Spec 04 on a failed LLM call: every section searched and shown, intents by keyword."""
    return Classification(
        intents=keyword_intents(angle), search_types=list(table.names), answer_sections=list(table.names),
        paths=(path,),
    )


CLASSIFY_SYSTEM = "You route sales-team briefs in a slide library search. Answer with JSON only."


def classify_prompt(angle: str, table: SectionTable) -> str:
    sections = "\n".join(f"- {s.name}: {s.description}" for s in table.sections)
    return (
        f"Brief: {angle!r}\n\nSections:\n{sections}\n\n"
        f"Return JSON with:\n"
        f"- intents: ranking intents from {list(INTENTS)}; exactly one unless the brief gives an explicit second signal.\n"
        f"- search_types: EVERY section that could plausibly hold a good answer (be generous).\n"
        f"- answer_sections: the sections a person asking exactly this would expect as headings "
        f"(selective; a subset of search_types).\n"
        f"- client: the client organisation named in the brief, or null.\n"
        f"- use_case: the business use case in a few words, or null.\n"
        f"Use the section names exactly as listed."
    )


def validate_reply(reply: ClassifyReply, angle: str, path: LLMPath, table: SectionTable) -> Classification:
    """Keep known names only; answer_sections is forced inside search_types; empty lists fail open."""
    intents = [i for i in reply.intents if i in INTENTS] or keyword_intents(angle)
    search = {s for s in reply.search_types if s in table.index}
    answer = {s for s in reply.answer_sections if s in table.index}
    if not search and not answer:
        return fail_open(angle, path, table)
    search |= answer
    return Classification(
        intents=list(dict.fromkeys(intents)),
        search_types=table.in_order(search),
        answer_sections=table.in_order(answer or search),
        client=reply.client or None,
        use_case=reply.use_case or None,
        paths=(path,),
    )


def classify_llm(
    angle: str,
    model: LanguageModel,
    offline: Callable[[], Classification],
    table: SectionTable,
) -> Classification:
    """One LLM call for one angle; offline classifier when no model is available, fail-open when it fails."""
    from llm_adapters import LLMError, LLMUnavailable

    try:
        reply = model.complete_json(classify_prompt(angle, table), ClassifyReply, system=CLASSIFY_SYSTEM)
    except LLMUnavailable:
        return offline()
    except LLMError:
        return fail_open(angle, "fail-open", table)
    return validate_reply(reply, angle, "llm", table)


def merge(classifications: Sequence[Classification], table: SectionTable) -> Classification:
    """Spec 03: intents and both section lists unioned over angles; client / use case from the first that has one."""
    intents = list(dict.fromkeys(i for c in classifications for i in c.intents))
    search = {s for c in classifications for s in c.search_types}
    answer = {s for c in classifications for s in c.answer_sections}
    paths = tuple(dict.fromkeys(p for c in classifications for p in c.paths))
    return Classification(
        intents=intents,
        search_types=table.in_order(search),
        answer_sections=table.in_order(answer),
        client=next((c.client for c in classifications if c.client), None),
        use_case=next((c.use_case for c in classifications if c.use_case), None),
        paths=paths,
    )


class Classify:
    """04: one classification per angle (LLM or offline), merged; client / use case read from the master sheet."""

    name = "04 classify"
    reads: ClassVar[frozenset[str]] = frozenset({"angles", "query_vectors"})
    writes: ClassVar[frozenset[str]] = frozenset({"intents", "classified", "client", "use_case", "classify_step"})
    output: ClassVar[str | None] = None

    def __init__(self, view: LibraryView, model: LanguageModel) -> None:
        self.view, self.model, self.table = view, model, view.section_table

    @cached_property
    def _section_vectors(self) -> NDArray[np.float32]:
        return self.view.embed([s.description for s in self.table.sections])

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
                return classify_offline(angle, vector, self._section_vectors, self.table)
            results.append(classify_llm(angle, self.model, offline, self.table))
        merged = merge(results, self.table)
        clients, cases = self._master_names
        client = merged.client or next((c for a in state.angles if (c := self._named(a, clients))), None)
        use_case = merged.use_case or next((u for a in state.angles if (u := self._named(a, cases))), None)
        return replace(
            state, intents=tuple(merged.intents),
            classified=SectionChoice(tuple(merged.search_types), tuple(merged.answer_sections)),
            client=client, use_case=use_case, classify_step=LLMStep(merged.paths),
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
    reads: ClassVar[frozenset[str]] = frozenset({"angles", "classified"})
    writes: ClassVar[frozenset[str]] = frozenset({"excluded", "carved"})
    output: ClassVar[str | None] = None

    def __init__(self, table: SectionTable) -> None:
        self.table = table

    def run(self, state: SearchState) -> SearchState:
        excluded = frozenset().union(*(excluded_sections(a, self.table) for a in state.angles))
        if not excluded:
            return replace(state, carved=state.classified)
        search = tuple(s for s in state.classified.search if s not in excluded)
        answer = tuple(s for s in state.classified.answer if s not in excluded)
        if not search:  # everything the classifier chose was excluded: search the rest rather than nothing
            search = tuple(s for s in self.table.names if s not in excluded)
        if not answer:
            answer = search
        return replace(state, carved=SectionChoice(search, answer), excluded=excluded)


class CaseStudiesSafetyNet:
    """04: the case-studies section is always searched and shown, unless the query excluded it (04b)."""

    name = "04 case-studies safety net"
    reads: ClassVar[frozenset[str]] = frozenset({"excluded", "carved"})
    writes: ClassVar[frozenset[str]] = frozenset({"sections"})
    output: ClassVar[str | None] = None

    def __init__(self, table: SectionTable) -> None:
        self.table = table

    def run(self, state: SearchState) -> SearchState:
        cases = self.table.case_studies
        if cases in state.excluded:
            return replace(state, sections=state.carved)
        search = tuple(s for s in self.table.names if s in state.carved.search or s == cases)
        answer = tuple(s for s in self.table.names if s in state.carved.answer or s == cases)
        return replace(state, sections=SectionChoice(search, answer))
