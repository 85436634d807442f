"""#17 offline: hubness correction of the plain dense ranker (CSLS-style), numpy only.

A slide whose vector sits near many others (generic text, foreign script the English encoder cannot
read, boilerplate) comes near every vague brief. CSLS scores cos(q, d) - LAMBDA x r(d), with r(d) the
mean cosine of d to its K nearest slides in a reference sample of the library. Also tried: centring
(subtract the library's mean vector from slides and query, renormalise).

Per dataset: plain dense nDCG@10 (uncapped ideal, as the harness's minilm figure), capped nDCG@10, MRR@10.
Usage: SEEK_HOME=... python docs/experiments/2026-12-09/hubness.py DATASETS
"""

from __future__ import annotations

import sys

import numpy as np

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, reference_figures
from eval.slides_run import as_slides, build_library

K, SAMPLE = 10, 20000


def hubness(v: np.ndarray, k: int, groups: np.ndarray | None = None, copy: float = 2.0) -> np.ndarray:
    """Mean cosine of each slide to its k nearest sample slides, leaving out its own group (deck family)
    and anything at ``copy`` or closer (a copy of it: versions and boilerplate are not hubness)."""
    rng = np.random.default_rng(0)
    pick = rng.choice(len(v), size=min(SAMPLE, len(v)), replace=False)
    ref = v[pick]
    out = np.empty(len(v), dtype=np.float32)
    for s in range(0, len(v), 4096):
        sims = v[s:s + 4096] @ ref.T
        if groups is not None:
            sims = np.where(groups[s:s + 4096, None] == groups[pick][None, :], -1.0, sims)
        sims = np.where(sims >= copy, -1.0, sims)
        part = np.partition(sims, -(k + 1), axis=1)[:, -(k + 1):]
        out[s:s + 4096] = (part.sum(axis=1) - part.max(axis=1)) / k  # drop the best (itself, when sampled)
    return out


def main() -> None:
    for name in sys.argv[1].split(","):
        dataset = load_slides_dataset(name)
        library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
        v = library.vectors.astype(np.float32)
        deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
        fam = {d: i for i, d in enumerate(sorted(set(library.canonical_decks)))}
        groups = np.array([fam[d] for d in library.canonical_decks])
        r = hubness(v, K)
        rg = hubness(v, K, groups, 0.9)
        mean = v.mean(axis=0)
        vc = v - mean
        vc /= np.linalg.norm(vc, axis=1, keepdims=True)
        qs = [q for q in dataset.queries if q.qrels]
        texts = [q.text if isinstance(q.text, str) else " ".join(q.text) for q in qs]
        qv = np.asarray(library.embedder().encode(texts), dtype=np.float32)
        qvc = qv - mean
        qvc /= np.linalg.norm(qvc, axis=1, keepdims=True)
        variants = {"plain": qv @ v.T, "centred": qvc @ vc.T}
        for lam in (0.25, 0.5):
            variants[f"csls{lam}"] = qv @ v.T - lam * r[None, :]
            variants[f"cslsfam{lam}"] = qv @ v.T - lam * rg[None, :]
        line = [f"{name:24s}"]
        for vname, scores in variants.items():
            nd, cap, mrr = [], [], []
            for i, q in enumerate(qs):
                top = np.argsort(-scores[i], kind="stable")[:100]
                ranked = as_slides([library.ids[j] for j in top], dataset.aliases)
                f = reference_figures("x", ranked, q.qrels, q.judged, deck_of, IDEAL_DECK_CAP, dataset.gain)
                nd.append(f["x_ndcg@10"])
                cap.append(f["x_capped_ndcg@10"])
                rr = next((1.0 / (n + 1) for n, d in enumerate(ranked[:10]) if q.qrels.get(d, 0) > 0), 0.0)
                mrr.append(rr)
            line.append(f"{vname} {np.mean(nd):.4f}/{np.mean(cap):.4f}/{np.mean(mrr):.4f}")
        print(" | ".join(line), flush=True)


if __name__ == "__main__":
    main()
