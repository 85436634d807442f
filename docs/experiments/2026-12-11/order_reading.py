"""#17 reading aid (2026-12-04): The shown cards of a run put in another order (fusion, primary, cosine, ...), the set kept.

Usage: SEEK_HOME=... python docs/experiments/2026-12-11/order_reading.py DATASETS RUN_JSON
"""
import json, sys, collections
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import capped_ndcg, IDEAL_DECK_CAP
from eval.slides_run import as_slides, build_library, default_engine
r=json.load(open(sys.argv[2]))
KEYS={'score':lambda c:c.score,'fusion':lambda c:c.fusion,'primary':lambda c:c.primary,'cosine':lambda c:c.cosine,
      'nodeck':lambda c:(c.primary-c.deck)*c.type*c.titled*c.entity*(1+c.boost/max(c.primary,1e-9)),
      'norec':lambda c:c.score/c.recency}
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
        by={lib.ids[c.row]:c for c in state.scored if c.row>=0}
        f=lambda s: capped_ndcg(s,g,deck_of,IDEAL_DECK_CAP,ds.gain)
        tot['prod']+=f(shown)
        for k,key in KEYS.items():
            tot[k]+=f(sorted(shown,key=lambda s:-(key(by[s]) if s in by else 0)))
    n=len(items); print(name,n,{k:round(v/n,4) for k,v in tot.items()},flush=True)
