"""What a slide is for in its deck: cover, agenda, section divider, closing, appendix, or content.

A role is read from the slide's layout, wording and position in the deck (the cover is a deck's
first slide with little body text; a divider is a title with almost nothing under it), so it
works for any ingested deck, whatever its layouts. The layout arrives as the content type ingest
gave the slide (``content_type.classify_content_type``): "section_header" for a section-header
layout, "title" for a title layout (or a slide with almost no body), so JSONL rows, which carry
their own content type, need no other field. Role slides are not answers: the cover
names the deck's subject in its title and so matches every brief about it, but a rep wants the
slides that say something. They are answers when the brief asks for one ("agenda slide",
"thank you slide"); ``asked_roles`` reads that from the brief. Pure functions of plain text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.text import ENGLISH_STOPWORDS, tokenize
from slidesearch.content_type import AGENDA_TITLE as _AGENDA
from slidesearch.sections import SectionTable

CONTENT = ""
ROLES = ("cover", "agenda", "divider", "closing", "appendix")

_CLOSING = re.compile(
    r"^\s*(thank(s| you)|questions|any questions|q\s*&\s*a|contact( us| details| information)?|get in touch|"
    r"let'?s talk|obrigad[oa]|(muchas )?gracias|(vielen )?danke?|merci|grazie|спасибо|سپاس|با تشکر|متشکرم)\b"
    # Scripts written without spaces: no word boundary after the word ("谢谢大家", "ありがとうございました").
    r"|^\s*(ありがとう|谢谢|謝謝|감사합니다)", re.IGNORECASE)
_APPENDIX = re.compile(r"^\s*(appendix|appendices|annex|back-?up( slides)?|supplementary)\b", re.IGNORECASE)
_SOURCES = re.compile(
    r"^\s*(sources?|bibliograph(y|ie)|works cited|further reading|citations|"
    r"(sources?|references?)\s*(&|and|/)\s*(links|references?|sources?|citations|further reading)|"
    r"referências( bibliográficas)?|referencias( bibliográficas)?|bibliografía|bibliografia|fuentes|fontes|"
    r"références( bibliographiques)?|quellen(verzeichnis)?|literaturverzeichnis|источники|литература|"
    r"منابع|参考文献|參考文獻)\s*:?\s*$", re.IGNORECASE)
"""A whole title line naming a deck's list of sources: back matter, filed with the appendix."""
_REFERENCES = re.compile(r"^\s*references?\s*:?\s*$", re.IGNORECASE)
"""A title "References" alone: in a sales deck it can be the client references (a proof slide, an answer), so it is
a list of sources only when its body cites like one (``_CITES``)."""
_CITES = re.compile(r"https?://|\bwww\.|\b[\w-]+\.(com|org|net|edu|gov|io|co|uk|de|fr|br|in|ir)\b|\b(19|20)\d\d\b|"
                    r"\bet al\b|\bdoi\b", re.IGNORECASE)
_COVER_BODY_WORDS = 16
_OPENING_BODY_WORDS = 40
"""A deck's slide 1 is its cover up to this many words: title, subtitle, the presenters' names and numbers, the
school and the term ("Customer Segmentation / Wonderful Wines of the World / four students with their student
numbers / NOVA Information Management School ... (Spring 2020/2021)" is 30). A library holding a sample of a
deck's slides (SlideVQA: slides 10 to 15) cannot tell its lowest slide opens the deck, so there a cover is
held to ``_COVER_BODY_WORDS``: 40 there made 13 topical briefs' content slides covers (docs/EXPERIMENT_LOG.md)."""
_COVER_DECK_SLIDES = 4
"""A deck this long opens with a cover; a two-slide handout's first slide is content."""
_DIVIDER_BODY_WORDS = 6
_TITLE, _SECTION_HEADER = "title", "section_header"
"""The content types a title layout and a section-header layout give a slide (and JSONL rows may carry)."""
_CLOSING_BODY_WORDS = 40

_ASKED = {
    "cover": re.compile(r"\b(cover|title) (slide|page)s?\b", re.IGNORECASE),
    "agenda": re.compile(r"\b(agenda|table of contents|contents slide|outline)\b", re.IGNORECASE),
    "divider": re.compile(r"\b(section (divider|header|break)s?|divider slides?)\b", re.IGNORECASE),
    "closing": re.compile(r"\b(thank[- ]you|closing|contact) (slide|page)s?\b|\bcontact details\b", re.IGNORECASE),
    "appendix": re.compile(r"\b(appendix|appendices|back-?up slides?|bibliography|(references|sources) (slide|page)s?)\b",
                           re.IGNORECASE),
}


_SHAPED_TYPES = frozenset({"table", "chart", "dashboard", "diagram"})
"""Content types read from a slide's shapes: a slide with a table, a chart or a diagram says something,
whatever its word count (a cover titled "... Case Study" is still a cover)."""
_DRAWN_TYPES = _SHAPED_TYPES - {"diagram"}
"""The shaped types a deck's first slide keeps whatever its word count. A "diagram" can be three text boxes
(``content_type``'s rule), which is what a cover is: title, subtitle, presenter ("ENERGY DRINK / MARKET
ANALYSIS / SQL Project / -VANSHITA MATHUR"); so a short first slide typed diagram is a cover."""


_PICTURED_WORDS = 3


def first_line(title: str, text: str) -> str:
    """The slide's heading line: its title's first line, or its text's when it has no title."""
    lines = (title or text).strip().splitlines()
    return lines[0] if lines else ""


def titled_picture(content_type: str, heading: str, pictured: str) -> bool:
    """A chart or screenshot pasted as a picture (a slide typed image) under a title that says what it shows: three
    content words or more in its heading ("Cutoff on Train Data for Logistic Regression"), and words in the picture
    (axis labels, figures, a screen's text: ``_PICTURED_WORDS`` or more read by OCR), not a divider's photo under
    "Our Approach"."""
    return (content_type == "image" and len(tokenize(heading, ENGLISH_STOPWORDS)) >= 3
            and len(pictured.split()) >= _PICTURED_WORDS)


def slide_role(title: str, text: str, number: int, first_number: int, deck_slides: int,
               content_type: str = "content", pictured: str = "") -> str:
    """The slide's role (one of ``ROLES``) or ``CONTENT`` (the empty string) for a slide that says something.

    ``number`` is its place in the deck, ``first_number`` the deck's first slide's and
    ``deck_slides`` how many the deck holds. Order: an agenda or appendix title (a list of sources is back matter:
    "Sources", "Bibliography", or "References" over URLs, years or "et al."); a closing title
    ("Thank you", "Questions?", "Contact us") over a short body; a section-header slide (a divider,
    whatever its wording); the first slide of a deck of four or more with a short body (under 40 words when
    it is slide 1, else under 16) or of the title type, and no table or chart (the cover: title, presenter,
    date; three text boxes typed "diagram" included; a table holding a title and a name, ``_laid_out_cover``);
    any other slide of such a deck whose body is a few words under a short title, with no content shape (a section
    divider).
    """
    heading = first_line(title, text)
    # Everything but the heading line is body: a title of several lines is a heading over the slide's words
    # ("Driving Factor: / Purpose / EDA Type: Multivariate Analysis / Graph Type: ..." above a pasted chart),
    # so such a slide is not read as a section divider.
    body_words = max(0, len(tokenize(title)) + len(tokenize(text)) - len(tokenize(heading)))
    if _AGENDA.search(heading):
        return "agenda"
    if _APPENDIX.search(heading) or _SOURCES.match(heading) or (
            _REFERENCES.match(heading) and _CITES.search(f"{title}\n{text}")):
        return "appendix"
    if _CLOSING.search(heading) and body_words < _CLOSING_BODY_WORDS:
        return "closing"
    if content_type == _SECTION_HEADER:
        return "divider"
    if deck_slides < _COVER_DECK_SLIDES or (content_type in _DRAWN_TYPES and not _laid_out_cover(
            content_type, heading, number, first_number, body_words)):
        return CONTENT
    if number == first_number and (body_words < (_OPENING_BODY_WORDS if number <= 1 else _COVER_BODY_WORDS)
                                   or content_type == _TITLE):
        return "cover"
    if content_type in _SHAPED_TYPES or titled_picture(content_type, heading, pictured):
        return CONTENT
    if body_words < _DIVIDER_BODY_WORDS and len(tokenize(heading)) <= 8:
        return "divider"
    return CONTENT


def _laid_out_cover(content_type: str, heading: str, number: int, first_number: int, body_words: int) -> bool:
    """A deck's slide 1 typed table whose heading is a phrase (3+ content words) over under ``_DIVIDER_BODY_WORDS``
    words: a title and a name set in a table for layout (realdecks "Proposta de uma metodologia para concepção de
    novos produtos e MVP" / "Lucas Bibiano Knaak"), a cover like any other. A table stating more, or a one-word
    heading over a few figures ("Revenue" / "EMEA APAC"), is content."""
    return (content_type == "table" and number == first_number and number <= 1 and body_words < _DIVIDER_BODY_WORDS
            and len(tokenize(heading, ENGLISH_STOPWORDS)) >= 3)


def deck_roles(titles: Sequence[str], texts: Sequence[str], numbers: Sequence[int], decks: Sequence[str],
               content_types: Sequence[str], pictured: Sequence[str] | None = None) -> list[str]:
    """``slide_role`` of every slide of a library (columns in any order; a deck's first slide is its lowest number)."""
    first: dict[str, int] = {}
    size: dict[str, int] = {}
    for deck, number in zip(decks, numbers, strict=True):
        first[deck] = min(first.get(deck, number), number)
        size[deck] = size.get(deck, 0) + 1
    words = pictured if pictured is not None else [""] * len(titles)
    return [slide_role(t, x, n, first[d], size[d], c, p)
            for t, x, n, d, c, p in zip(titles, texts, numbers, decks, content_types, words, strict=True)]


def asked_roles(angles: Sequence[str]) -> frozenset[str]:
    """The roles a brief asks for by name ("the agenda slide", "appendix", "thank you slide")."""
    return frozenset(role for role, pattern in _ASKED.items() if any(pattern.search(a) for a in angles))


# ------------------------------------------------------------ kinds of slide

_RESULTS_ASKED = re.compile(
    r"\b(results?|outcomes?|achievements?|proof points?|case[- ]?stud(y|ies)|success stor(y|ies))\b", re.IGNORECASE)
"""A brief that wants slides stating results: "results slide with accuracy numbers", "case study" (a case is
proven by what it achieved)."""
_RESULT_TITLE = re.compile(
    r"\b(results?|outcomes?|impact|benefits?|achievements?|performance|accuracy|value delivered|key findings)\b",
    re.IGNORECASE)
_OUTCOME = re.compile(
    r"\b(reduc|increas|cut|sav|grew|grow|improv|rais|lift|boost|halv|doubl|tripl|faster|fewer|lower|higher|"
    r"accura|achiev)\w*|\b(up|down) (by |to )?\d", re.IGNORECASE)
_FIGURE = re.compile(
    r"\d(?:[\d,.]*\d)?\s*(?:%|percent\b|per cent\b|x\b|k\b|m\b|mn\b|bn\b|million\b|billion\b)|[$€£]\s?\d"
    r"|\b0?\.\d{2,}\b", re.IGNORECASE)


def asks_for_results(angles: Sequence[str]) -> bool:
    """Whether the brief wants slides that state results ("results with numbers", "churn case study")."""
    return any(_RESULTS_ASKED.search(a) for a in angles)


def states_results(title: str, text: str) -> bool:
    """Whether the slide states a quantified outcome: a figure (%, $, 3x, 2.4M, 0.87) under a results title,
    or beside outcome wording ("reduced churn 18%", "accuracy of 0.91")."""
    if not _FIGURE.search(f"{title}\n{text}"):
        return False
    return bool(_RESULT_TITLE.search(title) or _OUTCOME.search(text))



_THEN_SLIDE = re.compile(r"^\W*(\w+\W+){0,2}?(slides?|pages?)\b", re.IGNORECASE)
"""A section's word followed, within two words, by "slide" or "page": "team slide", "capability slides"."""
_KIND_MAX_WORDS = 3
"""A brief of at most this many content words that names a section names a kind of slide ("our methodology",
"analyst recognition and awards"); a longer one uses the word as its topic ("how people get their news online"
names no team, "content marketing strategy frameworks" asks about frameworks, not for the methodology slide)."""


def _asked_as_kind(angle: str, pattern: re.Pattern[str]) -> bool:
    if len(tokenize(angle, ENGLISH_STOPWORDS)) <= _KIND_MAX_WORDS:
        return pattern.search(angle) is not None
    return any(_THEN_SLIDE.search(angle[m.end():]) for m in pattern.finditer(angle))


def asked_kinds(angle: str, table: SectionTable) -> list[str]:
    """The sections the angle asks for as a kind of slide, not as a topic: a section's ask followed by "slide" or
    "page" ("a team slide", not "slides on employee recognition"), or any section's ask in a brief of a few words."""
    return [s.name for s in table.sections if _asked_as_kind(angle, s.ask)]


def asks_for_results_slides(angles: Sequence[str]) -> bool:
    """Whether the brief asks for results slides as a kind of slide ("results slide with accuracy numbers", "case
    study results"), the way ``asked_kinds`` reads a section; "Lumcrest Retail case studies" asks for a client's."""
    return any(_asked_as_kind(a, _RESULTS_ASKED) for a in angles)
