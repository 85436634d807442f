"""#17 experiment: lexical feedback from the dense voter's best slides (RM3-like), topical briefs only.

For an angle 07a reads as a brief (not a factoid question, not a long statement), take the pool's RM3_K slides
of highest cosine, weight each word of their text by its frequency there x its IDF in the library, keep the
RM3_T best words the angle does not already hold, and add RM3_B x sum(word share x BM25 score of the word) to
the angle's BM25 column. Everything else of 07a is unchanged.

Usage: RM3_K=5 RM3_T=10 RM3_B=0.5 SEEK_HOME=... python docs/experiments/2026-12-06/rm3_patch.py SCRIPT ARGS...
"""
import math
import os
from collections import Counter

import numpy as np
from patch_runner import around_primary_run, run_script

from slidesearch.pipeline.rank import primary

K = int(os.environ.get("RM3_K", "5"))
T = int(os.environ.get("RM3_T", "10"))
B = float(os.environ.get("RM3_B", "0.5"))
_orig_columns = primary.bm25_columns


def columns(bm25, texts, pool):
    cols = _orig_columns(bm25, texts, pool)
    ctx = _state.get("ctx")
    if ctx is None or B <= 0:
        return cols
    view, dense, fusion = ctx
    lib = view._library
    n = max(bm25.n_docs, 1)
    cols = cols.copy()
    for a, angle in enumerate(texts):
        if fusion.plain_blend(angle) or a >= dense.shape[1]:
            continue
        own = set(bm25.analyse(angle))
        top = np.argsort(-dense[:, a], kind="stable")[:K]
        counts: Counter[str] = Counter()
        for pos in top.tolist():
            row = int(pool[pos])
            toks = bm25.analyse(f"{lib.titles[row]} {lib.texts[row]}")
            if not toks:
                continue
            for tok, c in Counter(toks).items():
                counts[tok] += c / len(toks)
        weights = {}
        for tok, tf in counts.items():
            if tok in own or len(tok) < 3 or tok.isdigit():
                continue
            df = bm25.rows_with(tok).size
            if df < 2:
                continue
            weights[tok] = tf * math.log(n / df)
        best = sorted(weights.items(), key=lambda kv: -kv[1])[:T]
        total = sum(w for _, w in best)
        if total <= 0:
            continue
        extra = np.zeros(pool.size, dtype=np.float32)
        for tok, w in best:
            extra += (w / total) * bm25.scores([tok])[pool]
        cols[:, a] += B * extra
    return cols


def context(self, state):
    if state.pool is None or state.angle_cosines is None:
        return None
    return {"ctx": (self.view, state.angle_cosines, self.fusion)}


primary.bm25_columns = columns
_state = around_primary_run(context)
run_script()
