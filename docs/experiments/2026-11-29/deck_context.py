"""Deck context on top of the 07a blend (full + stem BM25, MiniLM int8 snippets): v + lam * (deck's mean or best of the
other slides' v), numpy replica on SlideVQA, the topical briefs, Cranfield, CISI (one-document decks there: no effect)."""
import pickle, numpy as np
from collections import defaultdict
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
for name in ("slidevqa","topical","cranfield","cisi"):
    if name=="slidevqa": ds=load_slidevqa(Path("/work/shared/data/slidevqa"))
    elif name=="topical": ds=load_slidevqa_topical(get_settings().data_dir)
    else: ds=(load_cranfield if name=="cranfield" else load_cisi)(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    decks=defaultdict(list)
    for i,s in enumerate(ds.docs): decks[s.deck_id].append(i)
    deck_of=np.array([list(decks).index(s.deck_id) for s in ds.docs]); members=[np.array(v) for v in decks.values()]
    sizes=np.array([len(m) for m in members])
    dense=np.asarray(e.encode([q.text for q in ds.queries]))@np.asarray(e.encode([snippet(d) for d in full])).T
    idx=BM25Index.from_texts(full, stemmer="english")
    res={}
    for qi,q in enumerate(ds.queries):
        ent=np.ones(len(ids))
        if name=="slidevqa": ent[M["ent"][qi]]=1.5
        v=(0.5*mm(dense[qi])+0.5*mm(idx.scores(idx.analyse(q.text))))*ent
        sums=np.bincount(deck_of, weights=v, minlength=len(members))
        others_mean=np.where(sizes[deck_of]>1,(sums[deck_of]-v)/np.maximum(sizes[deck_of]-1,1),0.0)
        dmax=np.array([v[m].max() for m in members])[deck_of]
        for vn,w in (("base",v),("mean .1",v+0.1*others_mean),("mean .2",v+0.2*others_mean),("mean .3",v+0.3*others_mean),("max .1",v+0.1*dmax),("max .2",v+0.2*dmax)):
            top=[ids[j] for j in np.argsort(-w,kind="stable")[:10]]
            res.setdefault(vn,[]).append((ndcg_at_k(top,q.qrels,10),mrr_at_k(top,q.qrels,10)))
    for vn in res: a=np.array(res[vn]); print(name,vn,a.mean(0).round(4),flush=True)
