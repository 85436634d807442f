"""06b literal matches over the whole slide text instead of title + snippet (the BM25 voter already reads the whole
text): entity x1.5 rows recomputed, numpy replica of retrieve on SlideVQA, topical, Cranfield, CISI."""
import numpy as np
from pathlib import Path
from core.embed import make_embedder, CachedEmbedder
from core.settings import get_settings
from core.text import punctuation_insensitive
from eval.datasets import load_cranfield, load_cisi, load_slidevqa
from eval.topical import load_slidevqa_topical
from eval.metrics import ndcg_at_k, mrr_at_k
from slidesearch.library import Library
from slidesearch.engine import SlideSearch
from slidesearch.model import slide_document
from slidesearch.pipeline.state import SearchState
e=CachedEmbedder(make_embedder("minilm"), Path("/work/evalhome/cache/eval_embeddings.sqlite"))
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
for name in ("slidevqa","topical","cranfield","cisi"):
    if name=="slidevqa": ds=load_slidevqa(Path("/work/shared/data/slidevqa"))
    elif name=="topical": ds=load_slidevqa_topical(get_settings().data_dir)
    else: ds=(load_cranfield if name=="cranfield" else load_cisi)(Path("/work/shared/data/ir")/name)
    lib=Library.from_slides(ds.docs, embedder=e); eng=SlideSearch(lib, llm="offline")
    full=[f" {punctuation_insensitive(slide_document(s.title,s.text))} " for s in ds.docs]
    res={}
    for q in ds.queries:
        st=SearchState(angles=(q.text,))
        for stage in eng._retrieval_stages[:4]: st=stage.run(st)   # normalise, names, all slides, primary
        base={lib.ids[c.row]:c.score for c in st.candidates}
        snip_rows=st.entity_rows
        full_rows={i for i,t in enumerate(full) for term in st.entity_terms if f" {punctuation_insensitive(term)} " in t}
        for vn,rows in (("snippet",snip_rows),("full text",full_rows)):
            sc={i:s*(1.5 if lib.id_to_row[i] in rows else 1.0) for i,s in base.items()}
            top=sorted(sc,key=lambda i:-sc[i])[:10]
            res.setdefault(vn,[]).append((ndcg_at_k(top,q.qrels,10),mrr_at_k(top,q.qrels,10)))
    for vn in res: a=np.array(res[vn]); print(name,vn,a.mean(0).round(4),flush=True)
