"""The ``realdecks`` datasets: 54 real .pptx decks, 60 briefs in six kinds, pooled graded judgements.

The data (``SEEK_DATA_DIR/realdecks``, its README says how it was built) ships its own
``slides.jsonl``, but the harness does not read it: the decks are ingested through
SlideSearch's own pptx path (``slidesearch.ingest.ingest_path``, what ``seek slides ingest``
runs) into a store at ``SEEK_HOME/eval/realdecks/library.db``. The store skips a deck whose
sha256 it has seen and replaces one that changed, so the library is rebuilt exactly when a
source changes. Every deck's bytes are checked against the sha256 in ``sources.jsonl`` (the
judgements were made on those bytes).

A judged key ``decks/<repo>/<file>#<n>`` maps to the slide our ingest made from slide ``n``
(1-based, presentation order, hidden slides included, as both extractors count) of that file.
A key that maps to nothing is an error naming it: a ruler with silently dropped judgements
would score the engine against a different answer key.

Briefs keep their grades as qrels (0-3; ``ndcg_at_k`` and the product measure apply the gain
2^g - 1) and their ``judged`` set (every slide graded, 0 included), so a shown card outside the
pool is told apart from one graded 0. The 5 ``absent`` briefs have no relevant slide.

Split: ``realdecks-tune`` and ``realdecks-check`` take about half the briefs each, stratified by
kind: within a kind the briefs are ordered by sha256 of ``SPLIT_SALT + qid`` and alternate tune,
check, tune, ...; a kind with an odd count gives its extra brief to tune and check in turn (kinds
in alphabetical order), so the halves are 30 and 30 and each holds ``absent`` briefs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from core.settings import get_settings
from eval.dataset_types import DatasetMissing, LabelledQuery, SlidesDataset, SourceFile, source_file
from slidesearch.ingest import ingest_path
from slidesearch.model import Slide
from slidesearch.store import Store

REALDECKS = ("realdecks", "realdecks-tune", "realdecks-check")
SPLIT_SALT = "realdecks-split-v1:"
FILES = ("queries.jsonl", "judged.jsonl", "sources.jsonl")


def realdecks_store_path() -> Path:
    """Where the ingested realdecks library lives (under ``SEEK_HOME``, never in the data folder)."""
    return get_settings().home / "eval" / "realdecks" / "library.db"


def _jsonl(path: Path) -> list[dict]:
    if not path.is_file():
        raise DatasetMissing(f"dataset file not found: {path}")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: invalid JSON ({exc.msg})") from exc
    return rows


def ingest_decks(directory: Path, store_path: Path | None = None) -> list[Slide]:
    """Ingest ``directory/decks`` through the real pptx path and return its slides (ingest order).

    Each deck's sha256 must equal its ``sources.jsonl`` line; a deck that fails to ingest or
    whose slide count differs from ``sources.jsonl`` is a ValueError naming it.
    """
    decks = (directory / "decks").resolve()
    sources = _jsonl(directory / "sources.jsonl")
    for row in sources:
        deck = directory / row["deck"]
        if source_file(deck).sha256 != row["sha256"]:
            raise ValueError(f"{deck}: sha256 differs from sources.jsonl; the judgements were made on other bytes")
    store = Store(store_path or realdecks_store_path())
    try:
        report = ingest_path(decks, store)
        slides = [s for s in store.iter_slides() if s.source_path and Path(s.source_path).is_relative_to(decks)]
    finally:
        store.close()
    if report.failures:
        raise ValueError(f"realdecks: {len(report.failures)} deck(s) failed to ingest: {report.failures[0]}")
    counts: dict[str, int] = {}
    for s in slides:
        counts[str(s.source_path)] = counts.get(str(s.source_path), 0) + 1
    for row in sources:
        # The deck folder is resolved as ingest_path resolves it; a linked deck keeps its own name.
        found = counts.get(str(decks.parent / row["deck"]), 0)
        if found != row["slides"]:
            raise ValueError(f"realdecks: {row['deck']} ingested as {found} slides, sources.jsonl says {row['slides']}")
    return slides


def key_map(directory: Path, slides: Iterable[Slide]) -> dict[str, str]:
    """Every ``decks/<repo>/<file>#<n>`` key of the ingested slides -> our slide id."""
    root = directory.resolve()
    out = {}
    for s in slides:
        rel = Path(str(s.source_path)).relative_to(root).as_posix()
        out[f"{rel}#{s.slide_number}"] = s.slide_id
    return out


def split_of(briefs: Iterable[LabelledQuery]) -> dict[str, str]:
    """qid -> ``tune`` or ``check``: stratified by kind, ordered by a salted hash (module docstring)."""
    by_kind: dict[str, list[str]] = {}
    for b in briefs:
        by_kind.setdefault(b.kind, []).append(b.id)
    out: dict[str, str] = {}
    odd_goes_to_tune = True
    for kind in sorted(by_kind):
        ordered = sorted(by_kind[kind], key=lambda q: hashlib.sha256(f"{SPLIT_SALT}{q}".encode()).hexdigest())
        first, second = ("tune", "check") if odd_goes_to_tune or len(ordered) % 2 == 0 else ("check", "tune")
        for position, qid in enumerate(ordered):
            out[qid] = first if position % 2 == 0 else second
        if len(ordered) % 2:
            odd_goes_to_tune = not odd_goes_to_tune
    return out


def _decks_fingerprint(directory: Path, sources: list[dict]) -> SourceFile:
    """One fingerprint for the deck folder: sha256 over the sorted ``deck sha256`` lines (deck names repeat)."""
    lines = "\n".join(sorted(f"{row['deck']} {source_file(directory / row['deck']).sha256}" for row in sources))
    total = sum(source_file(directory / row["deck"]).bytes for row in sources)
    return SourceFile(path=str(directory / "decks"), sha256=hashlib.sha256(lines.encode()).hexdigest(), bytes=total)


def load_realdecks(name: str = "realdecks", data_dir: Path | None = None, store_path: Path | None = None) -> SlidesDataset:
    """``realdecks`` (all 60 briefs), ``realdecks-tune`` or ``realdecks-check``, run in ``pipeline`` mode."""
    if name not in REALDECKS:
        raise ValueError(f"unknown realdecks dataset {name!r}; choose from {', '.join(REALDECKS)}")
    directory = (data_dir or get_settings().data_dir) / "realdecks"
    if not (directory / "decks").is_dir():
        raise DatasetMissing(f"realdecks decks folder not found: {directory / 'decks'}")
    slides = ingest_decks(directory, store_path)
    ids = key_map(directory, slides)
    judged_rows = {row["qid"]: row for row in _jsonl(directory / "judged.jsonl")}
    briefs: list[LabelledQuery] = []
    unmapped: list[str] = []
    for row in _jsonl(directory / "queries.jsonl"):
        qid = row["qid"]
        if qid not in judged_rows:
            raise ValueError(f"realdecks: brief {qid} has no line in judged.jsonl")
        judged = judged_rows[qid]["judged"]
        unmapped += [key for key in {**judged, **row["relevant"]} if key not in ids]
        disagree = [k for k, g in row["relevant"].items() if judged.get(k) != g]
        if disagree:
            raise ValueError(f"realdecks: {qid} grades {disagree[:3]} differ between queries.jsonl and judged.jsonl")
        briefs.append(LabelledQuery(
            id=qid, text=row["query"], kind=row["kind"],
            qrels={ids[k]: float(g) for k, g in judged.items() if g > 0 and k in ids},
            judged=sorted(ids[k] for k in judged if k in ids),
        ))
    if unmapped:
        raise ValueError(f"realdecks: {len(unmapped)} judged key(s) map to no ingested slide: {sorted(set(unmapped))[:5]}")
    if name != "realdecks":
        half = name.removeprefix("realdecks-")
        split = split_of(briefs)
        briefs = [b for b in briefs if split[b.id] == half]
    sources = [source_file(directory / f) for f in FILES]
    return SlidesDataset(
        name=name, mode="pipeline", docs=slides, queries=briefs, gain="exponential",
        sources=[*sources, _decks_fingerprint(directory, _jsonl(directory / "sources.jsonl"))],
        params={"relevant": "pooled graded judgements (0-3)", "gain": "2^g - 1", "split": name,
                "ingest": "slidesearch.ingest.ingest_path (pptx)", "unjudged": "outside the judged pool"},
    )
