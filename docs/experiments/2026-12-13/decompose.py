"""#17, 2026-12-07: where the product's answer loses to the engine's own ranking walked with the deck cap
(retrieve capped). Per product dataset, deck-capped nDCG@10 of: the shown cards; retrieve capped cut to as
many cards as shown (the count's cost); the shown cards in retrieve's order (the order's cost); retrieve
capped top 10. Usage: SEEK_HOME=... python docs/experiments/2026-12-13/decompose.py DATASETS ['{config}']"""
import json
import sys
from statistics import mean

from core.settings import get_settings
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, cap_ranking, capped_ndcg
from eval.slides_run import _flatten, as_slides, build_library, default_engine
from slidesearch.config import SearchConfig

cfg = SlidesConfig(search=SearchConfig(**(json.loads(sys.argv[2]) if len(sys.argv) > 2 else {})))
for name in sys.argv[1].split(","):
    ds = load_slides_dataset(name)
    lib, _ = build_library(ds, get_settings().embedder, cfg.lexical)
    eng = default_engine(lib, cfg)
    deck_of = dict(zip(lib.ids, lib.deck_ids))
    rows = []
    for q in ds.queries:
        if not q.qrels:
            continue
        shown = as_slides([c.id for c in _flatten(eng.search_v2(q.text, top_per_group=15))], ds.aliases)
        ret = as_slides([d for d, _ in eng.retrieve(q.text if isinstance(q.text, str) else "; ".join(q.text), k=100)], ds.aliases)
        rc = cap_ranking(ret, deck_of, IDEAL_DECK_CAP)
        pos = {d: i for i, d in enumerate(ret)}
        f = lambda r: capped_ndcg(r, q.qrels, deck_of, IDEAL_DECK_CAP, ds.gain)
        rows.append((f(shown), f(rc[:len(shown)]), f(sorted(shown, key=lambda d: pos.get(d, 999))), f(rc[:10]), len(shown),
                     sum(d in set(rc[:10]) for d in shown), q.id))
    print(name, "shown %.4f | retrieve capped cut to count %.4f | shown in retrieve order %.4f | retrieve capped@10 %.4f | cards %.2f | shown in rc@10 %.2f" % tuple(mean(r[i] for r in rows) for i in range(6)))
    if "-v" in sys.argv:
        for r in rows:
            print("  %s %.3f %.3f %.3f %.3f %d %d" % (r[6], *r[:4], r[4], r[5]))
