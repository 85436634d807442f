"""Spec step 16: distinctive query words with no literal occurrence anywhere in the library get a note.

In a scoped search, words the library holds only outside the searched universes are named
too, and a query with no words at all ("😀", "?") is said to be answered by meaning alone.
So is an answer none of whose cards states any of the brief's topic words although the library
holds them apart ("wind farm project financing" over decks that say "wind", "farm" and
"financing" only on unrelated slides): every card then matched by meaning, and the rep is told.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from core.lexical import BM25Index
from core.rarity import DocFreqTable
from core.text import stoplist, tokenize
from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import SearchState

#: Words that shape a request rather than name its topic ("without case studies", "show me").
REQUEST_WORDS = ("without", "excluding", "exclude", "except", "skip", "skipping", "omit", "also", "me", "list",
                 "get", "like", "similar", "any", "latest", "recent", "good", "best", "relevant", "pitch")
GENERIC = stoplist(REQUEST_WORDS)
_WORD = re.compile(r"\w+", re.UNICODE)


def distinctive_words(angles: tuple[str, ...]) -> list[str]:
    """The words of the angles that name a topic (any script; generic and request words skipped), in order, once."""
    out: list[str] = []
    for angle in angles:
        for word in _WORD.findall(angle.lower()):
            if word in GENERIC or len(word) < 2 or word in out:
                continue
            tokens = tokenize(word)
            if tokens and all(t in GENERIC for t in tokens):
                continue
            out.append(word)
    return out


def uncovered_terms(angles: tuple[str, ...], table: DocFreqTable, lexical: BM25Index | None = None) -> list[str]:
    """Distinctive words (any script, generic terms skipped) that no slide contains.

    A word in a script the tokenizer does not index (e.g. Japanese) cannot occur in the
    word table, so it is reported: nothing matched it literally. With a stemming BM25 index
    (``lexical``) a word whose stem some slide holds is covered: "hospitals" is no gap in a
    library of "hospital" slides, and the lexical voter already matches the two.
    """
    out: list[str] = []
    for word in distinctive_words(angles):
        tokens = tokenize(word)
        if not tokens or any(table.df(t) == 0 for t in tokens):
            if lexical is not None and lexical.stemmer and _stem_known(word, lexical):
                continue
            out.append(word)
    return out


#: Words a slide states with a symbol rather than spells out: "$2.4M" covers "dollar", "18%" covers "percent".
SYMBOL_WORDS: dict[str, re.Pattern[str]] = {
    word: pattern
    for words, pattern in (
        (("dollar", "dollars", "usd"), re.compile(r"(?:US)?\$\s?\d")),
        (("euro", "euros", "eur"), re.compile(r"€\s?\d|\d\s?€")),
        (("pound", "pounds", "gbp", "sterling"), re.compile(r"£\s?\d")),
        (("yen", "jpy"), re.compile(r"[¥￥]\s?\d|\d\s?円")),
        (("percent", "percentage", "percentages", "pct"), re.compile(r"\d\s?%")),
    )
    for word in words
}


def written_in_slides(words: list[str], texts: Sequence[str]) -> set[str]:
    """Of ``words``, those some slide states by its symbol ("$2.4M" for "dollar", "18%" for "percent")."""
    found = set()
    for word in words:
        pattern = SYMBOL_WORDS.get(word)
        if pattern is not None and any(pattern.search(t) for t in texts):
            found.add(word)
    return found


def absent_in_scope(words: list[str], lexical: BM25Index, scope: NDArray[np.bool_]) -> list[str]:
    """Of ``words`` (each held somewhere in the library), those no slide inside ``scope`` holds."""
    out = []
    for word in words:
        tokens = lexical.analyse(word)
        if tokens and not all(bool(scope[lexical.rows_with(t)].any()) for t in tokens):
            out.append(word)
    return out


def stated_in(word: str, text: str, lexical: BM25Index | None, text_stems: set[str] | None = None) -> bool:
    """Whether the lower-cased ``text`` states ``word``: as a whole word, by its stem, or by its symbol ("$2.4M").

    A word of a script written without spaces (Japanese, Chinese) is stated when it occurs anywhere.
    ``text_stems`` is ``lexical.analyse(text)`` as a set, when the caller tests many words on one text.
    """
    if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text) or (_unspaced(word) and word in text):
        return True
    pattern = SYMBOL_WORDS.get(word)
    if pattern is not None and pattern.search(text):
        return True
    if lexical is None:
        return False
    stems = lexical.analyse(word)
    return bool(stems) and set(stems) <= (text_stems if text_stems is not None else set(lexical.analyse(text)))


def _unspaced(word: str) -> bool:
    return any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in word)


def _stem_known(word: str, lexical: BM25Index) -> bool:
    stems = lexical.analyse(word)
    return bool(stems) and all(lexical.knows(t) for t in stems)


def coverage_note(terms: Sequence[str], scoped: Sequence[str] = (), universes: Sequence[str] = ()) -> str | None:
    """The note for words the library never uses, and for words it uses only outside the searched universes."""
    parts = []
    if terms:
        parts.append(f"nothing in the library uses that exact wording ({_quoted(terms)})")
    if scoped:
        parts.append(f"nothing in {', '.join(universes)} uses {_quoted(scoped)} (other universes do)")
    if not parts:
        return None
    return f"{'; '.join(parts)}; showing the closest related material"


def _quoted(terms: Sequence[str]) -> str:
    return " or ".join(f'"{t}"' for t in terms)


NO_WORDS_NOTE = "the query holds no words to match literally; showing the closest material by meaning"


def unstated_note(words: Sequence[str]) -> str:
    """The note for an answer none of whose cards states any of ``words`` (each held elsewhere in the library)."""
    return f"no card shown uses {_quoted(words)}; showing the closest related material by meaning"


class CoverageCheck:
    """16: tells a genuine gap in the library apart from a ranking miss."""

    name = "16 coverage check"
    reads: ClassVar[frozenset[str]] = frozenset({"angles", "universes", "groups"})
    writes: ClassVar[frozenset[str]] = frozenset({"uncovered_terms", "coverage_note"})
    output: ClassVar[str | None] = None

    def __init__(self, view: LibraryView) -> None:
        self.view = view

    def run(self, state: SearchState) -> SearchState:
        view = self.view
        terms = uncovered_terms(state.angles, view.rarity, view.bm25)
        if terms:  # the index's words miss currency and percent symbols; read the slides' own text for those
            lowered = view.lowered_documents
            held = written_in_slides(terms, lowered)
            terms = [t for t in terms if t not in held]
        scoped: list[str] = []
        if state.universes:
            known = [w for w in distinctive_words(state.angles) if w not in terms]
            scoped = absent_in_scope(known, view.bm25, view.scope_mask(state.universes))
        # Never name a word a shown card states (a verified row's words are not indexed).
        shown = self._shown_texts(state)
        stems: dict[int, set[str] | None] = {}  # each card's stems, analysed once and only when a word needs them

        def card_stems(i: int) -> set[str] | None:
            if i not in stems:
                stems[i] = set(view.bm25.analyse(shown[i])) if view.bm25 else None
            return stems[i]

        def on_a_card(word: str) -> bool:
            return any(stated_in(word, text, view.bm25, card_stems(i)) for i, text in enumerate(shown))

        terms = [t for t in terms if not on_a_card(t)]
        scoped = [t for t in scoped if not on_a_card(t)]
        note = coverage_note(terms, scoped, state.universes or ())
        if note is None and not any(_WORD.search(angle) for angle in state.angles):
            note = NO_WORDS_NOTE  # "😀" or "?": nothing literal to match, so say the answer is by meaning
        if note is None and shown:
            words = distinctive_words(state.angles)
            if words and not any(on_a_card(w) for w in words):
                note = unstated_note(words)
        return replace(state, uncovered_terms=tuple([*terms, *scoped]), coverage_note=note)

    def _shown_texts(self, state: SearchState) -> list[str]:
        """The lower-cased text of every card in the answer: the slide's searched document, or the verified row's."""
        cards = [c for group in (state.groups or {}).values() for c in group]
        return [self.view.lowered_documents[c.row] if c.row >= 0 else self.view.master[c.master].document.lower()
                for c in cards]
