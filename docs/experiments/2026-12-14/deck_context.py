"""#17, 2026-12-07: does the deck a slide sits in help the plain dense ranker? Per dataset, deck-capped nDCG@10
(topical / realdecks) or MRR@10 (slidevqa) of: the library's own cosine (minilm+mpnet); plus L x the cosine of
the deck's name; plus L x the mean cosine of the deck's slides (deck smoothing).
Usage: SEEK_HOME=... python docs/experiments/2026-12-14/deck_context.py DATASETS"""
import sys

import numpy as np
from plain_rank import show, sweep

from core.settings import get_settings
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library


def measure(name: str) -> None:
    ds = load_slides_dataset(name)
    lib, _ = build_library(ds, get_settings().embedder, SlidesConfig().lexical)
    model = lib.embedder()
    V = np.asarray(lib.vectors)
    deck_name = dict(zip(lib.deck_ids, lib.deck_names, strict=True))
    decks = sorted(deck_name)
    row_deck = np.array([decks.index(d) for d in lib.deck_ids])
    DV = np.asarray(model.encode([deck_name[d].replace("-", " ").replace("_", " ") for d in decks]))

    def variants(qv):
        s = V @ qv
        dn = (DV @ qv)[row_deck]
        dmean = (np.bincount(row_deck, weights=s) / np.bincount(row_deck))[row_deck]
        out = {"base": s}
        for L in (0.1, 0.2, 0.3):
            out[f"name{L}"] = s + L * dn
            out[f"mean{L}"] = s + L * dmean
        return out

    show(name, sweep(ds, lib, model.encode, variants))


for dataset_name in sys.argv[1].split(","):
    measure(dataset_name)
