"""The slide library as the pipeline sees it: columnar, read-only, shared across threads.

A ``Library`` holds one row per slide in parallel columns (ids, titles, snippets,
sections, vectors, ...) plus everything mined from the corpus once (``mining``): the BM25
index, the word and phrase document-frequency table, the curated expansion clusters, the
taxonomy terms and the verified master sheet with their vectors. It is built in memory by
``Library.from_slides`` (tests, small datasets) or opened from an index directory written
by ``Library.save`` (``storage``). It also holds the one scope rule that the engine, HTTP, MCP,
the CLI, explain and assemble all use: which universes a request names (``resolve_universes``),
which of them a scoped server lets it see (``scope_within``), and whether a card id or a
slide row is inside them (``in_scope``, ``scope_mask``). Arrays derived for the pipeline live
in ``view.LibraryView``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from core.embed import Embedder, make_embedder
from core.lexical import BM25Index
from core.rarity import DocFreqTable
from core.settings import get_settings
from slidesearch.config import LexicalConfig
from slidesearch.library.mining import CLUSTER_CANDIDATES, Progress, mine_clusters, mine_taxonomy, mine_terms
from slidesearch.library.storage import LibraryError, load_library, save_library
from slidesearch.model import (
    FOUND_IN,
    Slide,
    VerifiedCaseStudy,
    card_preview,
    decimal_year,
    deck_families,
    search_document,
    snippet,
)
from slidesearch.sections import DEFAULT_SECTIONS, SectionTable

_WORD = re.compile(r"\w+")


def codes_of(values: Sequence[str]) -> tuple[dict[str, int], NDArray[np.int32]]:
    """Each value as a small integer (in order of first appearance), and the value -> code map."""
    names: dict[str, int] = {}
    codes = np.fromiter((names.setdefault(v, len(names)) for v in values), dtype=np.int32, count=len(values))
    return names, codes


class OutOfScopeError(ValueError):
    """A request names universes that lie wholly outside the scope it is served within (a scoped server)."""

    def __init__(self, asked: Sequence[str], scope: Sequence[str]) -> None:
        self.asked, self.scope = list(asked), list(scope)
        super().__init__(f"universe(s) {', '.join(self.asked)} are outside this scope; it holds {', '.join(self.scope)}")


class UnknownUniverseError(ValueError):
    """A scope names a universe no slide of the library belongs to (a typo would otherwise answer nothing)."""

    def __init__(self, unknown: Sequence[str], known: Sequence[str]) -> None:
        self.unknown, self.known = list(unknown), list(known)
        super().__init__(f"unknown universe(s): {', '.join(self.unknown)}; the library has {', '.join(self.known) or 'none'}")



def _families(slides: Sequence[Slide]) -> list[str]:
    """Each slide's deck family (``model.deck_families``: same name family and same folder or similar words)."""
    decks: dict[str, tuple[str, str, set[str]]] = {}
    for s in slides:
        _, _, words = decks.setdefault(s.deck_id, (s.deck_name or s.deck_id, s.folder, set()))
        words.update(_WORD.findall(f"{s.title} {s.text}".lower()))
    family = deck_families([(d, name, folder, frozenset(words)) for d, (name, folder, words) in decks.items()])
    return [family[s.deck_id] for s in slides]


class Library:
    """A read-only, columnar slide library with its embeddings and mined tables (see the module docstring)."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self.n = 0
        self.ids: list[str] = []
        self.id_to_row: dict[str, int] = {}
        self.titles: list[str] = []
        self.texts: list[str] = []
        self.snippets: list[str] = []
        self.previews: list[str] = []
        self.content_types: list[str] = []
        self.sections: NDArray[np.int8] = np.zeros(0, dtype=np.int8)
        self.section_table: SectionTable = DEFAULT_SECTIONS
        self.universes: list[str] = []
        self.deck_ids: list[str] = []
        self.deck_names: list[str] = []
        self.canonical_decks: list[str] = []
        self.folders: list[str] = []
        self.slide_numbers: list[int] = []
        self.deck_years: NDArray[np.float32] = np.zeros(0, dtype=np.float32)
        self.deck_dates: list[date | None] = []
        self.source_paths: list[str | None] = []
        #: Per FOUND_IN field (notes, SmartArt, charts, pictures), its text on every slide ("" where none).
        self.field_texts: dict[str, list[str]] = {name: [] for name in FOUND_IN}
        self.source_formats: list[str] = []
        self.vectors: NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self.bm25: BM25Index | None = None
        # What BM25 indexed (``LexicalConfig.text``); not stored on disk: `seek slides index` always builds "full".
        self.lexical_text: Literal["full", "snippet"] = "full"
        self.rarity = DocFreqTable()
        self.clusters: dict[str, list[str]] = {}
        self.taxonomy: list[str] = []
        self.taxonomy_vectors: NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self.master: list[VerifiedCaseStudy] = []
        self.master_vectors: NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self.embedder_name = ""
        self.embedder_model = ""
        self._embedder: Embedder | None = None

    # ----------------------------------------------------------------- access

    @cached_property
    def _universe_spellings(self) -> dict[str, tuple[str, ...]]:
        """Lower-cased universe name -> every spelling of it in the library (the library is read-only once loaded)."""
        spellings: dict[str, tuple[str, ...]] = {}
        for universe in sorted(set(self.universes)):
            spellings[universe.lower()] = (*spellings.get(universe.lower(), ()), universe)
        return spellings

    def in_scope(self, card_id: str, universes: Sequence[str] | None) -> bool:
        """Whether a slide or a verified row (``verified:<row_id>``) may be shown in ``universes`` (None: anywhere).

        A slide belongs to its universe; a verified row to its own, or to every scope when it has
        none (a company-wide master sheet). An id the library does not hold is in no scope.
        """
        if universes is None:
            return card_id in self.id_to_row or card_id in self._master_universes
        row = self.id_to_row.get(card_id)
        if row is not None:
            return self.universes[row] in universes
        if card_id not in self._master_universes:
            return False
        universe = self._master_universes[card_id]
        return universe is None or universe in universes

    @cached_property
    def _master_universes(self) -> dict[str, str | None]:
        return {m.card_id: m.universe for m in self.master}

    def resolve_universes(self, names: str | Sequence[str] | None) -> tuple[str, ...] | None:
        """The library's own universe names for ``names`` (matched case-insensitively; blanks and repeats dropped).

        None or nothing but blanks means no scope (None). A name matching two spellings (folders
        "/Marketing" and "/marketing") scopes to both. A name the library does not hold raises
        ``UnknownUniverseError`` naming the ones it has.
        """
        if names is None:
            return None
        wanted = [u.strip() for u in ([names] if isinstance(names, str) else names) if u and u.strip()]
        known = self._universe_spellings
        unknown = [u for u in wanted if u.lower() not in known]
        if unknown:
            raise UnknownUniverseError(unknown, [s for spellings in known.values() for s in spellings])
        return tuple(dict.fromkeys(s for u in wanted for s in known[u.lower()])) or None

    def scope_within(self, requested: str | Sequence[str] | None,
                     scope: Sequence[str] | None) -> tuple[str, ...] | None:
        """The universes a request may search inside ``scope`` (a scoped server's; None: the whole library).

        The request resolved as ``resolve_universes``, intersected with ``scope``; no request means the
        whole scope. Asking only for universes outside the scope raises ``OutOfScopeError``.
        """
        asked = self.resolve_universes(requested)
        if scope is None:
            return asked
        if asked is None:
            return tuple(scope)
        allowed = tuple(u for u in asked if u in scope)
        if not allowed:
            raise OutOfScopeError(asked, scope)
        return allowed

    @cached_property
    def _universe_codes(self) -> tuple[dict[str, int], NDArray[np.int32]]:
        return codes_of(self.universes)

    def scope_mask(self, universes: Sequence[str] | None) -> NDArray[np.bool_]:
        """Per slide row, whether it is inside ``universes`` (every row when no scope is given): ``in_scope`` by row."""
        if not universes:
            return np.ones(self.n, dtype=bool)
        names, codes = self._universe_codes
        return np.isin(codes, [names[u] for u in universes if u in names])

    def __len__(self) -> int:
        return self.n

    def slide(self, row: int) -> Slide:
        """The slide at ``row`` as a model (the same fields it was ingested with)."""
        return Slide(
            slide_id=self.ids[row],
            deck_id=self.deck_ids[row],
            deck_name=self.deck_names[row],
            folder=self.folders[row],
            slide_number=self.slide_numbers[row],
            title=self.titles[row],
            text=self.texts[row],
            content_type=self.content_types[row],
            universe=self.universes[row],
            deck_date=self.deck_dates[row],
            source_path=self.source_paths[row],
            source_format=self.source_formats[row],
            **{name: texts[row] for name, texts in self.field_texts.items()},
        )

    def search_documents(self) -> list[str]:
        """What each slide is searched by: title, typed text, then notes, SmartArt, chart and picture text."""
        extras = list(zip(*self.field_texts.values(), strict=True)) if self.n else []
        return [search_document(t, x, e) for t, x, e in zip(self.titles, self.texts, extras, strict=True)]

    def section_of(self, row: int) -> str:
        return self.section_table.names[int(self.sections[row])]

    def embedder(self) -> Embedder:
        """The embedder the vectors were made with (loaded on first use; queries must use the same one).

        An index records its embedder's model name; a seek whose embedder of that setting is another model
        (an upgrade changed what ``minilm`` runs) refuses to mix the two with a ``LibraryError`` saying to
        rebuild, rather than ranking query vectors of one model against slide vectors of another.
        """
        if self._embedder is None:
            model = make_embedder(self.embedder_name)
            if self.embedder_model and model.name != self.embedder_model:
                raise LibraryError(
                    f"the slide index was embedded with {self.embedder_model}, but this seek's {self.embedder_name!r} "
                    f"embedder is {model.name}; rebuild the index with `seek slides index`")
            self._embedder = model
        return self._embedder

    # ----------------------------------------------------------------- build

    @classmethod
    def from_slides(
        cls,
        slides: Iterable[Slide],
        master: Iterable[VerifiedCaseStudy] = (),
        embedder: Embedder | str | None = None,
        *,
        progress: Progress | None = None,
        batch_size: int = 256,
        lexical: LexicalConfig | None = None,
        sections: SectionTable = DEFAULT_SECTIONS,
    ) -> Library:
        """Build a library in memory: columns, embeddings, BM25, rarity, clusters, taxonomy and master vectors.

        ``embedder`` is an embedder or its name (default: ``settings.embedder``).
        ``progress(stage, done, total)`` is called as the slow stages advance.
        ``lexical`` says how BM25 is built (default ``LexicalConfig()``: whole text, stemmed).
        ``sections`` is the section table each slide is assigned with (``slidesearch.sections``).
        Duplicate slide ids are an error (the id is the slide's identity everywhere).
        """
        lib = cls()
        lib.section_table = sections
        if embedder is None:
            embedder = get_settings().embedder
        model = make_embedder(embedder) if isinstance(embedder, str) else embedder
        lib._embedder = model
        lib.embedder_name = embedder if isinstance(embedder, str) else _embedder_key(model)
        lib.embedder_model = model.name
        lib._fill_columns(list(slides))
        documents = lib.search_documents()
        lib.vectors = _encode(model, lib.snippets, "embed", progress, batch_size)
        lib._mine(documents, lexical or LexicalConfig(), progress)
        lib.taxonomy_vectors = _encode(model, lib.taxonomy, "taxonomy", progress, batch_size)
        lib.master = list(master)
        lib.master_vectors = _encode(model, [m.document for m in lib.master], "master", progress, batch_size)
        return lib

    def _mine(self, documents: list[str], lexical: LexicalConfig, progress: Progress | None) -> None:
        """BM25, the rarity table, the taxonomy and the expansion clusters, from this library's slides alone."""
        if progress:
            progress("bm25", 0, self.n)
        self.lexical_text = lexical.text
        self.bm25 = BM25Index.from_texts(documents if lexical.text == "full" else self.snippets, k1=lexical.k1,
                                         b=lexical.b, stemmer=lexical.stemmer)
        if progress:
            progress("bm25", self.n, self.n)
        self.rarity, terms = mine_terms(documents, progress)
        if progress:
            progress("clusters", 0, 1)
        self.taxonomy = mine_taxonomy(terms, self.rarity)
        self.clusters = mine_clusters(terms, self.taxonomy[:CLUSTER_CANDIDATES], self.deck_ids)
        if progress:
            progress("clusters", 1, 1)

    def within(self, universes: Sequence[str]) -> Library:
        """The library of ``universes`` alone: what a server scoped to them serves, so nothing else can show.

        Equal to ``from_slides`` over the in-scope slides (in library order) and the verified rows in
        scope (``in_scope``: their universe's, and company-wide ones): the columns and vectors are
        those rows', and BM25, the rarity table, the taxonomy and the expansion clusters are mined
        from them only, so no expansion term, rare-name count, coverage note or detected client can
        come from another universe. Taxonomy vectors the whole library already holds are reused;
        only terms new to the subset are embedded. The library itself when everything is in scope.
        """
        scope = self.resolve_universes(universes) or ()
        rows = np.flatnonzero(self.scope_mask(scope))
        kept_master = [i for i, m in enumerate(self.master) if self.in_scope(m.card_id, scope)]
        if len(rows) == self.n and len(kept_master) == len(self.master):
            return self
        lib = Library()
        lib.path, lib.section_table = self.path, self.section_table
        lib.embedder_name, lib.embedder_model, lib._embedder = self.embedder_name, self.embedder_model, self._embedder
        picked = rows.tolist()
        lib.n = len(picked)
        for column in ("ids", "titles", "texts", "snippets", "previews", "content_types", "universes", "deck_ids",
                       "deck_names", "canonical_decks", "folders", "slide_numbers", "deck_dates", "source_paths",
                       "source_formats"):
            values = getattr(self, column)
            setattr(lib, column, [values[r] for r in picked])
        lib.field_texts = {name: [texts[r] for r in picked] for name, texts in self.field_texts.items()}
        lib.id_to_row = {slide_id: row for row, slide_id in enumerate(lib.ids)}
        lib.sections = np.asarray(self.sections[rows])
        lib.deck_years = np.asarray(self.deck_years[rows])
        lib.vectors = np.ascontiguousarray(self.vectors[rows], dtype=np.float32)
        documents = lib.search_documents()
        bm25 = self.bm25
        lexical = LexicalConfig(text=self.lexical_text, stemmer=bm25.stemmer if bm25 else "english",
                                k1=bm25.k1 if bm25 else 1.5, b=bm25.b if bm25 else 0.75)
        lib._mine(documents, lexical, None)
        known = ({term: i for i, term in enumerate(self.taxonomy)}
                 if len(self.taxonomy_vectors) == len(self.taxonomy) else {})
        new_terms = [t for t in lib.taxonomy if t not in known]
        fresh = dict(zip(new_terms, self.embedder().encode(new_terms), strict=True)) if new_terms else {}
        dim = self.vectors.shape[1] if self.vectors.ndim == 2 else 0
        lib.taxonomy_vectors = np.asarray(
            [self.taxonomy_vectors[known[t]] if t in known else fresh[t] for t in lib.taxonomy], dtype=np.float32,
        ).reshape(len(lib.taxonomy), dim)
        lib.master = [self.master[i] for i in kept_master]
        lib.master_vectors = np.asarray(self.master_vectors[kept_master], dtype=np.float32).reshape(len(kept_master), -1)
        return lib

    def _fill_columns(self, slides: list[Slide]) -> None:
        seen: dict[str, int] = {}
        for row, s in enumerate(slides):
            if s.slide_id in seen:
                raise ValueError(f"duplicate slide id {s.slide_id!r} (rows {seen[s.slide_id]} and {row})")
            seen[s.slide_id] = row
        self.n = len(slides)
        self.ids = [s.slide_id for s in slides]
        self.id_to_row = seen
        self.titles = [s.title for s in slides]
        self.texts = [s.text for s in slides]
        self.field_texts = {name: [getattr(s, name) for s in slides] for name in FOUND_IN}
        self.source_formats = [s.source_format for s in slides]
        docs = self.search_documents()
        self.snippets = [snippet(d) for d in docs]
        self.previews = [card_preview(t, x, d) for t, x, d in zip(self.titles, self.texts, docs, strict=True)]
        self.content_types = [s.content_type for s in slides]
        table = self.section_table
        self.sections = np.array([table.index[table.section_in_deck(table.section_for(s.filed_type, s.title, s.text),
                                                                    s.deck_name)] for s in slides],
                                 dtype=np.int8)
        self.universes = [s.universe for s in slides]
        self.deck_ids = [s.deck_id for s in slides]
        self.deck_names = [s.deck_name for s in slides]
        self.canonical_decks = _families(slides)
        self.folders = [s.folder for s in slides]
        self.slide_numbers = [s.slide_number for s in slides]
        self.deck_dates = [s.deck_date for s in slides]
        self.deck_years = np.array([decimal_year(s.deck_date) for s in slides], dtype=np.float32)
        self.source_paths = [s.source_path for s in slides]

    # ----------------------------------------------------------------- disk

    @classmethod
    def open(cls, path: Path | None = None) -> Library:
        """The saved library at ``path`` (default ``SEEK_HOME/slides/index``); see ``storage.load_library``."""
        return load_library(cls(), path)

    def save(self, directory: Path) -> None:
        """Write the library into ``directory`` (which must not exist yet; the caller renames it into place)."""
        save_library(self, directory)


def _embedder_key(model: Embedder) -> str:
    """The settings name (minilm, minilm-full, fast, mpnet, minilm+mpnet) of one of our embedders, else the
    embedder's own name."""
    return "+".join(_model_key(part.split("*")[0]) for part in model.name.split("+"))


def _model_key(name: str) -> str:
    if name.startswith("mpnet-base-v2"):
        return "mpnet"
    if name.startswith("wordllama"):
        return "fast"
    if name.startswith("minilm-l6-v2-onnx"):
        return "minilm"
    if name.startswith("minilm"):
        return "minilm-torch" if "int8" in name else "minilm-full"
    return name


def _encode(
    model: Embedder, texts: Sequence[str], stage: str, progress: Progress | None, batch_size: int
) -> NDArray[np.float32]:
    out = np.zeros((len(texts), model.dim), dtype=np.float32)
    step = max(batch_size * 8, 1)
    if progress:
        progress(stage, 0, len(texts))
    for start in range(0, len(texts), step):
        chunk = texts[start : start + step]
        out[start : start + len(chunk)] = model.encode(chunk, batch_size=batch_size)
        if progress:
            progress(stage, start + len(chunk), len(texts))
    return out
