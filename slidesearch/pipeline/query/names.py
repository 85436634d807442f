"""Spec step 06b: is the query naming something specific? Three deterministic rarity detectors.

1. Word: a non-generic query word found in 1..T slides.
2. Person: only when the query says profile / resume / bio / "who is <Name>", the capitalised name
   spans in it. The first word's capital is grammar, not evidence, so a span starting at
   the first word counts only when it runs on into a second capitalised word
   ("Anand S profile" -> "anand s"; "Who is Naveen Gattu" -> "naveen gattu"). Person names
   are not rarity-gated: a co-founder can appear in hundreds of slides (seed).
3. Phrase: adjacent 2-3-word phrases of non-generic words found in 1..T slides
   ("capital call reporting": no rare word, but "capital call" is in 50 of 122,623).

T is ``core.rarity.scaled_threshold`` (300 at 122,623 slides, about 0.24%). Every term
found widens the pool (06), earns the entity factor (08) and may claim the
guaranteed slot (14b).

In a topical brief (07a's reading: not a factoid question, a few words), detector 1 keeps only
words that look like names: a word the encoder's vocabulary lacks whole (an invented or foreign
name, "initech"), one the brief capitalises past its first word, or one the slides write as a name
("with Shell"); a profile / bio / "who is" brief keeps them all. In a library of a few hundred
slides T is 2, so a paraphrase's ordinary words ("why junior engineers are quitting the electricity
producer") are "rare" by count alone, and their matches are chance: on the real decks none of the
paraphrased briefs' rare words was on a relevant slide.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from core.embed import encoder_words
from core.rarity import DocFreqTable
from core.text import ENGLISH_STOPWORDS, ngrams, stoplist, tokenize
from slidesearch.library.view import LibraryView
from slidesearch.pipeline.state import SearchState

GENERIC = stoplist()
PERSON_TRIGGER = re.compile(r"\b(?i:profiles?|resumes?|r[eé]sum[eé]s?|bios?|biograph(?:y|ies)|cv)\b|"
                            r"\b(?i:who)(?:\s+(?i:is|are|was|were)|['’](?i:s))\s+[A-Z]")
"""A brief that asks about a person: profile / resume / bio / CV wording, or "who is" followed by a capitalised
word ("who is Naveen Gattu"; "who is winning India's election on social media" asks about a topic)."""
_TRIGGER_WORDS = frozenset({"profile", "profiles", "resume", "resumes", "résumé", "bio", "bios", "biography",
                            "who", "is", "cv", "of", "the"})
_WORD = re.compile(r"[^\W\d_][\w'’.\-]*", re.UNICODE)


def content_words(angle: str) -> list[str]:
    """The angle's words without English stopwords and generic business terms."""
    return tokenize(angle, GENERIC)


def rare_words(angle: str, table: DocFreqTable, threshold: int) -> list[str]:
    """Detector 1: non-generic words in 1..threshold slides."""
    return table.rare_terms(content_words(angle), threshold)


def name_like_words(angle: str, words: list[str], written_as_name: Callable[[str], bool] | None = None) -> list[str]:
    """The ``words`` (detector 1's finds in ``angle``) that look like names rather than ordinary English.

    A name is a word the encoder's vocabulary does not hold whole ("initech", "telefonía"), one the
    angle writes with a capital past its first word ("pitch for Drake"; the first word's capital is
    grammar), or one the slides themselves write as a name (``written_as_name``: "shell case studies"
    in a library that says "we worked with Shell").
    """
    common = encoder_words()
    capitalised = {w.lower().strip(".'’-") for w in _WORD.findall(angle)[1:] if w[:1].isupper()}
    return [w for w in words
            if w not in common or w in capitalised or (written_as_name is not None and written_as_name(w))]


def written_as_a_name(word: str, texts: Iterable[str]) -> bool:
    """Whether ``texts`` write ``word`` as a name: capitalised after a lower-case word ("worked with Shell on")
    at least once, and at least as often as in lower case ("a shell script"). Title Case lines do not count
    (the word before is capitalised too), nor does a sentence's first word."""
    named = re.compile(rf"\b[a-z][\w'’\-]*,?[ \t]+{re.escape(word[:1].upper() + word[1:])}\b")
    plain = re.compile(rf"\b{re.escape(word)}\b")
    as_name = as_word = 0
    for text in texts:
        as_name += len(named.findall(text))
        as_word += len(plain.findall(text))
    return as_name > 0 and as_name >= as_word


def rare_phrases(angle: str, table: DocFreqTable, threshold: int) -> list[str]:
    """Detector 3: adjacent 2-3-word phrases of non-generic words in 1..threshold slides.

    Adjacency is counted after English stopwords are dropped, as in the library's phrase
    table ("payment of the capital call" holds "capital call"); a phrase with a generic
    business word in it is skipped.
    """
    spans = ngrams(tokenize(angle, ENGLISH_STOPWORDS), (2, 3))
    return table.rare_terms((p for p in spans if not set(p.split()) & GENERIC), threshold)


def person_names(angle: str) -> list[str]:
    """Detector 2: capitalised name spans, only when the query asks for a profile / bio / resume / who is."""
    if not PERSON_TRIGGER.search(angle):
        return []
    words = [w.rstrip(".,;:!?") for w in _WORD.findall(angle)]
    spans: list[list[tuple[int, str]]] = [[]]
    for i, word in enumerate(words):
        if word and word[0].isupper() and word.lower() not in _TRIGGER_WORDS:
            spans[-1].append((i, word))
        elif spans[-1]:
            spans.append([])
    names: list[str] = []
    for span in spans:
        if not span or (span[0][0] == 0 and len(span) == 1):
            continue
        name = " ".join(tokenize(" ".join(w for _, w in span)))
        if name and name not in names:
            names.append(name)
    return names


class DetectNames:
    """06b: union of the three detectors over every angle, plus the in-scope slides that literally match."""

    name = "06b detect names"
    reads: ClassVar[frozenset[str]] = frozenset({"angles", "universes"})
    writes: ClassVar[frozenset[str]] = frozenset({"entity_terms", "entity_rows"})
    output: ClassVar[str | None] = None

    def __init__(self, view: LibraryView, rarity_threshold: int, brief: Callable[[str], bool] | None = None) -> None:
        """``rarity_threshold`` is T: a term in 1..T slides is rare (``core.rarity.scaled_threshold``).

        ``brief`` tells a topical brief (07a's ``not Fusion.plain_blend``), whose rare single words count only
        when they look like names (``name_like_words``); None counts every rare word (the seed's rule).
        """
        if rarity_threshold < 1:
            raise ValueError(f"the rarity threshold must be at least 1, got {rarity_threshold}")
        self.view, self.threshold, self.brief = view, rarity_threshold, brief

    def run(self, state: SearchState) -> SearchState:
        table, threshold, view = self.view.rarity, self.threshold, self.view
        literal: dict[str, NDArray[np.int64]] = {}

        def rows_of(term: str) -> NDArray[np.int64]:
            """``view.literal_rows`` once per term: the name check and the matches below both read them."""
            if term not in literal:
                literal[term] = view.literal_rows(term)
            return literal[term]

        def written_as_name(word: str) -> bool:
            return written_as_a_name(word, (f"{view.titles[r]}\n{view.texts[r]}" for r in rows_of(word).tolist()))

        terms: list[str] = []
        for angle in state.angles:
            people = person_names(angle)
            # A part of a person's name is not an entity of its own: "tomas" must not boost every Tomas.
            parts = {w for name in people for w in name.split()}
            words = rare_words(angle, table, threshold)
            if self.brief is not None and self.brief(angle) and not PERSON_TRIGGER.search(angle):
                # A profile / bio / "who is" brief's words are names however it writes them.
                words = name_like_words(angle, words, written_as_name)
            rare = [t for t in (*words, *rare_phrases(angle, table, threshold)) if not set(t.split()) <= parts]
            for term in (*people, *rare):
                if term not in terms:
                    terms.append(term)
        if not terms:
            return state
        scope = view.scope_mask(state.universes)
        rows: set[int] = set()
        kept: list[str] = []
        for term in terms:
            matches = [r for r in rows_of(term).tolist() if scope[r]]
            if matches:
                kept.append(term)
                rows.update(matches)
        return replace(state, entity_terms=tuple(kept), entity_rows=frozenset(rows))


def entity_row_array(state: SearchState) -> NDArray[np.int64]:
    return np.fromiter(sorted(state.entity_rows), dtype=np.int64, count=len(state.entity_rows))
