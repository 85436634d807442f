import pickle, json, sys, itertools, numpy as np, Stemmer
from core.lexical import BM25Index, analyse
from slidesearch.model import slide_document, snippet
from slidesearch.ingest import read_slidevqa
from pathlib import Path
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, ent, rel, split = M["dense"], M["ent"], M["rel"], M["split"]
D="/work/shared/data/slidevqa/"
qs=json.load(open(D+"slide_vqa_question_answer_docid_list.json"))
slides=read_slidevqa(Path("/work/shared/data"))
full=[slide_document(s.title, s.text) for s in slides]
snip=[snippet(d) for d in full]
st=Stemmer.Stemmer("english")
def toks(t, stem, bigr):
    a=analyse(t)
    if stem: a=st.stemWords(a)
    if bigr: a=a+[x+"_"+y for x,y in zip(a,a[1:])]
    return a
nq,nd=dense.shape
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
entm=np.ones((nq,nd))
for i,e in enumerate(ent): entm[i,e]=1.5
def evalv(bm, wd):
    out={0:[],1:[]}
    for i in range(nq):
        v=(wd*mm(dense[i])+(1-wd)*mm(bm[i]))*entm[i]
        top=np.argsort(-v,kind="stable")[:10]
        out[split[i]].append(next((1/(j+1) for j,h in enumerate(top) if h in rel[i]),0.0))
    return [round(np.mean(out[s]),4) for s in (0,1)], round(np.mean(out[0]+out[1]),4)
for src,stem,bigr,(k1,b) in itertools.product(("snip","full"),(0,1),(0,1),((1.5,0.75),(0.9,0.4),(1.2,0.5))):
    docs = snip if src=="snip" else full
    idx=BM25Index.build([toks(d,stem,bigr) for d in docs],k1=k1,b=b)
    bm=np.stack([idx.scores(toks(q["question"],stem,bigr)) for q in qs])
    res=[(wd,)+evalv(bm,wd) for wd in (0.0,0.4,0.5)]
    print(src,stem,bigr,k1,b,res,flush=True)
