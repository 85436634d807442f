"""#17 offline: a relevance floor that reads how broad the library's answer is (`cutoff_dump.py` file).

The floor share is lowered when a second deck's best card comes close to the best deck's best
(several decks answer the brief: show more of them), and kept when one deck stands alone (the
rest are likely other topics). Compared with the shipped answer and the plain share floor.

Usage: python docs/experiments/2026-12-09/breadth_sim.py DUMP.jsonl
"""

from __future__ import annotations

import sys

sys.path.insert(0, "docs/experiments/2026-12-02")
from cutoff_sim import bar, make_share, rule_shipped, run  # noqa: E402


def deck_bests(b):
    best: dict[str, float] = {}
    for c in b["cards"]:
        d = b["deck_of"].get(c["id"]) or c["id"]
        best[d] = max(best.get(d, 0.0), bar(c))
    return sorted(best.values(), reverse=True)


def make_breadth(f_hi, f_lo, ratio, rank=2):
    def rule(b):
        cards = b["cards"]
        if not cards:
            return []
        bests = deck_bests(b)
        broad = len(bests) >= rank and bests[rank - 1] >= ratio * bests[0]
        f = f_lo if broad else f_hi
        return [c["id"] for c in cards if bar(c) >= f * bests[0]]
    return rule


def make_second_deck(f, f2):
    """Keep a card at f x best, or at f2 x the second deck's best when that deck is itself within f of the best."""
    def rule(b):
        cards = b["cards"]
        if not cards:
            return []
        bests = deck_bests(b)
        ref = bests[0]
        if len(bests) > 1 and bests[1] >= f * bests[0]:
            ref = min(ref, bests[1] * f2 / f)
        return [c["id"] for c in cards if bar(c) >= f * ref]
    return rule


if __name__ == "__main__":
    rules = [("shipped", rule_shipped), ("share 0.66", make_share(0.66))]
    for ratio in (0.8, 0.9):
        for rank in (2, 3):
            for lo in (0.5, 0.55, 0.6):
                rules.append((f"breadth r{ratio} #{rank} lo{lo}", make_breadth(0.66, lo, ratio, rank)))
    run(sys.argv[1], rules)
