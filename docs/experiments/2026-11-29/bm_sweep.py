import pickle, json, re, numpy as np, sys
from core.lexical import BM25Index, analyse
from slidesearch.model import slide_document, snippet
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, ent, rel, split = M["dense"], M["ent"], M["rel"], M["split"]
D="/work/shared/data/slidevqa/"
texts = json.load(open(D+"slide_vqa_image_to_gpt_text.json")); qs = json.load(open(D+"slide_vqa_question_answer_docid_list.json"))
docs=[]
for sid, text in texts.items():
    lines=[l.strip() for l in text.splitlines() if l.strip()]
    docs.append(slide_document(lines[0] if lines else "", "\n".join(lines[1:])))
nq, nd = dense.shape
def mm(x):
    lo, hi = x.min(), x.max()
    return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
def evaluate(bm, wd=.5, wb=.5, eb=1.5):
    out={0:[],1:[]}; outb={0:[],1:[]}
    for i in range(nq):
        d,b=dense[i],bm[i]
        v = wd*mm(d) + (wb*mm(b) if b.max()>0 else 0)
        v = v*np.where(np.isin(np.arange(nd), ent[i]), eb, 1.0)
        for o,s in ((out,v),(outb,b)):
            top=np.argsort(-s,kind="stable")[:10]
            o[split[i]].append(next((1/(k+1) for k,h in enumerate(top) if h in rel[i]),0.0))
    return [round(np.mean(out[s]),4) for s in (0,1)], "bm25 alone", [round(np.mean(outb[s]),4) for s in (0,1)]
def variants(tokens, vocab):
    out=[]
    for t in tokens:
        vs={t}
        for v in (t+"s", t+"es", t[:-1] if t.endswith("s") else None, t[:-2] if t.endswith("es") else None, t[:-3]+"y" if t.endswith("ies") else None, t[:-1]+"ies" if t.endswith("y") else None):
            if v and v in vocab: vs.add(v)
        out.extend(vs)
    return out
for field in ("snippet","full"):
    corpus = [snippet(d) for d in docs] if field=="snippet" else docs
    for k1,b in ((1.5,.75),(1.2,.75),(1.2,.5),(0.9,.4)):
        idx = BM25Index.build([analyse(c) for c in corpus], k1=k1, b=b)
        bm = np.stack([idx.scores(analyse(q["question"])) for q in qs])
        print(field,k1,b, evaluate(bm), flush=True)
        if k1==1.5 or k1==1.2 and b==.5:
            bmv = np.stack([idx.scores(variants(analyse(q["question"]), idx._vocab)) for q in qs])
            print(field,k1,b,"variants", evaluate(bmv), flush=True)
