"""#17 reading aid (2026-12-04): Each shown deck's places refilled by another within-deck key (fusion, primary, cosine, ...) instead of the
08 score, the rest of the answer kept (deck-capped nDCG@10).

Usage: SEEK_HOME=... python docs/experiments/2026-12-11/within_reading.py DATASETS RUN_JSON
"""
import json, sys, collections
import numpy as np
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import capped_ndcg, IDEAL_DECK_CAP
from eval.slides_run import as_slides, build_library, default_engine
r=json.load(open(sys.argv[2]))
KEYS={
 'score': lambda c: c.score,
 'fusion': lambda c: c.fusion,
 'primary': lambda c: c.primary,
 'own': lambda c: c.primary - c.deck,
 'cosine': lambda c: c.cosine,
 'score_noboost': lambda c: (c.primary)*c.type*c.titled*c.entity,
 'score_notype': lambda c: c.fusion*c.titled*c.entity,
}
for name in sys.argv[1].split(','):
    ds=load_slides_dataset(name); config=SlidesConfig()
    lib,_=build_library(ds,"minilm",config.lexical); eng=default_engine(lib,config)
    deck_of=dict(zip(lib.ids,lib.deck_ids)); qs={q.id:q for q in ds.queries}
    items=[i for i in r['datasets'][name]['items'] if 'product_ndcg@10' in i['metrics']]
    tot=collections.Counter()
    for it in items:
        q=qs[it['id']]; g=q.qrels
        shown=as_slides(it['ranked'],ds.aliases)
        state,_=eng.run_state(q.text if isinstance(q.text,str) else list(q.text))
        cands=[c for c in state.scored if c.row>=0]
        bydeck=collections.defaultdict(list)
        for c in cands: bydeck[deck_of[lib.ids[c.row]]].append(c)
        f=lambda s: capped_ndcg(s,g,deck_of,IDEAL_DECK_CAP,ds.gain)
        tot['prod']+=f(shown)
        for kname,key in KEYS.items():
            used=collections.Counter(); new=[]
            for d in shown:
                dk=deck_of.get(d)
                pool=sorted(bydeck.get(dk,[]),key=lambda c:-key(c))
                ids=[lib.ids[c.row] for c in pool]
                if d not in ids: new.append(d); continue
                # take the next of this deck's by key
                while used[dk]<len(ids) and ids[used[dk]] in new: used[dk]+=1
                new.append(ids[used[dk]] if used[dk]<len(ids) else d); used[dk]+=1
            tot[kname]+=f(list(dict.fromkeys(new)))
    n=len(items); print(name,n,{k:round(v/n,4) for k,v in tot.items()},flush=True)
