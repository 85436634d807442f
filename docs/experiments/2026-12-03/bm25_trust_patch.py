"""#17 experiment: how far to trust the BM25 voter for one angle. 07a min-max-normalises BM25 within the
candidates, so the best lexical match gets the voter's whole weight however little of the brief it holds
("which jet is cheapest to fly on gas": a slide holding only "gas" got BM25's full 0.5 and led the answer over
the airline's fuel-cost slide). Here the voter's weight for an angle is scaled by the IDF-weighted share of the
angle's words that its best BM25 slide holds (a word no slide holds counts, at the IDF of a word in no slide):
c = sum(idf of the angle's words on that slide) / sum(idf of all the angle's words), weight x c**POWER.

BM25TRUST_POWER=1 (default) / 2 / 0.5; BM25TRUST_KNEE=k: weight x min(1, c / k) ** POWER (full trust from a share k on);
BM25TRUST_KNOWN=1 leaves words no slide holds out of the sum;
BM25TRUST_ONLY=questions scales only the angles 07a reads as questions (the plain blend). 07b's boost keeps the
shipped fusion.

Usage: SEEK_HOME=... python docs/experiments/2026-12-03/bm25_trust_patch.py SCRIPT ARGS...
"""
import math
import os
import runpy
import sys

import numpy as np

from slidesearch.pipeline.rank import boost, primary

POWER = float(os.environ.get("BM25TRUST_POWER", "1"))
KNOWN = os.environ.get("BM25TRUST_KNOWN", "0") == "1"
KNEE = float(os.environ.get("BM25TRUST_KNEE", "1"))
ONLY_QUESTIONS = os.environ.get("BM25TRUST_ONLY", "") == "questions"
_factors: list[float] = []
_fuse = primary.fuse_angles_by_angle
_run = primary.PrimaryPass.run
_bm25_columns = primary.bm25_columns


def trust(bm25, angle, pool, column):
    tokens = list(dict.fromkeys(bm25.analyse(angle)))
    if not tokens or column.size == 0 or column.max() <= 0:
        return 1.0
    best_row = int(pool[int(np.argmax(column))])
    n = bm25.n_docs
    total = held = 0.0
    for t in tokens:
        rows = bm25.rows_with(t)
        if KNOWN and rows.size == 0:
            continue
        idf = math.log1p((n - rows.size + 0.5) / (rows.size + 0.5))
        total += idf
        if rows.size and np.any(rows == best_row):
            held += idf
    return min(1.0, held / total / KNEE) ** POWER if total > 0 else 1.0


def _columns(bm25, texts, pool):
    cols = _bm25_columns(bm25, texts, pool)
    _factors[:] = [trust(bm25, t, pool, cols[:, a]) for a, t in enumerate(texts)]
    return cols


def _fused(dense, bm25, always, cfg, questions=()):
    factors = list(_factors)
    if not factors:
        return _fuse(dense, bm25, always, cfg, questions)
    # scale each angle's min-max BM25 by its factor: run the fusion angle by angle with a scaled copy
    fused, best = {}, {}
    n = dense.shape[1]
    for a in range(n):
        f = factors[a] if a < len(factors) else 1.0
        if ONLY_QUESTIONS and not (questions[a] if a < len(questions) else True):
            f = 1.0
        part = _fuse_one(dense[:, a:a + 1], bm25[:, a:a + 1], always, cfg, questions[a:a + 1] if questions else (), f)
        for pos, v in part.items():
            fused[pos] = fused.get(pos, 0.0) + v / n
            if v / n > best.get(pos, (0.0, -1))[0]:
                best[pos] = (v / n, a)
    kept = {pos: s for pos, s in fused.items() if s > 0}
    return kept, {pos: best[pos][1] for pos in kept}


def _fuse_one(d, b, always, cfg, questions, factor):
    """The shipped blend branch of `fuse_angles_by_angle` for one angle, BM25's min-max share times ``factor``
    (a uniform scale on the raw column would not survive the min-max, so the branch is copied here)."""
    d, b = d[:, 0], b[:, 0]
    dense_weight, bm25_weight = cfg.weights(questions[0] if questions else True)
    use_bm25 = cfg.method != "dense_rrf" and cfg.bm25_weight > 0
    parts = [primary.top_positions(d, cfg.depth), always]
    if use_bm25:
        parts.append(primary.top_positions(b, cfg.depth, positive_only=True))
    cand = np.unique(np.concatenate(parts))
    if cand.size == 0:
        return {}
    assert cfg.method == "blend"
    score = dense_weight * primary.min_max_array(d[cand])
    if use_bm25 and b[cand].max() > 0:
        score += factor * bm25_weight * primary.min_max_array(b[cand])
    return dict(zip(cand.tolist(), score.tolist(), strict=True))


def _boost_columns(bm25, texts, pool):
    """07b's expansion-term column keeps the shipped fusion (its factor would read a joined term list)."""
    _factors[:] = []
    return _bm25_columns(bm25, texts, pool)


primary.bm25_columns = _columns
boost.bm25_columns = _boost_columns
primary.fuse_angles_by_angle = _fused
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
