"""#17 reading aid (2026-12-04): the shown cards of a run cut at K: nDCG@10 and precision of shown cards per K.

Usage: SEEK_HOME=... python docs/experiments/2026-12-11/trunc_reading.py DATASETS RUN_JSON
"""
import sys

from _shown import datasets
from eval.product import IDEAL_DECK_CAP, shown_card_figures

for data in datasets(sys.argv):
    for K in (100, 10, 8, 7, 6, 5):
        nd, pr = [], []
        for q, shown in data.briefs:
            f = shown_card_figures(shown[:K], q.qrels, q.judged, data.deck_of, IDEAL_DECK_CAP, data.dataset.gain)
            if q.qrels:
                nd.append(f.get("product_ndcg@10", f.get("ndcg@10")))
            if "precision" in f:
                pr.append(f["precision"])
        nd = [x for x in nd if x is not None]
        print(data.name, K, round(sum(nd) / len(nd), 4), round(sum(pr) / len(pr), 4), len(nd), len(pr))
