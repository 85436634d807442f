"""#17 experiment: 07a's deck context from the deck's best DECKK deck-mates (mean over DECKK, a missing mate
counts 0) instead of the mean over every deck-mate, which a long deck dilutes.

Usage: DECKK=3 SEEK_HOME=... python docs/experiments/2026-12-02/deck_topk_patch.py docs/experiments/2026-12-01/replay.py DATASETS '[...]'
"""
import heapq
import os
import runpy
import sys

from slidesearch.pipeline.rank import primary

K = int(os.environ.get("DECKK", "3"))


def deck_context_topk(deck_codes, weight, pool, fused):
    codes, _sizes = deck_codes
    by_deck: dict[int, list[float]] = {}
    for pos, score in fused.items():
        by_deck.setdefault(int(codes[pool[pos]]), []).append(score)
    best = {d: heapq.nlargest(K + 1, s) for d, s in by_deck.items()}
    lift = {}
    for pos, score in fused.items():
        top = best[int(codes[pool[pos]])]
        mates = list(top)
        mates.remove(score) if score in mates else mates.pop()
        lift[pos] = weight * sum(mates[:K]) / K
    return lift


primary.deck_context = deck_context_topk
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
