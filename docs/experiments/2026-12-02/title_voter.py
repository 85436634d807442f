"""A title vector beside the snippet vector for the plain dense ranker, numpy only: cosine = (1 - a) x snippet
+ a x title (an untitled slide keeps its snippet cosine), a = 0 / 0.2 / 0.35 / 0.5; nDCG@10 against the uncapped
ideal and walked with the deck cap against the capped ideal (`eval.product.reference_figures`). A sweep aid.

Usage: SEEK_HOME=... python docs/experiments/2026-12-02/title_voter.py DATASETS
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, reference_figures
from eval.slides_run import build_library, ids_by_score

WEIGHTS = (0.0, 0.2, 0.35, 0.5)


def main() -> None:
    for name in sys.argv[1].split(","):
        dataset = load_slides_dataset(name)
        library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
        model = library.embedder()
        titles = [t or "" for t in library.titles]
        has_title = np.array([bool(t.strip()) for t in titles])
        title_vecs = model.encode([t if t.strip() else " " for t in titles])
        snippet = np.asarray(library.vectors)
        deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
        figs: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for q in dataset.queries:
            if not q.qrels:
                continue
            text = q.text if isinstance(q.text, str) else "; ".join(q.text)
            v = model.encode([text])[0]
            s_cos, t_cos = snippet @ v, title_vecs @ v
            for a in WEIGHTS:
                scores = np.where(has_title, (1 - a) * s_cos + a * t_cos, s_cos)
                f = reference_figures("d", ids_by_score(library, scores, 100), q.qrels, q.judged, deck_of,
                                      IDEAL_DECK_CAP, dataset.gain)
                for kind in ("all", q.kind or "-"):
                    figs[kind][f"a{a}"].append(f["d_ndcg@10"])
                    figs[kind][f"a{a}_capped"].append(f["d_capped_ndcg@10"])
        for kind, f in sorted(figs.items()):
            print(name, kind, " ".join(f"{k}={np.mean(v):.4f}" for k, v in f.items()), flush=True)


if __name__ == "__main__":
    main()
