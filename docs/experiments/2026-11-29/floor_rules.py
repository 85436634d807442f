"""Which quantity should the relevance floor cut on? Run search_v2 with the floor off (floor=0), then
replay candidate floors on its cards: share of the best final score (the spec's form), share of the best
cosine, an absolute cosine. Label judge (unlabelled = wrong). Sets: generated (seed 7) and the topical briefs.
Run: SEEK_HOME=/work/evalhome .venv/bin/python docs/experiments/2026-11-29/floor_rules.py"""
import numpy as np
from core.settings import get_settings
from eval.generated import load_generated
from eval.topical import load_slidevqa_topical
from eval.slides_run import build_library
from eval.metrics import ndcg_at_k
from slidesearch.config import SearchConfig
from slidesearch.engine import SlideSearch

def replay(ds):
    lib, emb = build_library(ds, "minilm")
    eng = SlideSearch(lib, config=SearchConfig(floor=0.0))
    out = []
    for q in ds.queries:
        angles = [q.text] if isinstance(q.text, str) else list(q.text)
        r = eng.search_v2(q.text)
        qv = np.asarray(lib.embedder().encode(angles))
        cards = sorted(r.cards(), key=lambda c: -c.score)
        rows = []
        for c in cards:
            if c.verified:
                continue
            v = np.asarray(lib.vectors[lib.id_to_row[c.id]])
            rows.append((c.id, c.score, float((qv @ v).max()), q.qrels.get(c.id, 0.0)))
        out.append((q.qrels, rows))
    return out

def judge(data, keep):
    correct = wrong = n = 0; nd = []
    for qrels, rows in data:
        kept = [r for r in rows if keep(r, rows)] or rows[:1]
        n += len(kept); correct += sum(r[3] >= 2 or (max(qrels.values(), default=0) <= 1 and r[3] > 0) for r in kept)
        wrong += sum(r[3] == 0 for r in kept)
        nd.append(ndcg_at_k([r[0] for r in kept], qrels, 10))
    return correct / n, wrong / n, float(np.mean(nd)), n / len(data)

RULES = {}
for s in (0.15, 0.5, 0.6, 0.7):
    RULES[f"score >= {s} best"] = lambda r, rows, s=s: r[1] >= s * max(x[1] for x in rows)
for s in (0.7, 0.8, 0.85, 0.9):
    RULES[f"cos >= {s} best cos"] = lambda r, rows, s=s: r[2] >= s * max(x[2] for x in rows)
for t in (0.3, 0.4, 0.5):
    RULES[f"cos >= {t}"] = lambda r, rows, t=t: r[2] >= t
for s, t in ((0.5, 0.8), (0.6, 0.8), (0.5, 0.85)):
    RULES[f"score >= {s} best and cos >= {t} best"] = lambda r, rows, s=s, t=t: r[1] >= s * max(x[1] for x in rows) and r[2] >= t * max(x[2] for x in rows)
sets = {"generated": load_generated(), "topical": load_slidevqa_topical(get_settings().data_dir)}
for name, ds in sets.items():
    data = replay(ds)
    for rule, keep in RULES.items():
        c, w, nd, k = judge(data, keep)
        print(f"{name:9s} {rule:38s} correct {c:.3f} wrong {w:.3f} ndcg@10 {nd:.4f} cards {k:.1f}", flush=True)
