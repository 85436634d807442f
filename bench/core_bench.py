"""Core benchmarks: RRF, union-find near-duplicate dedup and rarity lookups at realistic sizes.

Each figure is measured beside a named baseline in the same run: RRF against the
normalised-score blend, union-find dedup against the greedy keep-list walk it
replaces (wrong on smeared chains, but the speed reference), and table rarity
lookups against counting document frequency by scanning the corpus.
"""

from __future__ import annotations

import time

import numpy as np

from bench.timing import time_calls
from core.dedup import near_duplicate_dedup
from core.embed import l2_normalise
from core.fusion import normalised_blend, rrf
from core.rarity import DocFreqTable
from core.text import tokenize


def _greedy_dedup(vectors: np.ndarray, scores: list[float], threshold: float = 0.90) -> list[int]:
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    kept: list[int] = []
    for i in order:
        if not kept or float((vectors[kept] @ vectors[i]).max()) < threshold:
            kept.append(i)
    return kept


def _candidates(n: int, dim: int, rng: np.random.Generator) -> tuple[np.ndarray, list[float]]:
    base = rng.standard_normal((max(n // 5, 1), dim)).astype(np.float32)
    vectors = base[rng.integers(0, base.shape[0], n)] + 0.35 * rng.standard_normal((n, dim)).astype(np.float32)
    return l2_normalise(vectors), rng.random(n).tolist()


def bench_core(quick: bool = False) -> dict[str, object]:
    rng = np.random.default_rng(7)
    repeats = 20 if quick else 100
    out: dict[str, object] = {}

    lists = [[f"s{j}" for j in rng.permutation(1000)[:200]] for _ in range(3)]
    score_lists = [{item: float(200 - r) for r, item in enumerate(lst)} for lst in lists]
    out["rrf_3x200"] = time_calls(lambda _: rrf(lists), list(range(repeats)))
    out["blend_3x200_baseline"] = time_calls(lambda _: normalised_blend(score_lists, [1, 1, 1]), list(range(repeats)))

    for n, label in ((200, "dedup_200"), (2000 if quick else 10_000, "dedup_stress")):
        vectors, scores = _candidates(n, 384, rng)
        reps = max(3, repeats // (10 if n > 1000 else 1))
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
    }
    return out
