import pickle, json, numpy as np
from pathlib import Path
from core.embed import make_embedder, CachedEmbedder
from core.lexical import BM25Index
from slidesearch.model import slide_document, snippet
from slidesearch.ingest import read_slidevqa
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, ent, rel, split = M["dense"], M["ent"], M["rel"], M["split"]
qs=json.load(open("/work/shared/data/slidevqa/slide_vqa_question_answer_docid_list.json"))
slides=read_slidevqa(Path("/work/shared/data")); full=[slide_document(s.title,s.text) for s in slides]
print("slides >600 chars:", sum(len(" ".join(d.split()))>600 for d in full))
e=CachedEmbedder(make_embedder("minilm"), Path("/tmp/i7/emb_minilm.sqlite"))
Q=e.encode([q["question"] for q in qs])
chunks=[];owner=[]
for i,s in enumerate(slides):
    d=" ".join(full[i].split())
    if len(d)<=600: continue
    rest=d[600:]
    # continuation chunks carry the title for context
    for k in range(0,len(rest),500):
        chunks.append(f"{s.title} {rest[k:k+500]}"); owner.append(i)
print("extra chunks",len(chunks),flush=True)
C=e.encode(chunks); S=Q@np.asarray(C).T
dmax=dense.copy()
for j,i in enumerate(owner): dmax[:,i]=np.maximum(dmax[:,i],S[:,j])
idx=BM25Index.from_texts(full, stemmer="english")
U=np.stack([idx.scores(idx.analyse(q["question"])) for q in qs])
nq,nd=U.shape; entm=np.ones((nq,nd))
for i,e_ in enumerate(ent): entm[i,e_]=1.5
def mm(x):
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
for name,D in (("snip",dense),("maxchunk",dmax)):
    for wd in (0.3,0.4,0.5,1.0):
        out={0:[],1:[]}
        for i in range(nq):
            v=(wd*mm(D[i])+(1-wd)*mm(U[i]))*entm[i]
            top=np.argsort(-v,kind="stable")[:10]
            out[split[i]].append(next((1/(j+1) for j,h in enumerate(top) if h in rel[i]),0.0))
        print(name,wd,[round(np.mean(out[s]),4) for s in (0,1)],round(np.mean(out[0]+out[1]),4),flush=True)
