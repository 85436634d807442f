"""The slide library as the pipeline sees it: columnar, read-only, shared across threads.

A ``Library`` holds one row per slide in parallel columns (ids, titles, snippets,
sections, vectors, ...) plus everything mined from the corpus once: the BM25
index, the word and phrase document-frequency table, the curated expansion
clusters, the taxonomy terms and the verified master sheet with their vectors.
It is built in memory by ``Library.from_slides`` (tests, small datasets) or
opened from an index directory written by ``Library.save`` (``seek slides
index``). Opening maps the embedding matrix and the BM25 matrices from disk and
answers phrase frequencies from SQLite, so a 122,623-slide library opens in a
fraction of a second and is shared, not copied, between processes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from core.embed import Embedder, make_embedder
from core.lexical import BM25Index
from core.rarity import DocFreqTable
from core.settings import get_settings
from core.text import ENGLISH_STOPWORDS, GENERIC_BUSINESS_TERMS, ngrams, tokenize
from slidesearch.config import LexicalConfig
from slidesearch.model import (
    PREVIEW_CHARS,
    Slide,
    VerifiedCaseStudy,
    canonical_deck_id,
    decimal_year,
    preview,
    slide_document,
    snippet,
)
from slidesearch.sections import DEFAULT_SECTIONS, SectionTable

#: Bump when the on-disk layout changes; an index with another version must be rebuilt.
SCHEMA_VERSION = 1

#: Phrases in the rarity table span only content words: "payment of the capital call" holds "capital call".
RARITY_STOPWORDS = ENGLISH_STOPWORDS

#: The seed's curated dictionary had 96 keys / 164 terms at 122,623 slides; keys are capped near that.
MAX_CLUSTER_KEYS = 100
MAX_TERMS_PER_CLUSTER = 3
#: Cluster keys and terms come from the most frequent taxonomy terms (a dense co-occurrence matrix of this side).
CLUSTER_CANDIDATES = 2_000
#: The seed compared queries against about 5,600 taxonomy terms.
MAX_TAXONOMY_TERMS = 5_600

Progress = Callable[[str, int, int], None]
_COLUMN_SEP = "\x00"


class UnknownUniverseError(ValueError):
    """A scope names a universe no slide of the library belongs to (a typo would otherwise answer nothing)."""

    def __init__(self, unknown: Sequence[str], known: Sequence[str]) -> None:
        self.unknown, self.known = list(unknown), list(known)
        super().__init__(f"unknown universe(s): {', '.join(self.unknown)}; the library has {', '.join(self.known) or 'none'}")


class LibraryError(RuntimeError):
    """The index is missing, unreadable or from another schema version."""


def _rebuild_hint(path: Path) -> str:
    """How to (re)build the index at ``path``: ``seek slides index`` writes ``SEEK_HOME/slides/index``."""
    path = Path(path)
    if path.resolve() == (get_settings().slides_dir / "index").resolve():
        return f"run `seek slides index` to build it (index directory: {path})"
    if path.name == "index" and path.parent.name == "slides":
        return f"run `SEEK_HOME={path.parent.parent} seek slides index` to build it (index directory: {path})"
    return (f"`seek slides index` builds SEEK_HOME/slides/index; build one there and point --index at it "
            f"(index directory: {path})")


class _SqliteCounts(Mapping[str, int]):
    """A read-only term -> count mapping answered from an SQLite table, so huge phrase tables cost no load time."""

    def __init__(self, db_path: Path, table: str) -> None:
        self._db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, check_same_thread=False)
        self._table = table
        self._lock = threading.Lock()
        with self._lock:
            self._len = int(self._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])

    def __getitem__(self, term: str) -> int:
        with self._lock:
            row = self._db.execute(f"SELECT df FROM {self._table} WHERE term = ?", (term,)).fetchone()
        if row is None:
            raise KeyError(term)
        return int(row[0])

    def get(self, term: str, default: Any = None) -> Any:  # noqa: D102 - Mapping.get, without the KeyError round trip
        with self._lock:
            row = self._db.execute(f"SELECT df FROM {self._table} WHERE term = ?", (term,)).fetchone()
        return default if row is None else int(row[0])

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.get(term) is not None

    def __iter__(self) -> Iterator[str]:
        with self._lock:
            terms = [r[0] for r in self._db.execute(f"SELECT term FROM {self._table}")]
        return iter(terms)

    def __len__(self) -> int:
        return self._len


@dataclass
class TermMatrix:
    """Which distinctive terms occur on which slide: a CSR matrix (slides x terms) plus the term list."""

    terms: list[str]
    matrix: Any
    in_titles: Counter[str]

    @property
    def df(self) -> NDArray[np.int64]:
        return np.bincount(self.matrix.indices, minlength=len(self.terms))


def _is_distinctive(term: str) -> bool:
    """A term worth mining: no stopword at either end, not only generic business words, no number, 4+ characters."""
    words = term.split()
    if {words[0], words[-1]} & ENGLISH_STOPWORDS or all(w in GENERIC_BUSINESS_TERMS for w in words):
        return False
    if any(w.isdigit() for w in words) or len(set(words)) != len(words):
        return False
    return len(term) >= 4


def mine_terms(documents: Sequence[str], progress: Progress | None = None) -> tuple[DocFreqTable, TermMatrix]:
    """One pass over the slides: the rarity table and the slide x distinctive-term matrix.

    Words are counted once per slide; 2-3-word phrases are built from the content words
    (stopwords dropped) of one line at a time, so a phrase never spans two bullets
    ("payment of the capital call" holds "capital call"; "...reporting\nQ1 results" does
    not make "reporting q1"). The first line of each document is its title; how many titles
    hold each distinctive term is kept too (cluster keys must be title material).
    """
    from scipy import sparse

    words: Counter[str] = Counter()
    phrases: Counter[str] = Counter()
    term_id: dict[str, int] = {}
    distinctive: dict[str, bool] = {}
    in_titles: Counter[str] = Counter()
    indices: array[int] = array("i")
    indptr: array[int] = array("q", [0])
    step = 5_000
    if progress:
        progress("mine", 0, len(documents))
    for start in range(0, len(documents), step):
        for doc in documents[start : start + step]:
            doc_words: set[str] = set()
            doc_phrases: set[str] = set()
            for number, line in enumerate(doc.split("\n")):
                tokens = tokenize(line)
                doc_words.update(tokens)
                line_phrases = set(ngrams([t for t in tokens if t not in RARITY_STOPWORDS], (2, 3)))
                doc_phrases.update(line_phrases)
                if number == 0:
                    in_titles.update(t for t in set(tokens) | line_phrases if len(t) >= 4)
            words.update(doc_words)
            phrases.update(doc_phrases)
            for term in doc_words | doc_phrases:
                keep = distinctive.get(term)
                if keep is None:
                    keep = distinctive[term] = _is_distinctive(term)
                if keep:
                    indices.append(term_id.setdefault(term, len(term_id)))
            indptr.append(len(indices))
        if progress:
            progress("mine", min(start + step, len(documents)), len(documents))
    rarity = DocFreqTable(n_docs=len(documents), words=words, phrases=phrases)
    data = np.ones(len(indices), dtype=np.float32)
    matrix = sparse.csr_matrix(
        (data, np.frombuffer(indices, dtype=np.int32), np.frombuffer(indptr, dtype=np.int64)),
        shape=(len(documents), len(term_id)),
    )
    return rarity, TermMatrix(terms=list(term_id), matrix=matrix, in_titles=in_titles)


def mine_taxonomy(terms: TermMatrix, rarity: DocFreqTable, limit: int = MAX_TAXONOMY_TERMS) -> list[str]:
    """The library's topic vocabulary: distinctive words and phrases that recur and stand as units, most frequent first.

    A term qualifies when it appears in at least ``max(3, n / 20,000)`` slides (recurring,
    not a one-off) and at most 5% of them (a topic, not boilerplate); small libraries,
    where one topic can fill a large share, allow up to 50 slides but never half of them.
    A phrase must be cohesive: on at least half the slides of its most frequent
    non-generic word (so "money laundering" and "customer segmentation" stay, while a
    fragment like "accounts large" that straddles two terms goes).
    A word that nearly always occurs inside one phrase (90% of its slides) gives way to the
    phrase ("laundering" to "money laundering"). Up to 5,600 terms, the seed's taxonomy size.
    """
    n = max(terms.matrix.shape[0], 1)
    min_df, max_df = max(3, n // 20_000), min(max(int(0.05 * n), 50), n // 2)
    df = terms.df
    ok = [j for j in np.flatnonzero((df >= min_df) & (df <= max_df)).tolist()]
    kept: list[int] = []
    subsumed: set[str] = set()
    for j in ok:
        words = terms.terms[j].split()
        if len(words) == 1:
            kept.append(j)
            continue
        commonest = max(rarity.words.get(w, 0) for w in words if w not in GENERIC_BUSINESS_TERMS)
        if commonest and df[j] >= 0.5 * commonest:
            kept.append(j)
            subsumed.update(w for w in words if df[j] >= 0.9 * rarity.words.get(w, 0))
    order = sorted(
        (j for j in kept if terms.terms[j] not in subsumed), key=lambda j: (-int(df[j]), terms.terms[j])
    )
    return [terms.terms[j] for j in order[:limit]]


def mine_clusters(
    terms: TermMatrix,
    candidates: Sequence[str],
    groups: Sequence[str] | None = None,
    max_keys: int = MAX_CLUSTER_KEYS,
    max_terms: int = MAX_TERMS_PER_CLUSTER,
    min_confidence: float = 0.5,
    min_lift: float = 3.0,
    collocation: float = 0.9,
    min_key_slides: int | None = None,
) -> dict[str, list[str]]:
    """Curated expansion clusters: each trigger term with the distinctive terms that co-occur with it.

    Association is measured over ``groups`` (the slide's deck: a fraud deck holds fraud
    terms throughout, while a cover-slide line like "Confidential" sits in every deck and
    so co-occurs with nothing in particular), or over slides when no groups are given.
    For candidate terms k and t with frequencies df and co-occurrence c, t joins k's
    cluster when t is in at least ``min_confidence`` of k's groups (c / df(k)), the pair is
    at least ``min_lift`` times more frequent than chance (c N / (df(k) df(t))), the two
    share no word (no "fraud" -> "fraud detection"), and they are not one fixed phrase
    split in two (on the same slides, each on at least ``collocation`` of the other's:
    "co founder" and the name that always follows it expand nothing). Terms are ranked by
    confidence x log lift, at most ``max_terms`` per key.

    A key is a topic a rep might type: it appears in slide titles (at least 3) and on at
    least ``min_key_slides`` slides (default ``max(10, N / 5,000)``). Keys are ranked by
    the summed score of their terms and taken while they add a new topic (a key already
    inside a chosen cluster, or sharing two terms with one, is a variant), up to
    ``max_keys`` (the seed's dictionary had 96 keys / 164 terms).
    """
    from scipy import sparse

    index = {term: j for j, term in enumerate(terms.terms)}
    cols = [index[t] for t in candidates if t in index]
    if not cols:
        return {}
    names = [terms.terms[j] for j in cols]
    sub = terms.matrix[:, cols].tocsr()
    slide_co = (sub.T @ sub).toarray()
    slide_df = np.diag(slide_co).copy()
    if groups is not None:
        group_of = {g: i for i, g in enumerate(dict.fromkeys(groups))}
        rows = np.fromiter((group_of[g] for g in groups), dtype=np.int64, count=len(groups))
        member = sparse.csr_matrix(
            (np.ones(len(rows), dtype=np.float32), (rows, np.arange(len(rows)))),
            shape=(len(group_of), len(rows)),
        )
        grouped = (member @ sub).tocsr()
        grouped.data[:] = 1.0
        co = (grouped.T @ grouped).toarray()
        n = float(len(group_of))
    else:
        co, n = slide_co, float(sub.shape[0])
    df = np.diag(co).copy()
    key_floor = min_key_slides if min_key_slides is not None else max(10, terms.matrix.shape[0] // 5_000)
    word_sets = [set(name.split()) for name in names]
    scored: list[tuple[float, int, list[int]]] = []
    for k, key in enumerate(names):
        if slide_df[k] < key_floor or terms.in_titles[key] < 3:
            continue
        confidence = co[k] / df[k]
        lift = co[k] * n / np.maximum(df[k] * df, 1.0)
        fixed_phrase = (slide_co[k] >= collocation * slide_df[k]) & (slide_co[k] >= collocation * slide_df)
        ok = (confidence >= min_confidence) & (lift >= min_lift) & ~fixed_phrase
        ok[k] = False
        score = confidence * np.log(np.maximum(lift, 1.0))
        chosen: list[int] = []
        candidates_ok = np.flatnonzero(ok)
        for t in candidates_ok[np.argsort(-score[candidates_ok], kind="stable")]:
            if word_sets[t] & word_sets[k] or any(word_sets[t] & word_sets[c] for c in chosen):
                continue
            chosen.append(int(t))
            if len(chosen) == max_terms:
                break
        if chosen:
            scored.append((float(score[chosen].sum()), k, chosen))
    scored.sort(key=lambda item: (-item[0], names[item[1]]))
    clusters: dict[str, list[str]] = {}
    covered: set[int] = set()
    taken: list[set[int]] = []
    for _, k, chosen in scored:
        if k in covered or any(len(set(chosen) & other) >= 2 for other in taken):
            continue
        clusters[names[k]] = [names[t] for t in chosen]
        covered.update(chosen)
        covered.add(k)
        taken.append(set(chosen))
        if len(clusters) == max_keys:
            break
    return clusters


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
        self.vectors: NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self.bm25: BM25Index | None = None
        self.rarity = DocFreqTable()
        self.clusters: dict[str, list[str]] = {}
        self.taxonomy: list[str] = []
        self.taxonomy_vectors: NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self.master: list[VerifiedCaseStudy] = []
        self.master_vectors: NDArray[np.float32] = np.zeros((0, 0), dtype=np.float32)
        self.embedder_name = ""
        self._embedder: Embedder | None = None
        self._faiss: Any = None
        self._faiss_lock = threading.Lock()

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
        )

    def section_of(self, row: int) -> str:
        return self.section_table.names[int(self.sections[row])]

    def embedder(self) -> Embedder:
        """The embedder the vectors were made with (loaded on first use; queries must use the same one)."""
        if self._embedder is None:
            self._embedder = make_embedder(self.embedder_name)
        return self._embedder

    @property
    def faiss_index(self) -> Any:
        """A FAISS inner-product index over all vectors (exact; cosine on unit vectors), built or read on first use."""
        with self._faiss_lock:
            if self._faiss is None:
                import faiss

                stored = self.path / "vectors.faiss" if self.path is not None else None
                if stored is not None and stored.exists():
                    self._faiss = faiss.read_index(str(stored))
                else:
                    index = faiss.IndexFlatIP(self.vectors.shape[1] if self.vectors.ndim == 2 else 0)
                    if self.n:
                        index.add(np.ascontiguousarray(self.vectors, dtype=np.float32))
                    self._faiss = index
            return self._faiss

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
        lib._fill_columns(list(slides))
        documents = [slide_document(t, x) for t, x in zip(lib.titles, lib.texts, strict=True)]
        lib.vectors = _encode(model, lib.snippets, "embed", progress, batch_size)
        if progress:
            progress("bm25", 0, lib.n)
        lex = lexical or LexicalConfig()
        lib.bm25 = BM25Index.from_texts(documents if lex.text == "full" else lib.snippets, k1=lex.k1, b=lex.b,
                                        stemmer=lex.stemmer)
        if progress:
            progress("bm25", lib.n, lib.n)
        lib.rarity, terms = mine_terms(documents, progress)
        if progress:
            progress("clusters", 0, 1)
        lib.taxonomy = mine_taxonomy(terms, lib.rarity)
        lib.clusters = mine_clusters(terms, lib.taxonomy[:CLUSTER_CANDIDATES], lib.deck_ids)
        if progress:
            progress("clusters", 1, 1)
        lib.taxonomy_vectors = _encode(model, lib.taxonomy, "taxonomy", progress, batch_size)
        lib.master = list(master)
        lib.master_vectors = _encode(model, [m.document for m in lib.master], "master", progress, batch_size)
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
        docs = [slide_document(s.title, s.text) for s in slides]
        self.snippets = [snippet(d) for d in docs]
        self.previews = [preview(d) for d in docs]
        self.content_types = [s.content_type for s in slides]
        table = self.section_table
        self.sections = np.array([table.index[table.section_for(s.content_type, s.title, s.text)] for s in slides],
                                 dtype=np.int8)
        self.universes = [s.universe for s in slides]
        self.deck_ids = [s.deck_id for s in slides]
        self.deck_names = [s.deck_name for s in slides]
        self.canonical_decks = [canonical_deck_id(s.deck_name or s.deck_id) for s in slides]
        self.folders = [s.folder for s in slides]
        self.slide_numbers = [s.slide_number for s in slides]
        self.deck_dates = [s.deck_date for s in slides]
        self.deck_years = np.array([decimal_year(s.deck_date) for s in slides], dtype=np.float32)
        self.source_paths = [s.source_path for s in slides]

    # ----------------------------------------------------------------- disk

    def save(self, directory: Path) -> None:
        """Write the library into ``directory`` (which must not exist yet; the caller renames it into place)."""
        import faiss

        directory.mkdir(parents=True)
        np.save(directory / "vectors.npy", np.ascontiguousarray(self.vectors, dtype=np.float32))
        faiss.write_index(self.faiss_index, str(directory / "vectors.faiss"))
        np.save(directory / "sections.npy", self.sections)
        np.save(directory / "deck_years.npy", self.deck_years)
        np.save(
            directory / "taxonomy_vectors.npy", np.ascontiguousarray(self.taxonomy_vectors, dtype=np.float32)
        )
        np.save(directory / "master_vectors.npy", np.ascontiguousarray(self.master_vectors, dtype=np.float32))
        if self.bm25 is not None:
            self.bm25.save(directory / "bm25")
        self._save_columns(directory / "columns")
        db = sqlite3.connect(str(directory / "library.sqlite"))
        try:
            db.execute(
                "CREATE TABLE slides (row INTEGER PRIMARY KEY, slide_id TEXT UNIQUE NOT NULL, deck_id TEXT, "
                "deck_name TEXT, folder TEXT, slide_number INTEGER, title TEXT, text TEXT, content_type TEXT, "
                "universe TEXT, deck_date TEXT, source_path TEXT)"
            )
            db.executemany(
                "INSERT INTO slides VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        r,
                        self.ids[r],
                        self.deck_ids[r],
                        self.deck_names[r],
                        self.folders[r],
                        self.slide_numbers[r],
                        self.titles[r],
                        self.texts[r],
                        self.content_types[r],
                        self.universes[r],
                        _iso(self.deck_dates[r]),
                        self.source_paths[r],
                    )
                    for r in range(self.n)
                ],
            )
            db.execute(
                "CREATE TABLE decks (deck_id TEXT PRIMARY KEY, deck_name TEXT, canonical_deck TEXT, folder TEXT, "
                "universe TEXT, n_slides INTEGER)"
            )
            decks: dict[str, list[Any]] = {}
            for r in range(self.n):
                entry = decks.setdefault(
                    self.deck_ids[r],
                    [
                        self.deck_ids[r],
                        self.deck_names[r],
                        self.canonical_decks[r],
                        self.folders[r],
                        self.universes[r],
                        0,
                    ],
                )
                entry[5] += 1
            db.executemany("INSERT INTO decks VALUES (?,?,?,?,?,?)", list(decks.values()))
            db.execute(
                "CREATE TABLE master (row INTEGER PRIMARY KEY, row_id TEXT, client TEXT, use_case TEXT, "
                "title TEXT, summary TEXT, universe TEXT)"
            )
            db.executemany(
                "INSERT INTO master VALUES (?,?,?,?,?,?,?)",
                [(i, m.row_id, m.client, m.use_case, m.title, m.summary, m.universe) for i, m in enumerate(self.master)],
            )
            db.execute("CREATE TABLE word_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID")
            db.executemany("INSERT INTO word_df VALUES (?, ?)", self.rarity.words.items())
            db.execute("CREATE TABLE phrase_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID")
            db.executemany("INSERT INTO phrase_df VALUES (?, ?)", self.rarity.phrases.items())
            db.execute("CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT)")
            meta = self._metadata()
            db.executemany(
                "INSERT INTO metadata VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()]
            )
            db.commit()
        finally:
            db.close()
        (directory / "mined.json").write_text(
            json.dumps({"clusters": self.clusters, "taxonomy": self.taxonomy}, ensure_ascii=False)
        )
        # Written last: a directory without meta.json is never mistaken for a finished index.
        (directory / "meta.json").write_text(json.dumps(meta, indent=2))

    def _metadata(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "n_slides": self.n,
            "dim": int(self.vectors.shape[1]) if self.vectors.ndim == 2 else 0,
            "embedder": self.embedder_name,
            "n_docs_rarity": self.rarity.n_docs,
            "n_clusters": len(self.clusters),
            "n_cluster_terms": sum(len(v) for v in self.clusters.values()),
            "n_taxonomy": len(self.taxonomy),
            "n_master": len(self.master),
        }

    @classmethod
    def open(cls, path: Path | None = None) -> Library:
        """Open a saved library (default ``SEEK_HOME/slides/index``); vectors and BM25 are memory-mapped.

        A missing index, a missing file or another schema version raises ``LibraryError`` saying to
        run ``seek slides index``.
        """
        path = Path(path) if path is not None else get_settings().slides_dir / "index"
        meta_path = path / "meta.json"
        if not meta_path.exists():
            raise LibraryError(f"no slide index found; {_rebuild_hint(path)}")
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError) as exc:
            raise LibraryError(f"the slide index is unreadable (meta.json: {exc}); {_rebuild_hint(path)}") from exc
        version = meta.get("schema_version") if isinstance(meta, dict) else None
        if version != SCHEMA_VERSION:
            raise LibraryError(
                f"the slide index has schema version {version}, this seek needs {SCHEMA_VERSION}; "
                f"rebuild it: {_rebuild_hint(path)}"
            )
        lib = cls()
        lib.path = path
        try:
            lib._load(path, meta)
        except (OSError, sqlite3.Error, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            # A damaged file shows up as any of these (a list where a mapping belongs, a short column...).
            raise LibraryError(f"the slide index is unreadable ({type(exc).__name__}: {exc}); "
                               f"{_rebuild_hint(path)}") from exc
        return lib

    def _string_columns(self) -> dict[str, list[str]]:
        return {
            "ids": self.ids,
            "deck_ids": self.deck_ids,
            "deck_names": self.deck_names,
            "folders": self.folders,
            "titles": self.titles,
            "texts": self.texts,
            "snippets": self.snippets,
            "content_types": self.content_types,
            "universes": self.universes,
            "canonical_decks": self.canonical_decks,
            "source_paths": [p or "" for p in self.source_paths],
            "deck_dates": [_iso(d) or "" for d in self.deck_dates],
        }

    def _save_columns(self, directory: Path) -> None:
        """Each string column as one UTF-8 file of NUL-separated values: read back with one decode and split.

        Columns with few distinct values (decks, folders, universes, types, dates) are stored
        once per distinct value plus an int32 code per slide, so opening builds no duplicates.
        """
        directory.mkdir()
        for name, values in self._string_columns().items():
            distinct = list(dict.fromkeys(values))
            if len(distinct) <= len(values) // 2:
                code = {v: i for i, v in enumerate(distinct)}
                np.save(
                    directory / f"{name}.codes.npy",
                    np.fromiter((code[v] for v in values), np.int32, len(values)),
                )
                values = distinct
            (directory / f"{name}.txt").write_bytes(
                _COLUMN_SEP.join(v.replace(_COLUMN_SEP, " ") for v in values).encode()
            )
        np.save(directory / "slide_numbers.npy", np.asarray(self.slide_numbers, dtype=np.int32))

    @staticmethod
    def _read_column(directory: Path, name: str, n: int) -> list[str]:
        raw = (directory / f"{name}.txt").read_bytes().decode()
        values = raw.split(_COLUMN_SEP) if n else []
        codes_path = directory / f"{name}.codes.npy"
        if codes_path.exists():
            values = [values[c] for c in np.load(codes_path).tolist()]
        if len(values) != n:
            raise ValueError(f"column {name} has {len(values)} values for {n} slides")
        return values

    def _load(self, path: Path, meta: dict[str, Any]) -> None:
        n = int(meta["n_slides"])
        cols = {name: self._read_column(path / "columns", name, n) for name in self._string_columns()}
        self.n = n
        self.ids, self.deck_ids, self.deck_names = cols["ids"], cols["deck_ids"], cols["deck_names"]
        self.folders, self.titles, self.texts = cols["folders"], cols["titles"], cols["texts"]
        self.snippets, self.content_types = cols["snippets"], cols["content_types"]
        self.universes, self.canonical_decks = cols["universes"], cols["canonical_decks"]
        self.previews = [s[:PREVIEW_CHARS] for s in self.snippets]
        self.source_paths = [p or None for p in cols["source_paths"]]
        parsed: dict[str, date | None] = {"": None}
        self.deck_dates = [
            parsed[d] if d in parsed else parsed.setdefault(d, date.fromisoformat(d))
            for d in cols["deck_dates"]
        ]
        self.id_to_row = {sid: r for r, sid in enumerate(self.ids)}
        self.slide_numbers = np.load(path / "columns" / "slide_numbers.npy").tolist()
        self.sections = np.load(path / "sections.npy")
        self.deck_years = np.load(path / "deck_years.npy")
        self.vectors = np.load(path / "vectors.npy", mmap_mode="r")
        self.taxonomy_vectors = np.load(path / "taxonomy_vectors.npy")
        self.master_vectors = np.load(path / "master_vectors.npy")
        self.bm25 = BM25Index.load(path / "bm25", mmap=True) if (path / "bm25").exists() else None
        db = sqlite3.connect(f"file:{path / 'library.sqlite'}?mode=ro", uri=True)
        try:
            # An index written before rows had a universe has no such column: its rows are company-wide.
            has_universe = any(col[1] == "universe" for col in db.execute("PRAGMA table_info(master)"))
            master_rows = db.execute(
                f"SELECT row_id, client, use_case, title, summary, {'universe' if has_universe else 'NULL'} "
                "FROM master ORDER BY row"
            ).fetchall()
            words = Counter(dict(db.execute("SELECT term, df FROM word_df")))
        finally:
            db.close()
        self.rarity = DocFreqTable(n_docs=int(meta["n_docs_rarity"]), words=words)
        self.rarity.phrases = _SqliteCounts(path / "library.sqlite", "phrase_df")  # type: ignore[assignment]
        mined = json.loads((path / "mined.json").read_text())
        self.clusters = {k: list(v) for k, v in mined["clusters"].items()}
        self.taxonomy = list(mined["taxonomy"])
        # Rows this library validated when it was built: constructed again without re-validating.
        self.master = [
            VerifiedCaseStudy.model_construct(
                row_id=r[0], client=r[1], use_case=r[2], title=r[3], summary=r[4], universe=r[5]
            )
            for r in master_rows
        ]
        self.embedder_name = str(meta["embedder"])
        if len(self.vectors) != self.n or len(self.sections) != self.n:
            raise ValueError(
                f"{self.n} slides but {len(self.vectors)} vectors and {len(self.sections)} sections"
            )


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day is not None else None


def _embedder_key(model: Embedder) -> str:
    """The settings name (minilm, minilm-full, fast) of one of our embedders, else the embedder's own name."""
    if model.name.startswith("wordllama"):
        return "fast"
    if model.name.startswith("minilm"):
        return "minilm" if "int8" in model.name else "minilm-full"
    return model.name


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
