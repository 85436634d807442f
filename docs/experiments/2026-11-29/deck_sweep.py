import pickle, json, re, numpy as np, sys
from core.lexical import BM25Index, analyse
from slidesearch.model import slide_document, snippet
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, bm, ent, rel, split = M["dense"], M["bm"], M["ent"], M["rel"], M["split"]
D="/work/shared/data/slidevqa/"
texts = json.load(open(D+"slide_vqa_image_to_gpt_text.json")); qs = json.load(open(D+"slide_vqa_question_answer_docid_list.json"))
RX = r"^(?P<deck>.*)-(?P<page>\d+)-1024\.jpg$"
decks=[re.match(RX,s)["deck"] for s in texts]
ud={d:i for i,d in enumerate(dict.fromkeys(decks))}
deck_idx=np.array([ud[d] for d in decks])
nq, nd = dense.shape
def mm(x):
    lo, hi = x.min(), x.max()
    return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
def run(lam=0.0, agg="max", wd=.5, eb=1.5):
    out={0:[],1:[]}
    for i in range(nq):
        d,b=dense[i],bm[i]
        v = wd*mm(d) + ((1-wd)*mm(b) if b.max()>0 else 0)
        v = v*np.where(np.isin(np.arange(nd), ent[i]), eb, 1.0)
        if lam:
            dm = np.zeros(len(ud)); 
            if agg=="max": np.maximum.at(dm, deck_idx, v)
            else:
                np.add.at(dm, deck_idx, v); cnt=np.bincount(deck_idx, minlength=len(ud)); dm=dm/cnt
            v = v + lam*dm[deck_idx]
        top=np.argsort(-v,kind="stable")[:10]
        out[split[i]].append(next((1/(k+1) for k,h in enumerate(top) if h in rel[i]),0.0))
    return [round(np.mean(out[s]),4) for s in (0,1)]
for args in eval(sys.argv[1]): print(args, run(**args), flush=True)
