"""#17 reading aid (2026-12-04): oracle bounds on the shown cards of a run: the same cards in the best order, and
each shown deck's places filled with its best-graded slides (deck-capped nDCG@10).

Usage: SEEK_HOME=... python docs/experiments/2026-12-11/oracle_reading.py DATASETS RUN_JSON
"""
import sys

from _shown import datasets

for data in datasets(sys.argv):
    answered = data.answered()
    tot = {"prod": 0.0, "order": 0.0, "within": 0.0, "both": 0.0}
    for q, shown in answered:
        g = q.qrels
        tot["prod"] += data.ndcg(q, shown)
        tot["order"] += data.ndcg(q, sorted(shown, key=lambda d: -g.get(d, 0)))
        decks = {data.deck_of.get(d) for d in shown}
        best = {deck: sorted([s for s in g if data.deck_of.get(s) == deck and g[s] > 0], key=lambda s: -g[s])
                for deck in decks}
        used = dict.fromkeys(decks, 0)
        new = []
        for d in shown:  # the deck's next best graded slide takes the place when it is no worse than the one shown
            deck = data.deck_of.get(d)
            b = best[deck]
            if used[deck] < len(b) and g.get(b[used[deck]], 0) >= g.get(d, 0):
                new.append(b[used[deck]])
                used[deck] += 1
            else:
                new.append(d)
        new = list(dict.fromkeys(new))
        tot["within"] += data.ndcg(q, new)
        tot["both"] += data.ndcg(q, sorted(new, key=lambda d: -g.get(d, 0)))
    print(data.name, len(answered), {k: round(v / len(answered), 4) for k, v in tot.items()})
