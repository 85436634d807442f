"""Per brief: the 06b terms found, how many slides they mark, and how many of those are relevant.

Usage: SEEK_HOME=... python docs/experiments/2026-12-02/entity_terms.py DATASET
"""
import sys
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library, default_engine
ds = load_slides_dataset(sys.argv[1])
lib, _ = build_library(ds, "minilm", SlidesConfig().lexical)
eng = default_engine(lib, SlidesConfig())
for q in ds.queries:
    state, _ = eng.run_state(q.text, q.universes)
    rel = {d for d, g in q.qrels.items() if g > 0}
    er = state.entity_rows
    hits = sum(1 for r in er if lib.ids[r] in rel)
    print(q.kind, repr(q.text)[:60], state.entity_terms, f"rows={len(er)} relevant={hits}")
