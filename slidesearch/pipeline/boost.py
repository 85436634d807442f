"""Spec step 07b: the expansion terms as one bounded boost signal over the same pool."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from slidesearch.pipeline.context import SearchContext
from slidesearch.pipeline.primary import bm25_columns, fuse_angles, pool_dense_scores
from slidesearch.pipeline.state import Candidate, SearchState


class BoostPass:
    """07b: the expansion terms searched in the pool (same voters and fusion as 07a), pooled into one 0-1 signal.

    A slide with a primary score p becomes p x (1 + boost_cap x signal): at most +35% (seed).
    A slide with primary 0 gets zero_primary_share x signal x (weakest primary score):
    strictly below every slide with a primary score, so expansion alone never lifts an
    unrelated slide over one that matched the brief's own words. At most
    ``primary_depth`` such slides are added.
    """

    name = "07b boost"

    def __init__(self, context: SearchContext) -> None:
        self.context = context

    def run(self, state: SearchState) -> SearchState:
        ctx, cfg = self.context, self.context.config
        if not state.expansion or state.pool is None or state.pool.size == 0:
            return state
        pool = state.pool
        terms = list(state.expansion)
        # Pooled before fusing: a slide's dense voice is its best term, its lexical voice one BM25 pass over
        # every term's words; one fusion instead of one per term (10x less work at 122k slides).
        cosines = state.term_scores
        if cosines is None or cosines.shape != (pool.size, len(terms)):
            cosines = pool_dense_scores(ctx.library.vectors, pool, ctx.embed(terms))
        dense = cosines.max(axis=1, keepdims=True)
        bm25 = bm25_columns(ctx, [" ".join(terms)], pool)
        pooled = fuse_angles(dense, bm25, np.zeros(0, dtype=np.int64), cfg)
        if not pooled:
            return state
        top = max(pooled.values())
        signal = {int(pool[pos]): value / top for pos, value in pooled.items()}
        boosted = []
        for cand in state.candidates:
            s = signal.get(cand.row, 0.0)
            lift = cfg.boost_cap * s * cand.primary
            boosted.append(cand.evolve(boost=lift, fusion=cand.primary + lift, score=cand.primary + lift))
        have = {c.row for c in state.candidates}
        weakest = min((c.primary for c in state.candidates if c.primary > 0), default=1.0)
        sections = ctx.section_names
        extra = sorted(((s, r) for r, s in signal.items() if r not in have and s > 0), reverse=True)
        added = extra[: cfg.primary_depth]
        queries = state.query_vectors if state.query_vectors is not None else ctx.embed(list(state.angles))
        rows = np.fromiter((row for _, row in added), dtype=np.int64, count=len(added))
        cosine = (np.asarray(ctx.library.vectors[rows]) @ queries.T).max(axis=1) if rows.size else rows
        for (s, row), cos in zip(added, cosine.tolist(), strict=True):
            value = cfg.zero_primary_share * s * weakest
            boosted.append(Candidate(row=row, section=sections[row], boost=value, fusion=value, score=value,
                                     cosine=float(cos)))
        boosted.sort(key=lambda c: (-c.fusion, c.row))
        return replace(state, candidates=tuple(boosted))
