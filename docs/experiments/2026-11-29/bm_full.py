import pickle, json, numpy as np
from core.lexical import BM25Index, analyse
from slidesearch.model import slide_document
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, ent, rel, split = M["dense"], M["ent"], M["rel"], M["split"]
D="/work/shared/data/slidevqa/"
texts=json.load(open(D+"slide_vqa_image_to_gpt_text.json")); qs=json.load(open(D+"slide_vqa_question_answer_docid_list.json"))
docs=[]
for sid,text in texts.items():
    lines=[l.strip() for l in text.splitlines() if l.strip()]
    docs.append(slide_document(lines[0] if lines else "", "\n".join(lines[1:])))
nq,nd=dense.shape
def norm(x,kind):
    if kind=="z": return (x-x.mean())/(x.std()+1e-9)
    lo,hi=x.min(),x.max(); return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
for k1,b in ((0.9,0.4),(1.2,0.75)):
    idx=BM25Index.build([analyse(c) for c in docs],k1=k1,b=b)
    bm=np.stack([idx.scores(analyse(q["question"])) for q in qs])
    for kind in ("mm","z"):
        for wd in (0.4,0.5,0.6):
            out={0:[],1:[]}
            for i in range(nq):
                v=wd*norm(dense[i],kind)+(1-wd)*norm(bm[i],kind)
                if kind=="z": v=v-v.min()+1e-6
                v=v*np.where(np.isin(np.arange(nd),ent[i]),1.5,1.0)
                top=np.argsort(-v,kind="stable")[:10]
                out[split[i]].append(next((1/(j+1) for j,h in enumerate(top) if h in rel[i]),0.0))
            print(k1,b,kind,wd,[round(np.mean(out[s]),4) for s in (0,1)],flush=True)
