"""Labelled queries for a generated library, graded from what the generator put on each slide.

Kinds (the ones reps type, per the seed): topic, client + section, person
profile, rare phrase, multi-part brief (a list of angles), exclusion,
quantified-proof demand, and a term absent from the library. Grades: 3 = what
the query is after, 2 = clearly relevant, 1 = related (same capability, other
industry). Expectations, where they apply: ``excluded_sections``, ``entity``,
``expected_first_slide``, ``absent_terms``, ``quantified`` (dollar, percent or
fte).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from slidesearch.generator import vocab
from slidesearch.generator.vocab import Capability
from slidesearch.generator.world import SlotMeta, World
from slidesearch.model import section_for

N_QUERIES = 150
#: How many queries of each kind make up the ~150.
KIND_COUNTS = {
    "topic": 45,
    "client_section": 20,
    "person_profile": 15,
    "rare_phrase": 10,
    "multi_part": 20,
    "exclusion": 15,
    "quantified": 15,
    "absent_term": 10,
}
EXCLUSION_WORDING = (
    "without case studies",
    "excluding case studies",
    "no case studies",
    "skip the case studies",
    "not including case studies",
)
QUANTIFIED_WORDING = {
    "dollar": "case studies with dollar savings",
    "percent": "case studies with % improvement",
    "fte": "case studies with FTE savings",
}
PROFILE_WORDING = ("{name} profile", "who is {name}", "{name} bio", "{name} resume")
RARE_PHRASE_QUERIES = {
    "capital call": ("capital call reporting", "capital call notice automation"),
    "catastrophe bond": ("catastrophe bond pricing",),
    "formulary rebate": ("formulary rebate analytics",),
    "stadium concession": ("stadium concession forecasting",),
    "grant proposal": ("grant proposal writing", "grant proposal support"),
    "item cloning": ("item cloning for exams",),
}


class _Labels:
    """Indexes over the slots that every kind of query is labelled from."""

    def __init__(self, slots: list[SlotMeta]) -> None:
        self.slots = slots
        self.by_cap: dict[str, list[int]] = defaultdict(list)
        self.by_client: dict[str, list[int]] = defaultdict(list)
        self.by_special: dict[str, list[int]] = defaultdict(list)
        self.bios: dict[str, list[int]] = defaultdict(list)
        self.listed: dict[str, list[int]] = defaultdict(list)
        for i, s in enumerate(slots):
            if s.topical and s.special is None:
                self.by_cap[s.deck.capability.name].append(i)
                if s.deck.client:
                    self.by_client[s.deck.client].append(i)
            if s.special:
                self.by_special[s.special].append(i)
            if s.bio_of:
                self.bios[s.bio_of].append(i)
            for person in s.persons:
                self.listed[person].append(i)

    def topic(self, cap: str, industry: str | None = None, term: str | None = None) -> dict[str, int]:
        capability = next(c for c in vocab.CAPABILITIES if c.name == cap)
        markers = [cap.lower(), *(t.lower() for t in capability.terms)]
        out: dict[str, int] = {}
        for i in self.by_cap[cap]:
            s = self.slots[i]
            if industry:
                grade = 3 if s.deck.industry == industry else 1
            elif term:
                grade = 3 if term.lower() in f"{s.title}\n{s.text}".lower() else 1
            else:
                grade = 3 if any(m in s.title.lower() for m in markers) else 2
            out[s.slide_id] = grade
        return out

    def ids(self, rows: list[int], grade: int) -> dict[str, int]:
        return {self.slots[i].slide_id: grade for i in rows}


def _merge(*parts: dict[str, int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in parts:
        for sid, grade in part.items():
            out[sid] = max(grade, out.get(sid, 0))
    return out


class _QuerySet:
    """The queries built so far, numbered in order; a kind's quota is its share of ``total``."""

    def __init__(self, total: int) -> None:
        self.rows: list[dict[str, Any]] = []
        self.scale = total / sum(KIND_COUNTS.values())

    def quota(self, kind: str) -> int:
        return max(1, round(KIND_COUNTS[kind] * self.scale))

    def count(self, kind: str) -> int:
        return sum(q["kind"] == kind for q in self.rows)

    def add(self, kind: str, query: str | list[str], relevance: dict[str, int], **expectations: Any) -> None:
        """Keep the query unless nothing is relevant (an absent term may have nothing) or it repeats one."""
        if not relevance and kind != "absent_term":
            return
        if any(q["query"] == query for q in self.rows):
            return
        self.rows.append(
            {
                "query_id": f"q{len(self.rows) + 1:03d}",
                "kind": kind,
                "query": query,
                "universes": None,
                "relevance": relevance,
                "expectations": {k: v for k, v in expectations.items() if v},
            }
        )


def topic_queries(
    rng: random.Random, labels: _Labels, world: World, caps: list[Capability], queries: _QuerySet
) -> None:
    """A capability, one of its terms, or a capability in an industry; plus the two carve-out sections."""
    award = labels.ids(labels.by_special["award"], 3)
    commercial = labels.ids(labels.by_special["commercial"], 3)
    for wording, rel in (
        ("analyst recognition and awards", award),
        ("why choose us", award),
        ("payment terms and scope of work", commercial),
        ("commercial terms and pricing summary", commercial),
    ):
        queries.add("topic", wording, rel)
    for _ in range(queries.quota("topic") * 3):
        if queries.count("topic") >= queries.quota("topic") or not caps:
            break
        cap = rng.choice(caps)
        style = rng.randrange(3)
        if style == 0:
            queries.add("topic", cap.name.lower(), labels.topic(cap.name))
        elif style == 1:
            term = rng.choice(cap.terms)
            queries.add("topic", term, labels.topic(cap.name, term=term))
        else:
            industry = rng.choice(cap.industries)
            queries.add(
                "topic",
                f"{cap.name.lower()} for {industry.lower()}",
                labels.topic(cap.name, industry=industry),
            )


def client_section_queries(
    rng: random.Random, labels: _Labels, world: World, caps: list[Capability], queries: _QuerySet
) -> None:
    """A common client's case studies, and rare clients that sit mostly outside case studies."""
    slots = labels.slots
    quota = queries.quota("client_section")
    common = [c for c, rows in labels.by_client.items() if rows]
    rng.shuffle(common)
    for client in common[: quota // 2]:
        rows = labels.by_client[client]
        cases = [i for i in rows if slots[i].content_type == "case_study"]
        others = [i for i in rows if slots[i].content_type != "case_study"]
        queries.add(
            "client_section",
            f"{client} case studies",
            _merge(labels.ids(others, 1), labels.ids(cases, 3)),
            entity=client,
        )
    for client in world.rare_clients[: quota - quota // 2]:
        rows = labels.by_special[f"client:{client}"]
        first = slots[rows[0]].slide_id if len(rows) == 1 else None
        queries.add(
            "client_section",
            f"{client} case studies",
            labels.ids(rows, 3),
            entity=client,
            expected_first_slide=first,
        )


def person_profile_queries(
    rng: random.Random, labels: _Labels, world: World, caps: list[Capability], queries: _QuerySet
) -> None:
    """Bios first, slides listing the person next; the co-founder is among them."""
    people = [world.cofounder] + [p[0] for p in world.people if labels.bios[p[0]] or labels.listed[p[0]]]
    for k, name in enumerate(people[: queries.quota("person_profile")]):
        wording = PROFILE_WORDING[k % len(PROFILE_WORDING)].format(name=name)
        queries.add(
            "person_profile",
            wording,
            _merge(labels.ids(labels.listed[name], 2), labels.ids(labels.bios[name], 3)),
            entity=name,
        )


def rare_phrase_queries(
    rng: random.Random, labels: _Labels, world: World, caps: list[Capability], queries: _QuerySet
) -> None:
    """The anchor slide is what the query names; the other phrase slides are relevant too."""
    slots = labels.slots
    for phrase, _cap, _count, anchor in vocab.RARE_PHRASES:
        rows = labels.by_special[f"phrase:{phrase}"]
        anchor_ids = [slots[i].slide_id for i in rows if slots[i].title == anchor]
        for wording in RARE_PHRASE_QUERIES[phrase]:
            rel = _merge(labels.ids(rows, 2), {sid: 3 for sid in anchor_ids[:1]})
            queries.add(
                "rare_phrase",
                wording,
                rel,
                entity=phrase,
                expected_first_slide=anchor_ids[0] if anchor_ids else None,
            )


def multi_part_queries(
    rng: random.Random, labels: _Labels, world: World, caps: list[Capability], queries: _QuerySet
) -> None:
    """Two or three angles, each a capability or one of its terms."""
    for _ in range(queries.quota("multi_part")):
        if len(caps) < 2:
            break
        picked = rng.sample(caps, min(len(caps), rng.choice((2, 2, 3))))
        angles: list[str] = []
        rels: list[dict[str, int]] = []
        for cap in picked:
            if rng.random() < 0.5:
                angles.append(f"{cap.name.lower()} use case")
                rels.append(labels.topic(cap.name))
            else:
                term = rng.choice(cap.terms)
                angles.append(term)
                rels.append(labels.topic(cap.name, term=term))
        queries.add("multi_part", angles, _merge(*rels))


def exclusion_queries(
    rng: random.Random, labels: _Labels, world: World, caps: list[Capability], queries: _QuerySet
) -> None:
    """The topic's slides minus every Case Studies slide."""
    for k in range(queries.quota("exclusion")):
        if not caps:
            break
        cap = rng.choice(caps)
        rel = {sid: g for sid, g in labels.topic(cap.name).items()}
        for i in labels.by_cap[cap.name]:
            s = labels.slots[i]
            if section_for(s.content_type, s.title, s.text) == "Case Studies":
                rel.pop(s.slide_id, None)
        queries.add(
            "exclusion",
            f"{cap.name.lower()} {EXCLUSION_WORDING[k % len(EXCLUSION_WORDING)]}",
            rel,
            excluded_sections=["Case Studies"],
        )


def quantified_queries(
    rng: random.Random, labels: _Labels, world: World, caps: list[Capability], queries: _QuerySet
) -> None:
    """Only case studies whose own text states that kind of figure."""
    slots = labels.slots
    kinds = list(QUANTIFIED_WORDING)
    for k in range(queries.quota("quantified")):
        if not caps:
            break
        cap = rng.choice(caps)
        kind = kinds[k % len(kinds)]
        rows = [
            i
            for i in labels.by_cap[cap.name]
            if slots[i].content_type == "case_study" and kind in slots[i].figures
        ]
        queries.add(
            "quantified",
            f"{cap.name.lower()} {QUANTIFIED_WORDING[kind]}",
            labels.ids(rows, 3),
            quantified=kind,
        )


def absent_term_queries(
    rng: random.Random, labels: _Labels, world: World, caps: list[Capability], queries: _QuerySet
) -> None:
    """Nothing uses the word; the capability's slides are the closest related material."""
    for term, wording, cap_name in vocab.ABSENT_TERMS[: queries.quota("absent_term")]:
        rel = {sid: min(g, 2) for sid, g in labels.topic(cap_name).items()}
        queries.add("absent_term", wording, rel, absent_terms=[term.lower()])


QueryBuilder = Callable[[random.Random, _Labels, World, list[Capability], _QuerySet], None]

#: The builders in the order they draw from the generator's random stream (the order fixes the files).
BUILDERS: tuple[QueryBuilder, ...] = (
    topic_queries,
    client_section_queries,
    person_profile_queries,
    rare_phrase_queries,
    multi_part_queries,
    exclusion_queries,
    quantified_queries,
    absent_term_queries,
)


def build_queries(
    rng: random.Random, slots: list[SlotMeta], world: World, total: int = N_QUERIES
) -> list[dict[str, Any]]:
    """About ``total`` labelled queries (fewer when a small library has nothing for some of them)."""
    labels = _Labels(slots)
    caps = [c for c in vocab.CAPABILITIES if labels.by_cap[c.name]]
    queries = _QuerySet(total)
    for builder in BUILDERS:
        builder(rng, labels, world, caps, queries)
    return queries.rows
