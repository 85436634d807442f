"""Exact and near-duplicate dedup that keep the best-scored copy.

Near-duplicate dedup joins *every* pair with cosine >= threshold by union-find
and keeps each connected group's best item. A greedy walk that compares each
item only with what it has kept lets chains of copies smeared over cosines
0.74-0.99 through: A~B and B~C are near-duplicates even when A and C are not, so
a greedy walk keeping A drops B and then keeps C. The 0.90 default is the value
the SlideSearch write-up settled on for edited boilerplate slides.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from core.text import normalise

NEAR_DUPLICATE_THRESHOLD = 0.90


def exact_dedup(texts: Sequence[str], scores: Sequence[float]) -> list[int]:
    """Indices to keep: for each normalised text, the best-scored copy (earliest on ties), in score order."""
    if len(texts) != len(scores):
        raise ValueError(f"{len(texts)} texts for {len(scores)} scores")
    order = sorted(range(len(texts)), key=lambda i: (-scores[i], i))
    seen: set[str] = set()
    keep: list[int] = []
    for i in order:
        key = normalise(texts[i])
        if key in seen:
            continue
        seen.add(key)
        keep.append(i)
    return keep


class UnionFind:
    """Disjoint sets over 0..n-1 with path halving and union by size."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))
        self.size = [1] * n

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        if self.size[ra] < self.size[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.size[ra] += self.size[rb]


def near_duplicate_groups(vectors: NDArray[np.float32], threshold: float = NEAR_DUPLICATE_THRESHOLD) -> list[int]:
    """Component root of each row after joining all pairs with cosine >= threshold (rows L2-normalised)."""
    n = int(vectors.shape[0])
    uf = UnionFind(n)
    if n < 2:
        return list(range(n))
    sims = vectors @ vectors.T
    rows, cols = np.nonzero(np.triu(sims >= threshold, k=1))
    for a, b in zip(rows.tolist(), cols.tolist(), strict=True):
        uf.union(a, b)
    return [uf.find(i) for i in range(n)]


def near_duplicate_dedup(
    vectors: NDArray[np.float32], scores: Sequence[float], threshold: float = NEAR_DUPLICATE_THRESHOLD
) -> list[int]:
    """Indices to keep, one per near-duplicate component (its best score, earliest on ties), in score order."""
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    if vectors.shape[0] != len(scores):
        raise ValueError(f"{vectors.shape[0]} vectors for {len(scores)} scores")
    roots = near_duplicate_groups(vectors, threshold)
    best: dict[int, int] = {}
    for i, root in enumerate(roots):
        current = best.get(root)
        if current is None or scores[i] > scores[current]:
            best[root] = i
    return sorted(best.values(), key=lambda i: (-scores[i], i))
