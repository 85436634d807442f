"""#17 reading aid (2026-12-04): The shown cards of a run cut at K: nDCG@10 and precision of shown cards per K.

Usage: SEEK_HOME=... python docs/experiments/2026-12-11/trunc_reading.py DATASETS RUN_JSON
"""
import json, sys
from eval.datasets import load_slides_dataset
from eval.config import SlidesConfig
from eval.slides_run import build_library, as_slides
from eval.product import shown_card_figures, IDEAL_DECK_CAP
r=json.load(open(sys.argv[2]))
for name in sys.argv[1].split(','):
    ds=load_slides_dataset(name); lib,_=build_library(ds,"minilm",SlidesConfig().lexical); deck_of=dict(zip(lib.ids,lib.deck_ids))
    qs={q.id:q for q in ds.queries}
    for K in (100,10,8,7,6,5):
        nd=[];pr=[]
        for it in r['datasets'][name]['items']:
            q=qs[it['id']]; shown=as_slides(it['ranked'],ds.aliases)[:K]
            f=shown_card_figures(shown,q.qrels,q.judged,deck_of,IDEAL_DECK_CAP,ds.gain)
            if q.qrels: nd.append(f.get('product_ndcg@10', f.get('ndcg@10')))
            if 'precision' in f: pr.append(f['precision'])
        nd=[x for x in nd if x is not None]
        print(name,K,round(sum(nd)/len(nd),4),round(sum(pr)/len(pr),4),len(nd),len(pr))
