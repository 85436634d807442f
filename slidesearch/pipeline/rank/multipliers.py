"""Spec step 08: final score = fusion x folder x type x recency x entity x titled, every factor kept on the card.

* Folder weight: intent x folder kind. The seed publishes one value (capability x
  Collateral = 3.0) and the shape (a slide's folder says what kind of material it is);
  the rest of the table follows that shape: the folder made for an intent's material
  gets the top weight, related folders a smaller lift, anything else 1.0.
* Type weight: intent x content type (seed: capability x dashboard = 1.3). Known
  low-content types (title, agenda, dividers, closing, blank, image) are cut by more than
  half (``low_content_weight``) unless the slide carries ``content_rich_chars`` of text.
* Recency: 1 + recency_max x (deck year's position between the library's oldest and
  newest deck); unknown dates get 1.0. Mild by design (seed example: 1.244).
* Entity: 1.5 when the slide's title / snippet literally contains a 06b term.
* Titled: ``title_boost`` when the slide's title says one of the brief's angles (``titled_by``): the slide a rep
  names by its title ("cons of soft drink" is the slide titled so, not its deck's "Pros of soft drink").
* Kind of slide (folded into the type factor): a brief that asks for a kind of slide by a section's
  name ("a team slide", "our methodology": ``slidesearch.roles.asked_kinds``, not a topical brief
  that happens to hold the word) lifts the slides filed there by ``kind_weight``; one that asks for
  results slides so ("results slide with numbers", "case study results") lifts the slides stating a
  quantified outcome by it again (``slidesearch.roles.states_results``). Any other brief that wants
  results (a client's case studies) is served at the deck cap (11) only: lifting every slide stating a
  figure put other clients' results over the named client's (generated client_section 0.706 -> 0.684).

With several intents a slide takes the best weight any of them gives it. A slide with no
primary score is then held just below the weakest slide that has one (07b's promise
survives the multipliers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from slidesearch.config import SearchConfig
from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import Candidate, SearchState
from slidesearch.roles import asked_kinds, asked_roles, asks_for_results_slides, first_line, titled_picture

#: Folder kinds, matched on the folder path (first match wins).
FOLDER_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("collateral", re.compile(r"collateral|brochure|one[- ]pager|marketing", re.I)),
    ("demo", re.compile(r"\bdemos?\b", re.I)),
    ("case_study", re.compile(r"case[ _-]?stud|success[ _-]?stor|references?", re.I)),
    ("proposal", re.compile(r"proposal|rfp|pitch|bids?\b|sow", re.I)),
    ("client", re.compile(r"clients?\b|accounts?\b|engagements?", re.I)),
    ("methodology", re.compile(r"method|framework|approach|playbook|delivery", re.I)),
    ("capability", re.compile(r"capabilit|solutions?|offerings?|services|practice", re.I)),
)

FOLDER_WEIGHTS: dict[str, dict[str, float]] = {
    "capability": {"collateral": 3.0, "capability": 2.0, "methodology": 1.3, "proposal": 1.3},
    "case_study": {"case_study": 3.0, "client": 2.0, "proposal": 1.3, "collateral": 1.3},
    "approach": {"methodology": 3.0, "proposal": 2.0, "capability": 1.3, "collateral": 1.3},
    "collateral": {"collateral": 3.0, "capability": 1.3},
    "demo": {"demo": 3.0, "collateral": 1.3},
}

TYPE_WEIGHTS: dict[str, dict[str, float]] = {
    "capability": {"dashboard": 1.3, "chart": 1.2, "overview": 1.2, "content": 1.1, "framework": 1.1},
    "case_study": {"case_study": 1.3, "testimonial": 1.2, "dashboard": 1.1, "chart": 1.1},
    "approach": {"framework": 1.3, "process": 1.3, "methodology": 1.3, "diagram": 1.2, "timeline": 1.2},
    "collateral": {"overview": 1.3, "content": 1.1, "award": 1.1},
    "demo": {"dashboard": 1.3, "image": 1.1, "chart": 1.1},
}

LOW_CONTENT_TYPES = frozenset({"title", "agenda", "section_header", "closing", "blank", "image"})


def folder_kinds(folder: str) -> frozenset[str]:
    """Every kind of material the folder's path names ("other" when none does).

    A path can name several: "/Sales/Collateral/Case Studies" holds case studies inside
    the collateral tree, and a case-study brief should see it as the case-study folder it
    is; the weight is then the best any of its kinds gives the query's intents.
    """
    kinds = frozenset(kind for kind, pattern in FOLDER_KINDS if pattern.search(folder))
    return kinds or frozenset({"other"})


def best_weight(table: dict[str, dict[str, float]], intents: tuple[str, ...], key: str) -> float:
    return max((table.get(i, {}).get(key, 1.0) for i in intents), default=1.0)


@dataclass(frozen=True)
class Weights:
    """The 08 factors' settings (``SearchConfig``): table exponents, the low-content cut, recency, entity."""

    folder_strength: float
    type_strength: float
    low_content_weight: float
    content_rich_chars: int
    recency_max: float
    entity_boost: float
    kind_weight: float = 1.0
    title_boost: float = 1.0

    def __post_init__(self) -> None:
        if not (0 <= self.folder_strength <= 1 and 0 <= self.type_strength <= 1):
            raise ValueError("folder_strength and type_strength must be in [0, 1]")
        if not 0 < self.low_content_weight <= 1 or self.entity_boost < 1 or self.recency_max < 0:
            raise ValueError("low_content_weight must be in (0, 1], entity_boost >= 1, recency_max >= 0")
        if self.kind_weight < 1:
            raise ValueError(f"kind_weight must be at least 1, got {self.kind_weight}")
        if self.content_rich_chars < 0:
            raise ValueError(f"content_rich_chars must be non-negative, got {self.content_rich_chars}")

    @classmethod
    def from_config(cls, config: SearchConfig) -> Weights:
        return cls(config.folder_strength, config.type_strength, config.low_content_weight,
                   config.content_rich_chars, config.recency_max, config.entity_boost, config.kind_weight,
                   config.title_boost)


class Multipliers:
    """08: multiply each candidate's fusion score by its folder, type, recency and entity factors."""

    name = "08 multipliers"
    reads: ClassVar[frozenset[str]] = frozenset({"boosted", "intents", "entity_rows", "angles"})
    writes: ClassVar[frozenset[str]] = frozenset({"scored"})
    output: ClassVar[str | None] = "scored"

    def __init__(self, view: LibraryView, weights: Weights) -> None:
        self.view, self.weights = view, weights

    @cached_property
    def _folder_kinds(self) -> list[frozenset[str]]:
        cache: dict[str, frozenset[str]] = {}
        return [cache.setdefault(f, folder_kinds(f)) for f in self.view.folders]

    @cached_property
    def _recency(self) -> NDArray[np.float64]:
        years = np.asarray(self.view.deck_years, dtype=np.float64)
        known = years[np.isfinite(years)]
        out = np.ones(years.size, dtype=np.float64)
        if known.size and known.max() > known.min():
            position = (years - known.min()) / (known.max() - known.min())
            out = np.where(np.isfinite(years), 1.0 + self.weights.recency_max * position, 1.0)
        return out

    def _kinds(self, angles: tuple[str, ...]) -> tuple[frozenset[int], bool]:
        """The sections the brief asks for as a kind of slide (section indices), and whether it asks for results slides."""
        table = self.view.section_table
        return (frozenset(table.index[name] for a in angles for name in asked_kinds(a, table)),
                asks_for_results_slides(angles))

    @cached_property
    def _low_content(self) -> NDArray[np.bool_]:
        view, limit = self.view, self.weights.content_rich_chars
        pictured = view.pictured
        return np.fromiter((t in LOW_CONTENT_TYPES and len(x) < limit
                            and not titled_picture(t, first_line(title, x), p)
                            for t, x, title, p in zip(view.content_types, view.texts, view.titles, pictured,
                                                      strict=True)),
                           dtype=bool, count=view.n)

    def run(self, state: SearchState) -> SearchState:
        w = self.weights
        intents = state.intents or ("capability",)
        # A cover, agenda, divider, closing or appendix slide is cut as a low-content one, unless
        # the brief asks for that kind of slide ("the agenda slide").
        roles, asked = self.view.roles, asked_roles(state.angles)
        kinds, recency, types = self._folder_kinds, self._recency, self.view.content_types
        asked_sections, wants_results = self._kinds(state.angles) if w.kind_weight > 1 else (frozenset(), False)
        sections = self.view.sections
        briefs = [self.view.brief_terms(a) for a in state.angles] if w.title_boost > 1 else []
        folder_of: dict[frozenset[str], float] = {}
        type_of: dict[str, float] = {}
        out = []
        for c in state.boosted:
            kind = kinds[c.row]
            if kind not in folder_of:
                folder_of[kind] = max(best_weight(FOLDER_WEIGHTS, intents, k) for k in kind) ** w.folder_strength
            folder = folder_of[kind]
            role = roles[c.row]
            if role in asked:
                typ = 1.0
            elif self._low_content[c.row] or role:
                typ = w.low_content_weight
            else:
                ctype = types[c.row]
                if ctype not in type_of:
                    type_of[ctype] = best_weight(TYPE_WEIGHTS, intents, ctype) ** w.type_strength
                typ = type_of[ctype]
            if int(sections[c.row]) in asked_sections:
                typ *= w.kind_weight
            if wants_results and self.view.states_results[c.row]:
                typ *= w.kind_weight
            rec = float(recency[c.row])
            ent = w.entity_boost if c.row in state.entity_rows else 1.0
            titled = w.title_boost if briefs and titled_by(self.view.title_terms(c.row), briefs) else 1.0
            out.append(c.evolve(folder=folder, type=typ, recency=rec, entity=ent, titled=titled,
                               score=c.fusion * folder * typ * rec * ent * titled))
        out = hold_below_primary(out)
        out.sort(key=lambda c: (-c.score, c.row))
        return replace(state, scored=tuple(out))


def titled_by(title: frozenset[str], briefs: list[frozenset[str]]) -> bool:
    """Whether a slide's title says one of the brief's angles: every word of the angle is in the title, and the title
    holds at most as many words again (both read as BM25 reads words). "Pricing" says "pricing"; "Pricing and payment
    terms" does not (it says more), nor does "Pros of soft drink" say "cons of soft drink"."""
    return any(b and b <= title and len(title) <= 2 * len(b) for b in briefs)


def hold_below_primary(cands: list[Candidate]) -> list[Candidate]:
    """Scale boost-only candidates (primary 0) so the best of them sits just under the weakest primary hit.

    Scaling all of them by one factor keeps their own order; the factors stay on the card
    and ``held_below_primary`` marks the cut.
    """
    weakest = min((c.score for c in cands if c.primary > 0), default=None)
    held = [c.score for c in cands if c.primary <= 0]
    if weakest is None or not held or max(held) < weakest:
        return cands
    factor = weakest * (1 - 1e-3) / max(held)
    return [c.evolve(score=c.score * factor, held_below_primary=True) if c.primary <= 0 else c for c in cands]


class EntityFactor:
    """08, retrieval subset: only the entity factor, for ``SlideSearch.retrieve``.

    Folder, type and recency weights say what a sales brief wants from a slide library; on
    question sets (SlideVQA, Cranfield, CISI) they are noise: the low-content cut alone cost
    SlideVQA 0.014 / 0.022 MRR@10 (dev / test). A literal rare-term match is evidence about
    any query, so it stays.
    """

    name = "08 entity factor"
    reads: ClassVar[frozenset[str]] = frozenset({"primary", "entity_rows"})
    writes: ClassVar[frozenset[str]] = frozenset({"scored"})
    output: ClassVar[str | None] = "scored"

    def __init__(self, entity_boost: float) -> None:
        if entity_boost < 1.0:
            raise ValueError(f"entity_boost must be at least 1, got {entity_boost}")
        self.entity_boost = entity_boost

    def run(self, state: SearchState) -> SearchState:
        out = [c.evolve(entity=self.entity_boost, score=c.fusion * self.entity_boost) if c.row in state.entity_rows
               else c.evolve(score=c.fusion) for c in state.primary]
        out.sort(key=lambda c: (-c.score, c.row))
        return replace(state, scored=tuple(out))
