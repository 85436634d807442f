"""The passage of a slide that matched a brief: what its card previews instead of the slide's first 200 characters.

A slide's opening is often its title repeated or a subtitle; the line that holds the brief's
words is the one a rep needs to see to judge the card. Lines are scored by how many distinct
query words (as the lexical index analyses them: stemmed, stop words dropped) they hold;
the preview starts at the best line and runs to 200 characters. ``marks`` are the words of
the preview that match the query, for the page to highlight. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from slidesearch.model import PREVIEW_CHARS, preview

_LINE = re.compile(r"[^\n]+")
_WORD = re.compile(r"[^\W_]+")

Analyse = Callable[[str], list[str]]


def matched_passage(document: str, angles: Sequence[str], analyse: Analyse) -> tuple[str, list[str]]:
    """(preview, marks): the 200 characters from the line holding most query words, and those words as written.

    With no line holding a query word (a card found by meaning alone) the preview is the
    slide's opening, as before, and there is nothing to mark.
    """
    wanted = {t for angle in angles for t in analyse(angle)}
    lines = _LINE.findall(document)
    if not wanted or not lines:
        return preview(document), []
    hits = [len(wanted.intersection(analyse(line))) for line in lines]
    best = max(range(len(lines)), key=lambda i: (hits[i], -i))
    if hits[best] == 0:
        return preview(document), []
    text = preview("\n".join(lines[best:]))[:PREVIEW_CHARS]
    marks: list[str] = []
    for word in _WORD.findall(text):
        if word not in marks and wanted.intersection(analyse(word)):
            marks.append(word)
    return text, marks
