"""How many items to show: the width that maximises the expected TechnicalScore over the turns left.

A session scores 0.50·hit + 0.30/rank + 0.20·(11 − hit turn)/10
(``shared/specs/tenturns.md``, "Metrics"), and a shown target ends it. Showing
one item a turn keeps rank 1 at the price of 0.02 per turn of delay, so it beats
a list for a target near the top; a list covers more candidates before turn 10
runs out. Given the probability q_i that the target sits at position i of the
current ranking (positions already ruled out removed), the best widths solve a
small dynamic programme over (next position, turns left):

    V(p, L) = max_w  sum_{j<w} q_{p+j} (0.5 + 0.3/(j+1) + 0.2 (11 - turn)/10)  +  V(p + w, L - 1)

with turn = 11 - L and V(p, 0) = 0. It is vectorised over p with numpy, so a
turn costs about a hundred array operations whatever the shelf size.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

HIT, RANK, SPEED = 0.50, 0.30, 0.20
LAST_TURN = 10
MAX_WIDTH = 10


def target_probabilities(evidence: NDArray[np.float64], sharpness: float) -> NDArray[np.float64]:
    """q_i proportional to exp(sharpness · (evidence_i − best evidence)): ties share, weaker matches fade."""
    if len(evidence) == 0:
        return np.zeros(0)
    weights = np.exp(sharpness * (evidence - evidence.max()))
    return np.asarray(weights / weights.sum(), dtype=np.float64)


def plan_width(q: NDArray[np.float64], turn: int, last_turn: int = LAST_TURN, max_width: int = MAX_WIDTH) -> int:
    """The width to show now that maximises the expected score, given position probabilities ``q``."""
    turns_left = last_turn - turn + 1
    if turns_left <= 1 or len(q) == 0:
        return max_width
    horizon = min(len(q), turns_left * max_width)
    q = np.concatenate([q[:horizon], np.zeros(max_width + 1)])
    size = horizon + 1  # positions 0..horizon; position p means the first p are already shown
    # prefix sums give sum_{j<w} q_{p+j} and sum_{j<w} q_{p+j}/(j+1) for every p at once.
    value = np.zeros(size + max_width)
    first_width = 1
    for left in range(1, turns_left + 1):
        at_turn = last_turn - left + 1
        base = HIT + SPEED * (11 - at_turn) / 10
        best = np.full(size, -np.inf)
        best_w = np.ones(size, dtype=np.int64)
        mass = np.zeros(size)
        ranked = np.zeros(size)
        for w in range(1, max_width + 1):
            mass = mass + q[w - 1 : w - 1 + size]
            ranked = ranked + q[w - 1 : w - 1 + size] / w
            candidate = base * mass + RANK * ranked + value[w : w + size]
            better = candidate > best + 1e-12
            best = np.where(better, candidate, best)
            best_w = np.where(better, w, best_w)
        value = np.concatenate([best, np.zeros(max_width)])
        first_width = int(best_w[0])
    return first_width
