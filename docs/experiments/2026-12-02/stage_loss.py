import json, sys
from collections import Counter
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, capped_ndcg, cap_ranking
from eval.slides_run import as_slides, build_library, default_engine
from slidesearch.config import SearchConfig

name = sys.argv[1]
dataset = load_slides_dataset(name)
library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
config = SlidesConfig(search=SearchConfig(floor=0.0))
engine = default_engine(library, config)
deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
stages = ["primary", "scored", "unique", "distinct", "deck_capped", "floored"]
lost = Counter(); tot = 0
nd = {s: [] for s in stages + ["final", "retrieve"]}
for q in dataset.queries:
    if not q.qrels: continue
    text = q.text if isinstance(q.text, str) else "; ".join(q.text)
    state, _ = engine.run_state(q.text, q.universes)
    resp = engine._response(state, None)
    final = [c.id for c in sorted(resp.cards(), key=lambda c: -c.score)]
    ret = [d for d, _ in engine.retrieve(text, k=100)]
    rc = cap_ranking(ret, deck_of, 2)[:10]
    nd["retrieve"].append(capped_ndcg(rc, q.qrels, deck_of, 2, dataset.gain))
    nd["final"].append(capped_ndcg(final[:10], q.qrels, deck_of, 2, dataset.gain))
    for s in stages:
        ids = [library.ids[c.row] for c in sorted(getattr(state, s), key=lambda c: -c.score) if c.row >= 0]
        nd[s].append(capped_ndcg(cap_ranking(ids, deck_of, 2)[:10], q.qrels, deck_of, 2, dataset.gain))
    # relevant in retrieve capped top10 but absent in final
    fs = set(final)
    for d in rc:
        if q.qrels.get(d, 0) > 0 and d not in fs:
            tot += 1
            where = "pool"
            for s in stages:
                if d not in {library.ids[c.row] for c in getattr(state, s) if c.row >= 0}:
                    where = s; break
            else:
                where = "answer"
            lost[where] += 1
print(name, {k: round(sum(v)/len(v), 4) for k, v in nd.items()})
print("relevant retrieve-top10 lost at stage:", lost, "of", tot)

sub = ["grouped", "blended", "quantified", "capped", "slotted", "groups"]
lost2 = Counter(); secs = Counter(); n=0
for q in dataset.queries:
    if not q.qrels: continue
    state, _ = engine.run_state(q.text, q.universes)
    fl = {library.ids[c.row]: c for c in state.floored if c.row >= 0}
    prev = set(fl)
    for s in sub:
        g = getattr(state, s)
        if g is None: continue
        ids = {library.ids[c.row] for cs in g.values() for c in cs if c.row >= 0}
        for d in prev - ids:
            if q.qrels.get(d, 0) > 0:
                lost2[s] += 1; secs[fl[d].section if d in fl else '?'] += 1
        prev = ids
    n+=1
print("relevant floored lost in answer substage:", lost2, secs)
