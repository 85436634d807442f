"""Voter normalisations for the 07a blend on the three IR sets (numpy replica, full + stem BM25, MiniLM int8 snippets)."""
import pickle, numpy as np
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
def mmk(x,k=100):
    lo=np.partition(x,-k)[-k]; hi=x.max(); return np.clip((x-lo)/(hi-lo),0,None) if hi>lo else np.zeros_like(x)
def mx(x):
    hi=x.max(); return x/hi if hi>0 else np.zeros_like(x)
def z(x):
    return (x-x.mean())/(x.std()+1e-9)
def zk(x,k=100):
    t=np.sort(x)[-k:]; return (x-t.mean())/(t.std()+1e-9)
NORMS={"minmax":(mm,mm),"minmax-top100":(mmk,mmk),"max":(mm,mx),"z":(z,z),"z-top100":(zk,zk),"z-top20":(lambda x:zk(x,20),lambda x:zk(x,20))}
for name in ("slidevqa","cranfield","cisi"):
    ds = load_slidevqa(Path("/work/shared/data/slidevqa")) if name=="slidevqa" else (load_cranfield if name=="cranfield" else load_cisi)(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    V=np.asarray(e.encode([snippet(d) for d in full])); Q=np.asarray(e.encode([q.text for q in ds.queries])); dense=Q@V.T
    idx=BM25Index.from_texts(full, stemmer="english")
    res={}
    for qi,q in enumerate(ds.queries):
        U=idx.scores(idx.analyse(q.text))
        ent=np.ones(len(ids))
        if name=="slidevqa": ent[M["ent"][qi]]=1.5
        for vn,(fd,fb) in NORMS.items():
            for wd in (0.4,0.5):
                v=(wd*fd(dense[qi])+(1-wd)*fb(U))
                v=(v-v.min())*ent
                top=[ids[j] for j in np.argsort(-v,kind="stable")[:10]]
                res.setdefault(f"{vn} {wd}",[]).append((ndcg_at_k(top,q.qrels,10),mrr_at_k(top,q.qrels,10)))
    for vn in res: a=np.array(res[vn]); print(name,vn,a.mean(0).round(4),flush=True)
