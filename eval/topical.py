"""The hand-graded topical query set over the SlideVQA slides (issue #7).

SlideVQA's own questions are factoids whose evidence is one or two slides; a sales
rep's brief is topical ("growth of mobile ad spend") and wants every slide on the
topic. This set supplies that second kind over the same 1,284 slide texts, so the
slides suite can tune on both kinds together.

Who, how, when: written for the project on 2026-11-29 by a helper engineer (an AI
coding agent briefed by the lead), by reading, not by ranking. Each brief is
paraphrased in a rep's or an analyst's words (several deliberately avoid the
slides' own vocabulary). Candidate slides were found with plain regular
expressions over the texts, using many synonyms, and by listing every slide of
each deck on the topic; each candidate's text was then read (most in full, long
ones at least as far as settled the grade) and graded by hand. No search engine,
BM25, embedding or other ranker chose or graded a label, so the set does not lean
towards our engine.

Grades: 3 = squarely about the brief, 2 = clearly relevant or useful for it,
1 = related background; unlisted slides have gain 0. 50 briefs, 607 labels
(273 graded 3, 172 graded 2, 162 graded 1). Every brief has a grade-3 slide.

Pooled, 2026-12-07 (issue #17: a judge never counts an unjudged card as wrong). Until then a
card outside the graded list was taken as gain 0 and counted against precision: 37% of the shown
cards were such (run 20261204-181247). For every brief the pool is the union of plain MiniLM's
top 10 (the reference), the engine's ``retrieve`` top 10 and the product's shown cards at floors
0.62 and 0.50 (``docs/experiments/2026-12-13/pool_topical.py``); its 362 slides not yet graded were
graded 0-3 by five helper engineers (AI agents), each given only the briefs, their notes, the
slides' full texts (shuffled, nothing saying which ranker pooled a slide) and, for calibration,
the slides the set already graded; no ranker graded a slide. Those grades are each row's
``pooled`` object (grade 0 kept: judged not relevant). A row with ``pooled`` has a judged pool
(its ``relevance`` and ``pooled`` ids): a card outside it is *unjudged*, left out of precision and
reported, as on the real decks; its gain in nDCG is still 0.

Each line of ``data/slidevqa_topical.jsonl`` is
``{"query_id", "query", "relevance": {slide_id: grade}, "note"[, "pooled": {slide_id: grade 0-3}]}``;
the note says what a relevant slide must show.
"""

from __future__ import annotations

import json
from pathlib import Path

from eval.dataset_types import DatasetMissing, LabelledQuery, SlidesDataset, source_file
from slidesearch.ingest import SLIDEVQA_TEXTS, read_slidevqa

TOPICAL_QUERIES = Path(__file__).parent / "data" / "slidevqa_topical.jsonl"
GRADES = (1, 2, 3)
POOLED_GRADES = (0, 1, 2, 3)
FIELDS = ("query_id", "query", "relevance", "note")


def _check_grades(grades: dict, known: set[str], allowed: tuple[int, ...], where: str, which: str) -> None:
    """A ValueError naming ``where`` for a slide id not in ``known`` or a grade outside ``allowed`` (``which``
    prefixes the message: "" for the labels, "pooled " for the pool's grades)."""
    unknown = [sid for sid in grades if sid not in known]
    if unknown:
        raise ValueError(f"{where}: unknown {which}slide id(s) {', '.join(unknown)}")
    bad = {sid: g for sid, g in grades.items() if isinstance(g, bool) or g not in allowed}
    if bad:
        listed = f"{', '.join(map(str, allowed[:-1]))} or {allowed[-1]}"
        raise ValueError(f"{where}: {which}grades must be {listed}; got {bad}")


def _parse_row(line: str, number: int, path: Path, known: set[str]) -> LabelledQuery:
    """One JSONL row as a labelled query; any defect is a ValueError naming ``path:number``."""
    where = f"{path}:{number}"
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: invalid JSON ({exc.msg})") from exc
    if not isinstance(row, dict):
        raise ValueError(f"{where}: a row must be a JSON object")
    missing = [f for f in FIELDS if f not in row]
    if missing:
        raise ValueError(f"{where}: missing field(s) {', '.join(missing)}")
    for field in ("query_id", "query", "note"):
        if not (isinstance(row[field], str) and row[field].strip()):
            raise ValueError(f"{where}: {field!r} must be a non-empty string")
    relevance = row["relevance"]
    if not (isinstance(relevance, dict) and relevance):
        raise ValueError(f"{where}: 'relevance' must be a non-empty object of slide id -> grade")
    _check_grades(relevance, known, GRADES, where, "")
    if 3 not in relevance.values():
        raise ValueError(f"{where}: {row['query_id']} has no grade-3 slide")
    qrels = {sid: float(g) for sid, g in relevance.items()}
    if "pooled" not in row:
        return LabelledQuery(id=row["query_id"], text=row["query"], qrels=qrels)
    pooled = row["pooled"]
    if not isinstance(pooled, dict):
        raise ValueError(f"{where}: 'pooled' must be an object of slide id -> grade 0-3")
    _check_grades(pooled, known, POOLED_GRADES, where, "pooled ")
    twice = sorted(set(pooled) & set(relevance))
    if twice:
        raise ValueError(f"{where}: slide(s) graded in both 'relevance' and 'pooled': {', '.join(twice)}")
    qrels.update({sid: float(g) for sid, g in pooled.items() if g > 0})
    return LabelledQuery(id=row["query_id"], text=row["query"], qrels=qrels, judged=sorted({*relevance, *pooled}))


def load_slidevqa_topical(data_dir: Path, path: Path = TOPICAL_QUERIES) -> SlidesDataset:
    """The topical briefs over the SlideVQA slides, graded 1-3, run in ``retrieve`` mode.

    ``data_dir`` is the shared data root (the folder holding ``slidevqa/``); the slides
    are read by ``slidesearch.ingest.read_slidevqa`` exactly as ``load_slidevqa`` reads
    them. ``path`` is the JSONL of briefs, the shipped set by default. A row naming an
    unknown slide, lacking a field, repeating a query id or holding a grade outside 1-3
    is a ValueError naming its line; a missing file is ``DatasetMissing``.
    """
    if not path.is_file():
        raise DatasetMissing(f"topical query set not found: {path}")
    texts = data_dir / "slidevqa" / SLIDEVQA_TEXTS
    sources = [source_file(texts), source_file(path)]
    docs = read_slidevqa(data_dir)
    known = {d.slide_id for d in docs}
    queries: list[LabelledQuery] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        query = _parse_row(line, number, path, known)
        if query.id in seen:
            raise ValueError(f"{path}:{number}: duplicate query_id {query.id!r}")
        seen.add(query.id)
        queries.append(query)
    if not queries:
        raise ValueError(f"{path} holds no topical queries")
    return SlidesDataset(
        name="slidevqa-topical",
        mode="retrieve",
        docs=docs,
        queries=queries,
        sources=sources,
        params={"relevant": "hand-graded topical briefs", "gain": "graded 1-3",
                **({"judged": "pooled: listed + pooled grades, 0 kept"} if any(q.judged is not None for q in queries) else {})},
    )
