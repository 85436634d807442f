"""Line-level dense evidence: each slide's lines (3+ words, with the title for context) embedded by MiniLM; a slide's
dense voter becomes snippet cosine blended with its best line's cosine. Numpy replica over SlideVQA (MRR@10), topical, Cranfield, CISI (nDCG@10)."""
import pickle, sys, numpy as np
from pathlib import Path
from core.embed import make_embedder, CachedEmbedder
from core.lexical import BM25Index
from slidesearch.model import slide_document, snippet
from eval.datasets import load_slidevqa, load_cranfield, load_cisi
from eval.topical import load_slidevqa_topical
from eval.metrics import ndcg_at_k, mrr_at_k
import re
e=CachedEmbedder(make_embedder("minilm"), Path("/work/evalhome/cache/eval_embeddings.sqlite"))
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
def units(doc, title):
    # slide lines; abstracts (one long line) split into sentences
    parts=[p.strip() for l in doc.split("\n") for p in (re.split(r"(?<=[.!?])\s+", l) if len(l)>300 else [l])]
    return [f"{title}: {p}" if title and not p.startswith(title) else p for p in parts if len(p.split())>=3]
for name in sys.argv[1:]:
    D0=Path("/work/shared/data")
    ds = load_slidevqa(D0/"slidevqa") if name=="slidevqa" else load_slidevqa_topical(D0) if name=="topical" else (load_cranfield if name=="cranfield" else load_cisi)(D0/"ir"/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    sn=[snippet(d) for d in full]; qt=[q.text for q in ds.queries]
    Q=np.asarray(e.encode(qt)); dm=Q@np.asarray(e.encode(sn)).T
    us=[];own=[]
    for i,(s,d) in enumerate(zip(ds.docs,full)):
        for u in units(d, s.title): us.append(u); own.append(i)
    own=np.array(own); print(name,"units",len(us),flush=True)
    L=Q@np.asarray(e.encode(us)).T
    best=np.full(dm.shape,-1.0,dtype=np.float32)
    for j in range(len(us)):
        np.maximum(best[:,own[j]],L[:,j],out=best[:,own[j]])
    best=np.where(best<-0.5,dm,best)
    idx=BM25Index.from_texts(full, stemmer="english")
    res={}
    for qi,q in enumerate(ds.queries):
        U=mm(idx.scores(idx.analyse(q.text)))
        ent=np.ones(len(ids))
        if name=="slidevqa": ent[M["ent"][qi]]=1.5
        for vn,a in {"base":0.0,"line .25":0.25,"line .5":0.5,"line 1":1.0}.items():
            Dv=mm((1-a)*dm[qi]+a*best[qi])
            v=(0.5*Dv+0.5*U)*ent
            top=[ids[j] for j in np.argsort(-v,kind="stable")[:10]]
            res.setdefault(vn,[]).append((ndcg_at_k(top,q.qrels,10),mrr_at_k(top,q.qrels,10)))
    for vn in res: a=np.array(res[vn]); print(name,vn,"ndcg/mrr",a.mean(0).round(4),flush=True)
