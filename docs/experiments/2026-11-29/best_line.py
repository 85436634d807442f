"""Passage-level lexical evidence: rerank the top 30 of the 07a blend by adding mu x the best single line's idf-weighted
query-term coverage (lines = newlines and sentence ends). Numpy replica on SlideVQA, topical, Cranfield, CISI."""
import pickle, re, numpy as np
from pathlib import Path
from core.embed import make_embedder, CachedEmbedder
from core.lexical import BM25Index, analyse
from core.settings import get_settings
from slidesearch.model import slide_document, snippet
from eval.datasets import load_cranfield, load_cisi, load_slidevqa
from eval.topical import load_slidevqa_topical
from eval.metrics import ndcg_at_k, mrr_at_k
e=CachedEmbedder(make_embedder("minilm"), Path("/work/evalhome/cache/eval_embeddings.sqlite"))
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
SPLIT = re.compile(r"\n|(?<=[.!?;])\s+")
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
for name in ("slidevqa","topical","cranfield","cisi"):
    if name=="slidevqa": ds=load_slidevqa(Path("/work/shared/data/slidevqa"))
    elif name=="topical": ds=load_slidevqa_topical(get_settings().data_dir)
    else: ds=(load_cranfield if name=="cranfield" else load_cisi)(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    lines=[[set(analyse(l, stemmer="english")) for l in SPLIT.split(d) if l.strip()] for d in full]
    df={}
    for d in full:
        for t in set(analyse(d, stemmer="english")): df[t]=df.get(t,0)+1
    N=len(full); idf=lambda t: np.log(1+(N-df.get(t,0)+0.5)/(df.get(t,0)+0.5))
    dense=np.asarray(e.encode([q.text for q in ds.queries]))@np.asarray(e.encode([snippet(d) for d in full])).T
    idx=BM25Index.from_texts(full, stemmer="english")
    res={}
    for qi,q in enumerate(ds.queries):
        qt=set(idx.analyse(q.text)); w={t:idf(t) for t in qt}; tot=sum(w.values()) or 1.0
        ent=np.ones(len(ids))
        if name=="slidevqa": ent[M["ent"][qi]]=1.5
        v=(0.5*mm(dense[qi])+0.5*mm(idx.scores(idx.analyse(q.text))))*ent
        top=np.argsort(-v,kind="stable")[:30]
        best=np.array([max((sum(w[t] for t in qt & L) for L in lines[j]), default=0.0)/tot for j in top])
        for mu in (0,0.1,0.2,0.3):
            s=v[top]+mu*best*v[top[0]]
            order=[ids[top[k]] for k in np.argsort(-s,kind="stable")]+[ids[j] for j in np.argsort(-v,kind="stable")[30:40]]
            res.setdefault(mu,[]).append((ndcg_at_k(order,q.qrels,10),mrr_at_k(order,q.qrels,10)))
    for mu in res: a=np.array(res[mu]); print(name,mu,a.mean(0).round(4),flush=True)
