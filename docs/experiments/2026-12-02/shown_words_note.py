"""#17 measurement: how often a coverage note built from the shown cards' words would fire, on briefs with and without an answer.

A word counts as missing when no card shown states it (``coverage.stated_in``); rules: any word missing, two or more,
half of the distinctive words or more, all of them. Usage: SEEK_HOME=... python docs/experiments/2026-12-02/shown_words_note.py realdecks,slidevqa-topical-cards
"""
import sys
from collections import defaultdict
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library, default_engine
from slidesearch.pipeline.answer.coverage import distinctive_words, stated_in
for name in sys.argv[1].split(","):
    ds = load_slides_dataset(name)
    lib, _ = build_library(ds, "minilm", SlidesConfig().lexical)
    eng = default_engine(lib, SlidesConfig())
    view = eng.view
    stats = defaultdict(lambda: defaultdict(int))
    for q in ds.queries:
        state, _ = eng.run_state(q.text, q.universes)
        cards = [c for g in (state.groups or {}).values() for c in g]
        texts = [(view.lowered_documents[c.row], set(view.bm25.analyse(view.lowered_documents[c.row]))) for c in cards if c.row >= 0]
        words = [w for w in distinctive_words(state.angles) if w not in state.uncovered_terms]
        missing = [w for w in words if not any(stated_in(w, t, view.bm25, s) for t, s in texts)]
        absent = not any(g > 0 for g in q.qrels.values())
        key = "absent" if absent else "answered"
        stats[key]["n"] += 1
        frac = len(missing) / len(words) if words else 0
        for rule, fire in (("any", bool(missing)), (">=2", len(missing) >= 2), ("half", frac >= 0.5), ("all", words and len(missing) == len(words))):
            stats[key][rule] += int(bool(fire))
        if absent or (len(missing) >= 2 and frac >= 0.5):
            print("  ", key, repr(q.text)[:60], missing, "of", words)
    print(name, {k: dict(v) for k, v in stats.items()})
