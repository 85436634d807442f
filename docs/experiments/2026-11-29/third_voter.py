"""A third voter (WordLlama static vectors) beside MiniLM and full + stem BM25 on the three IR sets (numpy replica)."""
import pickle, numpy as np
from pathlib import Path
from core.embed import make_embedder, CachedEmbedder
from core.lexical import BM25Index
from slidesearch.model import slide_document, snippet
from eval.datasets import load_cranfield, load_cisi, load_slidevqa
from eval.metrics import ndcg_at_k, mrr_at_k
e=CachedEmbedder(make_embedder("minilm"), Path("/work/evalhome/cache/eval_embeddings.sqlite"))
f=make_embedder("fast")
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
for name in ("slidevqa","cranfield","cisi"):
    ds = load_slidevqa(Path("/work/shared/data/slidevqa")) if name=="slidevqa" else (load_cranfield if name=="cranfield" else load_cisi)(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    sn=[snippet(d) for d in full]; qt=[q.text for q in ds.queries]
    dense=np.asarray(e.encode(qt))@np.asarray(e.encode(sn)).T
    fastd=np.asarray(f.encode(qt))@np.asarray(f.encode(full)).T
    idx=BM25Index.from_texts(full, stemmer="english")
    res={}
    for qi,q in enumerate(ds.queries):
        U=mm(idx.scores(idx.analyse(q.text))); D=mm(dense[qi]); F=mm(fastd[qi])
        ent=np.ones(len(ids))
        if name=="slidevqa": ent[M["ent"][qi]]=1.5
        for vn,(wd,wb,wf) in {"2 voters":(.5,.5,0),"+fast .1":(.45,.45,.1),"+fast .2":(.4,.4,.2),"+fast .33":(1/3,1/3,1/3)}.items():
            v=(wd*D+wb*U+wf*F)*ent
            top=[ids[j] for j in np.argsort(-v,kind="stable")[:10]]
            res.setdefault(vn,[]).append((ndcg_at_k(top,q.qrels,10),mrr_at_k(top,q.qrels,10)))
    for vn in res: a=np.array(res[vn]); print(name,vn,a.mean(0).round(4),flush=True)
