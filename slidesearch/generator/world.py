"""The world a generated library is written about, and the random draws that lay it out.

The invented clients, people and rarities (``World``), the deck families with their
versions, folders and dates (``DeckPlan``), and one ``SlotMeta`` per slide saying what
goes on it: its content type, the earlier slide it copies, and the special (award,
commercial terms, co-founder, rare phrase, rare client) it carries. The proportions are
the original library's, per 122,623 slides, scaled to any size by ``scaled``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

from slidesearch.generator import vocab
from slidesearch.generator.vocab import CAPABILITIES, Capability

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


def scaled(count: int, n: int, floor: int = 1) -> int:
    """``count`` per 122,623 slides scaled to ``n`` slides, at least ``floor``."""
    return max(floor, round(count * n / REFERENCE_SLIDES))


@dataclass
class DeckPlan:
    """One deck: where it lives, what it is about, its date, and its place in its family of versions."""

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


def make_world(rng: random.Random, n: int) -> World:
    """The invented clients (per industry), rare clients and people, and the co-founder among them."""
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


def plan_decks(rng: random.Random, world: World, n: int) -> list[tuple[DeckPlan, int]]:
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


def plan_slots(rng: random.Random, plans: list[tuple[DeckPlan, int]], n: int) -> list[SlotMeta]:
    """One slot per slide: a family's first version draws its types, a later one mostly copies it in order."""
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


def mark_specials(
    rng: random.Random, slots: list[SlotMeta], world: World, n: int
) -> dict[int, tuple[str, str | None]]:
    """Mark the exact-count specials on whole lineages, in a fixed order.

    Returns, per rare-phrase slide, its phrase and (for the phrase's first slide only) the anchor title.
    """
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
