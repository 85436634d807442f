"""Turning a planned world into slides, a master sheet and the files on disk.

Each slide's title and text are written from what its ``SlotMeta`` says it carries
(a case study, a topical slide, a team or bio slide, an award, commercial terms, a rare
phrase or client, boilerplate), and a later version's copy is its origin with small
edits. Every draw comes from the one ``random.Random`` the caller passes, in slide order.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slidesearch.generator import vocab
from slidesearch.generator.vocab import Capability
from slidesearch.generator.world import MASTER_ROWS, DeckPlan, SlotMeta, World, scaled
from slidesearch.model import section_for

#: Share of eligible slides that are a copy of a boilerplate template.
BOILERPLATE_SHARE = 0.03
#: Fraction of case studies that state only other figures (no $, % or FTE).
OTHER_FIGURES_SHARE = 0.2
#: Slide types that carry topical content (a topic query can be answered by them).
TOPICAL_TYPES = frozenset(
    {
        "content",
        "diagram",
        "case_study",
        "table",
        "framework",
        "dashboard",
        "chart",
        "process",
        "timeline",
        "comparison",
        "overview",
    }
)

# ---------------------------------------------------------------------- text


def _money(rng: random.Random) -> str:
    return rng.choice(
        (f"${rng.randint(2, 95) / 10:.1f}M", f"${rng.randint(150, 950)}K", f"${rng.randint(11, 60)}M")
    )


def _pct(rng: random.Random) -> str:
    return f"{rng.randint(6, 62)}%"


def _bullets(lines: list[str]) -> str:
    return "\n".join(lines)


def _case_study(rng: random.Random, slot: SlotMeta, world: World, client: str | None) -> tuple[str, str]:
    deck, cap = slot.deck, slot.deck.capability
    who = client or vocab.INDUSTRY_PHRASES.get(deck.industry, "a global enterprise")
    term, term2 = rng.sample(cap.terms, 2)
    method = rng.choice(cap.methods)
    deliverable = rng.choice(cap.deliverables)
    metric, metric2 = rng.sample(cap.metrics, 2)
    other_only = rng.random() < OTHER_FIGURES_SHARE
    impacts: list[str] = []
    if other_only:
        options = [
            f"{rng.randint(12, 90) * 100:,} tonnes of CO₂e avoided a year",
            f"{metric.capitalize()} turnaround cut from {rng.randint(8, 20)} days to {rng.randint(1, 5)} days",
            f"{rng.randint(2, 9)}x faster {term} with the same team",
            f"{rng.randint(20, 400) * 100:,} documents a month processed without manual touch",
            f"Live in {rng.randint(8, 20)} weeks across {rng.randint(3, 40)} sites",
        ]
        impacts.extend(rng.sample(options, 3))
    else:
        kinds = rng.sample(["dollar", "percent", "fte"], rng.randint(1, 3))
        for kind in kinds:
            if kind == "dollar":
                impacts.append(
                    rng.choice(
                        (
                            f"{_money(rng)} in annual savings",
                            f"{_money(rng)} incremental revenue",
                            f"{_money(rng)} reduction in losses",
                        )
                    )
                )
            elif kind == "percent":
                impacts.append(
                    rng.choice(
                        (
                            f"{_pct(rng)} improvement in {metric}",
                            f"{_pct(rng)} reduction in {metric2}",
                            f"{metric.capitalize()} up {_pct(rng)}",
                        )
                    )
                )
            else:
                impacts.append(
                    rng.choice(
                        (
                            f"{rng.randint(4, 120)} FTE of capacity released",
                            f"Equivalent of {rng.randint(3, 60)} FTE saved each year",
                        )
                    )
                )
        impacts.append(f"{deliverable.capitalize()} adopted by {rng.randint(3, 40)} teams")
    title = rng.choice(
        (
            f"Case Study: {cap.name} for {who}",
            f"{term.capitalize()} for {who}",
            f"How we helped {who} with {term}",
            f"Success story: {term} at {who}",
        )
    )
    text = _bullets(
        [
            f"Client: {who} in {rng.choice(vocab.REGIONS)}",
            f"Challenge: {rng.choice(('rising', 'unmanaged', 'poorly understood', 'manual'))} {term2} and limited visibility of {metric}",
            f"Solution: {method}; {term} built into daily operations; delivered {deliverable}",
            "Impact:",
            *impacts,
        ]
    )
    return title, text


@dataclass(frozen=True)
class _Picks:
    """The capability's words one topical slide is written with, drawn before its type is looked at."""

    slot: SlotMeta
    cap: Capability
    industry: str
    t1: str
    t2: str
    t3: str
    m1: str
    m2: str
    d1: str
    k1: str
    k2: str
    k3: str


def _content_slide(rng: random.Random, p: _Picks) -> tuple[str, str]:
    cap, ind, t1, t2 = p.cap, p.industry, p.t1, p.t2
    title = rng.choice(
        (
            f"{cap.name} for {ind}",
            f"How {t1} drives {p.k1}",
            f"Our {cap.name} offerings",
            f"Why {t1} matters in {ind}",
            f"{t1.capitalize()} and {t2}",
            f"Our understanding of your {t1} needs",
        )
    )
    lines = [
        f"{t1.capitalize()} built on {p.m1}",
        f"{t2.capitalize()} to improve {p.k1}",
        f"{p.m2.capitalize()} for {ind.lower()} teams",
        f"Deliverables: {p.d1} and {rng.choice(cap.deliverables)}",
        f"Typical outcomes: better {p.k2} within {rng.randint(8, 26)} weeks",
    ]
    rng.shuffle(lines)
    return title, _bullets(lines[: rng.randint(3, 5)])


def _overview_slide(rng: random.Random, p: _Picks) -> tuple[str, str]:
    return f"{p.cap.name} at a glance", _bullets(
        [
            f"{p.t1.capitalize()}, {p.t2} and {p.t3}",
            f"{rng.randint(40, 600)}+ specialists",
            f"Proven in {p.industry} and {rng.choice(p.cap.industries)}",
            f"Accelerators: {p.d1}",
        ]
    )


def _comparison_slide(rng: random.Random, p: _Picks) -> tuple[str, str]:
    return (
        f"Traditional vs AI-led {p.t1}",
        _bullets(
            [
                f"Traditional: manual {p.t1}, periodic reviews of {p.k1}",
                f"AI-led: {p.m1}",
                f"Traditional: siloed data; AI-led: {p.t2} on a shared platform",
                f"Result: faster {p.k2}",
            ]
        ),
    )


def _diagram_slide(rng: random.Random, p: _Picks) -> tuple[str, str]:
    title = rng.choice(
        (f"{p.cap.name} solution architecture", f"How {p.t1} works", f"{p.t1.capitalize()} flow")
    )
    return title, _bullets(
        [
            "Data sources",
            rng.choice(("Ingestion", "Data preparation")),
            p.t1.capitalize(),
            p.t2.capitalize(),
            p.d1.capitalize(),
            f"{p.k1.capitalize()} tracking",
        ]
    )


def _process_slide(rng: random.Random, p: _Picks) -> tuple[str, str]:
    steps = [
        "Assess current " + p.t1,
        "Design " + p.d1,
        "Build with " + p.m1,
        "Pilot and measure " + p.k1,
        "Scale and hand over",
    ]
    return f"Our {len(steps)}-step {p.cap.name} process", _bullets(
        [f"Step {i + 1}: {s}" for i, s in enumerate(steps)]
    )


def _timeline_slide(rng: random.Random, p: _Picks) -> tuple[str, str]:
    return (
        f"{p.cap.name} implementation roadmap",
        _bullets(
            [
                f"Weeks 1-4: discovery of {p.t1} data",
                f"Weeks 5-12: {p.m1}",
                f"Weeks 13-20: roll out {p.d1}",
                f"Ongoing: {p.k1} reviews",
            ]
        ),
    )


def _framework_slide(rng: random.Random, p: _Picks) -> tuple[str, str]:
    pillars = [p.t1, p.t2, p.t3, rng.choice(p.cap.methods)]
    return (
        f"{p.cap.name} maturity framework",
        _bullets(
            [f"Pillar {i + 1}: {pillar.capitalize()}" for i, pillar in enumerate(pillars)]
            + [f"Measured by {p.k1} and {p.k2}"]
        ),
    )


def _table_slide(rng: random.Random, p: _Picks) -> tuple[str, str]:
    rows = [f"{k.capitalize()} | {rng.randint(10, 90)} | {rng.randint(10, 90)}" for k in (p.k1, p.k2, p.k3)]
    return rng.choice(
        (f"{p.cap.name} KPIs: baseline vs target", f"{p.t1.capitalize()} benchmarks in {p.industry}")
    ), _bullets(["Metric | Baseline | Target", *rows])


def _dashboard_slide(rng: random.Random, p: _Picks) -> tuple[str, str]:
    return (
        f"{p.industry} {p.t1} dashboard",
        _bullets(
            [
                f"{p.k1.capitalize()}: {rng.randint(10, 99)}",
                f"{p.k2.capitalize()}: {rng.randint(10, 99)} (+{rng.randint(1, 9)} vs LY)",
                f"{p.k3.capitalize()} by region",
                f"Drill-down by {p.t2}",
            ]
        ),
    )


def _chart_slide(rng: random.Random, p: _Picks) -> tuple[str, str]:
    return (
        f"{p.k1.capitalize()} trend, {p.slot.deck.deck_date.year}",
        _bullets([f"Q{q}: {rng.randint(20, 95)}" for q in range(1, 5)] + [f"Driven by {p.t1}"]),
    )


#: How each topical type other than a case study is written.
_TOPICAL_WRITERS: dict[str, Callable[[random.Random, _Picks], tuple[str, str]]] = {
    "content": _content_slide,
    "overview": _overview_slide,
    "comparison": _comparison_slide,
    "diagram": _diagram_slide,
    "process": _process_slide,
    "timeline": _timeline_slide,
    "framework": _framework_slide,
    "table": _table_slide,
    "dashboard": _dashboard_slide,
    "chart": _chart_slide,
}


def _topical(rng: random.Random, slot: SlotMeta) -> tuple[str, str]:
    cap = slot.deck.capability
    t1, t2, t3 = rng.sample(cap.terms, 3)
    m1, m2 = rng.sample(cap.methods, 2)
    d1 = rng.choice(cap.deliverables)
    k1, k2, k3 = rng.sample(cap.metrics, 3)
    writer = _TOPICAL_WRITERS.get(slot.content_type)
    if writer is None:
        raise ValueError(f"not a topical type: {slot.content_type}")
    return writer(rng, _Picks(slot, cap, slot.deck.industry, t1, t2, t3, m1, m2, d1, k1, k2, k3))


def _other(rng: random.Random, slot: SlotMeta, world: World) -> tuple[str, str]:
    deck, ctype = slot.deck, slot.content_type
    if ctype == "title":
        if slot.number == 1:
            who = deck.client or deck.universe
            return deck.title, _bullets([f"Prepared for {who}", f"{deck.deck_date:%B %Y}", "Confidential"])
        return deck.capability.name, f"Section {rng.randint(1, 6)}"
    if ctype == "section_header":
        return rng.choice(
            (
                "Context and Objectives",
                "Our Understanding",
                "Proposed Approach",
                "Relevant Experience",
                "Appendix",
                "Next Steps",
                "Solution Overview",
            )
        ), ""
    if ctype == "agenda":
        return "Agenda", _bullets(
            [
                "1. Context and objectives",
                "2. Our understanding",
                "3. Proposed approach",
                "4. Relevant experience",
                "5. Team",
                "6. Next steps",
            ]
        )
    if ctype == "closing":
        return "Thank you", _bullets(
            [f"{rng.choice(world.people)[0]}", "For questions, contact your account lead"]
        )
    if ctype == "image":
        return (
            f"{deck.capability.name} in action",
            f"Photo: {rng.choice(deck.capability.deliverables)} in use",
        )
    raise ValueError(f"not an other type: {ctype}")


def _team(
    rng: random.Random, slot: SlotMeta, world: World, cofounder: bool
) -> tuple[str, str, tuple[str, ...], str | None]:
    people = rng.sample(world.people, rng.randint(3, 5))
    if cofounder and rng.random() < 0.3:
        bio = (world.cofounder, "Co-founder & CEO", rng.choice(vocab.SCHOOLS), 24)
        return _bio(rng, bio), _bio_text(rng, bio, slot), (world.cofounder,), world.cofounder
    if not cofounder and rng.random() < 0.35:
        person = people[0]
        return _bio(rng, person), _bio_text(rng, person, slot), (person[0],), person[0]
    lines = [f"{name} – {role}, {years} years' experience" for name, role, _, years in people]
    names = tuple(p[0] for p in people)
    if cofounder:
        lines.insert(0, f"{world.cofounder} – Co-founder & CEO")
        names = (world.cofounder, *names)
        title = rng.choice(
            ("Our leadership team", "Leadership", "Meet the founders and leadership", "Executive sponsors")
        )
    else:
        title = rng.choice(
            (
                f"Core team for {slot.deck.client or slot.deck.industry}",
                "Proposed delivery team",
                f"Our {slot.deck.capability.name} team",
                "Key personnel",
            )
        )
    return title, _bullets(lines), names, None


def _bio(rng: random.Random, person: tuple[str, str, str, int]) -> str:
    return rng.choice((f"{person[0]} – {person[1]}", f"Profile: {person[0]}", f"{person[0]}, {person[1]}"))


def _bio_text(rng: random.Random, person: tuple[str, str, str, int], slot: SlotMeta) -> str:
    name, role, school, years = person
    cap = slot.deck.capability
    return _bullets(
        [
            role,
            f"{years} years in {cap.name.lower()} and {rng.choice(cap.terms)}",
            f"Led {rng.randint(10, 60)}+ engagements across {slot.deck.industry} and {rng.choice(cap.industries)}",
            f"Education: {school}",
            f"Based in {rng.choice(('Chennai', 'London', 'New York', 'Bengaluru', 'Singapore'))}",
        ]
    )


def _award(rng: random.Random, slot: SlotMeta) -> tuple[str, str]:
    area = slot.deck.capability.name
    analyst = rng.choice(vocab.ANALYSTS)
    title = rng.choice(vocab.AWARD_TITLES).format(analyst=analyst, area=area, year=rng.randint(2019, 2026))
    lines = [
        f"Named a Leader in the {analyst} {area} assessment {rng.randint(2020, 2026)}",
        f"Recognised by {rng.choice(vocab.ANALYSTS)} for {rng.choice(slot.deck.capability.terms)}",
        f"{rng.randint(3, 30)} industry awards in the last five years",
        f"Client satisfaction score of {rng.randint(85, 99)}/100",
    ]
    rng.shuffle(lines)
    return title, _bullets(lines[:3])


def _commercial(rng: random.Random, slot: SlotMeta) -> tuple[str, str]:
    title = rng.choice(vocab.COMMERCIAL_TITLES).format(phase=rng.randint(1, 3))
    cap = slot.deck.capability
    lines = [
        f"Scope of work: {rng.choice(cap.deliverables)} and {rng.choice(cap.deliverables)}",
        f"Fixed-fee phase 1: {_money(rng)} over {rng.randint(6, 20)} weeks",
        f"Payment terms: net {rng.choice((30, 45, 60))} days from invoice",
        f"Milestone payments: {rng.randint(20, 40)}% on kickoff, balance on acceptance",
        "Rate card for change requests in the appendix",
        "Assumptions: client provides data access within two weeks",
    ]
    rng.shuffle(lines)
    return title, _bullets(lines[:4])


def _rare_phrase(rng: random.Random, slot: SlotMeta, phrase: str, anchor: str | None) -> tuple[str, str]:
    cap = slot.deck.capability
    if anchor:
        return anchor, _bullets(
            [
                f"Automated {phrase} workflows from intake to reporting",
                f"{phrase.capitalize()} data validated against source systems",
                f"Delivered {rng.choice(cap.deliverables)} for the operations team",
            ]
        )
    title = rng.choice(
        (f"{cap.name}: {phrase} support", f"{phrase.capitalize()} reporting", f"Scaling {phrase} operations")
    )
    return title, _bullets(
        [
            f"{phrase.capitalize()} processing for {slot.deck.industry.lower()} clients",
            f"{rng.choice(cap.terms).capitalize()} alongside {phrase} reporting",
            f"Built with {rng.choice(cap.methods)}",
        ]
    )


def _rare_client(rng: random.Random, slot: SlotMeta, client: str) -> tuple[str, str]:
    cap = slot.deck.capability
    if slot.content_type == "table":
        return "Selected client references", _bullets(
            [
                "Client | Scope | Years",
                f"{client} | {rng.choice(cap.terms)} | {rng.randint(1, 6)}",
                f"{rng.choice(tuple(vocab.INDUSTRY_PHRASES.values())).capitalize()} | {rng.choice(cap.terms)} | {rng.randint(1, 6)}",
            ]
        )
    return (
        rng.choice(
            (
                f"Our understanding of {client}'s priorities",
                f"{client}: {cap.name} opportunities",
                f"Why {cap.name} now for {client}",
            )
        ),
        _bullets(
            [
                f"{client} is investing in {rng.choice(cap.terms)}",
                f"Priority: improve {rng.choice(cap.metrics)}",
                f"Proposed: {rng.choice(cap.methods)}",
            ]
        ),
    )


NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _stem(line: str) -> str:
    return NUMBER.sub("#", line)


def _mutate(
    rng: random.Random,
    title: str,
    text: str,
    strength: int,
    alternates: bool = True,
    keep: frozenset[str] = frozenset(),
) -> tuple[str, str]:
    """A copy with small edits: numbers changed, lines moved, and (with ``alternates``) a line replaced, dropped or added.

    Lines of ``keep`` (a template's own lines, compared without their numbers) are never
    cut below four, which bounds how far a chain of copies of copies can drift: the seed's
    boilerplate copies spanned cosine 0.74-0.99, not all the way to unrelated.
    """
    lines = text.split("\n") if text else []
    for _ in range(strength):
        op = rng.random() if alternates else rng.choice((0.0, 0.6))
        kept = sum(_stem(line) in keep for line in lines)
        if op < 0.5 and lines:
            i = rng.randrange(len(lines))
            lines[i] = NUMBER.sub(
                lambda m: str(max(1, int(float(m.group()) * rng.uniform(0.6, 1.5)))), lines[i], count=1
            )
        elif op < 0.85 and len(lines) > 1:
            i, j = rng.sample(range(len(lines)), 2)
            lines[i], lines[j] = lines[j], lines[i]
        elif op < 0.9 or not lines:
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(vocab.BOILERPLATE_ALTERNATES))
        else:
            i = rng.randrange(len(lines))
            if _stem(lines[i]) not in keep or kept > 4:
                if op < 0.95:
                    lines[i] = rng.choice(vocab.BOILERPLATE_ALTERNATES)
                elif len(lines) > 3:
                    lines.pop(i)
    return title, "\n".join(dict.fromkeys(lines))


def _boiler_root(rng: random.Random, template: int) -> tuple[str, str]:
    title, lines = vocab.BOILERPLATE[template]
    fill = {
        "n": rng.randint(12, 90),
        "m": rng.randint(4, 12),
        "k": rng.randint(40, 180),
        "year": 2006,
        "score": "4.5/5",
        "years": rng.randint(3, 8),
        "weeks": rng.randint(2, 6),
    }
    return title, "\n".join(line.format(**fill) for line in lines)


# ---------------------------------------------------------------------- the library


class _BoilerplateChains:
    """The boilerplate copies written so far: each template's slides in order, and its own lines."""

    def __init__(self) -> None:
        self.copies: dict[int, list[int]] = defaultdict(list)
        self.stems: dict[int, frozenset[str]] = {}
        self.weights = [1.0 / (i + 1) ** 0.5 for i in range(len(vocab.BOILERPLATE))]

    def starts(self, rng: random.Random, slot: SlotMeta) -> bool:
        """Whether a fresh plain slide becomes boilerplate (drawn only for an eligible slide)."""
        return (
            slot.boiler is None
            and (slot.special or "") == ""
            and slot.content_type in ("content", "diagram", "overview")
            and rng.random() < BOILERPLATE_SHARE
        )

    def pick(self, rng: random.Random) -> int:
        return rng.choices(range(len(vocab.BOILERPLATE)), weights=self.weights)[0]

    def write(self, rng: random.Random, slots: list[SlotMeta], index: int, template: int) -> None:
        """The template's first copy is its root; a later one is an edit of a random earlier copy."""
        slot = slots[index]
        copies = self.copies[template]
        if not copies:
            slot.title, slot.text = _boiler_root(rng, template)
            self.stems[template] = frozenset(_stem(line) for line in slot.text.split("\n"))
        else:
            parent = slots[rng.choice(copies)]
            slot.title, slot.text = _mutate(
                rng, parent.title, parent.text, rng.randint(1, 3), keep=self.stems[template]
            )
        slot.topical = False
        copies.append(index)


def _copy_from(rng: random.Random, slot: SlotMeta, origin: SlotMeta) -> None:
    """A later version's slide: its origin's marks and text (a plain slide lightly edited 30% of the time)."""
    slot.boiler, slot.persons, slot.bio_of, slot.topical = (
        origin.boiler,
        origin.persons,
        origin.bio_of,
        origin.topical,
    )
    if rng.random() < 0.3 and slot.special is None:
        slot.title, slot.text = _mutate(rng, origin.title, origin.text, 1, alternates=False)
    else:
        slot.title, slot.text = origin.title, origin.text


def _write_fresh(
    rng: random.Random, slot: SlotMeta, world: World, index: int, rare_plan: dict[int, tuple[str, str | None]]
) -> None:
    """A slide that is no copy: an award, commercial terms, a team or co-founder slide, a rare phrase or
    client (``rare_plan`` says which phrase, and whether the slide is its anchor), or by its content type."""
    special = slot.special or ""
    if special == "award":
        slot.title, slot.text = _award(rng, slot)
        slot.topical = False
    elif special == "commercial":
        slot.title, slot.text = _commercial(rng, slot)
        slot.topical = False
    elif special == "cofounder" or slot.content_type == "team":
        slot.title, slot.text, slot.persons, slot.bio_of = _team(rng, slot, world, special == "cofounder")
        slot.topical = False
    elif special.startswith("phrase:"):
        phrase, anchor = rare_plan[index]
        slot.title, slot.text = _rare_phrase(rng, slot, phrase, anchor)
    elif special.startswith("client:"):
        client = special.split(":", 1)[1]
        if slot.content_type == "case_study":
            slot.title, slot.text = _case_study(rng, slot, world, client)
        else:
            slot.title, slot.text = _rare_client(rng, slot, client)
    else:
        _write_by_type(rng, slot, world)


def _write_by_type(rng: random.Random, slot: SlotMeta, world: World) -> None:
    """A slide without a special (other than a team slide), written by its content type."""
    if slot.content_type == "case_study":
        slot.title, slot.text = _case_study(rng, slot, world, slot.deck.client)
    elif slot.content_type in TOPICAL_TYPES:
        slot.title, slot.text = _topical(rng, slot)
    else:
        slot.title, slot.text = _other(rng, slot, world)
        slot.topical = False


def render_slides(
    rng: random.Random, slots: list[SlotMeta], world: World, rare_plan: dict[int, tuple[str, str | None]]
) -> None:
    """Write every slide's title and text in order, and record the boilerplate chains on ``world``.

    A copy whose origin carries the same special repeats it; any other slide is written
    fresh, as boilerplate or as what its special and content type make it.
    """
    boilerplate = _BoilerplateChains()
    for i, slot in enumerate(slots):
        origin = slots[slot.copy_of] if slot.copy_of is not None else None
        if origin is not None and origin.special == slot.special:
            _copy_from(rng, slot, origin)
            if slot.boiler is not None:
                boilerplate.copies[slot.boiler].append(i)
            continue
        if boilerplate.starts(rng, slot):
            slot.boiler = boilerplate.pick(rng)
        if slot.boiler is not None:
            boilerplate.write(rng, slots, i, slot.boiler)
        else:
            _write_fresh(rng, slot, world, i, rare_plan)
    world.boiler_chains = {k: v for k, v in boilerplate.copies.items()}


_DOLLAR = re.compile(r"\$\s?\d")
_PERCENT = re.compile(r"\d(?:\.\d+)?\s?%")
_FTE = re.compile(r"\bFTEs?\b")


def figure_kinds(text: str) -> frozenset[str]:
    """Which kinds of figure a text states: dollar, percent, fte, or only other numbers ("other")."""
    kinds = {
        k
        for k, pattern in (("dollar", _DOLLAR), ("percent", _PERCENT), ("fte", _FTE))
        if pattern.search(text)
    }
    if not kinds and NUMBER.search(text):
        kinds.add("other")
    return frozenset(kinds)


def slide_row(slot: SlotMeta) -> dict[str, Any]:
    """The slide as a ``slides.jsonl`` row (the ingest format)."""
    deck = slot.deck
    return {
        "slide_id": slot.slide_id,
        "deck_id": deck.deck_id,
        "deck_name": deck.deck_name,
        "folder": deck.folder,
        "slide_number": slot.number,
        "title": slot.title,
        "text": slot.text,
        "content_type": slot.content_type,
        "universe": deck.universe,
        "deck_date": deck.deck_date.isoformat(),
        "source_path": None,
    }


def master_sheet(rng: random.Random, slots: list[SlotMeta], n: int) -> list[dict[str, Any]]:
    """Verified rows: a sample of the library's own case studies (fresh ones), as a team would curate them."""
    cases = [s for s in slots if s.content_type == "case_study" and s.copy_of is None and s.special is None]
    picks = rng.sample(cases, min(len(cases), scaled(MASTER_ROWS, n)))
    rows = []
    for k, s in enumerate(picks, start=1):
        lines = s.text.split("\n")
        client = lines[0].removeprefix("Client: ").split(" in ")[0] if lines else ""
        impact = "; ".join(line for line in lines[lines.index("Impact:") + 1 :]) if "Impact:" in lines else ""
        challenge = next(
            (line.removeprefix("Challenge: ") for line in lines if line.startswith("Challenge:")), ""
        )
        rows.append(
            {
                "row_id": f"M{k:04d}",
                "client": client,
                "use_case": s.deck.capability.name,
                "title": s.title,
                "summary": f"{challenge.capitalize()}. {impact}".strip(),
                "universe": s.deck.universe,
                "source_slide_id": s.slide_id,
            }
        )
    return rows


def write_jsonl(path: Path, rows: Any) -> None:
    """Write one JSON row per line to a temporary file, then move it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False))
            fh.write("\n")
    os.replace(tmp, path)


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file, then move it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def manifest_of(
    slots: list[SlotMeta],
    world: World,
    plans: list[tuple[DeckPlan, int]],
    master: list[dict[str, Any]],
    queries: list[dict[str, Any]],
    n: int,
    seed: int,
) -> dict[str, Any]:
    """What the library holds: counts by type, section, universe and deck kind; specials and rarities."""
    sections = Counter(section_for(s.content_type, s.title, s.text) for s in slots)
    labels = Counter(s.special for s in slots if s.special)
    specials = Counter((s.special or "").split(":")[0] for s in slots if s.special)
    versions = Counter(Counter(p.family for p, _ in plans).values())
    chains = {
        vocab.BOILERPLATE[k][0]: [slots[i].slide_id for i in v]
        for k, v in sorted(world.boiler_chains.items())
    }
    figure_counts: Counter[str] = Counter()
    for s in slots:
        if s.content_type == "case_study":
            figure_counts["other_only" if s.figures == {"other"} else "dollar_percent_or_fte"] += 1
    return {
        "seed": seed,
        "slides": len(slots),
        "requested": n,
        "decks": len(plans),
        "deck_families": len({p.family for p, _ in plans}),
        "versions_per_family": {str(k): v for k, v in sorted(versions.items())},
        "by_content_type": dict(Counter(s.content_type for s in slots).most_common()),
        "by_section": dict(sections.most_common()),
        "by_universe": dict(Counter(s.deck.universe for s in slots).most_common()),
        "by_deck_kind": dict(Counter(p.kind for p, _ in plans).most_common()),
        "specials": dict(specials.most_common()),
        "cofounder": world.cofounder,
        "cofounder_slides": sum(world.cofounder in s.text or world.cofounder in s.title for s in slots),
        "rare_clients": {c: labels[f"client:{c}"] for c in world.rare_clients},
        "rare_phrases": {p: labels[f"phrase:{p}"] for p, *_ in vocab.RARE_PHRASES},
        "case_study_figures": dict(figure_counts),
        "boilerplate_chains": chains,
        "master_rows": len(master),
        "queries": len(queries),
        "queries_by_kind": dict(Counter(q["kind"] for q in queries).most_common()),
    }
