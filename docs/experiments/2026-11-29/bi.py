import json, itertools, pickle, numpy as np, Stemmer
from pathlib import Path
from core.lexical import BM25Index, analyse
from slidesearch.model import slide_document, snippet
from slidesearch.ingest import read_slidevqa
from eval.datasets import load_cranfield, load_cisi
from eval.metrics import ndcg_at_k, mrr_at_k
st=Stemmer.Stemmer("english")
def uni(t): return st.stemWords(analyse(t))
def bi(t):
    a=uni(t); return [x+"_"+y for x,y in zip(a,a[1:])]
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
K=((1.5,0.75),(1.2,0.5))
W=(0,0.1,0.25,0.5)
for name,loader in (("cranfield",load_cranfield),("cisi",load_cisi)):
    ds=loader(Path("/work/shared/data/ir")/name)
    full=[slide_document(s.title,s.text) for s in ds.docs]; ids=[s.slide_id for s in ds.docs]
    for k1,b in K:
        iu=BM25Index.build([uni(d) for d in full],k1=k1,b=b); ib=BM25Index.build([bi(d) for d in full],k1=k1,b=b)
        for w in W:
            nd=[]
            for q in ds.queries:
                s=iu.scores(uni(q.text))+w*ib.scores(bi(q.text)); top=[ids[j] for j in np.argsort(-s,kind="stable")[:10]]
                nd.append(ndcg_at_k(top,q.qrels,10))
            print(name,k1,b,w,round(np.mean(nd),4),flush=True)
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, ent, rel, split = M["dense"], M["ent"], M["rel"], M["split"]
qs=json.load(open("/work/shared/data/slidevqa/slide_vqa_question_answer_docid_list.json"))
slides=read_slidevqa(Path("/work/shared/data")); full=[slide_document(s.title,s.text) for s in slides]
nq,nd_=dense.shape; entm=np.ones((nq,nd_))
for i,e in enumerate(ent): entm[i,e]=1.5
for k1,b in K:
    iu=BM25Index.build([uni(d) for d in full],k1=k1,b=b); ib=BM25Index.build([bi(d) for d in full],k1=k1,b=b)
    U=np.stack([iu.scores(uni(q["question"])) for q in qs]); B=np.stack([ib.scores(bi(q["question"])) for q in qs])
    for w in W:
        for wd in (0.4,0.5):
            out={0:[],1:[]}
            for i in range(nq):
                v=(wd*mm(dense[i])+(1-wd)*mm(U[i]+w*B[i]))*entm[i]
                top=np.argsort(-v,kind="stable")[:10]
                out[split[i]].append(next((1/(j+1) for j,h in enumerate(top) if h in rel[i]),0.0))
            print("vqa",k1,b,w,wd,[round(np.mean(out[s]),4) for s in (0,1)],round(np.mean(out[0]+out[1]),4),flush=True)
