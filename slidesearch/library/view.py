"""What the pipeline stages read of a library: its columns by name, and every array derived from them once.

A stage is built with a ``LibraryView`` and reads nothing else of the library: the view's
members are the declaration of what stages may use. Derived arrays (section names, deck and
universe codes, folder kinds, snippet digests) are computed on first use and then shared by
every request, so a stage's ``run`` stays a few numpy operations. The query-embedding cache
is bounded and guarded by a lock because one engine serves many threads.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from datetime import date
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from core.embed import Embedder
from core.lexical import BM25Index
from core.rarity import DocFreqTable
from core.text import FOREIGN_SHARE, foreign_share, normalise, punctuation_insensitive
from slidesearch.library.columns import Library, codes_of
from slidesearch.model import VerifiedCaseStudy
from slidesearch.roles import deck_roles, states_results
from slidesearch.sections import SectionTable

_EMBED_CACHE_SIZE = 4096


class LibraryView:
    """The read-only face of one ``Library`` that the pipeline stages are built with (see the module docstring)."""

    def __init__(self, library: Library) -> None:
        if library.bm25 is None:
            raise ValueError("the library has no BM25 index; rebuild it with `seek slides index`")
        if len(library.taxonomy_vectors) not in (0, len(library.taxonomy)):
            raise ValueError(f"{len(library.taxonomy)} taxonomy terms but {len(library.taxonomy_vectors)} vectors")
        self._library = library
        self._embed_cache: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()
        self._digests: dict[int, str] = {}
        self._title_terms: dict[int, frozenset[str]] = {}
        self.bm25: BM25Index = library.bm25

    # ------------------------------------------------------------ columns

    @property
    def n(self) -> int:
        return int(self._library.n)

    @property
    def titles(self) -> list[str]:
        return self._library.titles

    @property
    def texts(self) -> list[str]:
        return self._library.texts

    @property
    def snippets(self) -> list[str]:
        return self._library.snippets

    @property
    def content_types(self) -> list[str]:
        return self._library.content_types

    @property
    def folders(self) -> list[str]:
        return self._library.folders

    @property
    def deck_names(self) -> list[str]:
        return self._library.deck_names

    @property
    def deck_ids(self) -> list[str]:
        return self._library.deck_ids

    @property
    def canonical_decks(self) -> list[str]:
        return self._library.canonical_decks

    @property
    def deck_years(self) -> NDArray[np.float32]:
        return self._library.deck_years

    @property
    def deck_dates(self) -> list[date | None]:
        return self._library.deck_dates

    @property
    def sections(self) -> NDArray[np.int8]:
        """Each slide's section as its index in ``section_table``."""
        return self._library.sections

    @property
    def vectors(self) -> NDArray[np.float32]:
        return self._library.vectors

    @property
    def rarity(self) -> DocFreqTable:
        return self._library.rarity

    @property
    def clusters(self) -> dict[str, list[str]]:
        return self._library.clusters

    @property
    def taxonomy(self) -> list[str]:
        return self._library.taxonomy

    @property
    def taxonomy_vectors(self) -> NDArray[np.float32]:
        return self._library.taxonomy_vectors

    @property
    def master(self) -> list[VerifiedCaseStudy]:
        return self._library.master

    @property
    def master_vectors(self) -> NDArray[np.float32]:
        return self._library.master_vectors

    # ------------------------------------------------------------ derived

    @property
    def section_table(self) -> SectionTable:
        """The sections the library's slides were assigned with; every stage reads these."""
        return self._library.section_table

    @cached_property
    def section_names(self) -> list[str]:
        return [self.section_table.names[int(i)] for i in self._library.sections]

    @cached_property
    def lowered_documents(self) -> list[str]:
        """Each slide's searched document (title, text, notes, chart and picture words), lower-cased: what the
        coverage note reads for currency and percent symbols, as the index reads it for words."""
        return [d.lower() for d in self._library.search_documents()]

    @cached_property
    def unreadable(self) -> NDArray[np.bool_]:
        """Slides the English sentence encoder cannot read: most of their letters outside the Latin script.

        MiniLM was trained on English; a Japanese or Russian slide's vector sits near every vague
        query ("capability slides" returned a Japanese slide), so the dense voter leaves them to BM25.
        """
        lib = self._library
        return np.fromiter((foreign_share(f"{t} {x}") > FOREIGN_SHARE for t, x in zip(lib.titles, lib.texts, strict=True)),
                           dtype=bool, count=lib.n)

    def title_terms(self, row: int) -> frozenset[str]:
        """A slide's title as the BM25 index reads words (stopwords out, stemmed as it stems): what 08's
        ``titled_by`` compares a brief's angles with (``brief_terms``). Read per candidate and kept: the whole
        column would cost a process's first search 0.6 s at 123k slides."""
        terms = self._title_terms.get(row)
        if terms is None:
            terms = self._title_terms[row] = frozenset(self.bm25.analyse(self._library.titles[row]))
        return terms

    def brief_terms(self, angle: str) -> frozenset[str]:
        """An angle's words as ``title_terms`` reads a title's."""
        return frozenset(self.bm25.analyse(angle))

    @cached_property
    def roles(self) -> list[str]:
        """Each slide's role in its deck (``slidesearch.roles``: cover, agenda, divider, closing, appendix, or "")."""
        lib = self._library
        return deck_roles(lib.titles, lib.texts, lib.slide_numbers, lib.deck_ids, lib.content_types, self.pictured)

    @cached_property
    def role_array(self) -> NDArray[np.str_]:
        """``roles`` as an array, for a vectorised test of which slides hold the roles a brief asks for."""
        return np.asarray(self.roles, dtype=str)

    @property
    def pictured(self) -> list[str]:
        """The words OCR read in each slide's pictures ("" where none, or for a library without the field)."""
        return self._library.field_texts.get("picture_text") or [""] * self._library.n

    @cached_property
    def states_results(self) -> NDArray[np.bool_]:
        """Slides stating a quantified outcome (``slidesearch.roles.states_results``): what a results brief wants."""
        lib = self._library
        return np.fromiter((states_results(t, x) for t, x in zip(lib.titles, lib.texts, strict=True)),
                           dtype=bool, count=lib.n)

    @cached_property
    def deck_codes(self) -> tuple[NDArray[np.int32], NDArray[np.int64]]:
        """Each slide's deck as a small integer, and every deck's slide count (for 07a's deck context)."""
        names, codes = codes_of(self._library.deck_ids)
        return codes, np.bincount(codes, minlength=len(names))

    def scope_mask(self, universes: Sequence[str] | None) -> NDArray[np.bool_]:
        """True for slides inside the universe scope (everything when no scope is given): ``Library.scope_mask``."""
        return self._library.scope_mask(universes)

    def master_in_scope(self, index: int, universes: Sequence[str] | None) -> bool:
        """Whether verified row ``index`` may be shown in ``universes`` (the library's one scope rule)."""
        return self._library.in_scope(self._library.master[index].card_id, universes)

    def snippet_digest(self, row: int) -> str:
        """A digest of the slide's normalised snippet: equal digests mean equal normalised texts (09).

        Computed once per slide: the same slides come back query after query.
        """
        digest = self._digests.get(row)
        if digest is None:
            text = normalise(self._library.snippets[row])
            digest = self._digests[row] = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
        return digest

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
        snippets = self._library.snippets
        kept = [r for r in rows.tolist() if needle in f" {punctuation_insensitive(snippets[r])} "]
        return np.asarray(kept, dtype=np.int64)

    # ------------------------------------------------------------ query encoding

    @cached_property
    def embedder(self) -> Embedder:
        return self._library.embedder()

    @cached_property
    def _taxonomy_rows(self) -> dict[str, int]:
        if len(self._library.taxonomy_vectors) != len(self._library.taxonomy):
            return {}
        return {term: i for i, term in enumerate(self._library.taxonomy)}

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """L2-normalised vectors for ``texts``: taxonomy terms from the library, others from a small LRU cache.

        Expansion terms are mostly taxonomy terms, whose vectors the library already holds, so
        the dense pass rarely has to run the embedder for them.
        """
        known = self._taxonomy_rows
        if texts and known and all(t in known for t in texts):
            return np.asarray(self._library.taxonomy_vectors[[known[t] for t in texts]], dtype=np.float32)
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
            return np.zeros((0, self._library.vectors.shape[1]), dtype=np.float32)
        return np.stack(found).astype(np.float32, copy=False)
