"""Run one slides-suite dataset through the SlideSearch engine and measure it.

``retrieve`` datasets (SlideVQA, Cranfield, CISI) rank every document with the
engine's retrieval stages alone (``SlideSearch.retrieve``) and report nDCG@10
(primary), MRR@10, Recall@10 and Recall@k. ``pipeline`` datasets (the generated
library's labelled queries, user query logs) run the whole ``search_v2``, fetch
every card's "why this?" and judge each card correct / 50-50 / wrong (a verified
master-sheet row is judged as the slide it stands for when the dataset says which, as
the generated one does, and left unjudged otherwise); a card outside a dataset's judged
pool (realdecks) is left unjudged, never called wrong. With labels the primary per-query
score is the product measure (``eval.product``): nDCG@10 of the cards in score order
against the deck-capped ideal, beside precision of the shown cards, cards shown, zero
results, unjudged cards and, for a brief with no answer, whether a note said so; two
reference rankers run on the same briefs (plain dense top-10 over the library's vectors,
and ``retrieve`` top-10), scored the same way. Without labels the primary is the mean
verdict value (correct 1, 50-50 0.5, wrong 0).

Every query's result count feeds the zero-result gate. Slide and query vectors go
through a persistent embedding cache, so the embedding cost is paid once per
(text, embedder).
"""

from __future__ import annotations

import time
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from core.embed import CachedEmbedder, make_embedder
from core.settings import get_settings
from eval.config import SlidesConfig
from eval.dataset_types import LabelledQuery, SlidesDataset
from eval.gates import zero_result_gate
from eval.judges import UNJUDGED, JudgeCard, LabelJudge, LLMJudge
from eval.metrics import mean, mrr_at_k, ndcg_at_k, recall_at_k
from eval.product import (
    ANSWERED,
    IDEAL_DECK_CAP,
    MEASURE,
    reference_figures,
    shown_card_figures,
    summarise,
    summarise_by_kind,
)
from eval.runs import Card, DatasetResult, ItemResult, Usage
from slidesearch.config import LexicalConfig
from slidesearch.library import Library

if TYPE_CHECKING:
    from llm_adapters import LanguageModel

VERDICT_VALUE = {"correct": 1.0, "50-50": 0.5, "wrong": 0.0}
"""Per-card value for the unlabelled primary score: a 50-50 is half a correct, as the seed's shares weigh it."""

EngineFactory = Callable[[Library, SlidesConfig], Any]


def default_engine(library: Library, config: SlidesConfig) -> Any:
    """The real pipeline with the run's SearchConfig and the settings' LLM (``offline`` by default)."""
    from llm_adapters import get_model
    from slidesearch.engine import SlideSearch

    return SlideSearch(library, config=config.search, llm=get_model(get_settings().llm))


def _embedder(name: str) -> CachedEmbedder:
    return CachedEmbedder(make_embedder(name), get_settings().cache_dir / "eval_embeddings.sqlite")


def build_library(
    dataset: SlidesDataset, embedder_name: str, lexical: LexicalConfig | None = None
) -> tuple[Library, CachedEmbedder | None]:
    """The dataset's library: the stored index it names, or built in memory through the embedding cache.

    The cache (``SEEK_HOME/cache/eval_embeddings.sqlite``) makes every build after the first
    cost seconds (4.5 s for SlideVQA here), so no index is stored per dataset.
    """
    if dataset.library_path:
        return Library.open(Path(dataset.library_path)), None
    embedder = _embedder(embedder_name)
    return Library.from_slides(dataset.docs, master=dataset.master, embedder=embedder, lexical=lexical), embedder


def _angles(query: str | list[str]) -> list[str]:
    return [query] if isinstance(query, str) else list(query)


def _model_usage(model: LanguageModel | None) -> Usage:
    if model is None:
        return Usage()
    usage = model.usage
    return Usage(calls=usage.calls, prompt_tokens=usage.prompt_tokens,
                 completion_tokens=usage.completion_tokens, cost_usd=usage.cost_usd)


def as_slides(ids: Sequence[str], aliases: dict[str, str]) -> list[str]:
    """``ids`` with each alias (a verified row) read as the slide it stands for, once: showing both is one hit."""
    return list(dict.fromkeys(aliases.get(i, i) for i in ids))


def _ir_metrics(ranked: Sequence[str], qrels: dict[str, float], depth: int) -> dict[str, float]:
    return {
        "ndcg@10": ndcg_at_k(ranked, qrels, 10),
        "mrr@10": mrr_at_k(ranked, qrels, 10),
        "recall@10": recall_at_k(ranked, qrels, 10),
        f"recall@{depth}": recall_at_k(ranked, qrels, depth),
    }


def _summarise_ir(items: list[ItemResult]) -> dict[str, float]:
    keys = sorted({k for item in items for k in item.metrics})
    return {k: round(mean([item.metrics[k] for item in items if k in item.metrics]), 6) for k in keys}


def _query_text(query: str | list[str]) -> str:
    return query if isinstance(query, str) else "; ".join(query)


def _flatten(response: Any) -> list[Any]:
    """Every card of a search_v2 response, best score first (the engine's global order, across sections)."""
    return sorted(response.cards(), key=lambda c: -c.score)


def _snippets(library: Library, cards: Sequence[Any]) -> list[str]:
    """The full 600-character text the judge sees: the slide's indexed snippet, or a verified row's document."""
    master = {m.card_id: m.document[:600] for m in library.master} if library.master else {}
    return [master.get(c.id, c.preview) if c.verified else library.snippets[library.id_to_row[c.id]] for c in cards]


@dataclass
class SlidesChunk:
    """The measured items of one run of queries of a dataset (all of them, or a chunk on a Ray worker)."""

    items: list[ItemResult]
    llm_paths: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    params: dict[str, Any] = field(default_factory=dict)
    trace: dict[str, Any] | None = None
    judge: str = UNJUDGED


def run_slides_dataset(
    dataset: SlidesDataset, config: SlidesConfig, engine_factory: EngineFactory = default_engine
) -> DatasetResult:
    """Measure ``dataset`` with ``config``; a query the engine refuses is recorded as a zero-result item."""
    started = time.perf_counter()
    queries = dataset_queries(dataset, config)
    chunk = measure_slides_chunk(dataset, config, 0, len(queries), engine_factory, with_trace=True)
    return assemble_slides_result(dataset, config, [chunk], time.perf_counter() - started)


def dataset_queries(dataset: SlidesDataset, config: SlidesConfig) -> list[LabelledQuery]:
    """The queries a run measures: all of them, or the first ``config.max_queries``."""
    return dataset.queries[: config.max_queries] if config.max_queries else dataset.queries


def measure_slides_chunk(
    dataset: SlidesDataset, config: SlidesConfig, start: int, stop: int,
    engine_factory: EngineFactory = default_engine, with_trace: bool = False,
) -> SlidesChunk:
    """Build the dataset's library and engine, then measure its queries ``start:stop`` (the trace query too if asked).

    Every item depends only on its own query (the engine keeps no state between requests, each
    angle is encoded on its own), so chunks measured apart and assembled equal one run of them all.
    """
    embedder_name = config.embedder or get_settings().embedder
    library, embedder = build_library(dataset, embedder_name, config.lexical)
    engine = engine_factory(library, config)
    queries = dataset_queries(dataset, config)
    trace_query = (config.trace_query or (_query_text(queries[0].text) if queries else None)) if with_trace else None
    queries = queries[start:stop]
    # Every angle encoded up front, each on its own as the engine encodes a query's texts (an
    # int8 encoder's vector for a text depends on its batch-mates); the engine's calls then hit
    # the cache.
    if embedder is not None:
        for angle in sorted({a for q in queries for a in _angles(q.text)} | ({trace_query} if trace_query else set())):
            embedder.encode([angle])
    trace = engine.search_v2(trace_query, trace=True).trace if trace_query else None
    chunk = measure_queries(dataset, queries, config, engine)
    chunk.trace = {"query": trace_query, "stages": _plain(trace)} if trace is not None else None
    chunk.usage = chunk.usage.add(_model_usage(getattr(engine, "model", None)))
    chunk.params = {"n_docs": library.n, "embedder": library.embedder_name}
    return chunk


def measure_queries(dataset: SlidesDataset, queries: list[LabelledQuery], config: SlidesConfig, engine: Any
                    ) -> SlidesChunk:
    """The items of ``queries`` measured with a built ``engine`` (a sweep reuses one library for many configs)."""
    if dataset.mode == "retrieve":
        return SlidesChunk(items=_retrieve_items(queries, config, engine), judge="none (IR metrics)")
    return _pipeline_chunk(dataset, queries, config, engine)


def assemble_slides_result(
    dataset: SlidesDataset, config: SlidesConfig, chunks: Sequence[SlidesChunk], seconds: float
) -> DatasetResult:
    """One dataset's result from its measured chunks, in query order (the trace is the chunk's that has one)."""
    items = [item for chunk in chunks for item in chunk.items]
    usage = Usage()
    llm_paths: Counter[str] = Counter()
    for chunk in chunks:
        usage = usage.add(chunk.usage)
        llm_paths.update(chunk.llm_paths)
    judge = chunks[0].judge if chunks else UNJUDGED
    if dataset.mode == "retrieve":
        result = _retrieve_result(dataset, items)
    else:
        result = _pipeline_result(dataset, items, llm_paths, judge)
    result.trace = next((c.trace for c in chunks if c.trace is not None), None)
    result.usage = usage
    params = chunks[0].params if chunks else {}
    result.params = {**dataset.params, **params, "n_queries": len(items),
                     "library": dataset.library_path or "built from the dataset"}
    result.seconds = round(seconds, 3)
    return result


def _plain(trace: Any) -> Any:
    if hasattr(trace, "model_dump"):
        return trace.model_dump(mode="json")
    if isinstance(trace, list):
        return [_plain(t) for t in trace]
    return trace


def _retrieve_items(queries: list[LabelledQuery], config: SlidesConfig, engine: Any) -> list[ItemResult]:
    items = []
    for q in queries:
        t0 = time.perf_counter()
        try:
            ranked = [doc_id for doc_id, _ in engine.retrieve(_query_text(q.text), k=config.retrieve_k)]
        except ValueError as exc:
            items.append(ItemResult(id=q.id, query=q.text, score=0.0, error=str(exc)))
            continue
        items.append(ItemResult(
            id=q.id, query=q.text, n_results=len(ranked), score=ndcg_at_k(ranked, q.qrels, 10),
            metrics=_ir_metrics(ranked, q.qrels, config.retrieve_k), ranked=ranked[:10],
            seconds=round(time.perf_counter() - t0, 4),
        ))
    return items


def _retrieve_result(dataset: SlidesDataset, items: list[ItemResult]) -> DatasetResult:
    return DatasetResult(
        name=dataset.name, suite="slides", mode="retrieve", primary="ndcg@10", sources=dataset.hashes,
        summary=_summarise_ir(items), items=items, judge="none (IR metrics)",
        gates=[zero_result_gate({i.id: i.n_results for i in items})], llm="retrieval stages (no LLM)",
    )


def _judge_for(config: SlidesConfig) -> tuple[LabelJudge, LLMJudge | None]:
    label = LabelJudge()
    judge_llm = get_settings().judge_llm
    use_llm = config.judge == "llm" or (config.judge == "auto" and judge_llm != "offline")
    if not use_llm:
        return label, None
    from llm_adapters import get_model

    return label, LLMJudge(get_model(judge_llm), fallback=label)


REFERENCE_EMBEDDER = "minilm"
"""The plain dense reference ranker is always MiniLM (#17's yardstick), whatever encoder the engine reads."""
_REFERENCE_VECTORS: weakref.WeakKeyDictionary[Library, NDArray[Any]] = weakref.WeakKeyDictionary()
"""MiniLM vectors of a library built with another embedder, for as long as the library lives."""


def dense_ranking(library: Library, text: str, depth: int) -> list[str]:
    """Plain MiniLM retrieval: the library's slides by MiniLM cosine with the brief's vector, best first.

    A library built with another embedder has its snippets embedded by MiniLM once (through the
    embedding cache), so the reference never moves with the engine's encoder.
    """
    if library.embedder_name == REFERENCE_EMBEDDER:
        vectors, embedder = library.vectors, library.embedder()
    else:
        embedder = _embedder(REFERENCE_EMBEDDER)
        if library not in _REFERENCE_VECTORS:
            _REFERENCE_VECTORS[library] = embedder.encode(list(library.snippets))
        vectors = _REFERENCE_VECTORS[library]
    return ids_by_score(library, vectors @ embedder.encode([text])[0], depth)


def ids_by_score(library: Library, scores: NDArray[Any], depth: int) -> list[str]:
    """The ids of the ``depth`` best-scoring slides (one score per library row), best first, earlier row on a tie."""
    return [library.ids[int(r)] for r in np.argsort(-scores, kind="stable")[:depth]]


def _product_figures(
    dataset: SlidesDataset, q: LabelledQuery, shown: list[str], response: Any, engine: Any,
    deck_of: dict[str, str], depth: int,
) -> dict[str, float]:
    """The brief's product figures plus, when it has an answer, the two reference rankers' (``eval.product``)."""
    notes = (bool(response.coverage_note), bool(response.coverage_note or response.notes))
    figures = shown_card_figures(shown, q.qrels, q.judged, deck_of, IDEAL_DECK_CAP, dataset.gain, notes)
    if q.qrels:
        text = _query_text(q.text)
        for name, ranked in (("minilm", dense_ranking(engine.library, text, depth)),
                             ("retrieve", [doc for doc, _ in engine.retrieve(text, k=depth)])):
            # Read as the shown cards are: a copy counts as the slide it repeats, once (``dataset.aliases``).
            figures.update(reference_figures(name, as_slides(ranked, dataset.aliases), q.qrels, q.judged, deck_of,
                                             IDEAL_DECK_CAP, dataset.gain))
    return figures


def _pipeline_chunk(dataset: SlidesDataset, queries: list[LabelledQuery], config: SlidesConfig, engine: Any) -> SlidesChunk:
    label, llm_judge = _judge_for(config)
    items: list[ItemResult] = []
    library = engine.library
    deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
    pools = {q.id: set(q.judged) for q in queries if q.judged is not None}
    llm_paths: Counter[str] = Counter()
    for q in queries:
        t0 = time.perf_counter()
        try:
            response = engine.search_v2(q.text, universes=q.universes, top_per_group=config.top_per_group)
        except ValueError as exc:
            # The engine refused the query: for the rep that is no result, so it counts as one.
            items.append(ItemResult(id=q.id, query=q.text, score=0.0, group=q.kind, error=str(exc)))
            continue
        llm_paths[str(getattr(response, "llm", "offline"))] += 1
        cards = _flatten(response)
        ids = [c.id for c in cards]
        explanations = (
            {e.slide_id: e.explanation for e in engine.explain_response(response)} if config.explain and ids else {}
        )
        if llm_judge is not None:
            judge_cards = [
                JudgeCard(id=c.id, section=c.section, title=c.title, snippet=text, explanation=explanations.get(c.id, ""))
                for c, text in zip(cards, _snippets(engine.library, cards), strict=True)
            ]
            verdicts = llm_judge.judge(q.text, judge_cards, q.qrels)
        elif q.qrels or q.id in pools:
            # Labels grade slides; a verified master-sheet row is judged as the slide it stands for
            # (``aliases``), and one standing for none has no label, so it cannot be called wrong;
            # nor can a slide outside the brief's judged pool.
            verdicts = [(UNJUDGED, UNJUDGED) if (c.verified and c.id not in dataset.aliases)
                        or (q.id in pools and dataset.aliases.get(c.id, c.id) not in pools[q.id])
                        else (label.verdict(dataset.aliases.get(c.id, c.id), q.qrels), label.name) for c in cards]
        else:
            verdicts = [(UNJUDGED, UNJUDGED)] * len(ids)
        judged = [
            Card(id=i, section=c.section, score=float(c.score), verdict=v, judge=j, explanation=explanations.get(i, ""))
            for i, c, (v, j) in zip(ids, cards, verdicts, strict=True)
        ]
        values = [VERDICT_VALUE[c.verdict] for c in judged if c.verdict in VERDICT_VALUE]
        shown = as_slides(ids, dataset.aliases)
        metrics = _ir_metrics(shown, q.qrels, config.retrieve_k) if q.qrels else {}
        if dataset.labelled:
            metrics.update(_product_figures(dataset, q, shown, response, engine, deck_of, config.retrieve_k))
        score: float | None
        if dataset.labelled:
            # A brief with no answer has no nDCG; its figures (cards shown, notes) are reported by kind.
            score = metrics.get(ANSWERED)
        elif values or not ids:
            score = mean(values)
        else:
            score = None
        items.append(ItemResult(
            id=q.id, query=q.text, n_results=len(ids), score=score, metrics=metrics, ranked=ids[:10],
            cards=judged, group=q.kind, seconds=round(time.perf_counter() - t0, 4),
        ))
    return SlidesChunk(items=items, llm_paths=llm_paths, judge=label.name if llm_judge is None else llm_judge.name,
                       usage=_model_usage(llm_judge.model) if llm_judge is not None else Usage())


def _pipeline_result(dataset: SlidesDataset, items: list[ItemResult], llm_paths: Counter[str], judge_name: str
                     ) -> DatasetResult:
    verdict_counts = Counter(c.verdict for item in items for c in item.cards)
    wrong_by_section = Counter(c.section for item in items for c in item.cards if c.verdict == "wrong")
    judged_total = sum(verdict_counts[v] for v in VERDICT_VALUE)
    summary = _summarise_ir(items)
    for verdict in VERDICT_VALUE:
        summary[f"{verdict}_share"] = round(verdict_counts[verdict] / judged_total, 6) if judged_total else 0.0
    summary["judged_cards"] = float(judged_total)
    summary["zero_result_queries"] = float(sum(1 for i in items if i.n_results == 0))
    per_group: dict[str, dict[str, float]] = {}
    for kind in sorted({i.group for i in items if i.group}):
        scored = [i.score for i in items if i.group == kind and i.score is not None]
        per_group[kind] = {"n": float(sum(1 for i in items if i.group == kind)), "primary": round(mean(scored), 6)}
    sources = dataset.hashes
    if dataset.labelled:
        # A brief the engine refused showed the rep nothing: it counts as a zero result here too.
        product = [(i.group, _product_only(i.metrics) if i.error is None else {"cards_shown": 0.0, "zero_result": 1.0})
                   for i in items]
        summary.update(summarise([f for _, f in product]))
        for kind, figures in summarise_by_kind(product).items():
            per_group[kind] = {**per_group.get(kind, {}), **figures}
        sources = {**sources, "measure": MEASURE}
    return DatasetResult(
        name=dataset.name, suite="slides", mode="pipeline", primary=ANSWERED if dataset.labelled else "verdict_value",
        sources=sources, summary=summary, verdicts=dict(verdict_counts), wrong_by_section=dict(wrong_by_section),
        per_group=per_group, items=items,
        judge=judge_name if dataset.labelled or judge_name != LabelJudge.name else UNJUDGED,
        gates=[zero_result_gate({i.id: i.n_results for i in items})],
        llm=", ".join(sorted(llm_paths)) or "offline",
    )


_IR_KEYS = ("ndcg@10", "mrr@10", "recall@")


def _product_only(metrics: dict[str, float]) -> dict[str, float]:
    """An item's product and reference figures, without the uncapped IR metrics kept beside them."""
    return {k: v for k, v in metrics.items() if not k.startswith(_IR_KEYS)}
