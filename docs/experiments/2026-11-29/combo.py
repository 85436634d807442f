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
def pairs(toks): return [x+"_"+y for x,y in zip(toks,toks[1:])]
for name in ("slidevqa","cranfield","cisi"):
    ds = load_slidevqa(Path("/work/shared/data/slidevqa")) if name=="slidevqa" else (load_cranfield if name=="cranfield" else load_cisi)(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    V=np.asarray(e.encode([snippet(d) for d in full]))
    Q=np.asarray(e.encode([q.text for q in ds.queries])); dense=Q@V.T
    chunks=[];owner=[]
    for i,s in enumerate(ds.docs):
        d=" ".join(full[i].split())
        for k in range(600,len(d),500): chunks.append(f"{s.title} {d[k:k+500]}"); owner.append(i)
    C=np.asarray(e.encode(chunks)) if chunks else np.zeros((0,V.shape[1]))
    S=Q@C.T; dmax=dense.copy()
    for j,i in enumerate(owner): dmax[:,i]=np.maximum(dmax[:,i],S[:,j])
    idx=BM25Index.from_texts(full, stemmer="english")
    ipair=BM25Index.build([pairs(idx.analyse(d)) for d in full])
    res={}
    for qi,q in enumerate(ds.queries):
        t=idx.analyse(q.text); U=idx.scores(t); P=ipair.scores(pairs(t))
        ent=np.ones(len(ids))
        if name=="slidevqa": ent[M["ent"][qi]]=1.5
        for vn,D,wd,wp in (("base.5",dense,.5,0),("base.4",dense,.4,0),("pair.25",dense,.5,.25),("chunk.5",dmax,.5,0),("chunk.4",dmax,.4,0),("chunk+pair.25",dmax,.5,.25),("chunk+pair.25 .4",dmax,.4,.25)):
            v=(wd*mm(D[qi])+(1-wd)*mm(U+wp*P))*ent
            top=[ids[j] for j in np.argsort(-v,kind="stable")[:10]]
            res.setdefault(vn,[]).append((ndcg_at_k(top,q.qrels,10),mrr_at_k(top,q.qrels,10)))
    for vn in res: a=np.array(res[vn]); print(name,vn,a.mean(0).round(4),flush=True)
