"""#17 reading aid (2026-12-04): Within-deck pairwise accuracy of candidate features: for two judged slides of one deck with different
grades, how often each feature ranks the better one first (ties count half).

Usage: SEEK_HOME=... python docs/experiments/2026-12-11/pairs_reading.py DATASETS
"""
import sys, collections, numpy as np
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library, default_engine
for name in sys.argv[1].split(','):
    ds = load_slides_dataset(name); config = SlidesConfig(); lib,_=build_library(ds,"minilm",config.lexical); eng=default_engine(lib,config)
    deck_of=lib.canonical_decks if hasattr(lib,'canonical_decks') else lib.deck_ids
    emb=lib.embedder()
    tv=emb.encode([t or " " for t in lib.titles]); tv=np.asarray(tv)
    acc=collections.defaultdict(lambda:[0,0])
    for q in ds.queries:
        if not q.qrels: continue
        text=q.text if isinstance(q.text,str) else list(q.text)
        state,_=eng.run_state(text)
        qv=emb.encode([text if isinstance(text,str) else "; ".join(text)])[0]
        bm=lib.bm25.scores(lib.bm25.analyse(text if isinstance(text,str) else " ".join(text)))
        cands=[c for c in state.scored if c.row>=0]
        top_decks=[]
        for c in cands[:10]:
            d=deck_of[c.row]
            if d not in top_decks: top_decks.append(d)
        for d in top_decks:
            dc=[c for c in cands if deck_of[c.row]==d][:8]
            for i in range(len(dc)):
                for j in range(i+1,len(dc)):
                    a,b=dc[i],dc[j]; ga=q.qrels.get(lib.ids[a.row],0); gb=q.qrels.get(lib.ids[b.row],0)
                    if q.judged is not None and (lib.ids[a.row] not in q.judged or lib.ids[b.row] not in q.judged): continue
                    if ga==gb: continue
                    if ga<gb: a,b=b,a
                    feats={'score':(a.score,b.score),'primary':(a.primary,b.primary),'fusion':(a.fusion,b.fusion),'cosine':(a.cosine,b.cosine),
                           'bm25':(bm[a.row],bm[b.row]),'titlecos':(float(tv[a.row]@qv),float(tv[b.row]@qv)),
                           'early':(-lib.slide_numbers[a.row],-lib.slide_numbers[b.row]),'len':(len(lib.texts[a.row]),len(lib.texts[b.row])),
                           'type':(a.type,b.type),'entity':(a.entity,b.entity),'titled':(a.titled,b.titled),'boost':(a.boost/max(a.primary,1e-9),b.boost/max(b.primary,1e-9)),
                           'score+tc':(a.score*(1+0.5*float(tv[a.row]@qv)),b.score*(1+0.5*float(tv[b.row]@qv))),'scorelen05':(a.score*(50+len(lib.texts[a.row]))**0.05,b.score*(50+len(lib.texts[b.row]))**0.05),'scorelen1':(a.score*(50+len(lib.texts[a.row]))**0.1,b.score*(50+len(lib.texts[b.row]))**0.1),'scorelen2':(a.score*(50+len(lib.texts[a.row]))**0.2,b.score*(50+len(lib.texts[b.row]))**0.2)}
                    for k,(x,y) in feats.items():
                        if x==y: acc[k][1]+=1; acc[k][0]+=0.5  # tie counts half
                        else:
                            acc[k][1]+=1; acc[k][0]+= x>y
    print(name, acc['score'][1], ' '.join(f"{k}={v[0]/v[1]:.3f}" for k,v in acc.items()), flush=True)
