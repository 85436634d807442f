import itertools, numpy as np, Stemmer
from pathlib import Path
from core.lexical import BM25Index, analyse
from slidesearch.model import slide_document, snippet
from eval.datasets import load_cranfield, load_cisi
from eval.metrics import ndcg_at_k, mrr_at_k
st=Stemmer.Stemmer("english")
def toks(t, stem, bigr):
    a=analyse(t)
    if stem: a=st.stemWords(a)
    if bigr: a=a+[x+"_"+y for x,y in zip(a,a[1:])]
    return a
for name,loader in (("cranfield",load_cranfield),("cisi",load_cisi)):
    ds=loader(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; snip=[snippet(d) for d in full]
    ids=[s.slide_id for s in ds.docs]
    for src,stem,bigr,(k1,b) in itertools.product(("snip","full"),(0,1),(0,1),((1.5,0.75),(0.9,0.4),(1.2,0.5))):
        docs=snip if src=="snip" else full
        idx=BM25Index.build([toks(d,stem,bigr) for d in docs],k1=k1,b=b)
        nd=[];mr=[]
        for q in ds.queries:
            s=idx.scores(toks(q.text,stem,bigr)); top=[ids[j] for j in np.argsort(-s,kind="stable")[:10]]
            nd.append(ndcg_at_k(top,q.qrels,10)); mr.append(mrr_at_k(top,q.qrels,10))
        print(name,src,stem,bigr,k1,b,round(np.mean(nd),4),round(np.mean(mr),4),flush=True)
