"""The datasets registry: every query set the harness runs, with its sources and their sha256.

Slides suite
  ``generated``  the slides library generator's labelled queries over a library it
                 generates deterministically (``eval.generated``: ``GENERATED_SLIDES``
                 slides, seed ``GENERATED_SEED``) under ``SEEK_HOME/eval/generated`` on first use;
                 a verified row and a slide's word-for-word copies are judged as that slide.
  ``slidevqa``   1,284 real slide texts and 1,640 questions; a question's evidence
                 slides are its relevant slides (gain 1).
  ``slidevqa-topical``  50 hand-graded topical briefs over the same 1,284 slides
                 (``eval.topical``; gains 1-3, each brief with a judged pool): the reps'
                 kind of query, measured with the retrieval stages like SlideVQA.
  ``slidevqa-topical-cards``  the same briefs through the whole search_v2 pipeline,
                 a card outside a brief's judged pool gains 0 and is reported as unjudged
                 (left out of precision): the floor and caps on real slides.
  ``realdecks``, ``realdecks-tune``, ``realdecks-check``  54 real .pptx decks ingested through
                 the pptx path, 60 briefs in six kinds with pooled graded judgements, all
                 or a stratified half (``eval.realdecks``); run through the pipeline.
  ``cranfield``  1,400 abstracts, 225 queries; qrels mapped by query position, graded
                 gain = 5 - code, the 225 ``-1`` lines dropped (README gotchas 1-4).
  ``cisi``       1,460 abstracts; binary qrels; only the 76 judged queries of 112 are
                 evaluated (gotcha 6); ``.X`` citations are not qrels (gotcha 7).
  ``log:PATH``   a user-supplied query log without labels (one query per line, JSONL
                 with a ``query`` field, or the served usage log's export), judged by
                 the LLM judge.
Turns suite
  ``public-sample``, ``public-50k``, ``synthetic-1/2/3`` resolved through
  ``tenturns.datasets.resolve_dataset``.

A missing source is a ``DatasetMissing`` error naming the path looked for. The types
a dataset is loaded into live in ``eval.dataset_types``.
"""

from __future__ import annotations

import json
from pathlib import Path

from core.settings import get_settings
from eval.dataset_types import DatasetMissing, LabelledQuery, SlidesDataset, TurnsDatasetInfo, source_file
from eval.generated import load_generated
from eval.realdecks import load_realdecks
from eval.smart import parse_smart
from eval.topical import load_slidevqa_topical
from slidesearch.ingest import SLIDEVQA_TEXTS, read_slidevqa
from slidesearch.model import Slide

SLIDES_DATASETS = ("generated", "slidevqa", "slidevqa-topical", "slidevqa-topical-cards", "realdecks",
                   "realdecks-tune", "realdecks-check", "cranfield", "cisi")
TURNS_DATASETS = ("public-sample", "public-50k", "synthetic-1", "synthetic-2", "synthetic-3")
LOG_PREFIX = "log:"

def _read(path: Path) -> str:
    if not path.is_file():
        raise DatasetMissing(f"dataset file not found: {path}")
    return path.read_text(encoding="utf-8")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _abstract(collection: str, record_id: str, title: str, text: str) -> Slide:
    """An abstract as a one-slide deck of its own, so deck caps and dedup never merge two documents."""
    return Slide(slide_id=record_id, deck_id=f"{collection}-{record_id}", deck_name=f"{collection}-{record_id}",
                 folder=f"/{collection}", title=title, text=text, content_type="content")


def load_cranfield(directory: Path) -> SlidesDataset:
    """Cranfield: 1,400 docs, 225 queries, 1,612 graded judgments (gain = 5 - code; -1 lines dropped)."""
    paths = [directory / "cran.all.1400", directory / "cran.qry", directory / "cranqrel"]
    docs_text, queries_text, qrels_text = (_read(p) for p in paths)
    docs = [
        _abstract("cranfield", r.id, _one_line(r.fields.get("T", "")), _one_line(r.fields.get("W", "")))
        for r in parse_smart(docs_text, terminal=frozenset("W"))
    ]
    # cranqrel numbers queries 1..225 by their position in cran.qry, not by their .I (gotcha 1).
    queries = [
        LabelledQuery(id=str(position), text=_one_line(r.fields.get("W", "")))
        for position, r in enumerate(parse_smart(queries_text), start=1)
    ]
    by_id = {q.id: q for q in queries}
    for line in qrels_text.splitlines():
        parts = line.split()
        if not parts:
            continue
        qid, docid, code = parts[0], parts[1], int(parts[2])
        if code == -1:
            continue
        if qid not in by_id:
            raise ValueError(f"cranqrel names query {qid}, but cran.qry has {len(queries)} queries")
        by_id[qid].qrels[docid] = float(5 - code)
    return SlidesDataset(
        name="cranfield", mode="retrieve", docs=docs, queries=queries,
        sources=[source_file(p) for p in paths], params={"gain": "5 - code", "dropped": "-1 lines"},
    )


def load_cisi(directory: Path) -> SlidesDataset:
    """CISI: 1,460 docs; of 112 queries only the 76 with judgments are kept (binary gain 1)."""
    paths = [directory / "CISI.ALL", directory / "CISI.QRY", directory / "CISI.REL"]
    docs_text, queries_text, qrels_text = (_read(p) for p in paths)
    docs = [
        _abstract("cisi", r.id, _one_line(r.fields.get("T", "")), _one_line(r.fields.get("W", "")))
        for r in parse_smart(docs_text)
    ]
    qrels: dict[str, dict[str, float]] = {}
    for line in qrels_text.splitlines():
        parts = line.split()
        if parts:
            qrels.setdefault(parts[0], {})[parts[1]] = 1.0
    queries = [
        LabelledQuery(id=r.id, text=_one_line(r.fields.get("W", "")), qrels=qrels[r.id])
        for r in parse_smart(queries_text)
        if r.id in qrels
    ]
    return SlidesDataset(
        name="cisi", mode="retrieve", docs=docs, queries=queries,
        sources=[source_file(p) for p in paths], params={"unjudged_queries": "excluded", "gain": "binary"},
    )


def load_slidevqa(directory: Path) -> SlidesDataset:
    """SlideVQA (VisRAG test subset): 1,284 slide texts, 1,640 questions, evidence slides relevant.

    The slides are read by ``slidesearch.ingest.read_slidevqa``, exactly as ``seek slides ingest
    --dataset slidevqa`` reads them, so the harness and the engine's own CLI see the same library.
    """
    paths = [directory / SLIDEVQA_TEXTS, directory / "slide_vqa_question_answer_docid_list.json"]
    sources = [source_file(p) for p in paths]
    docs = read_slidevqa(directory.parent)
    known = {d.slide_id for d in docs}
    queries = []
    for i, q in enumerate(json.loads(_read(paths[1]))):
        missing = [d for d in q["docid"] if d not in known]
        if missing:
            raise ValueError(f"SlideVQA question {i} names unknown slide(s): {', '.join(missing)}")
        queries.append(LabelledQuery(id=f"q{i}", text=q["question"], qrels=dict.fromkeys(q["docid"], 1.0)))
    return SlidesDataset(
        name="slidevqa", mode="retrieve", docs=docs, queries=queries, sources=sources,
        params={"relevant": "evidence slides", "gain": "binary"},
    )


def load_query_log(path: Path, index: Path | None = None) -> SlidesDataset:
    """An unlabelled query log: plain text (one query per line) or JSONL rows with ``query`` (str or angles).

    Its queries run against the stored slide index the server searches (default
    ``SEEK_HOME/slides/index``); the index's ``meta.json`` is fingerprinted with the log.

    The served usage log's export (``seek slides`` usage log, standalone queries) is JSONL with
    ``id``, ``query`` and ``universes``, so it loads the same way and keeps each query's scope.
    Blank lines are skipped; a JSONL row without a usable query is an error naming its line.
    """
    text = _read(path)
    queries: list[LabelledQuery] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if line.startswith("{"):
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: invalid JSON ({exc.msg})") from exc
            query = row.get("query")
            if not (isinstance(query, str) and query.strip()) and not (
                isinstance(query, list) and query and all(isinstance(a, str) and a.strip() for a in query)
            ):
                raise ValueError(f"{path}:{number}: no 'query' string or list of angle strings")
            universes = row.get("universes")
            if universes is not None and not (isinstance(universes, list) and all(isinstance(u, str) for u in universes)):
                raise ValueError(f"{path}:{number}: 'universes' must be a list of strings")
            queries.append(LabelledQuery(id=str(row.get("id", number)), text=query, universes=universes))
        else:
            queries.append(LabelledQuery(id=str(number), text=line))
    if not queries:
        raise ValueError(f"query log {path} holds no queries")
    index = index or get_settings().slides_dir / "index"
    if not (index / "meta.json").is_file():
        raise DatasetMissing(f"no slide index at {index} for the query log; build one with `seek slides index`")
    return SlidesDataset(name=f"{LOG_PREFIX}{path}", mode="pipeline", queries=queries, library_path=str(index),
                         sources=[source_file(path), source_file(index / "meta.json")])


def load_slides_dataset(name: str) -> SlidesDataset:
    """Load a slides-suite dataset by registry name (or ``log:PATH``)."""
    data_dir = get_settings().data_dir
    if name.startswith(LOG_PREFIX):
        return load_query_log(Path(name[len(LOG_PREFIX):]).expanduser())
    if name == "cranfield":
        return load_cranfield(data_dir / "ir" / "cranfield")
    if name == "cisi":
        return load_cisi(data_dir / "ir" / "cisi")
    if name == "slidevqa":
        return load_slidevqa(data_dir / "slidevqa")
    if name == "slidevqa-topical":
        return load_slidevqa_topical(data_dir)
    if name == "slidevqa-topical-cards":
        topical = load_slidevqa_topical(data_dir)
        return topical.model_copy(update={"name": name, "mode": "pipeline", "gain": "linear"})
    if name.startswith("realdecks"):
        return load_realdecks(name, data_dir)
    if name == "generated":
        return load_generated()
    raise ValueError(f"unknown slides dataset {name!r}; choose from {', '.join(SLIDES_DATASETS)} or log:PATH")


def load_turns_dataset(name: str) -> TurnsDatasetInfo:
    """Resolve a Ten Turns dataset through the environment (which generates 50k/synthetic sets on first use)."""
    if name not in TURNS_DATASETS:
        raise ValueError(f"unknown turns dataset {name!r}; choose from {', '.join(TURNS_DATASETS)}")
    from tenturns.datasets import resolve_dataset

    resolved = resolve_dataset(name)
    catalog, sessions = Path(resolved.catalog_path), Path(resolved.sessions_path)
    n_sessions = sum(1 for line in _read(sessions).splitlines() if line.strip())
    return TurnsDatasetInfo(
        name=name, catalog_path=str(catalog), sessions_path=str(sessions), n_sessions=n_sessions,
        sources=[source_file(catalog), source_file(sessions)],
    )


#: ``realdecks`` is its two halves together: run on demand (``--datasets realdecks``), not by default, so
#: the agreement gate never sees the same briefs twice in one run.
DEFAULT_SLIDES_DATASETS = tuple(name for name in SLIDES_DATASETS if name != "realdecks")


def suite_datasets(suite: str) -> tuple[str, ...]:
    """The default dataset names of a suite (``slides``, ``turns`` or ``all``)."""
    if suite == "slides":
        return DEFAULT_SLIDES_DATASETS
    if suite == "turns":
        return TURNS_DATASETS
    if suite == "all":
        return DEFAULT_SLIDES_DATASETS + TURNS_DATASETS
    raise ValueError(f"unknown suite {suite!r}; choose slides, turns or all")


def dataset_suite(name: str) -> str:
    """Which suite a dataset name belongs to."""
    if name in TURNS_DATASETS:
        return "turns"
    if name in SLIDES_DATASETS or name.startswith(LOG_PREFIX):
        return "slides"
    raise ValueError(
        f"unknown dataset {name!r}; choose from {', '.join(SLIDES_DATASETS + TURNS_DATASETS)} or log:PATH"
    )
