"""Core benchmarks: RRF, union-find near-duplicate dedup and rarity lookups at realistic sizes.

Each figure is measured beside a named baseline in the same run: RRF against the
normalised-score blend, union-find dedup against the greedy keep-list walk it
replaces (wrong on smeared chains, but the speed reference), table rarity
lookups against counting document frequency by scanning the corpus, and BM25
per query (``core.lexical``, bm25s underneath) against rank-bm25's BM25Okapi,
the reference it is tested against, at 50k documents (5k with ``--quick``).
"""

from __future__ import annotations

import time

import numpy as np

from bench.timing import time_calls, time_once
from core.dedup import near_duplicate_dedup
from core.embed import l2_normalise
from core.fusion import normalised_blend, rrf
from core.lexical import BM25Index
from core.rarity import DocFreqTable
from core.text import tokenize

#: Candidates per dedup case: a response's 200, and the stress case (2,000 with ``--quick``).
DEDUP_SIZES = (200, 10_000)
QUICK_DEDUP_SIZES = (200, 2_000)
#: Documents for BM25 per query against rank-bm25.
BM25_DOCS = 50_000
QUICK_BM25_DOCS = 5_000


def _greedy_dedup(vectors: np.ndarray, scores: list[float], threshold: float = 0.90) -> list[int]:
    """Walk by score and keep a vector unless it is within ``threshold`` of one already kept.

    Kept vectors go into a preallocated matrix, so each step is one matrix-vector
    product over the kept rows and the baseline is not slowed by copying them.
    """
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    kept: list[int] = []
    kept_vectors = np.empty_like(vectors)
    for i in order:
        if not kept or float((kept_vectors[: len(kept)] @ vectors[i]).max()) < threshold:
            kept_vectors[len(kept)] = vectors[i]
            kept.append(i)
    return kept


def _candidates(n: int, dim: int, rng: np.random.Generator) -> tuple[np.ndarray, list[float]]:
    base = rng.standard_normal((max(n // 5, 1), dim)).astype(np.float32)
    vectors = base[rng.integers(0, base.shape[0], n)] + 0.35 * rng.standard_normal((n, dim)).astype(np.float32)
    return l2_normalise(vectors), rng.random(n).tolist()


def _bm25_vs_rank_bm25(texts: list[str], queries: list[list[str]]) -> dict[str, object]:
    """Build time and top-10 time per query of our BM25 and rank-bm25's BM25Okapi, and their top-10 agreement."""
    from rank_bm25 import BM25Okapi

    docs = [tokenize(t) for t in texts]
    build_s, index = time_once(lambda: BM25Index.build(docs))
    ref_build_s, ref = time_once(lambda: BM25Okapi(docs))
    ours = time_calls(lambda q: index.top_k(q, 10), queries)
    theirs = time_calls(lambda q: np.argsort(-ref.get_scores(q), kind="stable")[:10], queries)
    agree = []
    for q in queries:
        # Tie-aware: one of our top 10 agrees when rank-bm25 scores it at least its own 10th best.
        ref_scores = ref.get_scores(q)
        tenth = np.sort(ref_scores)[-10]
        rows = index.top_k(q, 10)[0]
        agree.append(float(np.mean(ref_scores[rows] >= tenth - 1e-5 * abs(tenth))) if rows.size else 1.0)
    return {
        "docs": len(docs),
        "queries": len(queries),
        "bm25s_build_s": round(build_s, 3),
        "rank_bm25_build_s": round(ref_build_s, 3),
        "bm25s_top10": ours,
        "rank_bm25_top10_baseline": theirs,
        "speedup": round(theirs["median_ms"] / max(ours["median_ms"], 1e-9), 1),
        "top10_agreement": round(float(np.mean(agree)), 3),
    }


def bench_core(quick: bool = False) -> dict[str, object]:
    rng = np.random.default_rng(7)
    repeats = 20 if quick else 100
    out: dict[str, object] = {}

    lists = [[f"s{j}" for j in rng.permutation(1000)[:200]] for _ in range(3)]
    score_lists = [{item: float(200 - r) for r, item in enumerate(lst)} for lst in lists]
    out["rrf_3x200"] = time_calls(lambda _: rrf(lists), list(range(repeats)))
    out["blend_3x200_baseline"] = time_calls(lambda _: normalised_blend(score_lists, [1, 1, 1]), list(range(repeats)))

    for n, label in zip(QUICK_DEDUP_SIZES if quick else DEDUP_SIZES, ("dedup_200", "dedup_stress"), strict=True):
        vectors, scores = _candidates(n, 384, rng)
        reps = repeats if n <= 1000 else 3
        runs = [(vectors, scores)] * reps
        out[f"{label}_union_find"] = {"candidates": n, **time_calls(lambda a: near_duplicate_dedup(*a), runs, warmup=1)}
        out[f"{label}_greedy_baseline"] = {"candidates": n, **time_calls(lambda a: _greedy_dedup(*a), runs, warmup=1)}

    words = [f"w{i}" for i in range(5000)]
    zipf = rng.zipf(1.3, size=(10_000, 40)) % len(words)
    texts = [" ".join(words[j] for j in row) for row in zipf]
    table = DocFreqTable.build(texts)
    probes = [words[i] for i in rng.integers(0, len(words), 2000)]
    started = time.perf_counter()
    for term in probes:
        table.df(term)
    lookup = (time.perf_counter() - started) / len(probes)
    out["rarity_lookup_10k_docs"] = {"per_lookup_us": round(lookup * 1e6, 3)}
    token_sets = [set(tokenize(t)) for t in texts]
    started = time.perf_counter()
    for term in probes[:50]:
        sum(term in s for s in token_sets)
    scan = (time.perf_counter() - started) / 50
    out["rarity_scan_10k_docs_baseline"] = {"per_lookup_us": round(scan * 1e6, 3)}
    out["rarity_speedup"] = round(scan / max(lookup, 1e-12), 1)

    n_docs = QUICK_BM25_DOCS if quick else BM25_DOCS
    extra = rng.zipf(1.3, size=(max(n_docs - len(texts), 0), 40)) % len(words)
    bm25_texts = (texts + [" ".join(words[j] for j in row) for row in extra])[:n_docs]
    bm25_queries = [[words[j] for j in rng.integers(0, 300, 3)] for _ in range(10 if quick else 30)]
    bm25 = _bm25_vs_rank_bm25(bm25_texts, bm25_queries)
    out["bm25_per_query"] = bm25
    out["headline"] = {
        "RRF 3x200 median ms (baseline: normalised blend)": f"{out['rrf_3x200']['median_ms']} vs {out['blend_3x200_baseline']['median_ms']}",
        "union-find dedup of 200 median ms (baseline: greedy walk)": (
            f"{out['dedup_200_union_find']['median_ms']} vs {out['dedup_200_greedy_baseline']['median_ms']}"
        ),
        "union-find dedup stress median ms (baseline: greedy walk)": (
            f"{out['dedup_stress_union_find']['median_ms']} vs {out['dedup_stress_greedy_baseline']['median_ms']}"
            f" at {out['dedup_stress_union_find']['candidates']} candidates"
        ),
        "rarity lookup vs corpus scan": f"{lookup * 1e6:.2f} us vs {scan * 1e6:.0f} us ({out['rarity_speedup']}x)",
        f"BM25 top-10 median ms per query at {bm25['docs']:,} docs (baseline: rank-bm25 BM25Okapi)": (
            f"{bm25['bm25s_top10']['median_ms']} vs {bm25['rank_bm25_top10_baseline']['median_ms']}"
            f" ({bm25['speedup']}x; top-10 agreement {bm25['top10_agreement']};"
            f" build {bm25['bm25s_build_s']} s vs {bm25['rank_bm25_build_s']} s)"
        ),
    }
    return out
