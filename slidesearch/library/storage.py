"""The library on disk: one index directory written whole, then renamed into place by the caller.

``save_library`` writes every column, the vectors, the BM25 matrices, the mined tables and
an SQLite copy of the slides; ``open_library`` maps the big arrays from disk and answers
phrase frequencies from SQLite, so a 122,623-slide library opens in a fraction of a second
and is shared, not copied, between processes. ``meta.json`` is written last: a directory
without it is never mistaken for a finished index.

The live index (``SEEK_HOME/slides/index``) is a symbolic link to a complete build in a
hidden sibling (``.index.v-…``), replaced by one atomic rename (``slidesearch.index``).
``live_index_dir`` resolves it, and when a kill left no link (only while an index of the
old layout, a real directory, was being moved aside) it falls back to the newest complete
sibling, so an open after an interruption at any point finds an old or a new index.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from core.lexical import BM25Index
from core.rarity import DocFreqTable
from core.settings import get_settings
from slidesearch.model import FOUND_IN, VerifiedCaseStudy, card_preview


class StoredLibrary(Protocol):
    """What storage writes and reads back: the columns and tables of ``columns.Library`` (matched by shape)."""

    path: Path | None
    n: int
    ids: list[str]
    id_to_row: dict[str, int]
    titles: list[str]
    texts: list[str]
    snippets: list[str]
    previews: list[str]
    content_types: list[str]
    sections: NDArray[np.int8]
    universes: list[str]
    deck_ids: list[str]
    deck_names: list[str]
    canonical_decks: list[str]
    folders: list[str]
    slide_numbers: list[int]
    deck_years: NDArray[np.float32]
    deck_dates: list[date | None]
    source_paths: list[str | None]
    field_texts: dict[str, list[str]]
    source_formats: list[str]
    vectors: NDArray[np.float32]
    bm25: BM25Index | None
    rarity: DocFreqTable
    clusters: dict[str, list[str]]
    taxonomy: list[str]
    taxonomy_vectors: NDArray[np.float32]
    master: list[VerifiedCaseStudy]
    master_vectors: NDArray[np.float32]
    embedder_name: str
    embedder_model: str


L = TypeVar("L", bound=StoredLibrary)

#: Bump when the on-disk layout changes; an index with another version must be rebuilt. 2: no FAISS file, the
#: embedder's model name recorded (``minilm`` moved from torch int8 to ONNX Runtime, whose vectors differ).
#: 3: words of every script are tokens (Japanese and Chinese as character pairs), so BM25 and the rarity
#: table of an older index analyse text unlike its queries.
SCHEMA_VERSION = 3

_COLUMN_SEP = "\x00"


class LibraryError(RuntimeError):
    """The index is missing, unreadable or from another schema version."""


def index_siblings(path: Path) -> list[Path]:
    """The hidden build, version and retired directories of the index at ``path`` (``.index.*`` beside it)."""
    path = Path(path)
    if not path.parent.is_dir():
        return []
    return sorted(p for p in path.parent.iterdir() if p.name.startswith(f".{path.name}."))


def live_index_dir(path: Path) -> Path | None:
    """The complete index directory that ``path`` stands for now, or None when there is none.

    ``path`` itself (a directory, or the link to one) when it holds ``meta.json``; else the newest
    complete sibling left by an interrupted swap.
    """
    path = Path(path)
    if (path / "meta.json").exists():
        return path.resolve()
    complete = [p for p in index_siblings(path) if (p / "meta.json").is_file()]
    return max(complete, key=lambda p: (p / "meta.json").stat().st_mtime_ns) if complete else None


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



def save_library(lib: StoredLibrary, directory: Path) -> None:
    """Write the library into ``directory`` (which must not exist yet; the caller renames it into place)."""
    directory.mkdir(parents=True)
    np.save(directory / "vectors.npy", np.ascontiguousarray(lib.vectors, dtype=np.float32))
    np.save(directory / "sections.npy", lib.sections)
    np.save(directory / "deck_years.npy", lib.deck_years)
    np.save(
        directory / "taxonomy_vectors.npy", np.ascontiguousarray(lib.taxonomy_vectors, dtype=np.float32)
    )
    np.save(directory / "master_vectors.npy", np.ascontiguousarray(lib.master_vectors, dtype=np.float32))
    if lib.bm25 is not None:
        lib.bm25.save(directory / "bm25")
    _save_columns(lib, directory / "columns")
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
                    lib.ids[r],
                    lib.deck_ids[r],
                    lib.deck_names[r],
                    lib.folders[r],
                    lib.slide_numbers[r],
                    lib.titles[r],
                    lib.texts[r],
                    lib.content_types[r],
                    lib.universes[r],
                    _iso(lib.deck_dates[r]),
                    lib.source_paths[r],
                )
                for r in range(lib.n)
            ],
        )
        db.execute(
            "CREATE TABLE decks (deck_id TEXT PRIMARY KEY, deck_name TEXT, canonical_deck TEXT, folder TEXT, "
            "universe TEXT, n_slides INTEGER)"
        )
        decks: dict[str, list[Any]] = {}
        for r in range(lib.n):
            entry = decks.setdefault(
                lib.deck_ids[r],
                [
                    lib.deck_ids[r],
                    lib.deck_names[r],
                    lib.canonical_decks[r],
                    lib.folders[r],
                    lib.universes[r],
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
            [(i, m.row_id, m.client, m.use_case, m.title, m.summary, m.universe) for i, m in enumerate(lib.master)],
        )
        db.execute("CREATE TABLE word_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID")
        db.executemany("INSERT INTO word_df VALUES (?, ?)", lib.rarity.words.items())
        db.execute("CREATE TABLE phrase_df (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID")
        db.executemany("INSERT INTO phrase_df VALUES (?, ?)", lib.rarity.phrases.items())
        db.execute("CREATE TABLE metadata (key TEXT PRIMARY KEY, value TEXT)")
        meta = _metadata(lib)
        db.executemany(
            "INSERT INTO metadata VALUES (?, ?)", [(k, json.dumps(v)) for k, v in meta.items()]
        )
        db.commit()
    finally:
        db.close()
    (directory / "mined.json").write_text(
        json.dumps({"clusters": lib.clusters, "taxonomy": lib.taxonomy}, ensure_ascii=False)
    )
    # Written last: a directory without meta.json is never mistaken for a finished index.
    (directory / "meta.json").write_text(json.dumps(meta, indent=2))


def _metadata(lib: StoredLibrary) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "n_slides": lib.n,
        "dim": int(lib.vectors.shape[1]) if lib.vectors.ndim == 2 else 0,
        "embedder": lib.embedder_name,
        "embedder_model": lib.embedder_model,
        "n_docs_rarity": lib.rarity.n_docs,
        "n_clusters": len(lib.clusters),
        "n_cluster_terms": sum(len(v) for v in lib.clusters.values()),
        "n_taxonomy": len(lib.taxonomy),
        "n_master": len(lib.master),
    }


def load_library(lib: L, path: Path | None = None) -> L:
    """Fill the empty ``lib`` from the saved library at ``path`` (default ``SEEK_HOME/slides/index``).

    Vectors and BM25 are memory-mapped.

    A missing index, a missing file or another schema version raises ``LibraryError`` saying to
    run ``seek slides index``.
    """
    asked = Path(path) if path is not None else get_settings().slides_dir / "index"
    path = live_index_dir(asked)
    if path is None:
        raise LibraryError(f"no slide index found; {_rebuild_hint(asked)}")
    meta_path = path / "meta.json"
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError) as exc:
        raise LibraryError(f"the slide index is unreadable (meta.json: {exc}); {_rebuild_hint(asked)}") from exc
    version = meta.get("schema_version") if isinstance(meta, dict) else None
    if version != SCHEMA_VERSION:
        raise LibraryError(
            f"the slide index has schema version {version}, this seek needs {SCHEMA_VERSION}; "
            f"rebuild it: {_rebuild_hint(asked)}"
        )
    lib.path = path
    try:
        _load(lib, path, meta)
    except (OSError, sqlite3.Error, ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        # A damaged file shows up as any of these (a list where a mapping belongs, a short column...).
        raise LibraryError(f"the slide index is unreadable ({type(exc).__name__}: {exc}); "
                           f"{_rebuild_hint(asked)}") from exc
    return lib


def _string_columns(lib: StoredLibrary) -> dict[str, list[str]]:
    return {
        "ids": lib.ids,
        "deck_ids": lib.deck_ids,
        "deck_names": lib.deck_names,
        "folders": lib.folders,
        "titles": lib.titles,
        "texts": lib.texts,
        "snippets": lib.snippets,
        "content_types": lib.content_types,
        "universes": lib.universes,
        "canonical_decks": lib.canonical_decks,
        "source_paths": [p or "" for p in lib.source_paths],
        "deck_dates": [_iso(d) or "" for d in lib.deck_dates],
    }


def _added_columns(lib: StoredLibrary) -> dict[str, list[str]]:
    """Columns added after the first indexes were written; an index without them opens with them empty."""
    return {**{f"field_{name}": texts for name, texts in lib.field_texts.items()}, "source_formats": lib.source_formats}


def _save_columns(lib: StoredLibrary, directory: Path) -> None:
    """Each string column as one UTF-8 file of NUL-separated values: read back with one decode and split.

    Columns with few distinct values (decks, folders, universes, types, dates) are stored
    once per distinct value plus an int32 code per slide, so opening builds no duplicates.
    """
    directory.mkdir()
    for name, values in {**_string_columns(lib), **_added_columns(lib)}.items():
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
    np.save(directory / "slide_numbers.npy", np.asarray(lib.slide_numbers, dtype=np.int32))


def _read_column(directory: Path, name: str, n: int) -> list[str]:
    raw = (directory / f"{name}.txt").read_bytes().decode()
    values = raw.split(_COLUMN_SEP) if n else []
    codes_path = directory / f"{name}.codes.npy"
    if codes_path.exists():
        values = [values[c] for c in np.load(codes_path).tolist()]
    if len(values) != n:
        raise ValueError(f"column {name} has {len(values)} values for {n} slides")
    return values


def _load(lib: StoredLibrary, path: Path, meta: dict[str, Any]) -> None:
    n = int(meta["n_slides"])
    cols = {name: _read_column(path / "columns", name, n) for name in _string_columns(lib)}
    lib.n = n
    lib.ids, lib.deck_ids, lib.deck_names = cols["ids"], cols["deck_ids"], cols["deck_names"]
    lib.folders, lib.titles, lib.texts = cols["folders"], cols["titles"], cols["texts"]
    lib.snippets, lib.content_types = cols["snippets"], cols["content_types"]
    lib.universes, lib.canonical_decks = cols["universes"], cols["canonical_decks"]
    added = {name: _read_column(path / "columns", name, n) if (path / "columns" / f"{name}.txt").exists()
             else [""] * n for name in _added_columns(lib)}
    lib.field_texts = {name: added[f"field_{name}"] for name in FOUND_IN}
    lib.source_formats = added["source_formats"]
    # The snippet is the start of the search document, so its start is the preview of a slide without typed text.
    lib.previews = [card_preview(t, x, s) for t, x, s in zip(lib.titles, lib.texts, lib.snippets, strict=True)]
    lib.source_paths = [p or None for p in cols["source_paths"]]
    parsed: dict[str, date | None] = {"": None}
    lib.deck_dates = [
        parsed[d] if d in parsed else parsed.setdefault(d, date.fromisoformat(d))
        for d in cols["deck_dates"]
    ]
    lib.id_to_row = {sid: r for r, sid in enumerate(lib.ids)}
    lib.slide_numbers = np.load(path / "columns" / "slide_numbers.npy").tolist()
    lib.sections = np.load(path / "sections.npy")
    lib.deck_years = np.load(path / "deck_years.npy")
    lib.vectors = np.load(path / "vectors.npy", mmap_mode="r")
    lib.taxonomy_vectors = np.load(path / "taxonomy_vectors.npy")
    lib.master_vectors = np.load(path / "master_vectors.npy")
    lib.bm25 = BM25Index.load(path / "bm25", mmap=True) if (path / "bm25").exists() else None
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
    lib.rarity = DocFreqTable(n_docs=int(meta["n_docs_rarity"]), words=words)
    lib.rarity.phrases = _SqliteCounts(path / "library.sqlite", "phrase_df")  # type: ignore[assignment]
    mined = json.loads((path / "mined.json").read_text())
    lib.clusters = {k: list(v) for k, v in mined["clusters"].items()}
    lib.taxonomy = list(mined["taxonomy"])
    # Rows this library validated when it was built: constructed again without re-validating.
    lib.master = [
        VerifiedCaseStudy.model_construct(
            row_id=r[0], client=r[1], use_case=r[2], title=r[3], summary=r[4], universe=r[5]
        )
        for r in master_rows
    ]
    lib.embedder_name = str(meta["embedder"])
    lib.embedder_model = str(meta.get("embedder_model", ""))
    if len(lib.vectors) != lib.n or len(lib.sections) != lib.n:
        raise ValueError(
            f"{lib.n} slides but {len(lib.vectors)} vectors and {len(lib.sections)} sections"
        )


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day is not None else None
