"""#17 reading aid (2026-12-04): the shown cards of a run put in another order (fusion, primary, cosine, ...), the
set kept (deck-capped nDCG@10).

Usage: SEEK_HOME=... python docs/experiments/2026-12-11/order_reading.py DATASETS RUN_JSON
"""
import collections
import sys

from _shown import datasets

KEYS = {
    "score": lambda c: c.score,
    "fusion": lambda c: c.fusion,
    "primary": lambda c: c.primary,
    "cosine": lambda c: c.cosine,
    "nodeck": lambda c: (c.primary - c.deck) * c.type * c.titled * c.entity * (1 + c.boost / max(c.primary, 1e-9)),
    "norec": lambda c: c.score / c.recency,
}

for data in datasets(sys.argv):
    answered = data.answered()
    tot = collections.Counter()
    for q, shown in answered:
        by = data.candidates(q)
        tot["prod"] += data.ndcg(q, shown)
        for name, key in KEYS.items():
            tot[name] += data.ndcg(q, sorted(shown, key=lambda s: -(key(by[s]) if s in by else 0)))
    print(data.name, len(answered), {k: round(v / len(answered), 4) for k, v in tot.items()}, flush=True)
