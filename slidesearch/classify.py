"""Spec step 04: what one angle wants (ranking intents) and which sections to search and to show.

Two classifiers share one result type:

* ``classify_offline`` — deterministic. Keywords catch explicit asks ("case studies",
  "profile", "pricing"); cosine similarity between the angle and a one-line
  description of each section catches topical ones ("customer analytics" sits
  nearest Data & Analytics). ``search_types`` is generous (the four topical sections,
  every section asked for, every section close to the angle); ``answer_sections`` is
  what was asked for plus the sections nearest the angle.
* ``classify_llm`` — one ``complete_json`` call per angle. On ``LLMUnavailable`` (offline
  or no key) the offline classifier runs; on any other ``LLMError`` both lists fail
  open to all eight sections and intents come from the keyword heuristic (spec 04).

The Case Studies safety net and the exclusion carve-out are separate stages
(``slidesearch.pipeline.query.classify``) so each can be tested alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, Field

from slidesearch.model import SECTIONS

INTENTS: tuple[str, ...] = ("case_study", "approach", "capability", "collateral", "demo")

SECTION_DESCRIPTIONS: dict[str, str] = {
    "Case Studies": "client case study and success story: the client's challenge, our solution, measurable results",
    "Approach & Methodology": "our approach and methodology: framework, process steps, phases, roadmap, timeline",
    "Data & Analytics": "data and analytics: dashboards, charts, tables, KPIs, metrics and reports",
    "Capabilities & Overview": "capabilities and services overview: what we offer, solutions, offerings, expertise",
    "Team & Credentials": "team and credentials: people profiles, bios, resumes, leadership and experts",
    "Credibility & Recognition": "credibility and recognition: awards, analyst rankings, Gartner, why choose us",
    "Commercial & Contract Terms": "commercial and contract terms: pricing, fees, rate card, scope of work, payment",
    "Other": "title slide, agenda, section divider, thank you and contact details",
}

#: Sections that can hold an answer to almost any topical brief; always searched offline.
TOPICAL_SECTIONS: tuple[str, ...] = (
    "Case Studies",
    "Approach & Methodology",
    "Data & Analytics",
    "Capabilities & Overview",
)

#: An explicit ask for a kind of slide. These decide headings, so they are narrow.
SECTION_ASKS: dict[str, re.Pattern[str]] = {
    "Case Studies": re.compile(
        r"\b(case[- ]?stud(y|ies)|success stor(y|ies)|client stor(y|ies)|testimonials?|proof points?|"
        r"references?|past work|track record)\b",
        re.I,
    ),
    "Approach & Methodology": re.compile(
        r"\b(approach(es)?|methodolog(y|ies)|frameworks?|roadmaps?|how we (work|deliver|do)|process(es)?|"
        r"implementation plan|phases)\b",
        re.I,
    ),
    "Data & Analytics": re.compile(
        r"\b(dashboards?|charts?|kpis?|visuali[sz]ations?|reports?|metrics)\b", re.I
    ),
    "Capabilities & Overview": re.compile(
        r"\b(capabilit(y|ies)|offerings?|overview|what we (do|offer)|services we|expertise)\b", re.I
    ),
    "Team & Credentials": re.compile(
        r"\b(team|profiles?|resumes?|r[eé]sum[eé]s?|bios?|biograph(y|ies)|who is|who's|leadership|credentials|"
        r"experts?|org(anisation|anization)? chart|people)\b",
        re.I,
    ),
    "Credibility & Recognition": re.compile(
        r"\b(awards?|recognition|analysts?|gartner|forrester|everest group|magic quadrant|why (choose )?us|"
        r"accolades?|rankings?)\b",
        re.I,
    ),
    "Commercial & Contract Terms": re.compile(
        r"\b(pricing|prices?|commercials?|rate cards?|payment terms|scope of work|statement of work|sow|"
        r"contract terms|fees|engagement model|budget)\b",
        re.I,
    ),
    "Other": re.compile(r"\b(agenda|title slides?|thank you|section dividers?|contact details)\b", re.I),
}

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
    """One angle's (or the merged) classification; ``path`` names the classifier that produced it."""

    intents: list[str] = Field(default_factory=list)
    search_types: list[str] = Field(default_factory=list)
    answer_sections: list[str] = Field(default_factory=list)
    client: str | None = None
    use_case: str | None = None
    path: str = "offline"


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


def asked_sections(angle: str) -> list[str]:
    """Sections the angle asks for by name, in SECTIONS order."""
    return [s for s in SECTIONS if SECTION_ASKS[s].search(angle)]


def _in_order(sections: set[str]) -> list[str]:
    return [s for s in SECTIONS if s in sections]


def classify_offline(
    angle: str, angle_vector: NDArray[np.float32], section_vectors: NDArray[np.float32]
) -> Classification:
    """Keyword asks plus nearest section descriptions; see the module docstring."""
    asked = set(asked_sections(angle))
    sims = section_vectors @ angle_vector
    near = {SECTIONS[i] for i in np.flatnonzero(sims >= sims.max() - SIMILARITY_MARGIN)}
    search = set(TOPICAL_SECTIONS) | asked | near
    answer = asked if asked else (near | set(TOPICAL_SECTIONS))
    return Classification(
        intents=keyword_intents(angle),
        search_types=_in_order(search),
        answer_sections=_in_order(answer & search),
        path="offline",
    )


def fail_open(angle: str, path: str) -> Classification:
    """Spec 04 on a failed LLM call: every section searched and shown, intents by keyword."""
    return Classification(
        intents=keyword_intents(angle), search_types=list(SECTIONS), answer_sections=list(SECTIONS), path=path
    )


CLASSIFY_SYSTEM = "You route sales-team briefs in a slide library search. Answer with JSON only."


def classify_prompt(angle: str) -> str:
    sections = "\n".join(f"- {name}: {desc}" for name, desc in SECTION_DESCRIPTIONS.items())
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


def validate_reply(reply: ClassifyReply, angle: str, path: str) -> Classification:
    """Keep known names only; answer_sections is forced inside search_types; empty lists fail open."""
    intents = [i for i in reply.intents if i in INTENTS] or keyword_intents(angle)
    search = {s for s in reply.search_types if s in SECTIONS}
    answer = {s for s in reply.answer_sections if s in SECTIONS}
    if not search and not answer:
        return fail_open(angle, path)
    search |= answer
    return Classification(
        intents=list(dict.fromkeys(intents)),
        search_types=_in_order(search),
        answer_sections=_in_order(answer or search),
        client=reply.client or None,
        use_case=reply.use_case or None,
        path=path,
    )


def classify_llm(
    angle: str,
    model: object,
    offline: Callable[[], Classification],
) -> Classification:
    """One LLM call for one angle; offline classifier when no model is available, fail-open when it fails."""
    from llm_adapters import LLMError, LLMUnavailable

    try:
        reply = model.complete_json(classify_prompt(angle), ClassifyReply, system=CLASSIFY_SYSTEM)  # type: ignore[attr-defined]
    except LLMUnavailable:
        return offline()
    except LLMError:
        return fail_open(angle, "fail-open")
    return validate_reply(reply, angle, str(model.id))  # type: ignore[attr-defined]


def merge(classifications: Sequence[Classification]) -> Classification:
    """Spec 03: intents and both section lists unioned over angles; client / use case from the first that has one."""
    intents = list(dict.fromkeys(i for c in classifications for i in c.intents))
    search = {s for c in classifications for s in c.search_types}
    answer = {s for c in classifications for s in c.answer_sections}
    paths = list(dict.fromkeys(c.path for c in classifications))
    return Classification(
        intents=intents,
        search_types=_in_order(search),
        answer_sections=_in_order(answer),
        client=next((c.client for c in classifications if c.client), None),
        use_case=next((c.use_case for c in classifications if c.use_case), None),
        path="+".join(paths),
    )
