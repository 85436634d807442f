"""What every stage shares for one engine: the library, the config, the LLM and arrays derived once.

Derived arrays (universe codes, folder kinds, type weights, recency factors) are
computed lazily on first use and then read by every request, so a stage's ``run``
stays a few numpy operations. The query-embedding cache is bounded and guarded by a
lock because one engine serves many threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from core.embed import Embedder
from core.lexical import BM25Index
from core.rarity import scaled_threshold
from core.text import punctuation_insensitive
from slidesearch.config import SearchConfig
from slidesearch.sections import SectionTable

if TYPE_CHECKING:
    from llm_adapters import LanguageModel
    from slidesearch.library import Library

_EMBED_CACHE_SIZE = 4096


def _codes(values: Sequence[str]) -> tuple[dict[str, int], NDArray[np.int32]]:
    """Each value as a small integer (in order of first appearance), and the value -> code map."""
    names: dict[str, int] = {}
    codes = np.fromiter((names.setdefault(v, len(names)) for v in values), dtype=np.int32, count=len(values))
    return names, codes


class SearchContext:
    """The library, config and model one engine runs with, plus per-library derived arrays."""

    def __init__(self, library: Library, config: SearchConfig, model: LanguageModel) -> None:
        self.library = library
        self.config = config
        self.model = model
        self._embed_cache: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def n(self) -> int:
        return int(self.library.n)

    @cached_property
    def embedder(self) -> Embedder:
        return self.library.embedder()

    @cached_property
    def _taxonomy_rows(self) -> dict[str, int]:
        vectors = getattr(self.library, "taxonomy_vectors", None)
        if vectors is None or len(vectors) != len(self.library.taxonomy):
            return {}
        return {term: i for i, term in enumerate(self.library.taxonomy)}

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """L2-normalised vectors for ``texts``: taxonomy terms from the library, others from a small LRU cache.

        Expansion terms are mostly taxonomy terms, whose vectors the library already holds, so
        the boost pass rarely has to run the embedder.
        """
        known = self._taxonomy_rows
        if texts and known and all(t in known for t in texts):
            return np.asarray(self.library.taxonomy_vectors[[known[t] for t in texts]], dtype=np.float32)
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._embed_cache]
        if missing:
            fresh = self.embedder.encode(missing)
            with self._lock:
                for text, vec in zip(missing, fresh, strict=True):
                    self._embed_cache[text] = vec
                while len(self._embed_cache) > _EMBED_CACHE_SIZE:
                    self._embed_cache.popitem(last=False)
        with self._lock:
            rows = [self._embed_cache.get(t) for t in texts]
        found = [r for r in rows if r is not None]
        if len(found) != len(rows):  # evicted by another thread in between: embed directly
            return self.embedder.encode(list(texts))
        if not found:
            return np.zeros((0, self.library.vectors.shape[1]), dtype=np.float32)
        return np.stack(found).astype(np.float32, copy=False)

    @property
    def bm25(self) -> BM25Index:
        """The library's BM25 index; a library without one is a clear error."""
        if self.library.bm25 is None:
            raise ValueError("the library has no BM25 index; rebuild it with `seek slides index`")
        return self.library.bm25

    @cached_property
    def deck_codes(self) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
        """Each slide's deck as a small integer, and every deck's slide count (for 07a's deck context)."""
        names, codes = _codes(self.library.deck_ids)
        return codes, np.bincount(codes, minlength=len(names))

    @property
    def section_table(self) -> SectionTable:
        """The sections the library's slides were assigned with; every stage reads these."""
        return self.library.section_table

    @cached_property
    def section_names(self) -> list[str]:
        return [self.section_table.names[int(i)] for i in self.library.sections]

    @cached_property
    def rarity_threshold(self) -> int:
        """T of spec 06b: 300 slides at 122,623, scaled with corpus size (core.rarity.scaled_threshold)."""
        return scaled_threshold(self.n, reference_count=self.config.rarity_reference_count)

    @cached_property
    def _universe_codes(self) -> tuple[dict[str, int], NDArray[np.int32]]:
        return _codes(self.library.universes)

    def scope_mask(self, universes: Sequence[str] | None) -> NDArray[np.bool_]:
        """True for slides inside the universe scope (everything when no scope is given)."""
        if not universes:
            return np.ones(self.n, dtype=bool)
        names, codes = self._universe_codes
        return np.isin(codes, [names[u] for u in universes if u in names])

    def literal_rows(self, term: str) -> NDArray[np.int64]:
        """Slides whose title + snippet contains ``term`` as whole words (punctuation-insensitive).

        Candidates come from the BM25 index (a non-zero score means the word is there), so
        only the few slides holding every word are string-checked for the exact phrase.
        """
        words = self.bm25.analyse(term)
        if not words:
            return np.zeros(0, dtype=np.int64)
        hits = np.ones(self.n, dtype=bool)
        for word in words:
            hits &= self.bm25.scores([word]) != 0
        rows = np.flatnonzero(hits)
        needle = f" {punctuation_insensitive(term)} "
        snippets = self.library.snippets
        kept = [r for r in rows.tolist() if needle in f" {punctuation_insensitive(snippets[r])} "]
        return np.asarray(kept, dtype=np.int64)
