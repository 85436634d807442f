"""#17, 2026-12-04: all-mpnet-base-v2 fp32 (128 tokens) beside MiniLM as plain top-10 rankers (uncapped / deck-capped nDCG@10, MRR@10); caches mpnet vectors in /tmp/x for wplain.py. Usage: SEEK_HOME=... python mpnet_plain.py realdecks-tune,realdecks-check,slidevqa-topical-cards"""
import sys, time, json, os, pickle
import numpy as np
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library
from eval.product import ndcg_against, capped_ndcg, IDEAL_DECK_CAP
from eval.metrics import mrr_at_k
from sentence_transformers import SentenceTransformer
import torch
torch.set_num_threads(2)
SEQ = int(os.environ.get("SEQ", "128"))
m = SentenceTransformer(os.path.expanduser("~/.cache/seek/models/all-mpnet-base-v2"), device="cpu"); m.max_seq_length = SEQ
def enc(texts, bs=32):
    return m.encode(texts, batch_size=bs, normalize_embeddings=True, convert_to_numpy=True)
for name in sys.argv[1].split(","):
    ds = load_slides_dataset(name)
    lib, _ = build_library(ds, "minilm")
    cache = f"/tmp/x/mp_{name}_{SEQ}.npy"
    if os.path.exists(cache):
        M = np.load(cache)
    else:
        t = time.time(); M = enc(list(lib.snippets)); np.save(cache, M)
        print(name, "encoded", len(M), f"{len(M)/(time.time()-t):.1f}/s", flush=True)
    deck_of = dict(zip(lib.ids, lib.deck_ids))
    qs = ds.queries
    texts = [q.text if isinstance(q.text, str) else "; ".join(q.text) for q in qs]
    QM = lib.embedder().encode(texts); QP = enc(texts)
    res = {}
    for vn, f in {"minilm": lambda i: lib.vectors @ QM[i], "mpnet": lambda i: M @ QP[i],
                  "avg": lambda i: 0.5*(lib.vectors @ QM[i]) + 0.5*(M @ QP[i])}.items():
        vals = []; cap = []; mrr = []
        for i, q in enumerate(qs):
            if not q.qrels: continue
            s = f(i); order = [lib.ids[r] for r in np.argsort(-s, kind="stable")]
            order = [ds.aliases.get(x, x) for x in order] if ds.aliases else order
            ideal = sorted((g for g in q.qrels.values() if g > 0), reverse=True)
            vals.append(ndcg_against(order[:10], q.qrels, ideal, ds.gain))
            from eval.product import cap_ranking
            cap.append(capped_ndcg(cap_ranking(order, deck_of, 2)[:10], q.qrels, deck_of, 2, ds.gain))
            mrr.append(mrr_at_k(order, q.qrels, 10))
        res[vn] = (np.mean(vals), np.mean(cap), np.mean(mrr))
    print(name, SEQ, {k: tuple(round(x, 4) for x in v) for k, v in res.items()}, flush=True)
