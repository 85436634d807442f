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
import string
import threading
import unicodedata
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from core.rarity import idf_plus_one_smooth, mean_k_rarest_idf
from tenturns.catalog import Catalog, searchable_text

VERBATIM = 2.0
PUNCTUATION_INSENSITIVE = 1.5
OVERLAP = 0.25
RARITY_K = 3
PRIOR_WEIGHT = 0.3
PRIOR_SCALE = math.log(1e6)
"""A million ratings is the prior's unit: the most-rated items in the catalog sit near 1."""

IDF_SCOPES = ("shelf", "catalog")
FACTOR_CACHE = 512
"""Phrases whose per-row factors a view keeps: sessions on one shelf share many ("Imported", "Machine Wash")."""

_NOT_ALNUM = str.maketrans({chr(c): " " for c in range(128) if chr(c) not in string.ascii_lowercase + string.digits})


def exact_form(text: str) -> str:
    """``core.text.normalise`` (NFKC, lower case, whitespace collapsed), with split/join instead of a regex.

    Measured on 50k products: the regex forms took 9.5 s of a 23 s index build.
    """
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def loose_form(exact: str) -> str:
    """``core.text.punctuation_insensitive`` of an ``exact_form`` text: every non-alphanumeric run becomes one space.

    Non-ASCII characters are first replaced by "?" (ASCII-encoding with replacement), so the whole
    mapping is two C-level passes; the result equals the regex ``[^0-9a-z]+ -> " "`` form.
    """
    return " ".join(exact.encode("ascii", "replace").decode("ascii").translate(_NOT_ALNUM).split())


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
    bonus: NDArray[np.float64] | None = None
    """Any score added after phrase scoring (the optional card-consistency tie-break)."""

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


@dataclass(frozen=True)
class _Joined:
    """Texts joined by NUL so one ``str.find`` pass finds every row containing a needle."""

    text: str
    starts: list[int]

    @classmethod
    def of(cls, texts: list[str]) -> _Joined:
        starts, offset = [], 0
        for text in texts:
            starts.append(offset)
            offset += len(text) + 1
        return cls("\0".join(texts), starts)

    def containing(self, needle: str) -> list[int]:
        """Positions of the texts that contain ``needle`` (each once), in order."""
        hits: list[int] = []
        if not needle:
            return hits
        at = self.text.find(needle)
        while at != -1:
            position = bisect_right(self.starts, at) - 1
            hits.append(position)
            if position + 1 >= len(self.starts):
                break
            at = self.text.find(needle, self.starts[position + 1])
        return hits


@dataclass
class CandidateView:
    """The candidates of a turn (a shelf, or a fallback shortlist) with what scoring reads, cached per shelf."""

    rows: NDArray[np.int64]
    tokens: NDArray[np.int64]
    """Token ids of every (position, token) pair of the view, sorted; ``holders`` aligned with it."""
    holders: NDArray[np.int64]
    own_frequencies: bool
    exact: _Joined
    loose: _Joined
    prior: NDArray[np.float64]
    factor_cache: dict[str, NDArray[np.float64]] = field(default_factory=dict)

    def holding(self, token: int) -> NDArray[np.int64]:
        """Positions (into ``rows``) of the products whose text holds the token."""
        lo, hi = np.searchsorted(self.tokens, (token, token + 1))
        return self.holders[lo:hi]

    def df(self, token: int) -> int:
        lo, hi = np.searchsorted(self.tokens, (token, token + 1))
        return int(hi - lo)


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
    _views: dict[str, CandidateView] = field(init=False, default_factory=dict)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        texts = [searchable_text(p) for p in self.catalog.products]
        self.exact = [exact_form(t) for t in texts]
        self.loose = [loose_form(t) for t in self.exact]
        # A defaultdict whose factory is its own length hands out ids in C (scikit-learn's vocabulary trick).
        vocab: defaultdict[str, int] = defaultdict()
        vocab.default_factory = vocab.__len__
        indptr = [0]
        indices: list[int] = []
        for text in self.loose:
            indices.extend(map(vocab.__getitem__, set(text.split())))
            indptr.append(len(indices))
        self.vocab = dict(vocab)
        data = np.ones(len(indices), dtype=np.int8)
        self.matrix = sparse.csr_matrix(
            (data, np.asarray(indices, dtype=np.int64), np.asarray(indptr, dtype=np.int64)),
            shape=(len(texts), max(len(vocab), 1)),
        )
        self.matrix.sort_indices()
        self.catalog_df = np.asarray(self.matrix.sum(axis=0, dtype=np.int64)).ravel()
        counts = np.array([p.rating_number or 0 for p in self.catalog.products], dtype=np.float64)
        self.prior = PRIOR_WEIGHT * np.log1p(np.maximum(counts, 0.0)) / PRIOR_SCALE
        self.shelf_rows = {label: np.asarray(rows, dtype=np.int64) for label, rows in self.catalog.shelves.items()}

    def _catalog_df(self, token: int) -> int:
        return int(self.catalog_df[token])

    def view(self, shelf: str) -> CandidateView:
        """The shelf's candidate view (texts, token matrix, document frequencies), built on first use."""
        with self._lock:
            view = self._views.get(shelf)
            if view is None:
                view = self._views[shelf] = self.rows_view(self.shelf_rows[shelf], own_frequencies=True)
        return view

    def rows_view(self, rows: NDArray[np.int64], own_frequencies: bool = False) -> CandidateView:
        """A view over any rows; its document frequencies are the rows' own, or else the catalog's.

        The view keeps its (token, position) pairs sorted by token — a per-view inverted index —
        rather than a dense df vector, so a cached shelf costs memory in proportion to its text.
        """
        rows = np.asarray(rows, dtype=np.int64)
        indptr, indices = self.matrix.indptr, self.matrix.indices
        starts, ends = indptr[rows], indptr[rows + 1]
        flat = np.concatenate([indices[a:b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)] or [[]])
        positions = np.repeat(np.arange(len(rows), dtype=np.int64), ends - starts)
        order = np.argsort(flat, kind="stable")
        return CandidateView(
            rows=rows, tokens=flat[order].astype(np.int64), holders=positions[order], own_frequencies=own_frequencies,
            exact=_Joined.of([self.exact[r] for r in rows.tolist()]),
            loose=_Joined.of([self.loose[r] for r in rows.tolist()]),
            prior=self.prior[rows],
        )

    def phrase_weight(self, phrase: str, n_docs: int, df: Callable[[int], int]) -> float:
        """w_p: mean IDF of the phrase's three rarest tokens; unseen tokens count as df = 0."""
        tokens = set(loose_form(exact_form(phrase)).split())
        idfs = [idf_plus_one_smooth(n_docs, df(self.vocab[t]) if t in self.vocab else 0) for t in tokens]
        return mean_k_rarest_idf(idfs, RARITY_K)

    def factors(self, phrase: str, view: CandidateView) -> NDArray[np.float64]:
        """m_p(d) for each row: 2.0 verbatim, 1.5 punctuation-insensitive, else 0.25 x token overlap share."""
        cached = view.factor_cache.get(phrase)
        if cached is not None:
            return cached
        exact = exact_form(phrase)
        loose = loose_form(exact)
        tokens = sorted(set(loose.split()))
        out = np.zeros(len(view.rows), dtype=np.float64)
        if tokens:
            known = [self.vocab[t] for t in tokens if t in self.vocab]
            if known:
                hits = np.concatenate([view.holding(t) for t in known])
                present = np.bincount(hits, minlength=len(view.rows))
                out = OVERLAP * present.astype(np.float64) / len(tokens)
            out[view.loose.containing(loose)] = PUNCTUATION_INSENSITIVE
            out[view.exact.containing(exact)] = VERBATIM
        if len(view.factor_cache) >= FACTOR_CACHE:
            view.factor_cache.clear()
        view.factor_cache[phrase] = out
        return out

    def score(self, view: CandidateView, phrases: Sequence[str], idf: str = "shelf") -> Scored:
        """S(d) for every row of the view given the known phrases; IDF over the view (``shelf``) or ``catalog``."""
        if idf not in IDF_SCOPES:
            raise ValueError(f"unknown IDF scope {idf!r}; choose one of {', '.join(IDF_SCOPES)}")
        if idf == "shelf" and view.own_frequencies:
            n_docs, df = len(view.rows), view.df
        else:
            n_docs, df = len(self.exact), self._catalog_df
        weights = tuple(self.phrase_weight(p, n_docs, df) for p in phrases)
        factors = tuple(self.factors(p, view) for p in phrases)
        scores = view.prior.copy()
        for weight, factor in zip(weights, factors, strict=True):
            scores += weight * factor
        return Scored(view.rows, scores, view.prior, weights, factors, tuple(phrases))


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
