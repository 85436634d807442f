"""Deck file name as a second BM25 field (score = body + w * deck-name BM25), numpy replica; reads /tmp/i7/vqa_mats.pkl."""
import pickle, json, numpy as np
from pathlib import Path
from core.lexical import BM25Index
from slidesearch.model import slide_document
from slidesearch.ingest import read_slidevqa
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, ent, rel, split = M["dense"], M["ent"], M["rel"], M["split"]
qs=json.load(open("/work/shared/data/slidevqa/slide_vqa_question_answer_docid_list.json"))
slides=read_slidevqa(Path("/work/shared/data")); full=[slide_document(s.title,s.text) for s in slides]
idx=BM25Index.from_texts(full, stemmer="english")
names=[s.deck_name.split("__")[-1].replace("-"," ").replace("_"," ") for s in slides]
print(names[:3])
idn=BM25Index.from_texts(names, stemmer="english")
U=np.stack([idx.scores(idx.analyse(q["question"])) for q in qs]); N=np.stack([idn.scores(idn.analyse(q["question"])) for q in qs])
nq,nd=U.shape; entm=np.ones((nq,nd))
for i,e in enumerate(ent): entm[i,e]=1.5
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
for w in (0,0.1,0.25,0.5):
    out={0:[],1:[]}
    for i in range(nq):
        v=(0.5*mm(dense[i])+0.5*mm(U[i]+w*N[i]))*entm[i]
        top=np.argsort(-v,kind="stable")[:10]
        out[split[i]].append(next((1/(j+1) for j,h in enumerate(top) if h in rel[i]),0.0))
    print(w,[round(np.mean(out[s]),4) for s in (0,1)],round(np.mean(out[0]+out[1]),4),flush=True)
