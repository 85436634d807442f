"""Spec step 16: distinctive query words with no literal occurrence anywhere in the library get a note."""

from __future__ import annotations

import re
from dataclasses import replace

from core.lexical import BM25Index
from core.rarity import DocFreqTable
from core.text import stoplist, tokenize
from slidesearch.pipeline.context import SearchContext
from slidesearch.pipeline.state import SearchState

#: Words that shape a request rather than name its topic ("without case studies", "show me").
REQUEST_WORDS = ("without", "excluding", "exclude", "except", "skip", "skipping", "omit", "also", "me", "list",
                 "get", "like", "similar", "any", "latest", "recent", "good", "best", "relevant", "pitch")
GENERIC = stoplist(REQUEST_WORDS)
_WORD = re.compile(r"\w+", re.UNICODE)
COVERAGE_NOTE = "nothing in the library uses {terms}; showing the closest related material"


def uncovered_terms(angles: tuple[str, ...], table: DocFreqTable, lexical: BM25Index | None = None) -> list[str]:
    """Distinctive words (any script, generic terms skipped) that no slide contains.

    A word in a script the tokenizer does not index (e.g. Japanese) cannot occur in the
    word table, so it is reported: nothing matched it literally. With a stemming BM25 index
    (``lexical``) a word whose stem some slide holds is covered: "hospitals" is no gap in a
    library of "hospital" slides, and the lexical voter already matches the two.
    """
    out: list[str] = []
    for angle in angles:
        for word in _WORD.findall(angle.lower()):
            if word in GENERIC or len(word) < 2 or word in out:
                continue
            tokens = tokenize(word)
            if tokens and all(t in GENERIC for t in tokens):
                continue
            if not tokens or any(table.df(t) == 0 for t in tokens):
                if lexical is not None and lexical.stemmer and _stem_known(word, lexical):
                    continue
                out.append(word)
    return out


def _stem_known(word: str, lexical: BM25Index) -> bool:
    stems = lexical.analyse(word)
    return bool(stems) and all(lexical.knows(t) for t in stems)


def coverage_note(terms: list[str]) -> str | None:
    if not terms:
        return None
    quoted = " or ".join(f'"{t}"' for t in terms)
    return COVERAGE_NOTE.format(terms=f"that exact wording ({quoted})")


class CoverageCheck:
    """16: tells a genuine gap in the library apart from a ranking miss."""

    name = "16 coverage check"

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def run(self, state: SearchState) -> SearchState:
        terms = uncovered_terms(state.angles, self.context.library.rarity, self.context.library.bm25)
        return replace(state, uncovered_terms=tuple(terms), coverage_note=coverage_note(terms))
