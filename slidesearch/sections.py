"""The sections of a SlideSearch response, defined once: one ``Section`` record each, in display order.

A record holds everything the engine knows about its section: the one-line description
the dense and LLM classifiers read (spec 04), the pattern of an explicit ask for it, how
a brief names it when leaving it out (04b), the content types it holds, the carve-out
language that moves a slide into it whatever its type (13), and the roles a few sections
play (the one unknown types fall into, the one verified master-sheet rows join, the
ones always searched offline, the ones carve-outs leave alone).

``SectionTable`` derives every lookup the pipeline uses (ordered names, index, content
type -> section) from its records. A library assigns each slide's section with the table
it is built with (``Library.from_slides(..., sections=...)``) and every stage reads that
library's table, so adding a section is an edit to ``DEFAULT_SECTIONS`` here (and a
rebuilt index: a saved library stores section indices).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class CarveOut:
    """Language that moves a slide into a section whatever its content type (spec step 13).

    Titles are matched with the broad ``title`` pattern (the seed found the populations by
    sampling titles); body text only with the narrow, unambiguous ``text`` one. Both run on
    lower-cased text. Every match of either contains one of ``hints``: most slides hold
    none, and a substring test is far cheaper than the alternations (they run on every
    slide at load).
    """

    title: re.Pattern[str]
    text: re.Pattern[str]
    hints: tuple[str, ...]

    def matches(self, title: str, text: str) -> bool:
        """Whether the lower-cased ``title`` or ``text`` carries this carve-out's language."""
        return self._found(self.title, title) or self._found(self.text, text)

    def _found(self, pattern: re.Pattern[str], lowered: str) -> bool:
        return any(h in lowered for h in self.hints) and pattern.search(lowered) is not None


@dataclass(frozen=True)
class Section:
    """One section and everything the pipeline keys on for it (see the module docstring)."""

    name: str
    description: str
    """What the section holds, in one line: embedded by the offline classifier, listed in the LLM's prompt."""
    ask: re.Pattern[str]
    """An explicit ask for this kind of slide ("case studies", "pricing"). These decide headings, so they are narrow."""
    exclusion: str
    """Regex source: how a brief names the section when it asks to leave it out ("without case studies")."""
    content_types: tuple[str, ...] = ()
    carve_out: CarveOut | None = None
    topical: bool = False
    """Can hold an answer to almost any topical brief: always searched offline."""
    keeps_own: bool = False
    """Its slides are about what they prove or who they name: carve-outs leave them alone
    (a case study that mentions Gartner is still a case study)."""
    default: bool = False
    """Where a content type no section lists goes (exactly one section)."""
    case_studies: bool = False
    """The section verified master-sheet rows join, always searched and shown unless excluded, and the one
    the quantified-claim gate filters (exactly one section)."""


class SectionTable:
    """An ordered table of sections and the lookups derived from it; read-only once built.

    Names and content types must be unique, and exactly one section must be the default
    and exactly one hold case studies; anything else is a ValueError. Carve-outs are tried
    in table order and the first that matches wins.
    """

    def __init__(self, sections: Sequence[Section]) -> None:
        self.sections: tuple[Section, ...] = tuple(sections)
        self.names: tuple[str, ...] = tuple(s.name for s in self.sections)
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"section names repeat: {', '.join(self.names)}")
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.by_content_type: dict[str, str] = {}
        for section in self.sections:
            for content_type in section.content_types:
                if content_type in self.by_content_type:
                    raise ValueError(f"content type {content_type!r} is in two sections")
                self.by_content_type[content_type] = section.name
        self.default: str = _only_one(self.sections, "default")
        self.case_studies: str = _only_one(self.sections, "case_studies")
        self.topical: tuple[str, ...] = tuple(s.name for s in self.sections if s.topical)
        self._keep_own = frozenset(s.name for s in self.sections if s.keeps_own)
        self._carve_outs = tuple((s.name, s.carve_out) for s in self.sections if s.carve_out is not None)

    def __len__(self) -> int:
        return len(self.sections)

    def __getitem__(self, name: str) -> Section:
        return self.sections[self.index[name]]

    def in_order(self, names: Iterable[str]) -> list[str]:
        """The known sections among ``names``, in table order (unknown names dropped, repeats once)."""
        wanted = set(names)
        return [s for s in self.names if s in wanted]

    def section_for(self, content_type: str, title: str, text: str) -> str:
        """The section a slide belongs to: its content type's section, or the first carve-out its words match.

        A type no section lists goes to the default section. Sections that keep their own
        slides (case studies, team) are never carved out of.
        """
        base = self.by_content_type.get((content_type or "").strip().lower(), self.default)
        if base in self._keep_own:
            return base
        head, body = (title or "").lower(), (text or "").lower()
        for name, carve_out in self._carve_outs:
            if carve_out.matches(head, body):
                return name
        return base

    def section_in_deck(self, section: str, deck_name: str) -> str:
        """A slide's section given its deck: a generic slide of a case-study deck is part of the case study.

        "Results: reduced churn 18%" reads as a capability on its own; in a deck named "Customer
        Analytics Case Study.pptx" it is the case study's result. Only the default section is moved,
        and only by the deck's file name (a mixed deck may open with one case study).
        """
        if section == self.default and CASE_STUDY_DECK.search(deck_name or ""):
            return self.case_studies
        return section

    def asked(self, angle: str) -> list[str]:
        """Sections the angle asks for by name, in table order."""
        return [s.name for s in self.sections if s.ask.search(angle)]


def _only_one(sections: Sequence[Section], role: str) -> str:
    holders = [s.name for s in sections if getattr(s, role)]
    if len(holders) != 1:
        raise ValueError(f"exactly one section must be {role!r}, found {holders or 'none'}")
    return holders[0]


CASE_STUDY_DECK = re.compile(
    r"\b(case[ _-]?stud(?:y|ies)|success[ _-]?stor(?:y|ies)|client[ _-]?stor(?:y|ies)|customer[ _-]?stor(?:y|ies))\b",
    re.IGNORECASE,
)
"""A deck file name that says the deck is a case study."""

_RECOGNITION = CarveOut(
    title=re.compile(
        r"\b(awards?|award[- ]winning|accolades|recogni[sz]ed (?:as|by|in|for)|(?:analyst|industry) recognition|"
        r"awards? (?:and|&) recognition|gartner|forrester|everest group|idc marketscape|isg provider lens|"
        r"magic quadrant|peak matrix|marketscape|why choose us|why us\b|why partner with us|"
        r"named (?:a|as) (?:leader|major contender|star performer))",
    ),
    text=re.compile(
        r"\b(magic quadrant|peak matrix|marketscape|forrester wave|named (?:a|as) (?:leader|major contender)|"
        r"why choose us|award[- ]winning|won the .{0,40}award)",
    ),
    hints=("award", "accolade", "recogni", "gartner", "forrester", "everest", "idc", "isg", "quadrant", "matrix",
           "marketscape", "wave", "why ", "named "),
)
_COMMERCIAL = CarveOut(
    title=re.compile(
        r"\b(scope of work|statement of work|sow\b|commercials\b|commercial (?:terms|model|proposal)|"
        r"pricing (?:summary|proposal|schedule|options|and payment|& payment)|price (?:sheet|schedule)|"
        r"payment (?:terms|schedule|milestones?)|fee structure|fees\b|rate card|contract(?:ual)? terms|"
        r"terms (?:and|&) conditions|invoic(?:e|ing) (?:schedule|terms))|"
        r"^(?:our |proposed |indicative )?(?:pricing|prices|investment)(?: (?:&|and) [a-z]+)?\s*$",
    ),
    text=re.compile(
        r"\b(scope of work|statement of work|payment terms|payment schedule|net \d{2} days|rate card|"
        r"terms (?:and|&) conditions|invoiced (?:monthly|quarterly)|fixed[- ]fee)",
    ),
    hints=("work", "sow", "commercial", "pricing", "price", "payment", "fee", "rate card", "contract", "terms",
           "invoic", "net ", "fixed"),
)

#: The eight sections of the original library, in the spec's display order. Award/analyst-recognition and
#: scope-of-work/commercial-terms slides are carved out by their words (spec step 13; the seed found 872
#: and 644 such titles at 122,623 slides). Unknown types fall back to Capabilities & Overview, the original
#: library's generic bucket.
DEFAULT_SECTIONS = SectionTable((
    Section(
        name="Case Studies",
        description="client case study and success story: the client's challenge, our solution, measurable results",
        ask=re.compile(
            r"\b(case[- ]?stud(y|ies)|success stor(y|ies)|client stor(y|ies)|testimonials?|proof points?|"
            r"references?|past work|track record)\b",
            re.I,
        ),
        exclusion=r"case[- ]?stud(?:y|ies)|success stor(?:y|ies)",
        content_types=("case_study", "testimonial"),
        topical=True,
        keeps_own=True,
        case_studies=True,
    ),
    Section(
        name="Approach & Methodology",
        description="our approach and methodology: framework, process steps, phases, roadmap, timeline",
        ask=re.compile(
            r"\b(approach(es)?|methodolog(y|ies)|frameworks?|roadmaps?|how we (work|deliver|do)|process(es)?|"
            r"implementation plan|phases)\b",
            re.I,
        ),
        exclusion=r"approach(?:es)?(?: (?:and|&) methodolog(?:y|ies))?|methodolog(?:y|ies)",
        content_types=("framework", "diagram", "process", "timeline", "methodology"),
        topical=True,
    ),
    Section(
        name="Data & Analytics",
        description="data and analytics: dashboards, charts, tables, KPIs, metrics and reports",
        ask=re.compile(r"\b(dashboards?|charts?|kpis?|visuali[sz]ations?|reports?|metrics)\b", re.I),
        exclusion=r"data (?:and|&) analytics|analytics|dashboards?",
        content_types=("table", "dashboard", "chart"),
        topical=True,
    ),
    Section(
        name="Capabilities & Overview",
        description="capabilities and services overview: what we offer, solutions, offerings, expertise",
        ask=re.compile(r"\b(capabilit(y|ies)|offerings?|overview|what we (do|offer)|services we|expertise)\b", re.I),
        exclusion=r"capabilit(?:y|ies)(?: (?:and|&) overviews?)?|overviews?",
        content_types=("content", "overview", "comparison"),
        topical=True,
        default=True,
    ),
    Section(
        name="Team & Credentials",
        description="team and credentials: people profiles, bios, resumes, leadership and experts",
        ask=re.compile(
            r"\b(team|profiles?|resumes?|r[eé]sum[eé]s?|bios?|biograph(y|ies)|who is|who's|leadership|credentials|"
            r"experts?|org(anisation|anization)? chart|people)\b",
            re.I,
        ),
        exclusion=r"team(?: (?:and|&) credentials)?(?: slides| bios| profiles)?|credentials|bios|profiles",
        content_types=("team",),
        keeps_own=True,
    ),
    Section(
        name="Credibility & Recognition",
        description="credibility and recognition: awards, analyst rankings, Gartner, why choose us",
        ask=re.compile(
            r"\b(awards?|recognition|analysts?|gartner|forrester|everest group|magic quadrant|why (choose )?us|"
            r"accolades?|rankings?)\b",
            re.I,
        ),
        exclusion=r"credibility(?: (?:and|&) recognition)?|recognition|awards?",
        content_types=("award",),
        carve_out=_RECOGNITION,
    ),
    Section(
        name="Commercial & Contract Terms",
        description="commercial and contract terms: pricing, fees, rate card, scope of work, payment",
        ask=re.compile(
            r"\b(pricing|prices?|commercials?|rate cards?|payment terms|scope of work|statement of work|sow|"
            r"contract terms|fees|engagement model|budget)\b",
            re.I,
        ),
        exclusion=r"commercial(?:s| (?:and|&) contract terms)?|contract terms|pricing",
        content_types=("commercial",),
        carve_out=_COMMERCIAL,
    ),
    Section(
        name="Other",
        description="title slide, agenda, section divider, thank you and contact details",
        ask=re.compile(r"\b(agenda|title slides?|thank you|section dividers?|contact details)\b", re.I),
        exclusion=r"other (?:slides|section)",
        content_types=("title", "agenda", "section_header", "closing", "image", "quote", "appendix", "blank"),
    ),
))

#: The default table's section names in display order, for code with no library at hand (messages, tool help).
SECTIONS: tuple[str, ...] = DEFAULT_SECTIONS.names
