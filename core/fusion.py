"""Rank fusion: Reciprocal Rank Fusion and a normalised-score blend.

RRF (Cormack, Clarke & Buettcher, SIGIR 2009) scores an item by
sum_i w_i / (k + rank_i), ranks starting at 1. k = 60 is the paper's value; it
damps the head so that one list's first place cannot dominate. Items missing
from a list contribute nothing from it.

Two forms of each: over mappings of ids (``rrf``, ``min_max``, ``normalised_blend``) and
over numpy score arrays whose positions are the ids (``top_positions``, ``ranks_of``,
``rrf_terms``, ``min_max_array``), for hot paths that score thousands of items a request.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def rrf(rankings: Sequence[Sequence[K]], k: int = RRF_K, weights: Sequence[float] | None = None) -> dict[K, float]:
    """Weighted Reciprocal Rank Fusion of ranked id lists; returns id -> fused score."""
    if k < 0:
        raise ValueError(f"RRF k must be non-negative, got {k}")
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    fused: dict[K, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            fused[item] = fused.get(item, 0.0) + weight / (k + rank)
    return fused


def min_max(scores: Mapping[K, float]) -> dict[K, float]:
    """Scale scores to 0..1 by min-max; a constant list maps to 1.0 everywhere (all equally best)."""
    if not scores:
        return {}
    values = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
    lo, hi = float(values.min()), float(values.max())
    if hi - lo <= 1e-12:
        return dict.fromkeys(scores, 1.0)
    return {key: (value - lo) / (hi - lo) for key, value in scores.items()}


def min_max_array(values: NDArray[Any]) -> NDArray[np.float64]:
    """``values`` scaled to 0..1 by min-max, as float64.

    A constant array maps to 1.0 when its value is positive (all equally good) and to 0.0
    otherwise: a voter that scored nothing above zero (BM25 with no query word present, a
    dense voter with no positive cosine) carries no evidence, unlike ``min_max``'s equally-best
    ranked list.
    """
    values = np.asarray(values).astype(np.float64)
    if values.size == 0:
        return values
    lo, hi = float(values.min()), float(values.max())
    if hi - lo <= 1e-12:
        return np.ones_like(values) if hi > 0 else np.zeros_like(values)
    return (values - lo) / (hi - lo)


def top_positions(scores: NDArray[Any], depth: int, positive_only: bool = False) -> NDArray[np.int64]:
    """Positions of the ``depth`` best scores, in no particular order (only scores > 0 when ``positive_only``)."""
    idx = np.flatnonzero(scores > 0) if positive_only else np.arange(scores.size)
    if idx.size > depth:
        idx = idx[np.argpartition(-scores[idx], depth - 1)[:depth]]
    return idx


def ranks_of(scores: NDArray[Any], positions: NDArray[np.int64]) -> NDArray[np.float64]:
    """1-based rank of each position among all ``scores`` (ties share the better rank)."""
    ascending = np.sort(scores)
    higher = scores.size - np.searchsorted(ascending, scores[positions], side="right")
    return (higher + 1).astype(np.float64)


def rrf_terms(ranks: NDArray[np.float64], weight: float = 1.0, k: int = RRF_K) -> NDArray[np.float64]:
    """One list's RRF contribution at each of ``ranks`` (1-based): ``weight / (k + rank)``."""
    if k < 0:
        raise ValueError(f"RRF k must be non-negative, got {k}")
    return weight / (k + ranks)


def normalised_blend(score_lists: Sequence[Mapping[K, float]], weights: Sequence[float]) -> dict[K, float]:
    """Min-max normalise each score list, then sum with weights; items missing from a list get 0 from it."""
    if len(weights) != len(score_lists):
        raise ValueError(f"{len(weights)} weights for {len(score_lists)} score lists")
    fused: dict[K, float] = {}
    for scores, weight in zip(score_lists, weights, strict=True):
        for key, value in min_max(scores).items():
            fused[key] = fused.get(key, 0.0) + weight * value
    return fused


def ranked(scores: Mapping[K, float]) -> list[K]:
    """Ids by descending score; ties keep insertion order (stable) so results are reproducible."""
    return [key for key, _ in sorted(scores.items(), key=lambda kv: -kv[1])]
