import pickle, numpy as np, itertools
M = pickle.load(open("/tmp/i7/vqa_mats.pkl","rb"))
dense, bm, ent, rel, split = M["dense"], M["bm"], M["ent"], M["rel"], M["split"]
tt, qt = M["title_tok"], M["qtok"]
nq, nd = dense.shape
def mm(x):
    lo, hi = x.min(), x.max()
    return (x-lo)/(hi-lo) if hi>lo else np.zeros_like(x)
def mrr(scores_fn):
    out = {0:[],1:[]}
    for i in range(nq):
        s = scores_fn(i)
        top = np.argsort(-s, kind="stable")[:10]
        rr = next((1/(k+1) for k,h in enumerate(top) if h in rel[i]), 0.0)
        out[split[i]].append(rr)
    return round(np.mean(out[0]),4), round(np.mean(out[1]),4)
def blend(wd, wb, eb=1.5, norm="mm", tw=0.0, depth=300):
    def f(i):
        d, b = dense[i], bm[i]
        cand = np.union1d(np.argsort(-d)[:depth], np.flatnonzero(b>0)[np.argsort(-b[b>0])[:depth]])
        cand = np.union1d(cand, ent[i]).astype(int)
        s = np.full(nd, -1.0)
        if norm=="mm":
            dn, bn = mm(d[cand]), (mm(b[cand]) if b[cand].max()>0 else 0)
        elif norm=="max":
            dn, bn = mm(d[cand]), (b[cand]/b[cand].max() if b[cand].max()>0 else 0)
        elif norm=="z":
            dn = (d[cand]-d[cand].mean())/(d[cand].std()+1e-9); bn = (b[cand]-b[cand].mean())/(b[cand].std()+1e-9)
        v = wd*dn + wb*bn
        if tw:
            q = qt[i]
            v = v + tw*np.array([len(q & tt[c])/max(len(q),1) for c in cand])
        e = np.isin(cand, ent[i])
        if norm=="z": v = v - v.min() + 1e-6
        v = v*np.where(e, eb, 1.0)
        s[cand] = v
        return s
    return f
import sys
for args in eval(sys.argv[1]):
    print(args, mrr(blend(**args)), flush=True)
