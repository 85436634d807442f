"""Reading the shopper: what a message discloses, retracts or says about the disclosure budget.

The simulated shopper speaks in a handful of fixed forms (``shared/specs/tenturns.md``,
"Opening message" and "Shopper reply"); an agent that reads them exactly knows
which requirement phrases are in play. Anything else (a person typing in
``seek turns play``) is read as one free-text requirement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

OPENING_PREFIX = "I'm looking for "
EXPLORING_SUFFIX = ", but I'm still exploring."
KEY_REQUIREMENT = "A key requirement is: "
REPLY_PREFIX = "For that, what matters is: "
OVERRIDE_RE = re.compile(r"^Actually, (?:please )?ignore my earlier preference\.(?: What I need is: (?P<new>.*))?$")
NO_PREFERENCE = re.compile(r"^I don't have a preference for (?P<attr>\S+); please use your judgment\.$")
NOTHING_LEFT = re.compile(r"^I don't have an additional preference for (?P<attr>\S+)\.$")
ASK_SPECIFIC = "Ask me about one specific attribute."
PHRASE_SEPARATOR = "; "
MAX_PHRASES_PER_REPLY = 2
"""The shopper discloses at most two constraints per reply (spec, "Shopper reply")."""


class Kind(StrEnum):
    OPENING = "opening"
    DISCLOSURE = "disclosure"
    NO_PREFERENCE = "no_preference"
    NOTHING_LEFT = "nothing_left"
    ASK_SPECIFIC = "ask_specific"
    OVERRIDE = "override"
    FREE_TEXT = "free_text"


@dataclass(frozen=True)
class Reading:
    """What one shopper message means for the agent.

    ``phrases`` are newly stated requirements; ``retract_opening`` says the phrase
    stated in the opening is withdrawn; ``override_pending`` marks an opening that
    states a bare preference (the intent-override form), where the shopper will
    change their mind and nothing shown before that counts; ``counted`` is how many requirements the
    message discloses (a phrase holding the separator itself is split for
    matching but never counts as more than two); ``shelf`` is the shelf named in
    an opening, when one was recognised.
    """

    kind: Kind
    phrases: tuple[str, ...] = ()
    counted: int = 0
    shelf: str | None = None
    attribute: str | None = None
    retract_opening: bool = False
    exploring: bool = False
    override_pending: bool = False


def _strip_final_period(text: str) -> str:
    text = text.strip()
    return text[:-1].rstrip() if text.endswith(".") else text


def _split_disclosure(body: str) -> tuple[tuple[str, ...], int]:
    parts = tuple(p.strip() for p in body.split(PHRASE_SEPARATOR) if p.strip())
    return parts, min(len(parts), MAX_PHRASES_PER_REPLY)


@dataclass
class ShelfMatcher:
    """Longest-first shelf-label matching: the label right after "I'm looking for " wins, then any substring.

    The opening names the target's shelf verbatim, so the longest label that the
    message starts with (after the fixed prefix) and that is followed by "." or
    "," is the shelf; a shorter label is often a suffix of a longer one ("Shirts"
    of "Men Shirts"). A message in another form falls back to the longest label
    found anywhere in it, case-insensitively.
    """

    labels: Iterable[str]
    _by_length: list[str] = field(init=False)
    _lower: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        self._by_length = sorted(set(self.labels), key=lambda s: (-len(s), s))
        self._lower = {}
        for label in self._by_length:
            self._lower.setdefault(label.lower(), label)

    def match(self, message: str) -> tuple[str | None, str]:
        """The shelf label named in ``message`` and the rest of the message after it ("" when anchored)."""
        if message.startswith(OPENING_PREFIX):
            tail = message[len(OPENING_PREFIX):]
            for label in self._by_length:
                if tail.startswith(label) and tail[len(label):len(label) + 1] in (".", ","):
                    return label, tail[len(label):]
        lowered = message.lower()
        for low, label in sorted(self._lower.items(), key=lambda kv: (-len(kv[0]), kv[0])):
            if low and low in lowered:
                return label, ""
        return None, ""


def read_opening(message: str, matcher: ShelfMatcher) -> Reading:
    """The shelf and the requirement stated in a session's first message."""
    shelf, rest = matcher.match(message)
    if shelf is not None and rest:
        if rest == EXPLORING_SUFFIX:
            return Reading(Kind.OPENING, shelf=shelf, exploring=True)
        body = rest[1:].strip()
        if body.startswith(KEY_REQUIREMENT):
            phrase = _strip_final_period(body[len(KEY_REQUIREMENT):])
            return Reading(Kind.OPENING, phrases=(phrase,) if phrase else (), counted=1 if phrase else 0, shelf=shelf)
        return Reading(Kind.OPENING, phrases=(body,) if body else (), counted=1 if body else 0, shelf=shelf,
                       override_pending=bool(body))
    text = message.strip()
    return Reading(Kind.OPENING, phrases=(text,) if text else (), counted=1 if text else 0, shelf=shelf)


def read_reply(message: str) -> Reading:
    """What a later shopper message discloses or retracts."""
    text = message.strip()
    if text.startswith(REPLY_PREFIX):
        phrases, counted = _split_disclosure(_strip_final_period(text[len(REPLY_PREFIX):]))
        return Reading(Kind.DISCLOSURE, phrases=phrases, counted=counted)
    if m := OVERRIDE_RE.match(text):
        phrase = _strip_final_period(m["new"] or "")
        return Reading(Kind.OVERRIDE, phrases=(phrase,) if phrase else (), counted=1 if phrase else 0,
                       retract_opening=True)
    if m := NO_PREFERENCE.match(text):
        return Reading(Kind.NO_PREFERENCE, attribute=m["attr"])
    if m := NOTHING_LEFT.match(text):
        return Reading(Kind.NOTHING_LEFT, attribute=m["attr"])
    if text.endswith(ASK_SPECIFIC):
        return Reading(Kind.ASK_SPECIFIC)
    return Reading(Kind.FREE_TEXT, phrases=(text,) if text else (), counted=1 if text else 0)
