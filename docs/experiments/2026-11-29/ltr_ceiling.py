"""Ceiling check: a learned re-ranker over the top 50 of the 07a blend on SlideVQA, trained on one deck-hash half, tested on the other."""
import pickle, json, re, math, numpy as np
from pathlib import Path
from collections import defaultdict
from core.lexical import BM25Index
from slidesearch.model import slide_document
from slidesearch.ingest import read_slidevqa
from sklearn.linear_model import LogisticRegression
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.preprocessing import StandardScaler
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, ent, rel, split = M["dense"], M["ent"], M["rel"], M["split"]
qs=json.load(open("/work/shared/data/slidevqa/slide_vqa_question_answer_docid_list.json"))
slides=read_slidevqa(Path("/work/shared/data")); full=[slide_document(s.title,s.text) for s in slides]
idx=BM25Index.from_texts(full, stemmer="english")
toks=[set(idx.analyse(d)) for d in full]
ttoks=[set(idx.analyse(s.title)) for s in slides]
lines=[[set(idx.analyse(l)) for l in d.split("\n") if l.strip()] for d in full]
deck=[s.deck_id for s in slides]; members=defaultdict(list)
for i,d in enumerate(deck): members[d].append(i)
N=len(full); df=defaultdict(int)
for t in toks:
    for w in t: df[w]+=1
idf=lambda w: math.log(1+(N-df.get(w,0)+0.5)/(df.get(w,0)+0.5))
nums=[set(re.findall(r"\d+(?:[.,]\d+)?", d)) for d in full]
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
X=[];Y=[];Q=[];B=[]
for i,q in enumerate(qs):
    qt=idx.analyse(q["question"]); qset=set(qt); U=idx.scores(qt); D=dense[i]
    u,d=mm(U),mm(D); e=np.ones(N); e[ent[i]]=1.5
    prim=(0.5*u+0.5*d)
    dm=np.array([ (prim[members[deck[j]]].sum()-prim[j])/max(len(members[deck[j]])-1,1) for j in range(N)])
    base=(prim+0.2*dm)*e
    top=np.argsort(-base,kind="stable")[:50]
    w={t:idf(t) for t in qset}; tot=sum(w.values()) or 1
    qn=set(re.findall(r"\d+(?:[.,]\d+)?", q["question"]))
    ur=np.argsort(np.argsort(-U)); dr=np.argsort(np.argsort(-D))
    for r,j in enumerate(top):
        cov=sum(w[t] for t in qset if t in toks[j])/tot
        bl=max((sum(w[t] for t in qset if t in L)/tot for L in lines[j]), default=0)
        tc=sum(w[t] for t in qset if t in ttoks[j])/tot
        X.append([base[j], u[j], d[j], D[j], e[j]>1, dm[j], cov, bl, tc, len(qn & nums[j]), len(qn)>0 and not (qn & nums[j]),
                  math.log1p(ur[j]), math.log1p(dr[j]), math.log1p(len(toks[j])), math.log1p(r)])
        Y.append(j in rel[i]); Q.append(i); B.append(base[j])
X=np.array(X,float); Y=np.array(Y); Q=np.array(Q); B=np.array(B)
def mrr_of(scores, qids):
    out=[]
    for i in qids:
        m=Q==i; s=scores[m]; y=Y[m]
        order=np.argsort(-s,kind="stable")[:10]
        hit=np.flatnonzero(y[order]); out.append(1/(hit[0]+1) if len(hit) else 0)
    return np.mean(out)
qsplit=split
for name,make in [("logreg",lambda: LogisticRegression(C=1.0,max_iter=2000)),("hgb",lambda: HistGradientBoostingClassifier(max_iter=200,learning_rate=0.05,max_leaf_nodes=15))]:
    res=[]
    for tr in (0,1):
        trm=np.isin(Q,np.flatnonzero(qsplit==tr)); te=np.flatnonzero(qsplit!=tr)
        sc=StandardScaler().fit(X[trm]); m=make().fit(sc.transform(X[trm]),Y[trm])
        p=m.predict_proba(sc.transform(X))[:,1]
        res.append((mrr_of(B,te), mrr_of(p,te)))
    print(name, "held-out base/learned per half", np.round(res,4), "mean learned", round(np.mean([r[1] for r in res]),4), "mean base", round(np.mean([r[0] for r in res]),4))
