"""Spec step 03: a query is a string or a list of angles; each angle is cleaned and bounded."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from slidesearch.pipeline.state import SearchState

_WS = re.compile(r"\s+")
_CONTROL = re.compile(r"[\u0000-\u0008\u000b-\u001f\u007f]")


class EmptyQueryError(ValueError):
    """The query holds no searchable text (empty, whitespace, or only control characters)."""


def clean_angle(text: str, max_chars: int) -> str:
    """NFKC, control characters dropped, whitespace collapsed, cut at ``max_chars`` on a word boundary."""
    text = _WS.sub(" ", _CONTROL.sub(" ", unicodedata.normalize("NFKC", text))).strip()
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    space = cut.rfind(" ")
    return (cut[:space] if space > max_chars // 2 else cut).strip()


def split_angles(query: str | Sequence[str], max_chars: int, max_angles: int) -> tuple[str, ...]:
    """The cleaned, de-duplicated (case-insensitively) angles of a query; EmptyQueryError when none is left.

    Angles beyond ``max_angles`` are joined onto the last kept angle rather than dropped, so
    no words of the brief are lost; that angle is then cut like any other.
    """
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
        angle = _WS.sub(" ", _CONTROL.sub(" ", unicodedata.normalize("NFKC", item))).strip()
        if angle and angle.casefold() not in seen:
            seen.add(angle.casefold())
            angles.append(angle)
    if not angles:
        raise EmptyQueryError("the query is empty: type a few words describing the slides you want")
    if len(angles) > max_angles:
        angles = [*angles[: max_angles - 1], " ".join(angles[max_angles - 1 :])]
    return tuple(clean_angle(a, max_chars) for a in angles)


class NormaliseAngles:
    """03: one angle per topic of the brief, each cleaned and cut at the documented length limit."""

    name = "03 normalise angles"

    def __init__(self, max_chars: int, max_angles: int) -> None:
        if max_chars < 1 or max_angles < 1:
            raise ValueError("max_chars and max_angles must be positive")
        self.max_chars, self.max_angles = max_chars, max_angles

    def run(self, state: SearchState) -> SearchState:
        return replace(state, angles=split_angles(state.angles, self.max_chars, self.max_angles))
