"""Query-adaptive blend weight: the BM25 voter's weight grows with how much of the query its best hit covers
(idf-weighted share of the query's distinct terms found in the top BM25 slide). Numpy replica on all four IR sets."""
import pickle, numpy as np
from pathlib import Path
from core.embed import make_embedder, CachedEmbedder
from core.lexical import BM25Index
from core.settings import get_settings
from slidesearch.model import slide_document, snippet
from eval.datasets import load_cranfield, load_cisi, load_slidevqa
from eval.topical import load_slidevqa_topical
from eval.metrics import ndcg_at_k, mrr_at_k
e=CachedEmbedder(make_embedder("minilm"), Path("/work/evalhome/cache/eval_embeddings.sqlite"))
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
VARIANTS={"fixed .5":lambda c:0.5,"0.3+0.4c":lambda c:0.3+0.4*c,"0.2+0.6c":lambda c:0.2+0.6*c,"0.4+0.2c":lambda c:0.4+0.2*c}
for name in ("slidevqa","topical","cranfield","cisi"):
    if name=="slidevqa": ds=load_slidevqa(Path("/work/shared/data/slidevqa"))
    elif name=="topical": ds=load_slidevqa_topical(get_settings().data_dir)
    else: ds=(load_cranfield if name=="cranfield" else load_cisi)(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    dense=np.asarray(e.encode([q.text for q in ds.queries]))@np.asarray(e.encode([snippet(d) for d in full])).T
    idx=BM25Index.from_texts(full, stemmer="english")
    res={}
    for qi,q in enumerate(ds.queries):
        toks=sorted(set(idx.analyse(q.text))); cols=[idx.scores([t]) for t in toks]
        U=np.sum(cols,axis=0) if cols else np.zeros(len(ids))
        w=np.array([c.max() for c in cols]) if cols else np.zeros(0)
        top=int(np.argmax(U)) if cols else 0
        cov=float(sum(wi for c,wi in zip(cols,w) if c[top]>0)/w.sum()) if cols and w.sum()>0 else 0.0
        ent=np.ones(len(ids))
        if name=="slidevqa": ent[M["ent"][qi]]=1.5
        for vn,f in VARIANTS.items():
            wb=f(cov); v=((1-wb)*mm(dense[qi])+wb*mm(U))*ent
            t=[ids[j] for j in np.argsort(-v,kind="stable")[:10]]
            res.setdefault(vn,[]).append((ndcg_at_k(t,q.qrels,10),mrr_at_k(t,q.qrels,10)))
    for vn in res: a=np.array(res[vn]); print(name,vn,a.mean(0).round(4),flush=True)
