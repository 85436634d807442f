"""#17, 2026-12-07: more dense signals beside the slide's own cosine in the plain dense ranker (minilm+mpnet), to see
whether any lifts the topical briefs without losing the real decks or SlideVQA. Signals: the slide's cosine (base),
its title's cosine, its deck name's cosine, and the best cosine of its text cut into line groups (passage max).
Deck-capped nDCG@10 (topical / realdecks) or MRR@10 (slidevqa). Vectors through the eval embedding cache.
Usage: SEEK_HOME=... python docs/experiments/2026-12-14/plain_signals.py DATASETS"""
import re
import sys

import numpy as np
from plain_rank import show, sweep

from core.settings import get_settings
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import _embedder, build_library


def chunks(text: str, size: int = 160) -> list[str]:
    words, out, cur = re.split(r"\s+", text.strip()), [], ""
    for w in words:
        if len(cur) + len(w) > size and cur:
            out.append(cur)
            cur = ""
        cur = f"{cur} {w}".strip()
    if cur:
        out.append(cur)
    return out or [" "]


def measure(name: str) -> None:
    ds = load_slides_dataset(name)
    lib, _ = build_library(ds, get_settings().embedder, SlidesConfig().lexical)
    emb = _embedder(get_settings().embedder)
    V = np.asarray(lib.vectors)
    T = np.asarray(emb.encode([t or " " for t in lib.titles]))
    names = [n.rsplit(".", 1)[0].replace("-", " ").replace("_", " ") for n in lib.deck_names]
    uniq = sorted(set(names))
    U = np.asarray(emb.encode(uniq))
    N = U[[uniq.index(n) for n in names]]
    pieces, owner = [], []
    for i, s in enumerate(lib.snippets):
        for c in chunks(s):
            pieces.append(c)
            owner.append(i)
    P = np.asarray(emb.encode(pieces))
    owner = np.asarray(owner)

    def variants(qv):
        s, t, n = V @ qv, T @ qv, N @ qv
        pm = np.full(lib.n, -1.0)
        np.maximum.at(pm, owner, P @ qv)
        return {"base": s, "title.2": s + 0.2 * t, "name.15": s + 0.15 * n, "pmax.5": 0.5 * s + 0.5 * pm,
                "pmax.3": 0.7 * s + 0.3 * pm, "all": s + 0.15 * n + 0.3 * pm + 0.1 * t}

    show(f"{name} ({len(pieces)} passages)", sweep(ds, lib, emb.encode, variants))


for dataset_name in sys.argv[1].split(","):
    measure(dataset_name)
