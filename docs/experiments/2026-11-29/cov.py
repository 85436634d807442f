import pickle, json, numpy as np, sys
from pathlib import Path
from core.embed import make_embedder, CachedEmbedder
from core.lexical import BM25Index
from slidesearch.model import slide_document, snippet
from eval.datasets import load_cranfield, load_cisi, load_slidevqa
from eval.metrics import ndcg_at_k, mrr_at_k
e=CachedEmbedder(make_embedder("minilm"), Path("/work/evalhome/cache/eval_embeddings.sqlite"))
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
VARS=[("base",0,0),("cov.2",0.2,0),("cov.5",0.5,0),("cov1",1.0,0),("covpow1",0,1),("covpow2",0,2)]
for name in ("slidevqa","cranfield","cisi"):
    ds = load_slidevqa(Path("/work/shared/data/slidevqa")) if name=="slidevqa" else (load_cranfield if name=="cranfield" else load_cisi)(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    V=np.asarray(e.encode([snippet(d) for d in full]))
    Q=np.asarray(e.encode([q.text for q in ds.queries])); dense=Q@V.T
    idx=BM25Index.from_texts(full, stemmer="english")
    res={v[0]:[] for v in VARS}
    for qi,q in enumerate(ds.queries):
        toks=sorted(set(idx.analyse(q.text)))
        cols=[idx.scores([t]) for t in toks]
        bm=np.sum(cols,axis=0) if cols else np.zeros(len(ids))
        # idf-weighted share of the query's distinct terms present
        w=np.array([c.max() for c in cols]) if cols else np.zeros(0)
        cov=(np.stack([(c>0)*wi for c,wi in zip(cols,w)]).sum(0)/w.sum()) if cols and w.sum()>0 else np.zeros(len(ids))
        ent=np.ones(len(ids))
        if name=="slidevqa": ent[M["ent"][qi]]=1.5
        base=(0.5*mm(dense[qi])+0.5*mm(bm))
        for vn,lam,pw in VARS:
            v=base*(1+lam*cov) if pw==0 else base*(cov**pw)
            v=v*ent
            top=[ids[j] for j in np.argsort(-v,kind="stable")[:10]]
            res[vn].append((ndcg_at_k(top,q.qrels,10),mrr_at_k(top,q.qrels,10)))
    for vn in res: a=np.array(res[vn]); print(name,vn,a.mean(0).round(4),flush=True)
