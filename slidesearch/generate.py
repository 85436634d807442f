"""A deterministic synthetic slide library with the original's proportions, and labelled queries over it.

The original library (122,623 slides) is private; the seed write-up gives its
shape, which this generator reproduces at any size N (counts below are per
122,623 and scale with N):

- universes DAAIS / S&R / EdTech; folders for client decks
  (``/U/Clients/<client>``), capability collateral
  (``/U/Sales/Collateral/Technology Capabilities``), proposals
  (``/U/Sales/Proposals/<year>``), domain decks (``/U/Domain/<industry>``) and
  case-study compilations; decks in families of versions (V1, V2, vFinal,
  draft, final, dated copies) whose later versions copy earlier slides with
  small edits;
- the content-type mix (content 47,341, diagram 14,112, case_study 13,223,
  table 6,649, framework 2,922, dashboard 1,272, team 1,546, the rest spread
  over title, agenda, section, closing, image, chart, process, timeline,
  comparison and overview slides);
- boilerplate slides copied from deck to deck with small edits, so each
  template forms a near-duplicate chain (a copy is edited from an earlier
  copy, a random walk whose ends drift apart: cosine 0.74-0.99 in the seed);
- exact-count carve-outs and rarities: ~870 award / analyst-recognition
  slides, ~640 scope-of-work / payment-terms slides, a co-founder named on
  ~380 team/leadership slides, rare phrases ("capital call" on 50 slides),
  rare client names on a handful of slides each, mostly outside case studies;
- case studies stating dollar / percent / FTE figures, and some stating only
  other figures (tonnes of CO2e, turnaround times);
- a master sheet of ~1,194 verified case studies.

It also writes ``queries.jsonl``: ~150 queries of the kinds reps type, each
with graded relevance {slide_id: 1..3} computed from what the generator put on
each slide (not from searching), plus expectations where they apply. Every
random choice comes from one seeded ``random.Random``, so a seed and a size
always give the same files.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from slidesearch.generator import vocab
from slidesearch.generator.queries import build_queries
from slidesearch.generator.vocab import CAPABILITIES, Capability
from slidesearch.model import section_for

REFERENCE_SLIDES = 122_623

#: Content-type counts per 122,623 slides. The seven named ones are the seed's; the rest (35,558)
#: are spread so that about 22,300 land in "Other", matching the seed's 97,262-slide pool of the
#: four content sections for "customer analytics".
TYPE_COUNTS: dict[str, int] = {
    "content": 47_341,
    "diagram": 14_112,
    "case_study": 13_223,
    "table": 6_649,
    "framework": 2_922,
    "dashboard": 1_272,
    "team": 1_546,
    "title": 9_000,
    "section_header": 5_500,
    "agenda": 3_000,
    "closing": 2_600,
    "image": 2_200,
    "chart": 4_000,
    "process": 3_200,
    "timeline": 1_800,
    "comparison": 2_500,
    "overview": 1_758,
}
SPECIAL_COUNTS = {"award": 872, "commercial": 644, "cofounder": 380}
MASTER_ROWS = 1_194
UNIVERSE_WEIGHTS = {"DAAIS": 0.6, "S&R": 0.28, "EdTech": 0.12}
DECK_KINDS = {"client": 0.34, "proposal": 0.2, "collateral": 0.22, "domain": 0.2, "compilation": 0.04}
DECK_SIZES = {
    "client": (10, 34),
    "proposal": (14, 40),
    "collateral": (8, 30),
    "domain": (10, 32),
    "compilation": (30, 120),
}
VERSION_LABELS = (
    (["V1"], 0.5),
    (["V1", "V2"], 0.25),
    (["V1", "V2", "vFinal"], 0.15),
    (["draft", "V1", "final"], 0.05),
    (["dated", "dated"], 0.05),
)
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
N_QUERIES = 150


def scaled(count: int, n: int, floor: int = 1) -> int:
    """``count`` per 122,623 slides scaled to ``n`` slides, at least ``floor``."""
    return max(floor, round(count * n / REFERENCE_SLIDES))


@dataclass
class DeckPlan:
    deck_id: str
    deck_name: str
    title: str
    folder: str
    universe: str
    kind: str
    capability: Capability
    industry: str
    client: str | None
    deck_date: date
    family: int
    version: int


@dataclass
class SlotMeta:
    """What the generator put on a slide; queries are labelled from this, never from the text."""

    deck: DeckPlan
    number: int
    content_type: str
    copy_of: int | None = None
    special: str | None = None
    boiler: int | None = None
    figures: frozenset[str] = frozenset()
    persons: tuple[str, ...] = ()
    bio_of: str | None = None
    topical: bool = True
    title: str = ""
    text: str = ""
    slide_id: str = ""


@dataclass
class World:
    """The invented clients, people and rarities one library is written about."""

    clients: dict[str, list[str]]
    rare_clients: list[str]
    people: list[tuple[str, str, str, int]]
    cofounder: str
    years: tuple[int, int] = (2019, 2026)
    boiler_chains: dict[int, list[int]] = field(default_factory=dict)


def _pick(rng: random.Random, weights: dict[str, float]) -> str:
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _make_world(rng: random.Random, n: int) -> World:
    names_seen: set[str] = set()
    clients: dict[str, list[str]] = {}
    per_industry = max(2, min(14, n // 2_000))
    for industry in sorted(vocab.INDUSTRY_PHRASES):
        pool: list[str] = []
        while len(pool) < per_industry:
            name = f"{rng.choice(vocab.NAME_STARTS)}{rng.choice(vocab.NAME_ENDS)} {rng.choice(vocab.COMPANY_SUFFIX[industry])}"
            if name.split()[0] not in names_seen:
                names_seen.add(name.split()[0])
                pool.append(name)
        clients[industry] = pool
    rare: list[str] = []
    while len(rare) < scaled(20, n, floor=4):
        name = f"{rng.choice(vocab.RARE_STARTS)}{rng.choice(vocab.RARE_ENDS)}"
        if name not in rare:
            rare.append(name)
    rare = [f"{name} {rng.choice(('Holdings', 'Group', 'Labs', 'Partners', 'Corp'))}" for name in rare]
    people: list[tuple[str, str, str, int]] = []
    seen_people: set[str] = set()
    while len(people) < 41:
        person = f"{rng.choice(vocab.FIRST_NAMES)} {rng.choice(vocab.LAST_NAMES)}"
        if person not in seen_people:
            seen_people.add(person)
            people.append((person, rng.choice(vocab.ROLES), rng.choice(vocab.SCHOOLS), rng.randint(8, 26)))
    cofounder = people.pop()[0]
    return World(clients=clients, rare_clients=rare, people=people, cofounder=cofounder)


# ---------------------------------------------------------------------- deck plans


def _deck_title(rng: random.Random, kind: str, cap: Capability, industry: str, client: str | None) -> str:
    if kind == "client":
        return rng.choice(
            (
                f"{client} – {cap.name} Discussion",
                f"{client} {industry} Analytics Review",
                f"{client} QBR – {cap.name}",
                f"{client} Partnership Update",
            )
        )
    if kind == "proposal":
        return rng.choice(
            (
                f"Proposal – {cap.name} for {client}",
                f"{client} {cap.name} Proposal",
                f"Response to RFP – {client} {cap.name}",
            )
        )
    if kind == "collateral":
        return rng.choice(
            (
                f"{cap.name} Capabilities",
                f"{cap.name} Capabilities – {industry}",
                f"{cap.name} Offerings Overview",
                f"{cap.name} Credentials Deck",
            )
        )
    if kind == "domain":
        return rng.choice(
            (
                f"{industry} Solutions Overview",
                f"{industry} Point of View – {cap.name}",
                f"{cap.name} in {industry}",
            )
        )
    return rng.choice(
        (
            f"Case Study Compilation – {industry}",
            f"{cap.name} Case Studies",
            "Visualisation-slides Consolidated",
        )
    )


def _folder(
    rng: random.Random, universe: str, kind: str, industry: str, client: str | None, year: int
) -> str:
    if kind == "client":
        return f"/{universe}/Clients/{client}"
    if kind == "proposal":
        return f"/{universe}/Sales/Proposals/{year}"
    if kind == "collateral":
        return rng.choice(
            (
                f"/{universe}/Sales/Collateral/Technology Capabilities",
                f"/{universe}/Sales/Collateral/Domain Capabilities",
            )
        )
    if kind == "domain":
        return f"/{universe}/Domain/{industry}"
    return f"/{universe}/Sales/Collateral/Case Studies"


def _plan_decks(rng: random.Random, world: World, n: int) -> list[tuple[DeckPlan, int]]:
    """Deck families with their versions and slide counts, until the library holds exactly ``n`` slides."""
    by_universe: dict[str, list[Capability]] = defaultdict(list)
    for cap in CAPABILITIES:
        by_universe[cap.universe].append(cap)
    plans: list[tuple[DeckPlan, int]] = []
    total, family = 0, 0
    start = date(world.years[0], 1, 1)
    span = (date(world.years[1], 6, 30) - start).days
    while total < n:
        universe = _pick(rng, UNIVERSE_WEIGHTS)
        kind = _pick(rng, DECK_KINDS)
        cap = rng.choice(by_universe[universe])
        industry = rng.choice(cap.industries)
        client = rng.choice(world.clients[industry]) if kind in ("client", "proposal") else None
        day = start + timedelta(days=rng.randrange(span))
        title = _deck_title(rng, kind, cap, industry, client)
        folder = _folder(rng, universe, kind, industry, client, day.year)
        labels = rng.choices([v for v, _ in VERSION_LABELS], weights=[w for _, w in VERSION_LABELS])[0]
        low, high = DECK_SIZES[kind]
        size = rng.randint(low, high)
        for version, label in enumerate(labels):
            if total >= n:
                break
            count = min(size if version == 0 else max(3, size + rng.randint(-2, 2)), n - total)
            if label == "dated":
                name = f"{title.replace(' ', '_')}_{day:%Y%m%d}.pptx"
            else:
                name = f"{title} {label}.pptx"
            deck_id = f"d{len(plans):06d}"
            plans.append(
                (
                    DeckPlan(
                        deck_id,
                        name,
                        title,
                        folder,
                        universe,
                        kind,
                        cap,
                        industry,
                        client,
                        day,
                        family,
                        version,
                    ),
                    count,
                )
            )
            total += count
            day = day + timedelta(days=rng.randint(5, 60))
        family += 1
    return plans


# ---------------------------------------------------------------------- slot plans


#: Case-study compilation decks are mostly case studies.
COMPILATION_TYPES = {"case_study": 0.8, "section_header": 0.08, "table": 0.06, "dashboard": 0.06}


def _type_weights(n: int, plans: list[tuple[DeckPlan, int]]) -> dict[str, float]:
    """Type weights for the slides drawn freely: the targets less the cover slides and what compilations take."""
    weights = {t: float(scaled(c, n, floor=0)) for t, c in TYPE_COUNTS.items()}
    weights["title"] -= len(plans)
    compiled = sum(count - 1 for deck, count in plans if deck.kind == "compilation")
    for ctype, share in COMPILATION_TYPES.items():
        weights[ctype] -= share * compiled
    return {t: w for t, w in weights.items() if w > 0}


def _plan_slots(rng: random.Random, plans: list[tuple[DeckPlan, int]], n: int) -> list[SlotMeta]:
    weights = _type_weights(n, plans)
    types, type_w = list(weights), list(weights.values())
    slots: list[SlotMeta] = []
    family_base: dict[int, list[int]] = {}
    for deck, count in plans:
        base = family_base.get(deck.family)
        if base is None:
            family_base[deck.family] = []
            for number in range(1, count + 1):
                if number == 1:
                    ctype = "title"
                elif deck.kind == "compilation":
                    ctype = _pick(rng, COMPILATION_TYPES)
                else:
                    ctype = rng.choices(types, weights=type_w)[0]
                family_base[deck.family].append(len(slots))
                slots.append(SlotMeta(deck=deck, number=number, content_type=ctype))
            continue
        # A later version: mostly the earlier slides in order, a few dropped, a few new.
        source = [i for i in base if rng.random() > 0.08]
        while len(source) < count:
            source.insert(rng.randrange(1, len(source) + 1) if source else 0, -1)
        for number, origin in enumerate(source[:count], start=1):
            if origin < 0 or number == 1 and slots[origin].number != 1:
                ctype = "title" if number == 1 else rng.choices(types, weights=type_w)[0]
                slots.append(SlotMeta(deck=deck, number=number, content_type=ctype))
            else:
                slots.append(
                    SlotMeta(
                        deck=deck, number=number, content_type=slots[origin].content_type, copy_of=origin
                    )
                )
    return slots


def _lineages(slots: list[SlotMeta]) -> dict[int, list[int]]:
    """Each fresh slide with the later-version copies made from it (a copy of a copy joins the root)."""
    root: dict[int, int] = {}
    groups: dict[int, list[int]] = defaultdict(list)
    for i, slot in enumerate(slots):
        r = i if slot.copy_of is None else root[slot.copy_of]
        root[i] = r
        groups[r].append(i)
    return groups


def _pool(
    rng: random.Random,
    slots: list[SlotMeta],
    lineages: dict[int, list[int]],
    eligible: Callable[[SlotMeta], bool],
    prefer: Callable[[SlotMeta], bool] | None = None,
) -> list[int]:
    """Roots of the lineages a special may go to, shuffled, preferred ones last (the pool is popped from the end)."""
    roots = [r for r in lineages if eligible(slots[r])]
    rng.shuffle(roots)
    if prefer is not None:
        roots.sort(key=lambda r: bool(prefer(slots[r])))
    return roots


def _assign(
    slots: list[SlotMeta], lineages: dict[int, list[int]], pool: list[int], count: int, label: str
) -> list[int]:
    """Mark exactly ``count`` slides with a special, whole lineages first (a copied slide keeps its special).

    Roots are taken from the end of ``pool``; a root another special already took is skipped.
    """
    marked: list[int] = []
    while pool and len(marked) < count:
        root = pool.pop()
        if slots[root].special is not None:
            continue
        members = lineages[root][: count - len(marked)]
        for i in members:
            slots[i].special = label
        marked.extend(members)
    return marked


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


def _topical(rng: random.Random, slot: SlotMeta) -> tuple[str, str]:
    deck, cap, ctype = slot.deck, slot.deck.capability, slot.content_type
    ind = deck.industry
    t1, t2, t3 = rng.sample(cap.terms, 3)
    m1, m2 = rng.sample(cap.methods, 2)
    d1 = rng.choice(cap.deliverables)
    k1, k2, k3 = rng.sample(cap.metrics, 3)
    if ctype == "content":
        title = rng.choice(
            (
                f"{cap.name} for {ind}",
                f"How {t1} drives {k1}",
                f"Our {cap.name} offerings",
                f"Why {t1} matters in {ind}",
                f"{t1.capitalize()} and {t2}",
                f"Our understanding of your {t1} needs",
            )
        )
        lines = [
            f"{t1.capitalize()} built on {m1}",
            f"{t2.capitalize()} to improve {k1}",
            f"{m2.capitalize()} for {ind.lower()} teams",
            f"Deliverables: {d1} and {rng.choice(cap.deliverables)}",
            f"Typical outcomes: better {k2} within {rng.randint(8, 26)} weeks",
        ]
        rng.shuffle(lines)
        return title, _bullets(lines[: rng.randint(3, 5)])
    if ctype == "overview":
        return f"{cap.name} at a glance", _bullets(
            [
                f"{t1.capitalize()}, {t2} and {t3}",
                f"{rng.randint(40, 600)}+ specialists",
                f"Proven in {ind} and {rng.choice(cap.industries)}",
                f"Accelerators: {d1}",
            ]
        )
    if ctype == "comparison":
        return (
            f"Traditional vs AI-led {t1}",
            _bullets(
                [
                    f"Traditional: manual {t1}, periodic reviews of {k1}",
                    f"AI-led: {m1}",
                    f"Traditional: siloed data; AI-led: {t2} on a shared platform",
                    f"Result: faster {k2}",
                ]
            ),
        )
    if ctype == "diagram":
        title = rng.choice(
            (f"{cap.name} solution architecture", f"How {t1} works", f"{t1.capitalize()} flow")
        )
        return title, _bullets(
            [
                "Data sources",
                rng.choice(("Ingestion", "Data preparation")),
                t1.capitalize(),
                t2.capitalize(),
                d1.capitalize(),
                f"{k1.capitalize()} tracking",
            ]
        )
    if ctype == "process":
        steps = [
            "Assess current " + t1,
            "Design " + d1,
            "Build with " + m1,
            "Pilot and measure " + k1,
            "Scale and hand over",
        ]
        return f"Our {len(steps)}-step {cap.name} process", _bullets(
            [f"Step {i + 1}: {s}" for i, s in enumerate(steps)]
        )
    if ctype == "timeline":
        return (
            f"{cap.name} implementation roadmap",
            _bullets(
                [
                    f"Weeks 1-4: discovery of {t1} data",
                    f"Weeks 5-12: {m1}",
                    f"Weeks 13-20: roll out {d1}",
                    f"Ongoing: {k1} reviews",
                ]
            ),
        )
    if ctype == "framework":
        pillars = [t1, t2, t3, rng.choice(cap.methods)]
        return (
            f"{cap.name} maturity framework",
            _bullets(
                [f"Pillar {i + 1}: {p.capitalize()}" for i, p in enumerate(pillars)]
                + [f"Measured by {k1} and {k2}"]
            ),
        )
    if ctype == "table":
        rows = [f"{k.capitalize()} | {rng.randint(10, 90)} | {rng.randint(10, 90)}" for k in (k1, k2, k3)]
        return rng.choice(
            (f"{cap.name} KPIs: baseline vs target", f"{t1.capitalize()} benchmarks in {ind}")
        ), _bullets(["Metric | Baseline | Target", *rows])
    if ctype == "dashboard":
        return (
            f"{ind} {t1} dashboard",
            _bullets(
                [
                    f"{k1.capitalize()}: {rng.randint(10, 99)}",
                    f"{k2.capitalize()}: {rng.randint(10, 99)} (+{rng.randint(1, 9)} vs LY)",
                    f"{k3.capitalize()} by region",
                    f"Drill-down by {t2}",
                ]
            ),
        )
    if ctype == "chart":
        return (
            f"{k1.capitalize()} trend, {slot.deck.deck_date.year}",
            _bullets([f"Q{q}: {rng.randint(20, 95)}" for q in range(1, 5)] + [f"Driven by {t1}"]),
        )
    raise ValueError(f"not a topical type: {ctype}")


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


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _stem(line: str) -> str:
    return _NUMBER.sub("#", line)


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
            lines[i] = _NUMBER.sub(
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


def _render(
    rng: random.Random, slots: list[SlotMeta], world: World, rare_plan: dict[int, tuple[str, str | None]]
) -> None:
    boiler_copies: dict[int, list[int]] = defaultdict(list)
    boiler_stems: dict[int, frozenset[str]] = {}
    boiler_weights = [1.0 / (i + 1) ** 0.5 for i in range(len(vocab.BOILERPLATE))]
    for i, slot in enumerate(slots):
        origin = slots[slot.copy_of] if slot.copy_of is not None else None
        if origin is not None and origin.special == slot.special:
            slot.boiler, slot.persons, slot.bio_of, slot.topical = (
                origin.boiler,
                origin.persons,
                origin.bio_of,
                origin.topical,
            )
            if slot.boiler is not None:
                boiler_copies[slot.boiler].append(i)
            if rng.random() < 0.3 and slot.special is None:
                slot.title, slot.text = _mutate(rng, origin.title, origin.text, 1, alternates=False)
            else:
                slot.title, slot.text = origin.title, origin.text
            continue
        special = slot.special or ""
        if (
            slot.boiler is None
            and special == ""
            and slot.content_type in ("content", "diagram", "overview")
            and rng.random() < BOILERPLATE_SHARE
        ):
            slot.boiler = rng.choices(range(len(vocab.BOILERPLATE)), weights=boiler_weights)[0]
        if slot.boiler is not None:
            copies = boiler_copies[slot.boiler]
            if not copies:
                slot.title, slot.text = _boiler_root(rng, slot.boiler)
                boiler_stems[slot.boiler] = frozenset(_stem(line) for line in slot.text.split("\n"))
            else:
                parent = slots[rng.choice(copies)]
                slot.title, slot.text = _mutate(
                    rng, parent.title, parent.text, rng.randint(1, 3), keep=boiler_stems[slot.boiler]
                )
            slot.topical = False
            copies.append(i)
        elif special == "award":
            slot.title, slot.text = _award(rng, slot)
            slot.topical = False
        elif special == "commercial":
            slot.title, slot.text = _commercial(rng, slot)
            slot.topical = False
        elif special == "cofounder" or slot.content_type == "team":
            slot.title, slot.text, slot.persons, slot.bio_of = _team(rng, slot, world, special == "cofounder")
            slot.topical = False
        elif special.startswith("phrase:"):
            phrase, anchor = rare_plan[i]
            slot.title, slot.text = _rare_phrase(rng, slot, phrase, anchor)
        elif special.startswith("client:"):
            client = special.split(":", 1)[1]
            if slot.content_type == "case_study":
                slot.title, slot.text = _case_study(rng, slot, world, client)
            else:
                slot.title, slot.text = _rare_client(rng, slot, client)
        elif slot.content_type == "case_study":
            slot.title, slot.text = _case_study(rng, slot, world, slot.deck.client)
        elif slot.content_type in TOPICAL_TYPES:
            slot.title, slot.text = _topical(rng, slot)
        else:
            slot.title, slot.text = _other(rng, slot, world)
            slot.topical = False
    world.boiler_chains = {k: v for k, v in boiler_copies.items()}


def _mark_specials(
    rng: random.Random, slots: list[SlotMeta], world: World, n: int
) -> dict[int, tuple[str, str | None]]:
    lineages = _lineages(slots)

    def inner_content(s: SlotMeta) -> bool:
        return s.content_type in ("content", "table") and s.number > 1

    awards = _pool(rng, slots, lineages, lambda s: s.content_type == "content" and s.number > 1)
    _assign(slots, lineages, awards, scaled(SPECIAL_COUNTS["award"], n), "award")
    commercial = _pool(
        rng, slots, lineages, inner_content, prefer=lambda s: s.deck.kind in ("proposal", "client")
    )
    _assign(slots, lineages, commercial, scaled(SPECIAL_COUNTS["commercial"], n), "commercial")
    team = _pool(rng, slots, lineages, lambda s: s.content_type == "team")
    _assign(slots, lineages, team, scaled(SPECIAL_COUNTS["cofounder"], n), "cofounder")
    rare_plan: dict[int, tuple[str, str | None]] = {}

    def phrase_slot(s: SlotMeta) -> bool:
        return s.content_type in ("content", "case_study", "diagram") and s.number > 1

    for phrase, cap_name, count, anchor in vocab.RARE_PHRASES:

        def in_capability(s: SlotMeta, capability: str = cap_name) -> bool:
            return s.deck.capability.name == capability

        pool = _pool(rng, slots, lineages, phrase_slot, prefer=in_capability)
        marked = _assign(slots, lineages, pool, scaled(count, n, floor=2), f"phrase:{phrase}")
        for j, i in enumerate(marked):
            rare_plan[i] = (phrase, anchor if j == 0 else None)
    cases = _pool(rng, slots, lineages, lambda s: s.content_type == "case_study")
    others = _pool(rng, slots, lineages, inner_content)
    for client in world.rare_clients:
        count = rng.randint(1, 6)
        in_cases = 1 if rng.random() < 0.3 else 0
        _assign(slots, lineages, cases, in_cases, f"client:{client}")
        _assign(slots, lineages, others, count - in_cases, f"client:{client}")
    return rare_plan


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
    if not kinds and _NUMBER.search(text):
        kinds.add("other")
    return frozenset(kinds)


def _slide_row(slot: SlotMeta) -> dict[str, Any]:
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


def _master(rng: random.Random, slots: list[SlotMeta], n: int) -> list[dict[str, Any]]:
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


def generate_library(
    n: int, seed: int, out: Path, progress: Callable[[str, int, int], None] | None = None
) -> dict[str, Any]:
    """Write ``slides.jsonl``, ``master.jsonl``, ``queries.jsonl`` and ``manifest.json`` for an ``n``-slide library."""
    if n < 1:
        raise ValueError("the library needs at least one slide")
    started = time.perf_counter()
    rng = random.Random(seed)
    world = _make_world(rng, n)
    plans = _plan_decks(rng, world, n)
    slots = _plan_slots(rng, plans, n)
    for slot in slots:
        slot.slide_id = f"{slot.deck.deck_id}_Slide_{slot.number}"
    rare_plan = _mark_specials(rng, slots, world, n)
    _render(rng, slots, world, rare_plan)
    for slot in slots:
        if slot.content_type == "case_study":
            slot.figures = figure_kinds(slot.text)
    if progress:
        progress("slides", len(slots), n)
    master = _master(rng, slots, n)
    queries = build_queries(rng, slots, world, N_QUERIES)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _write_jsonl(out / "slides.jsonl", (_slide_row(s) for s in slots))
    _write_jsonl(out / "master.jsonl", master)
    _write_jsonl(out / "queries.jsonl", queries)
    manifest = _manifest(slots, world, plans, master, queries, n, seed)
    manifest["seconds"] = round(time.perf_counter() - started, 2)
    _write_text(out / "manifest.json", json.dumps(manifest, indent=1, ensure_ascii=False))
    return manifest


def _write_jsonl(path: Path, rows: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False))
            fh.write("\n")
    os.replace(tmp, path)


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _manifest(
    slots: list[SlotMeta],
    world: World,
    plans: list[tuple[DeckPlan, int]],
    master: list[dict[str, Any]],
    queries: list[dict[str, Any]],
    n: int,
    seed: int,
) -> dict[str, Any]:
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
