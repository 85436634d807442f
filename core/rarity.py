"""Document-frequency tables over words and 2-3-word phrases, IDF variants and rarity lookups.

Rarity is what both engines key on: SlideSearch detects a client or person
name by how few slides contain it; Ten Turns weights a requirement phrase by
the mean IDF of its three rarest tokens (the "mean of the k rarest" rule).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from core.text import ngrams, tokenize


def idf_plus_one_smooth(n_docs: int, df: int) -> float:
    """log(1 + N / (1 + df)): always positive, finite for unseen terms (df = 0)."""
    return math.log(1.0 + n_docs / (1.0 + df))


def idf_robertson(n_docs: int, df: int) -> float:
    """Robertson-Sparck Jones log((N - df + 0.5) / (df + 0.5)); negative for terms in over half the docs."""
    return math.log((n_docs - df + 0.5) / (df + 0.5))


def idf_lucene(n_docs: int, df: int) -> float:
    """Lucene's log(1 + (N - df + 0.5) / (df + 0.5)); never negative."""
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def idf_classic(n_docs: int, df: int) -> float:
    """Textbook log(N / df), with unseen terms treated as df = 1."""
    return math.log(n_docs / max(df, 1))


IDF_VARIANTS: dict[str, Callable[[int, int], float]] = {
    "plus_one_smooth": idf_plus_one_smooth,
    "robertson": idf_robertson,
    "lucene": idf_lucene,
    "classic": idf_classic,
}


def idf_function(name: str) -> Callable[[int, int], float]:
    """The IDF variant called ``name``; an unknown name lists the valid ones."""
    try:
        return IDF_VARIANTS[name]
    except KeyError:
        raise ValueError(f"unknown IDF variant {name!r}; choose one of {', '.join(sorted(IDF_VARIANTS))}") from None


@dataclass
class DocFreqTable:
    """How many documents contain each word and each adjacent 2-3-word phrase."""

    n_docs: int = 0
    words: Counter[str] = field(default_factory=Counter)
    phrases: Counter[str] = field(default_factory=Counter)

    @classmethod
    def build(
        cls, texts: Iterable[str], phrase_sizes: Sequence[int] = (2, 3), stopwords: frozenset[str] = frozenset()
    ) -> DocFreqTable:
        """Count each word and phrase once per document. Phrases span only non-stopword tokens."""
        table = cls()
        for text in texts:
            table.add(text, phrase_sizes, stopwords)
        return table

    def add(self, text: str, phrase_sizes: Sequence[int] = (2, 3), stopwords: frozenset[str] = frozenset()) -> None:
        tokens = tokenize(text)
        self.n_docs += 1
        self.words.update(set(tokens))
        if phrase_sizes:
            content = [t for t in tokens if t not in stopwords] if stopwords else tokens
            self.phrases.update(set(ngrams(content, phrase_sizes)))

    def df(self, term: str) -> int:
        """Document frequency of a word, or of a phrase when ``term`` holds a space."""
        return self.phrases.get(term, 0) if " " in term else self.words.get(term, 0)

    def idf(self, term: str, variant: str = "plus_one_smooth") -> float:
        return idf_function(variant)(self.n_docs, self.df(term))

    def share(self, term: str) -> float:
        """Fraction of documents containing the term."""
        return self.df(term) / self.n_docs if self.n_docs else 0.0

    def is_rare(self, term: str, max_count: int | None = None, max_share: float | None = None) -> bool:
        """True when the term occurs in at least one document and in at most ``max_count`` / ``max_share``."""
        df = self.df(term)
        if df == 0:
            return False
        if max_count is not None and df > max_count:
            return False
        return not (max_share is not None and df / max(self.n_docs, 1) > max_share)

    def rare_terms(self, terms: Iterable[str], max_count: int) -> list[str]:
        """The terms (in input order, once each) that occur in 1..max_count documents."""
        seen: set[str] = set()
        out: list[str] = []
        for term in terms:
            if term not in seen and self.is_rare(term, max_count=max_count):
                seen.add(term)
                out.append(term)
        return out


def mean_k_rarest_idf(idfs: Sequence[float], k: int = 3) -> float:
    """Mean of the k largest IDFs (the k rarest tokens); the mean of all when fewer than k; 0 for none."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not idfs:
        return 0.0
    top = sorted(idfs, reverse=True)[:k]
    return sum(top) / len(top)


def scaled_threshold(n_docs: int, reference_count: int = 300, reference_docs: int = 122_623, floor: int = 3) -> int:
    """A rarity count threshold scaled with corpus size: 300 slides at 122,623 (about 0.24%), at least ``floor``."""
    return max(floor, round(reference_count * n_docs / reference_docs))
