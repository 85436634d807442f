"""The measure both 2026-12-14 plain-ranker sweeps (``deck_context.py``, ``plain_signals.py``) read: a score per
library row ranked best first, then the harness's reference figure for a product dataset (deck-capped nDCG@10,
``eval.product.reference_figures``) or MRR@10 for a retrieval one (SlideVQA's questions)."""
from collections import defaultdict

import numpy as np

from eval.metrics import mrr_at_k
from eval.product import IDEAL_DECK_CAP, reference_figures
from eval.slides_run import as_slides


def sweep(ds, lib, encode, variants_of) -> dict[str, float]:
    """Mean figure per variant over ``ds``'s answerable queries; ``variants_of(query vector)`` gives {label: scores}."""
    deck_of = dict(zip(lib.ids, lib.deck_ids, strict=True))
    res: dict[str, list[float]] = defaultdict(list)
    for q in ds.queries:
        if not q.qrels:
            continue
        qv = np.asarray(encode([q.text if isinstance(q.text, str) else "; ".join(q.text)])[0])
        for label, scores in variants_of(qv).items():
            ranked = as_slides([lib.ids[i] for i in np.argsort(-scores)[:200]], ds.aliases)
            if ds.mode == "pipeline":
                figure = reference_figures("plain", ranked, q.qrels, q.judged, deck_of, IDEAL_DECK_CAP,
                                           ds.gain)["plain_capped_ndcg@10"]
            else:
                figure = mrr_at_k(ranked, q.qrels, 10)
            res[label].append(figure)
    return {label: float(np.mean(v)) for label, v in res.items()}


def show(name: str, figures: dict[str, float]) -> None:
    print(name, " ".join(f"{k}={v:.4f}" for k, v in figures.items()), flush=True)
