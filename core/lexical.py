"""BM25 over a sparse matrix (bm25s), with rank-bm25 kept as the reference it is tested against.

bm25s precomputes per-token document scores into a CSC matrix, so one query is
a handful of sparse column sums: measured here about 35x faster than rank-bm25 at
50k documents with the same top-10. ``method="robertson"`` reproduces
rank-bm25's ``BM25Okapi`` scoring (Robertson IDF with its epsilon floor).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from core.text import ENGLISH_STOPWORDS, tokenize

BM25_METHOD = "robertson"


def analyse(text: str, stopwords: frozenset[str] = ENGLISH_STOPWORDS) -> list[str]:
    """The BM25 analyser: lower-case alphanumeric tokens without English stopwords."""
    return tokenize(text, stopwords)


class BM25Index:
    """A BM25 index over pre-tokenised documents; scores come back as one dense array over all documents."""

    def __init__(self, k1: float = 1.5, b: float = 0.75, method: str = BM25_METHOD) -> None:
        import bm25s

        self.k1, self.b, self.method = k1, b, method
        self._bm25 = bm25s.BM25(k1=k1, b=b, method=method)
        self._vocab: dict[str, int] = {}
        self.n_docs = 0

    @classmethod
    def build(cls, docs: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75, method: str = BM25_METHOD) -> BM25Index:
        index = cls(k1=k1, b=b, method=method)
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(tok, len(vocab)) for tok in doc] for doc in docs]
        index._bm25.index((ids, vocab), show_progress=False)
        index._vocab = vocab
        index.n_docs = len(docs)
        return index

    def scores(self, query_tokens: Sequence[str]) -> NDArray[np.float32]:
        """BM25 score of every document for the query (unknown tokens contribute nothing)."""
        known = [self._vocab[t] for t in query_tokens if t in self._vocab]
        if not known or self.n_docs == 0:
            return np.zeros(self.n_docs, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(known), dtype=np.float32)

    def top_k(self, query_tokens: Sequence[str], k: int, mask: NDArray[np.bool_] | None = None) -> tuple[NDArray[np.int64], NDArray[np.float32]]:
        """Ids and scores of the best k documents with a positive score, optionally only where ``mask`` is true."""
        scores = self.scores(query_tokens)
        if mask is not None:
            scores = np.where(mask, scores, 0.0).astype(np.float32)
        positive = np.flatnonzero(scores > 0)
        if positive.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        k = min(k, positive.size)
        part = positive[np.argpartition(-scores[positive], k - 1)[:k]]
        order = part[np.lexsort((part, -scores[part]))]
        return order.astype(np.int64), scores[order]

    def save(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._bm25.save(str(directory), show_progress=False)
        (directory / "seek_vocab.json").write_text(json.dumps({"vocab": self._vocab, "n_docs": self.n_docs}))

    @classmethod
    def load(cls, directory: Path, mmap: bool = True) -> BM25Index:
        import bm25s

        meta = json.loads((directory / "seek_vocab.json").read_text())
        index = cls.__new__(cls)
        index._bm25 = bm25s.BM25.load(str(directory), mmap=mmap, show_progress=False)
        index.k1, index.b, index.method = index._bm25.k1, index._bm25.b, index._bm25.method
        index._vocab = meta["vocab"]
        index.n_docs = meta["n_docs"]
        return index
