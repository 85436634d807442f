"""The slide library's data model and the values derived from it at load.

A slide belongs to a deck file in a folder of a universe (DAAIS, S&R, EdTech).
Everything the pipeline keys on besides the raw fields is derived here, once,
by pure functions: the 600-character indexed snippet and the 200-character card
preview (spec, "The data"), the canonical deck id that folds draft and version
copies into one deck (spec step 11), and the section of every slide under the
default section table (``slidesearch.sections``; a library built with another
table assigns sections with that one).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from core.text import normalise
from slidesearch.content_type import filed_type
from slidesearch.sections import DEFAULT_SECTIONS

_UNIVERSE_ALIASES: dict[str, str] = {
    "daais": "DAAIS",
    "s&r": "S&R",
    "s_r": "S&R",
    "s-r": "S&R",
    "sales & research": "S&R",
    "sales and research": "S&R",
    "edtech": "EdTech",
    "ed tech": "EdTech",
}

SNIPPET_CHARS = 600
PREVIEW_CHARS = 200


def section_for(content_type: str, title: str, text: str) -> str:
    """The section a slide belongs to under the default table (``slidesearch.sections.DEFAULT_SECTIONS``)."""
    return DEFAULT_SECTIONS.section_for(content_type, title, text)


_EXTENSION = re.compile(r"\.(pptx?|pdf|key|odp)$", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s_\-.()\[\]]+")
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
_VERSION_TOKEN = re.compile(
    r"^(v\d+[a-z]?|version\d*|vfinal\d*|final\d*|finalv?\d*|draft\d*|copy|latest|updated|rev\d*|r\d+|wip|"
    r"new|old|edited|clean|(19|20)\d{2}(0[1-9]|1[0-2])([0-3]\d)?|\d{1,2}(0[1-9]|1[0-2])(19|20)\d{2}|"
    rf"(19|20)\d{{2}}|{_MONTHS}|[0-3]?\d(st|nd|rd|th))$",
    re.IGNORECASE,
)


def canonical_deck_id(deck_name: str) -> str:
    """One id for every draft and version of a deck: lower-case words with version and date markers stripped.

    Strips the extension, then every trailing or embedded token that marks a copy rather
    than a different deck: V1, v2, vFinal, final, draft, copy, "copy of", "(1)", latest,
    rev3, and dates (20251012, 2025, Oct). "Hi-Tech_and_Consulting_20251012.pptx"
    and "Hi-Tech and Consulting vFinal.pptx" both give "hi tech and consulting". If
    stripping would leave nothing, the name's own words are kept.
    """
    stem = _EXTENSION.sub("", deck_name.strip())
    stem = re.sub(r"^copy of\s+", "", stem, flags=re.IGNORECASE)
    stem = re.sub(r"\(\d+\)", " ", stem)
    words = [w for w in _SEPARATORS.split(stem.lower()) if w]
    kept = [w for w in words if not _VERSION_TOKEN.match(w)]
    return " ".join(kept or words)


FAMILY_SIMILARITY = 0.5
"""Least Jaccard overlap of two decks' word sets for same-named decks in different folders to be one family."""


def deck_families(decks: Sequence[tuple[str, str, str, frozenset[str]]]) -> dict[str, str]:
    """Each deck's family: its versions of one deck, not every deck that happens to share a file name.

    ``decks`` holds (deck_id, deck name, folder, the deck's words). Two decks are one family
    when their names give the same ``canonical_deck_id`` and they sit in the same folder, or
    their words overlap by ``FAMILY_SIMILARITY`` (a copy moved elsewhere). Five unrelated
    "Case Study.pptx" files in five project folders stay five decks. A family's id is its
    canonical name, with the folder of its first member added when other families share the name.
    """
    by_name: dict[str, list[int]] = {}
    for i, (_, name, _, _) in enumerate(decks):
        by_name.setdefault(canonical_deck_id(name), []).append(i)
    family: dict[str, str] = {}
    for name, members in by_name.items():
        parent = {i: i for i in members}
        for a_pos, a in enumerate(members):
            for b in members[a_pos + 1:]:
                ra, rb = _root(parent, a), _root(parent, b)
                if ra != rb and _same_deck(decks[a], decks[b]):
                    parent[rb] = ra
        roots = {_root(parent, i) for i in members}
        for i in members:
            family[decks[i][0]] = name if len(roots) == 1 else f"{name} @ {decks[_root(parent, i)][2]}"
    return family


def _root(parent: dict[int, int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _same_deck(a: tuple[str, str, str, frozenset[str]], b: tuple[str, str, str, frozenset[str]]) -> bool:
    if a[2] == b[2]:
        return True
    union = len(a[3] | b[3])
    return bool(union) and len(a[3] & b[3]) / union >= FAMILY_SIMILARITY


_WHITESPACE = re.compile(r"\s+")


def _cut(text: str, limit: int) -> str:
    return _WHITESPACE.sub(" ", text).strip()[:limit]


def snippet(text: str) -> str:
    """The indexed snippet: the first 600 characters of the text, whitespace collapsed (spec, "The data")."""
    return _cut(text, SNIPPET_CHARS)


def preview(text: str) -> str:
    """The card preview: the first 200 characters of the text, whitespace collapsed."""
    return _cut(text, PREVIEW_CHARS)


def slide_document(title: str, text: str) -> str:
    """Title followed by the body, without repeating a title the body already starts with."""
    if not title:
        return text
    if normalise(text).startswith(normalise(title)):
        return text
    return f"{title}\n{text}" if text else title


#: Slide fields searched besides the title and typed body, in the order a search document holds them,
#: each with where a card says a match in it was found. JSONL rows without them keep "" (not searched).
FOUND_IN: dict[str, str] = {
    "notes": "the speaker notes",
    "smartart_text": "a SmartArt diagram on this slide",
    "chart_text": "a chart on this slide",
    "picture_text": "a picture on this slide",
}


def search_document(title: str, text: str, extra: Sequence[str] = ()) -> str:
    """What a slide is searched by: title and typed body (``slide_document``), then its other texts (``FOUND_IN``)."""
    head = slide_document(title, text)
    tail = [t for t in extra if t]
    return "\n".join([head, *tail]) if head and tail else head or "\n".join(tail)


def card_preview(title: str, text: str, searched: str) -> str:
    """The card preview: the typed text when the slide has any, else the start of what it is searched by."""
    return preview(slide_document(title, text)) if text else preview(searched)


def universe_for(folder: str, given: str | None = None) -> str:
    """The slide's universe: the one given, else the folder's top component (known aliases folded)."""
    candidate = (given or "").strip()
    if not candidate:
        parts = [p for p in folder.replace("\\", "/").split("/") if p]
        candidate = parts[0] if parts else ""
    if not candidate:
        return "Library"
    return _UNIVERSE_ALIASES.get(candidate.lower(), candidate)


def normalise_folder(folder: str) -> str:
    """A folder path with forward slashes, one leading slash and no trailing slash ("/" for the root).

    A "." component means the folder itself (a file at the top of an ingested folder has parent "."),
    so it is dropped: such a file is in "/", not in a folder named ".".
    """
    parts = [p for p in folder.replace("\\", "/").split("/") if p and p != "."]
    return "/" + "/".join(parts)


def deck_id_for(rel: Path) -> str:
    """A deck file's id from its path under the ingested root: a readable slug plus a hash of the exact path.

    The hash keeps "Q3 plan.pptx" and "Q3-plan.pptx" (one slug) apart.
    """
    slug = re.sub(r"[^0-9A-Za-z]+", "-", str(rel.with_suffix(""))).strip("-").lower() or "deck"
    return f"{slug}-{hashlib.sha1(str(rel).encode()).hexdigest()[:6]}"


Folder = Annotated[str, AfterValidator(normalise_folder)]
"""A folder path as every model stores it: normalised by ``normalise_folder``."""


def decimal_year(day: date | None) -> float:
    """A date as a decimal year (2025-07-02 -> about 2025.5); NaN when unknown."""
    if day is None:
        return float("nan")
    start = date(day.year, 1, 1)
    length = (date(day.year + 1, 1, 1) - start).days
    return day.year + (day - start).days / length


class Slide(BaseModel):
    """One slide: the JSONL schema of the library. Derived values are properties, not stored fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    slide_id: str = Field(min_length=1)
    deck_id: str = Field(min_length=1)
    deck_name: str = ""
    folder: Folder = "/"
    slide_number: int = Field(default=1, ge=0)
    title: str = ""
    text: str = ""
    content_type: str = "content"
    universe: str = ""
    deck_date: date | None = None
    source_path: str | None = None
    notes: str = ""
    smartart_text: str = ""
    chart_text: str = ""
    picture_text: str = Field(default="", description="Text read from the slide's pictures by OCR.")
    source_format: str = Field(default="", description="The file format the slide came from (pptx, pdf, ppt...).")

    @field_validator("content_type")
    @classmethod
    def _lower_type(cls, value: str) -> str:
        return (value or "content").strip().lower() or "content"

    @model_validator(mode="after")
    def _derive_universe(self) -> Slide:
        object.__setattr__(self, "universe", universe_for(self.folder, self.universe))
        return self

    @property
    def document(self) -> str:
        return slide_document(self.title, self.text)

    @property
    def search_document(self) -> str:
        return search_document(self.title, self.text, [getattr(self, name) for name in FOUND_IN])

    @property
    def snippet(self) -> str:
        return snippet(self.search_document)

    @property
    def preview(self) -> str:
        return card_preview(self.title, self.text, self.search_document)

    @property
    def canonical_deck_id(self) -> str:
        return canonical_deck_id(self.deck_name or self.deck_id)

    @property
    def pictured_text(self) -> str:
        """The words the slide's SmartArt, charts and pictures show (not its notes): what ``filed_type`` reads."""
        return "\n".join(t for t in (self.smartart_text, self.chart_text, self.picture_text) if t)

    @property
    def filed_type(self) -> str:
        """The content type its section is read from (``content_type.filed_type``: a pictured chart is data)."""
        return filed_type(self.content_type, self.text, self.pictured_text)

    @property
    def section(self) -> str:
        return section_for(self.filed_type, self.title, self.text)


class Deck(BaseModel):
    """One deck file: where it lives, when it was made and how many slides it holds."""

    model_config = ConfigDict(extra="forbid")

    deck_id: str = Field(min_length=1)
    deck_name: str = ""
    folder: Folder = "/"
    universe: str = ""
    deck_date: date | None = None
    n_slides: int = 0
    source_path: str | None = None

    @property
    def canonical_deck_id(self) -> str:
        return canonical_deck_id(self.deck_name or self.deck_id)


VERIFIED_PREFIX = "verified:"
"""A verified master-sheet row's card id is this prefix and its row id (``verified:M0001``)."""


class VerifiedCaseStudy(BaseModel):
    """One row of the hand-verified master case-study sheet."""

    model_config = ConfigDict(extra="ignore")

    row_id: str = Field(min_length=1)
    client: str = ""
    use_case: str = ""
    title: str = ""
    summary: str = ""
    universe: str | None = Field(default=None, description=(
        "The universe the row belongs to; a scoped search shows it only in that scope. None: company-wide, "
        "shown in every scope (a master sheet without a universe column)."))

    @field_validator("row_id", mode="before")
    @classmethod
    def _id_as_text(cls, value: object) -> str:
        return str(value).strip()

    @property
    def card_id(self) -> str:
        """The id of this row's card in a response (``verified:<row_id>``)."""
        return f"{VERIFIED_PREFIX}{self.row_id}"

    @property
    def document(self) -> str:
        """What the master sheet is searched by: title, client, use case and summary."""
        head = " | ".join(part for part in (self.title, self.client, self.use_case) if part)
        return f"{head}\n{self.summary}".strip()
