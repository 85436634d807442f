import pickle, numpy as np, sys, json
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, bm, ent, rel, split = M["dense"], M["bm"], M["ent"], M["rel"], M["split"]
import sqlite3
nq, nd = dense.shape
# recover doc vectors: dense = Q @ V.T ; need V: reload from library cache
from core.embed import CachedEmbedder, make_embedder
from pathlib import Path
V = np.load("/tmp/i7/V.npy") if Path("/tmp/i7/V.npy").exists() else None
def mm(x):
    lo, hi = x.min(), x.max()
    return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
def base(i, wd=.5):
    d,b=dense[i],bm[i]
    v = wd*mm(d) + ((1-wd)*mm(b) if b.max()>0 else 0)
    return v*np.where(np.isin(np.arange(nd), ent[i]), 1.5, 1.0)
def stats():
    r10={0:[],1:[]}; r1={0:[],1:[]}
    for i in range(nq):
        top=np.argsort(-base(i),kind="stable")[:10]
        r10[split[i]].append(any(h in rel[i] for h in top)); r1[split[i]].append(top[0] in rel[i])
    print("recall@10", [np.mean(r10[s]) for s in (0,1)], "P@1", [np.mean(r1[s]) for s in (0,1)])
stats()
def run(alpha=.3, k=3, beta=0.0):
    out={0:[],1:[]}
    for i in range(nq):
        v=base(i)
        top=np.argsort(-v)[:k]
        # dense PRF: similarity of each doc to top-k docs centroid
        c = V[top].mean(0); c/=np.linalg.norm(c)
        prf = V @ c
        v2 = v + alpha*mm(prf)
        t=np.argsort(-v2,kind="stable")[:10]
        out[split[i]].append(next((1/(j+1) for j,h in enumerate(t) if h in rel[i]),0.0))
    return [round(np.mean(out[s]),4) for s in (0,1)]
if V is not None:
    for a in eval(sys.argv[1]): print(a, run(**a))
