import pickle, json, numpy as np, random
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
nq,nd=U.shape; entm=np.ones((nq,nd))
for i,e in enumerate(ent): entm[i,e]=1.5
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
fails=[]; samedeck=0; rr=[]
for i in range(nq):
    v=(0.5*mm(dense[i])+0.5*mm(U[i]))*entm[i]
    top=np.argsort(-v,kind="stable")
    r=next(j for j,h in enumerate(top) if h in rel[i])
    rr.append(r)
    if r>0:
        fails.append((i,r,top[0]))
        if slides[top[0]].deck_id==slides[rel[i][0]].deck_id: samedeck+=1
print("fails",len(fails),"top1 in same deck",samedeck)
import collections; print(collections.Counter(min(r,10) for r in rr))
random.seed(1)
for i,r,t in random.sample(fails,8):
    print("=====",qs[i]["question"],"| answer:",qs[i].get("answer"),"| rank",r)
    print("--- TOP1",slides[t].slide_id, full[t][:300].replace("\n"," / "))
    g=rel[i][0]; print("--- GOLD",slides[g].slide_id, full[g][:300].replace("\n"," / "))
