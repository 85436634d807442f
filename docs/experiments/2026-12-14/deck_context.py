"""#17, 2026-12-07: does the deck a slide sits in help the plain dense ranker? Per dataset, deck-capped nDCG@10
(topical / realdecks) or MRR@10 (slidevqa) of: the library's own cosine (minilm+mpnet); plus L x the cosine of
the deck's name; plus L x the deck's best other-slide cosine / the deck's mean cosine (deck smoothing).
Usage: SEEK_HOME=... python docs/experiments/2026-12-14/deck_context.py DATASETS"""
import sys
from collections import defaultdict

import numpy as np

from core.settings import get_settings
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.metrics import mrr_at_k
from eval.product import IDEAL_DECK_CAP, cap_ranking, capped_ndcg
from eval.slides_run import as_slides, build_library

for name in sys.argv[1].split(","):
    ds = load_slides_dataset(name)
    lib, emb = build_library(ds, get_settings().embedder, SlidesConfig().lexical)
    model = lib.embedder()
    V = np.asarray(lib.vectors)
    decks = sorted(set(lib.deck_ids))
    di = {d: i for i, d in enumerate(decks)}
    row_deck = np.array([di[d] for d in lib.deck_ids])
    deck_name = {}
    for d, n in zip(lib.deck_ids, lib.deck_names):
        deck_name[d] = n
    names = [deck_name[d].replace("-", " ").replace("_", " ") for d in decks]
    DV = np.asarray(model.encode(names))
    deck_of = dict(zip(lib.ids, lib.deck_ids))
    res = defaultdict(list)
    for q in ds.queries:
        if not q.qrels:
            continue
        text = q.text if isinstance(q.text, str) else "; ".join(q.text)
        qv = np.asarray(model.encode([text])[0])
        s = V @ qv
        dn = (DV @ qv)[row_deck]
        mean = np.bincount(row_deck, weights=s) / np.bincount(row_deck)
        dmean = mean[row_deck]
        variants = {"base": s}
        for L in (0.1, 0.2, 0.3):
            variants[f"name{L}"] = s + L * dn
            variants[f"mean{L}"] = s + L * dmean
        for label, sc in variants.items():
            order = np.argsort(-sc)[:200]
            ranked = as_slides([lib.ids[i] for i in order], ds.aliases)
            if ds.mode == "pipeline" or name.startswith("realdecks"):
                rc = cap_ranking(ranked, deck_of, IDEAL_DECK_CAP)
                res[label].append(capped_ndcg(rc[:10], q.qrels, deck_of, IDEAL_DECK_CAP, ds.gain))
            else:
                res[label].append(mrr_at_k(ranked, q.qrels, 10))
    print(name, len(res["base"]), " ".join(f"{k}={np.mean(v):.4f}" for k, v in res.items()), flush=True)
