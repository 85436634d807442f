"""Rarity-weighted phrase matching over a catalog: the Ten Turns agent's ranking core.

For a requirement phrase p with tokens T_p, the weight is the mean of its three
rarest token IDFs, w_p = mean_{t in R} log(1 + N / (1 + df(t))), R = the three
rarest of T_p, and a product d scores

    S(d) = sum_p w_p * m_p(d) + 0.3 * log(1 + n_d) / log(10^6)

with m_p(d) = 2.0 for a verbatim hit of p in d's searchable text, 1.5 for a
punctuation-insensitive hit, and 0.25 * |T_p ∩ d| / |T_p| otherwise; n_d is the
product's rating count (``shared/specs/tenturns.md``, "The agent", step 5).
"Verbatim" is read case- and whitespace-insensitively (both sides through
``core.text.normalise``): the shopper's phrases are lower-cased material words
and whitespace-collapsed feature text.

Everything that does not depend on the conversation is computed once per
catalog: the normalised and punctuation-insensitive texts, a binary
product-by-token matrix (scipy CSR) whose column sums are the catalog document
frequencies, and each shelf's own document frequencies on first use.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from core.rarity import idf_plus_one_smooth, mean_k_rarest_idf
from core.text import normalise, punctuation_insensitive
from tenturns.catalog import Catalog, searchable_text

VERBATIM = 2.0
PUNCTUATION_INSENSITIVE = 1.5
OVERLAP = 0.25
RARITY_K = 3
PRIOR_WEIGHT = 0.3
PRIOR_SCALE = math.log(1e6)
"""A million ratings is the prior's unit: the most-rated items in the catalog sit near 1."""

IDF_SCOPES = ("shelf", "catalog")


@dataclass(frozen=True)
class PhraseMatch:
    """How one phrase matched one product: the tier, the factor m_p(d) and the phrase weight w_p."""

    phrase: str
    weight: float
    tier: str
    factor: float

    @property
    def contribution(self) -> float:
        return self.weight * self.factor


@dataclass(frozen=True)
class Scored:
    """Scores of candidate rows (catalog order) and, per phrase, the factor each row earned."""

    rows: NDArray[np.int64]
    scores: NDArray[np.float64]
    prior: NDArray[np.float64]
    weights: tuple[float, ...]
    factors: tuple[NDArray[np.float64], ...]
    phrases: tuple[str, ...]

    def ranking(self) -> NDArray[np.int64]:
        """Positions into ``rows`` by descending score; ties keep catalog order so runs are reproducible."""
        return np.lexsort((self.rows, -self.scores)).astype(np.int64)

    def explain(self, position: int) -> list[PhraseMatch]:
        """The per-phrase breakdown of the score of ``rows[position]``."""
        out = []
        for phrase, weight, factors in zip(self.phrases, self.weights, self.factors, strict=True):
            factor = float(factors[position])
            tier = "verbatim" if factor == VERBATIM else "punctuation" if factor == PUNCTUATION_INSENSITIVE else "overlap"
            out.append(PhraseMatch(phrase, weight, tier, factor))
        return out


@dataclass
class PhraseIndex:
    """Per-catalog texts, token matrix and document frequencies for phrase scoring."""

    catalog: Catalog
    exact: list[str] = field(init=False)
    loose: list[str] = field(init=False)
    vocab: dict[str, int] = field(init=False)
    matrix: sparse.csr_matrix = field(init=False)
    catalog_df: NDArray[np.int64] = field(init=False)
    prior: NDArray[np.float64] = field(init=False)
    shelf_rows: dict[str, NDArray[np.int64]] = field(init=False)
    _shelf_df: dict[str, NDArray[np.int64]] = field(init=False, default_factory=dict)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        texts = [searchable_text(p) for p in self.catalog.products]
        self.exact = [normalise(t) for t in texts]
        self.loose = [punctuation_insensitive(t) for t in texts]
        vocab: dict[str, int] = {}
        indptr = [0]
        indices: list[int] = []
        for text in self.loose:
            ids = {vocab.setdefault(tok, len(vocab)) for tok in text.split()}
            indices.extend(sorted(ids))
            indptr.append(len(indices))
        self.vocab = vocab
        data = np.ones(len(indices), dtype=np.int8)
        self.matrix = sparse.csr_matrix(
            (data, np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
            shape=(len(texts), max(len(vocab), 1)),
        )
        self.catalog_df = np.asarray(self.matrix.sum(axis=0, dtype=np.int64)).ravel()
        counts = np.array([p.rating_number or 0 for p in self.catalog.products], dtype=np.float64)
        self.prior = PRIOR_WEIGHT * np.log1p(np.maximum(counts, 0.0)) / PRIOR_SCALE
        self.shelf_rows = {label: np.asarray(rows, dtype=np.int64) for label, rows in self.catalog.shelves.items()}

    def document_frequencies(self, shelf: str | None) -> tuple[int, NDArray[np.int64]]:
        """(N, df per token) over one shelf, or over the whole catalog when ``shelf`` is None."""
        if shelf is None:
            return len(self.exact), self.catalog_df
        with self._lock:
            df = self._shelf_df.get(shelf)
            if df is None:
                rows = self.shelf_rows[shelf]
                df = np.asarray(self.matrix[rows].sum(axis=0, dtype=np.int64)).ravel()
                self._shelf_df[shelf] = df
        return len(self.shelf_rows[shelf]), df

    def phrase_weight(self, phrase: str, n_docs: int, df: NDArray[np.int64]) -> float:
        """w_p: mean IDF of the phrase's three rarest tokens; unseen tokens count as df = 0."""
        tokens = set(punctuation_insensitive(phrase).split())
        idfs = [idf_plus_one_smooth(n_docs, int(df[self.vocab[t]]) if t in self.vocab else 0) for t in tokens]
        return mean_k_rarest_idf(idfs, RARITY_K)

    def factors(self, phrase: str, rows: NDArray[np.int64]) -> NDArray[np.float64]:
        """m_p(d) for each row: 2.0 verbatim, 1.5 punctuation-insensitive, else 0.25 x token overlap share."""
        exact = normalise(phrase)
        loose = punctuation_insensitive(phrase)
        tokens = sorted(set(loose.split()))
        out = np.zeros(len(rows), dtype=np.float64)
        if not tokens:
            return out
        known = [self.vocab[t] for t in tokens if t in self.vocab]
        if known:
            present = np.asarray(self.matrix[rows][:, known].sum(axis=1)).ravel()
            out = OVERLAP * present.astype(np.float64) / len(tokens)
        for i, row in enumerate(rows.tolist()):
            if exact in self.exact[row]:
                out[i] = VERBATIM
            elif loose in self.loose[row]:
                out[i] = PUNCTUATION_INSENSITIVE
        return out

    def score(self, rows: NDArray[np.int64], phrases: Sequence[str], idf_shelf: str | None) -> Scored:
        """S(d) for every row given the known phrases; IDF over ``idf_shelf`` (None: the catalog)."""
        n_docs, df = self.document_frequencies(idf_shelf)
        weights = tuple(self.phrase_weight(p, n_docs, df) for p in phrases)
        factors = tuple(self.factors(p, rows) for p in phrases)
        scores = self.prior[rows].copy()
        for weight, factor in zip(weights, factors, strict=True):
            scores += weight * factor
        return Scored(rows, scores, self.prior[rows], weights, factors, tuple(phrases))


_INDEXES: dict[str, PhraseIndex] = {}
_INDEXES_LOCK = threading.Lock()


def phrase_index(catalog: Catalog) -> PhraseIndex:
    """The phrase index of a catalog, built once per process per catalog content (sha256)."""
    key = catalog.sha256 or str(id(catalog))
    with _INDEXES_LOCK:
        index = _INDEXES.get(key)
        if index is None:
            index = PhraseIndex(catalog)
            _INDEXES.clear()
            _INDEXES[key] = index
        return index
