"""Answer-type match for question angles (numpy replica of 07a on SlideVQA): a slide stating the kind of answer asked for gets x(1+g)."""
import pickle, json, re, numpy as np
from pathlib import Path
from core.lexical import BM25Index
from slidesearch.model import slide_document
from slidesearch.ingest import read_slidevqa
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, ent, rel, split = M["dense"], M["ent"], M["rel"], M["split"]
qs=json.load(open("/work/shared/data/slidevqa/slide_vqa_question_answer_docid_list.json"))
slides=read_slidevqa(Path("/work/shared/data")); full=[slide_document(s.title,s.text) for s in slides]
idx=BM25Index.from_texts(full, stemmer="english")
U=np.stack([idx.scores(idx.analyse(q["question"])) for q in qs])
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
TYPES = {
  "percent": (re.compile(r"\b(percent(age)?s?|per cent|share of|proportion)\b|%", re.I), re.compile(r"\d\s?%|\bpercent\b", re.I)),
  "year": (re.compile(r"\b(which|what|in what) year\b|\bwhen\b", re.I), re.compile(r"\b(1[89]|20)\d\d\b")),
  "money": (re.compile(r"\b(how much|revenue|cost|price|spend|budget|dollars?|\$)\b", re.I), re.compile(r"[$€£]\s?\d|\d\s?(million|billion|bn|m)\b", re.I)),
  "count": (re.compile(r"\bhow many\b", re.I), re.compile(r"\d")),
}
has = {k: np.array([bool(v[1].search(d)) for d in full]) for k, v in TYPES.items()}
print({k: round(float(h.mean()),3) for k,h in has.items()})
asks = [[k for k,v in TYPES.items() if v[0].search(q["question"])] for q in qs]
from collections import Counter; print(Counter(a for x in asks for a in x))
base=[(0.5*mm(dense[i])+0.5*mm(U[i])) for i in range(len(qs))]
def mrr(g, kinds):
    out=[]
    for i in range(len(qs)):
        v=base[i].copy(); e=np.ones_like(v); e[ent[i]]=1.5; v*=e
        for k in asks[i]:
            if k in kinds: v=v*(1+g*has[k])
        top=np.argsort(-v,kind="stable")[:10]
        r=next((j for j,h in enumerate(top) if h in rel[i]),None)
        out.append(0 if r is None else 1/(r+1))
    out=np.array(out); return out.mean(), out[split==0].mean(), out[split==1].mean()
print("base", np.round(mrr(0,()),4))
for kinds in (("percent",),("year",),("money",),("count",),tuple(TYPES)):
    for g in (0.05,0.1,0.2):
        print(kinds,g,np.round(mrr(g,kinds),4))
