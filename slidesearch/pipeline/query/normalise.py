"""Spec step 03: a query is a string or a list of angles; each angle is cleaned and bounded."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from core.text import clean_text
from slidesearch.pipeline.state import SearchState


class EmptyQueryError(ValueError):
    """The query holds no searchable text (empty, whitespace, or only control characters)."""


def clean_angle(text: str, max_chars: int) -> str:
    """NFKC, control characters dropped, whitespace collapsed, cut at ``max_chars`` on a word boundary."""
    text = clean_text(text)
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    space = cut.rfind(" ")
    return (cut[:space] if space > max_chars // 2 else cut).strip()


def distinct_angles(query: str | Sequence[str]) -> list[str]:
    """The cleaned, de-duplicated (case-insensitively) angles of a query, uncut; EmptyQueryError when none is left."""
    if isinstance(query, str):
        raw = [query]
    elif isinstance(query, Sequence):
        raw = [q for q in query if isinstance(q, str)]
        if len(raw) != len(query):
            raise TypeError("every angle of a query must be a string")
    else:
        raise TypeError(f"query must be a string or a list of strings, got {type(query).__name__}")
    seen: set[str] = set()
    angles: list[str] = []
    for item in raw:
        angle = clean_text(item)
        if angle and angle.casefold() not in seen:
            seen.add(angle.casefold())
            angles.append(angle)
    if not angles:
        raise EmptyQueryError("the query is empty: type a few words describing the slides you want")
    return angles


def merge_extra_angles(angles: list[str], max_angles: int) -> list[str]:
    """Angles beyond ``max_angles`` joined onto the last kept one rather than dropped: no word of the brief is lost."""
    if len(angles) <= max_angles:
        return angles
    return [*angles[: max_angles - 1], " ".join(angles[max_angles - 1 :])]


def split_angles(query: str | Sequence[str], max_chars: int, max_angles: int) -> tuple[str, ...]:
    """The query's distinct angles, extra ones merged into the last, each cut at ``max_chars`` on a word boundary."""
    return tuple(clean_angle(a, max_chars) for a in merge_extra_angles(distinct_angles(query), max_angles))


class NormaliseAngles:
    """03: one angle per topic of the brief, each cleaned and cut at the documented length limit."""

    name = "03 normalise angles"
    reads: ClassVar[frozenset[str]] = frozenset({"query"})
    writes: ClassVar[frozenset[str]] = frozenset({"angles", "angle_notes"})
    output: ClassVar[str | None] = None

    def __init__(self, max_chars: int, max_angles: int) -> None:
        if max_chars < 1 or max_angles < 1:
            raise ValueError("max_chars and max_angles must be positive")
        self.max_chars, self.max_angles = max_chars, max_angles

    def run(self, state: SearchState) -> SearchState:
        distinct = distinct_angles(state.query)
        merged = merge_extra_angles(distinct, self.max_angles)
        notes = []  # a limit that changes the brief is said, never silent
        if len(merged) < len(distinct):
            notes.append(f"a brief has at most {self.max_angles} angles; angles {self.max_angles} to "
                         f"{len(distinct)} were searched together as one")
        if any(len(a) > self.max_chars for a in merged):
            notes.append(f"an angle is searched on its first {self.max_chars:,} characters; the rest was left out")
        return replace(state, angles=tuple(clean_angle(a, self.max_chars) for a in merged), angle_notes=tuple(notes))
