"""BM25 analyser that keeps numbers whole ("10,175" -> "10175", "3.5" -> "3.5") vs the plain alphanumeric split,
full text + Snowball, blended 50/50 with MiniLM int8 snippet vectors (numpy replica) on the three IR sets + topical."""
import pickle, re, unicodedata, numpy as np
from pathlib import Path
from core.embed import make_embedder, CachedEmbedder
from core.lexical import BM25Index, analyse, _stemmer
from core.text import ENGLISH_STOPWORDS
from core.settings import get_settings
from slidesearch.model import slide_document, snippet
from eval.datasets import load_cranfield, load_cisi, load_slidevqa
from eval.topical import load_slidevqa_topical
from eval.metrics import ndcg_at_k, mrr_at_k
e=CachedEmbedder(make_embedder("minilm"), Path("/work/evalhome/cache/eval_embeddings.sqlite"))
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
NUM = re.compile(r"[0-9]+(?:[.,][0-9]+)*[a-z]*|[a-z0-9]+")
def analyse_num(text):
    toks = [t.replace(",", "") for t in NUM.findall(unicodedata.normalize("NFKC", text).lower())]
    toks = [t for t in toks if t not in ENGLISH_STOPWORDS]
    return _stemmer("english").stemWords(toks)
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
for name in ("slidevqa","topical","cranfield","cisi"):
    if name=="slidevqa": ds=load_slidevqa(Path("/work/shared/data/slidevqa"))
    elif name=="topical": ds=load_slidevqa_topical(get_settings().data_dir)
    else: ds=(load_cranfield if name=="cranfield" else load_cisi)(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    dense=np.asarray(e.encode([q.text for q in ds.queries]))@np.asarray(e.encode([snippet(d) for d in full])).T
    plain=BM25Index.from_texts(full, stemmer="english")
    num=BM25Index.build([analyse_num(d) for d in full])
    res={}
    for qi,q in enumerate(ds.queries):
        ent=np.ones(len(ids))
        if name=="slidevqa": ent[M["ent"][qi]]=1.5
        for vn,U in (("plain",plain.scores(plain.analyse(q.text))),("numbers",num.scores(analyse_num(q.text)))):
            v=(0.5*mm(dense[qi])+0.5*mm(U))*ent
            top=[ids[j] for j in np.argsort(-v,kind="stable")[:10]]
            res.setdefault(vn,[]).append((ndcg_at_k(top,q.qrels,10),mrr_at_k(top,q.qrels,10)))
    for vn in res: a=np.array(res[vn]); print(name,vn,a.mean(0).round(4),flush=True)
