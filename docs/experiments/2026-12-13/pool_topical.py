"""#17, 2026-12-07: the pool of slides to grade for the topical briefs (a ruler fix, no ranking change).

Per brief, the union of: plain MiniLM top-10 (the reference), the engine's retrieve top-10, and the
product's shown cards at floors 0.62 (the default) and 0.50 (a wider answer, so tuning the floor
later moves within judged cards), minus the slides the set already grades. Written shuffled (seeded),
one JSON line per (brief, slide) with the brief, its note and the slide's full text, and nothing
about which ranker pooled it, so the grader is blind to the system.

Usage: SEEK_HOME=... python docs/experiments/2026-12-13/pool_topical.py OUT.jsonl [N_PARTS]
"""
import json
import random
import sys

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import _flatten, build_library, default_engine, dense_ranking
from slidesearch.config import SearchConfig
from core.settings import get_settings

out_path = sys.argv[1]
parts = int(sys.argv[2]) if len(sys.argv) > 2 else 1
ds = load_slides_dataset("slidevqa-topical-cards")
notes = {json.loads(line)["query_id"]: json.loads(line)["note"]
         for line in open("eval/data/slidevqa_topical.jsonl", encoding="utf-8")}
library, _ = build_library(ds, get_settings().embedder)
text_of = dict(zip(library.ids, library.snippets))
full = {d.slide_id: d for d in ds.docs}
engines = {f: default_engine(library, SlidesConfig(search=SearchConfig(floor=f))) for f in (0.62, 0.50)}
rows = []
stats = []
for q in ds.queries:
    pool: set[str] = set(dense_ranking(library, q.text, 10))
    pool |= {doc for doc, _ in engines[0.62].retrieve(q.text, k=10)}
    for engine in engines.values():
        pool |= {c.id for c in _flatten(engine.search_v2(q.text, top_per_group=15))}
    new = sorted(pool - set(q.qrels))
    stats.append(len(new))
    for sid in new:
        doc = full[sid]
        text = " ".join(x for x in (getattr(doc, "title", ""), getattr(doc, "text", "")) if x) or text_of[sid]
        rows.append({"query_id": q.id, "query": q.text, "note": notes[q.id], "slide_id": sid, "text": text})
rng = random.Random(20261207)
rng.shuffle(rows)
rows.sort(key=lambda r: r["query_id"])  # grouped by brief (a grader reads one brief at a time), shuffled within
for p in range(parts):
    qids = sorted({r["query_id"] for r in rows})[p::parts]
    name = out_path if parts == 1 else out_path.replace(".jsonl", f".part{p + 1}.jsonl")
    with open(name, "w", encoding="utf-8") as fh:
        for r in rows:
            if r["query_id"] in qids:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
print(f"{len(rows)} (brief, slide) pairs to grade over {len(stats)} briefs; per brief min {min(stats)} max {max(stats)}")
