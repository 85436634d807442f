"""#17, 2026-12-04: plain rankers on the mean of MiniLM and mpnet cosines at mpnet shares 0 .. 1 (reads mpnet_plain.py's /tmp/x caches)."""
import sys, os, numpy as np
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library
from eval.product import ndcg_against, capped_ndcg, cap_ranking
from core.embed import make_embedder
mp = make_embedder("mpnet")
for name in sys.argv[1].split(","):
    ds = load_slides_dataset(name); lib, _ = build_library(ds, "minilm")
    M = np.load(f"/tmp/x/mp_{name}_128.npy"); deck_of = dict(zip(lib.ids, lib.deck_ids))
    texts = [q.text if isinstance(q.text, str) else "; ".join(q.text) for q in ds.queries]
    QM = lib.embedder().encode(texts); QP = mp.encode(texts)
    out = {}
    for w in (0.0, 0.4, 0.5, 0.6, 0.67, 0.75, 1.0):
        v = []
        for i, q in enumerate(ds.queries):
            if not q.qrels: continue
            s = (1-w)*(lib.vectors @ QM[i]) + w*(M @ QP[i])
            order = [lib.ids[r] for r in np.argsort(-s, kind="stable")][:10]
            v.append(ndcg_against(order, q.qrels, sorted(q.qrels.values(), reverse=True), ds.gain))
        out[w] = round(float(np.mean(v)), 4)
    print(name, out, flush=True)
