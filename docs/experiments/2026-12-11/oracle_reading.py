"""#17 reading aid (2026-12-04): Oracle bounds on the shown cards of a run: the same cards in the best order, and each shown deck's places
filled with its best-graded slides (deck-capped nDCG@10).

Usage: SEEK_HOME=... python docs/experiments/2026-12-11/oracle_reading.py DATASETS RUN_JSON
"""
import json, sys
from eval.datasets import load_slides_dataset
from eval.product import capped_ndcg, IDEAL_DECK_CAP
from eval.slides_run import as_slides
r=json.load(open(sys.argv[2]))
for name in sys.argv[1].split(','):
    ds=load_slides_dataset(name)
    from eval.config import SlidesConfig; from eval.slides_run import build_library
    lib,_=build_library(ds,"minilm",SlidesConfig().lexical); deck_of=dict(zip(lib.ids,lib.deck_ids))
    qs={q.id:q for q in ds.queries}
    items=[i for i in r['datasets'][name]['items'] if 'product_ndcg@10' in i['metrics']]
    tot={'prod':0,'order':0,'within':0,'both':0}
    for it in items:
        q=qs[it['id']]; shown=as_slides(it['ranked'],ds.aliases); g=q.qrels
        f=lambda s: capped_ndcg(s,g,deck_of,IDEAL_DECK_CAP,ds.gain)
        tot['prod']+=f(shown)
        tot['order']+=f(sorted(shown,key=lambda d:-g.get(d,0)))
        # within-deck oracle
        bydeck={}
        for d in shown: bydeck.setdefault(deck_of.get(d),[]).append(d)
        best={dk:sorted([s for s in g if deck_of.get(s)==dk and g[s]>0],key=lambda s:-g[s]) for dk in bydeck}
        used={dk:0 for dk in bydeck}; new=[]
        for d in shown:
            dk=deck_of.get(d); b=best[dk]
            # replace with deck's next best graded slide if better than own
            if used[dk]<len(b) and g.get(b[used[dk]],0)>=g.get(d,0):
                new.append(b[used[dk]]); used[dk]+=1
            else: new.append(d)
        new=list(dict.fromkeys(new))
        tot['within']+=f(new); tot['both']+=f(sorted(new,key=lambda d:-g.get(d,0)))
    n=len(items); print(name,n,{k:round(v/n,4) for k,v in tot.items()})
