"""The TechJam shopper simulator, rule for rule (``shared/specs/tenturns.md``, "The environment").

The hidden intent card built from the target product, the constraint
classifier, the opening message per scenario, the shopper's replies with the
boundary and intent-override behaviour, and recommendation normalisation. Every
rule here must behave exactly like the official local evaluator so that the same
agent gets the same numbers to six decimals.
"""

from __future__ import annotations

import random
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tenturns.catalog import Product, searchable_text, shelf_label

MAX_TURNS = 10
TOP_K = 10
SCENARIOS = ("buying", "browsing", "intent_override", "boundary")
ALLOWED_ATTRIBUTES = frozenset(
    {"category", "material", "color", "size", "style", "brand", "budget", "feature", "use_case", "other"}
)
MATERIALS = ("cotton", "polyester", "nylon", "leather", "wool", "spandex", "silk", "rayon", "fabric")
COLOR_WORDS = ("black", "white", "blue", "red", "pink", "green", "brown", "gray", "grey", "purple", "yellow", "orange")
CONSTRAINT_LIMIT = 180
"""Every intent-card phrase is cut to 180 characters (the official ``intent_card(limit=180)``)."""

_MATERIAL_RE = re.compile(r"\b(" + "|".join(MATERIALS) + r")\b", re.I)
_COLOR_RE = re.compile(r"\b(" + "|".join(COLOR_WORDS) + r")\b", re.I)
_BUDGET_RE = re.compile(r"(?:\$|<=|under)\s*\d")
# The classifier's colour test uses only the first seven colour words, as the official one does.
_CLASSIFIER_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("material", MATERIALS),
    ("color", ("color", "black", "white", "blue", "red", "pink", "green")),
    ("size", ("size", "sizing", "width", "wide", "narrow")),
    ("style", ("department", "style", "fit", "sleeve", "neck")),
    ("use_case", ("hiking", "running", "gym", "winter", "outdoor", "work")),
)

NO_QUESTION_REPLY = "Those options are not quite right yet. Ask me about one specific attribute."
OVERRIDE_TEMPLATE = "Actually, ignore my earlier preference. What I need is: {new}."


class IntentCard(BaseModel):
    """The shopper's hidden intent: at most two hard constraints and two soft preferences."""

    model_config = ConfigDict(extra="allow")

    target_category: str = ""
    hard_constraints: list[str] = []
    soft_preferences: list[str] = []


class Override(BaseModel):
    model_config = ConfigDict(extra="allow")

    turn: int = 3
    old_value: str = ""
    new_value: str = ""
    message: str = "Actually, please ignore my earlier preference."


class Behavior(BaseModel):
    model_config = ConfigDict(extra="allow")

    scenario_type: str = ""
    override: Override | None = None


class TurnsSession(BaseModel):
    """One session row of a public or synthetic set; it may carry its own intent card and behaviour."""

    model_config = ConfigDict(extra="allow")

    sample_id: str
    scenario_type: str
    user_profile: dict[str, Any] = Field(default_factory=dict)
    ground_truth: dict[str, Any]
    intent_card: IntentCard | None = None
    behavior: Behavior | None = None

    @property
    def target(self) -> str:
        return str(self.ground_truth.get("parent_asin", ""))


def clean_constraint(value: str, limit: int = CONSTRAINT_LIMIT) -> str:
    """Collapse whitespace, strip `` -;,.\\t\\n`` from both ends, cut to ``limit``, right-strip."""
    return re.sub(r"\s+", " ", value).strip(" -;,.\t\n")[:limit].rstrip()


def _detail_candidates(details: dict[str, Any]) -> list[str]:
    return [f"{key}: {value}" for key, value in details.items() if value not in (None, "", [])]


def intent_card(product: Product, limit: int = CONSTRAINT_LIMIT) -> IntentCard:
    """The official hidden intent card of a target product (spec: "Hidden intent card")."""
    title = clean_constraint(product.title or "product", limit)
    candidates = [item for item in product.features if item != ""]
    candidates.extend(_detail_candidates(product.details))
    corpus = searchable_text(product)
    material = _MATERIAL_RE.search(corpus)
    color = _COLOR_RE.search(corpus)
    if material:
        candidates.insert(0, material.group(1).lower())
    if color:
        candidates.insert(1, f"color: {color.group(1).lower()}")
    if product.price_text is not None:
        candidates.append(f"budget around ${product.price_text}")
    cleaned = list(dict.fromkeys(c for c in (clean_constraint(item, limit) for item in candidates) if c))
    if not cleaned:
        cleaned = [title]
    return IntentCard(target_category=title, hard_constraints=cleaned[:2], soft_preferences=cleaned[2:4] or cleaned[:1])


def override_turn(sample_id: str, scenario_type: str) -> int:
    """Turn 3 or 4, from ``random.Random(f"{sample_id}\\0{scenario_type}").choice([3, 4])``."""
    return random.Random(f"{sample_id}\0{scenario_type}").choice([3, 4])


def behavior_for(sample_id: str, scenario_type: str, card: IntentCard) -> Behavior:
    """The scenario's behaviour; an intent_override switches from the last soft preference to hard[0]."""
    if scenario_type != "intent_override":
        return Behavior(scenario_type=scenario_type)
    old = card.soft_preferences[-1] if card.soft_preferences else "I prefer a different style."
    new = card.hard_constraints[0] if card.hard_constraints else "Please prioritize the target requirements."
    return Behavior(
        scenario_type=scenario_type,
        override=Override(turn=override_turn(sample_id, scenario_type), old_value=old, new_value=new,
                          message=OVERRIDE_TEMPLATE.format(new=new)),
    )


def classify_constraint(value: str) -> str:
    """The first rule that fires: budget, material, color, size, style, use_case, else feature."""
    lowered = value.lower()
    if "budget" in lowered or _BUDGET_RE.search(lowered):
        return "budget"
    for label, words in _CLASSIFIER_RULES:
        if any(word in lowered for word in words):
            return label
    return "feature"


def normalize_recommendations(payload: object, catalog_ids: set[str] | dict[str, int], top_k: int = TOP_K) -> list[str]:
    """Ids in shown order: unknown ids and repeats dropped, the first ``top_k`` valid ones kept."""
    if not isinstance(payload, list):
        return []
    shown: list[str] = []
    seen: set[str] = set()
    for item in payload:
        value = item.get("parent_asin", "") if isinstance(item, dict) else item
        asin = str(value).strip()
        if not asin or asin in seen or asin not in catalog_ids:
            continue
        seen.add(asin)
        shown.append(asin)
        if len(shown) >= top_k:
            break
    return shown


class Shopper:
    """One simulated shopper: the opening message, then a reply to every turn that missed."""

    def __init__(self, session: TurnsSession, card: IntentCard, behavior: Behavior, shelf: str) -> None:
        self.session = session
        self.card = card
        self.behavior = behavior
        self.shelf = shelf
        self.disclosed: set[str] = set()
        self.boundary_used = False
        self.override_applied = session.scenario_type != "intent_override"

    @classmethod
    def for_session(cls, session: TurnsSession, product: Product | None) -> Shopper:
        """Materialise the hidden fields: the session's own card and behaviour when it carries both."""
        if session.intent_card is not None and session.behavior is not None:
            card, behavior = session.intent_card, session.behavior
        else:
            if product is None:
                raise ValueError(f"session {session.sample_id}: target {session.target} is not in the catalog")
            card = intent_card(product)
            behavior = behavior_for(session.sample_id, session.scenario_type, card)
        shelf = shelf_label(product.categories) if product is not None else shelf_label([])
        return cls(session, card, behavior, shelf)

    def opening(self) -> str:
        scenario = self.session.scenario_type
        if scenario == "buying" and self.card.hard_constraints:
            constraint = str(self.card.hard_constraints[0])
            self.disclosed.add(constraint)
            return f"I'm looking for {self.shelf}. A key requirement is: {constraint}."
        if scenario == "intent_override" and self.behavior.override is not None:
            return f"I'm looking for {self.shelf}. {self.behavior.override.old_value}"
        return f"I'm looking for {self.shelf}, but I'm still exploring."

    def counts(self) -> bool:
        """Whether a hit on this turn counts: hits before the override is applied do not."""
        return self.override_applied

    def next_message(self, ask_attribute: object, turn: int) -> str:
        """The shopper's message for turn ``turn + 1`` after a miss on ``turn``."""
        # An override scenario whose behaviour lacks the override still switches, with the defaults.
        override = self.behavior.override or Override()
        if not self.override_applied and turn + 1 == int(override.turn):
            self.override_applied = True
            if override.new_value:
                self.disclosed.add(override.new_value)
            return override.message
        return self.reply(ask_attribute)

    def reply(self, ask_attribute: object) -> str:
        attribute = ask_attribute if isinstance(ask_attribute, str) else None
        if self.session.scenario_type == "boundary" and not self.boundary_used and attribute:
            self.boundary_used = True
            return f"I don't have a preference for {attribute}; please use your judgment."
        if not attribute:
            return NO_QUESTION_REPLY
        if attribute not in ALLOWED_ATTRIBUTES:
            attribute = "other"
        constraints = [*map(str, self.card.hard_constraints), *map(str, self.card.soft_preferences)]
        matches = [
            value for value in constraints
            if value not in self.disclosed and (attribute == "other" or classify_constraint(value) == attribute)
        ][:2]
        if not matches:
            return f"I don't have an additional preference for {attribute}."
        self.disclosed.update(matches)
        return "For that, what matters is: " + "; ".join(matches) + "."
