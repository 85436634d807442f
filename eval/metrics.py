"""Ranking metrics over one query's ranked ids and its graded judgments (pure functions).

Definitions follow the TREC conventions (Järvelin & Kekäläinen 2002 for nDCG):
DCG@k = sum over ranks r = 1..k of (2^gain - 1) / log2(r + 1), divided by the DCG
of the ideal ordering of the judged gains. The exponential gain is the one
trec_eval's ``ndcg_cut`` and most IR papers report; with binary judgments it
equals the linear form. MRR@k is 1/rank of the first document with gain > 0
(0 when none is in the top k); Recall@k is the share of relevant documents
(gain > 0) found in the top k. A query with no relevant document has no
defined score and callers leave it out (CISI's 36 unjudged queries).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def dcg_at_k(gains: Sequence[float], k: int) -> float:
    """Discounted cumulative gain of gains listed in rank order, cut at k."""
    return float(sum((2.0**g - 1.0) / math.log2(rank + 1) for rank, g in enumerate(gains[:k], start=1)))


def ndcg_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k of a ranking against graded judgments (unjudged documents gain 0)."""
    ideal = dcg_at_k(sorted((g for g in qrels.values() if g > 0), reverse=True), k)
    if ideal == 0:
        raise ValueError("nDCG is undefined for a query with no relevant document")
    return dcg_at_k([qrels.get(doc, 0.0) for doc in ranked_ids], k) / ideal


def mrr_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, float], k: int = 10) -> float:
    """Reciprocal rank of the first relevant document within the top k, else 0."""
    for rank, doc in enumerate(ranked_ids[:k], start=1):
        if qrels.get(doc, 0.0) > 0:
            return 1.0 / rank
    return 0.0


def recall_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, float], k: int) -> float:
    """Share of the relevant documents that appear in the top k."""
    relevant = {doc for doc, g in qrels.items() if g > 0}
    if not relevant:
        raise ValueError("recall is undefined for a query with no relevant document")
    return len(relevant.intersection(ranked_ids[:k])) / len(relevant)


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean; 0.0 for no values so empty runs report a number rather than crash."""
    return sum(values) / len(values) if values else 0.0
