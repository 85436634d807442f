"""Judge cutoff rules offline on a `cutoff_dump.py` file: per dataset, product nDCG@10 (deck-capped ideal),
precision of shown cards (judged only), cards shown, for each rule. A sweep aid, not a figure of record.

Usage: python docs/experiments/2026-12-02/cutoff_sim.py DUMP.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

from eval.product import IDEAL_DECK_CAP, dcg, within_cap_grades


def figures(brief, shown):
    grades, form = brief["grades"], brief["gain"]
    pool = set(brief["judged"]) if brief["judged"] is not None else None
    counted = [d for d in shown if pool is None or d in pool]
    out = {"cards": len(shown)}
    if counted:
        out["precision"] = sum(grades.get(d, 0) > 0 for d in counted) / len(counted)
    if brief["ideal"]:
        gains = within_cap_grades(shown, grades, brief["deck_of"], IDEAL_DECK_CAP)  # product v2
        out["ndcg"] = dcg(gains, form) / dcg(brief["ideal"], form)
    return out


def rule_shipped(b):
    return b["shipped"]


def bar(c):
    """What the floor measures: the score without the entity factor."""
    return c["score"] / c["entity"] if c.get("entity") else c["score"]


def make_share(f):
    def rule(b):
        cards = b["cards"]
        if not cards:
            return []
        best = max(bar(c) for c in cards)
        return [c["id"] for c in cards if bar(c) >= f * best]
    return rule


def make_topk(k):
    return lambda b: [c["id"] for c in b["cards"][:k]]


def make_cos(t, k=10, f=None):
    def rule(b):
        cards = b["cards"]
        kept = [c for i, c in enumerate(cards) if i == 0 or (c["cosine"] is not None and c["cosine"] >= t)
                or (c["cosine"] is None)]
        return [c["id"] for c in kept[:k]]
    return rule


def make_share_k(f, k, ref_rank):
    """Keep cards scoring at least f x the ref_rank-th best bar value, at most k."""
    def rule(b):
        cards = b["cards"]
        if not cards:
            return []
        vals = sorted((bar(c) for c in cards), reverse=True)
        ref = vals[min(ref_rank, len(vals)) - 1]
        return [c["id"] for c in cards if bar(c) >= f * ref][:k]
    return rule


def run(path, rules):
    briefs = [json.loads(line) for line in open(path)]
    by_ds = defaultdict(list)
    for b in briefs:
        by_ds[b["dataset"]].append(b)
    for name, rule in rules:
        line = [f"{name:28s}"]
        for ds, bs in by_ds.items():
            fs = [figures(b, rule(b)) for b in bs]
            nd = [f["ndcg"] for f in fs if "ndcg" in f]
            pr = [f["precision"] for f in fs if "precision" in f]
            cards = sum(f["cards"] for f in fs) / len(fs)
            line.append(f"{ds[:14]:>14s} {sum(nd)/len(nd):.4f} p{sum(pr)/len(pr):.3f} c{cards:4.1f}")
        print(" | ".join(line), flush=True)


if __name__ == "__main__":
    rules = [("shipped", rule_shipped)]
    rules += [(f"share {f}", make_share(f)) for f in (0.68, 0.6, 0.5)]
    rules += [(f"top {k}", make_topk(k)) for k in (3, 5, 8, 10)]
    rules += [(f"cos {t} k10", make_cos(t)) for t in (0.2, 0.3, 0.35, 0.4, 0.45)]
    rules += [(f"share {f} of #{r} k10", make_share_k(f, 10, r)) for f in (0.8, 0.9) for r in (2, 3, 5)]
    run(sys.argv[1], rules)
