"""#17 reading aid (2026-12-04): each shown deck's places refilled by another within-deck key (fusion, primary,
cosine, ...) instead of the 08 score, the rest of the answer kept (deck-capped nDCG@10).

Usage: SEEK_HOME=... python docs/experiments/2026-12-11/within_reading.py DATASETS RUN_JSON
"""
import collections
import sys

from _shown import datasets

KEYS = {
    "score": lambda c: c.score,
    "fusion": lambda c: c.fusion,
    "primary": lambda c: c.primary,
    "own": lambda c: c.primary - c.deck,
    "cosine": lambda c: c.cosine,
    "score_noboost": lambda c: c.primary * c.type * c.titled * c.entity,
    "score_notype": lambda c: c.fusion * c.titled * c.entity,
}

for data in datasets(sys.argv):
    answered = data.answered()
    tot = collections.Counter()
    for q, shown in answered:
        by_deck = collections.defaultdict(list)
        for slide, c in data.candidates(q).items():
            by_deck[data.deck_of[slide]].append((slide, c))
        tot["prod"] += data.ndcg(q, shown)
        for name, key in KEYS.items():
            used = collections.Counter()
            new = []
            for d in shown:
                deck = data.deck_of.get(d)
                ids = [slide for slide, _ in sorted(by_deck.get(deck, []), key=lambda sc: -key(sc[1]))]
                if d not in ids:
                    new.append(d)
                    continue
                while used[deck] < len(ids) and ids[used[deck]] in new:  # the deck's next slide by the key
                    used[deck] += 1
                new.append(ids[used[deck]] if used[deck] < len(ids) else d)
                used[deck] += 1
            tot[name] += data.ndcg(q, list(dict.fromkeys(new)))
    print(data.name, len(answered), {k: round(v / len(answered), 4) for k, v in tot.items()}, flush=True)
