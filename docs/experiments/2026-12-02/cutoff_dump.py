"""Dump, per brief, every card the answer would show with no relevance floor (flattened by score), with
the features a cutoff rule could read, and the brief's grades: the raw material for judging cutoff rules
offline (`cutoff_sim.py`). A sweep aid only: figures of record come from `seek eval run`.

Usage: SEEK_HOME=... python docs/experiments/2026-12-02/cutoff_dump.py DATASETS OUT.jsonl ['{config overrides}']
"""

from __future__ import annotations

import json
import sys

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, deck_capped_ideal
from eval.slides_run import as_slides, build_library, default_engine, dense_ranking
from slidesearch.config import SearchConfig


def main() -> None:
    names = sys.argv[1].split(",")
    out = open(sys.argv[2], "w")
    overrides = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    for name in names:
        dataset = load_slides_dataset(name)
        base = SlidesConfig()
        library, _ = build_library(dataset, "minilm", base.lexical)
        config = SlidesConfig(search=SearchConfig(**{"floor": 0.0, **overrides}))
        ref = SlidesConfig()
        engine = default_engine(library, config)
        ref_engine = default_engine(library, ref)
        deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
        for q in dataset.queries:
            state, _ = engine.run_state(q.text, q.universes, config.top_per_group)
            response = engine._response(state, None)
            by_id = {library.ids[c.row]: c for c in state.floored if c.row >= 0}
            cards = sorted(response.cards(), key=lambda c: -c.score)
            shipped = [c.id for c in sorted(ref_engine.search_v2(q.text, universes=q.universes).cards(), key=lambda c: -c.score)]
            rows = []
            for c in cards:
                cand = by_id.get(c.id)
                rows.append({
                    "id": as_slides([c.id], dataset.aliases)[0], "score": float(c.score), "section": c.section,
                    "verified": bool(c.verified),
                    "cosine": float(cand.cosine) if cand else None, "entity": float(cand.entity) if cand else None,
                    "primary": float(cand.primary) if cand else None, "angle": int(cand.angle) if cand else None,
                })
            text = q.text if isinstance(q.text, str) else "; ".join(q.text)
            ideal = deck_capped_ideal(q.qrels, deck_of, IDEAL_DECK_CAP) if q.qrels else []
            out.write(json.dumps({
                "dataset": name, "qid": q.id, "kind": q.kind, "text": text, "gain": dataset.gain,
                "grades": q.qrels, "judged": sorted(q.judged) if q.judged is not None else None,
                "ideal": ideal, "cards": rows, "shipped": as_slides(shipped, dataset.aliases),
                "minilm": dense_ranking(library, text, 10),
                "deck_of": {r["id"]: deck_of.get(r["id"]) for r in rows},
            }) + "\n")
        out.flush()
        print(name, "done", flush=True)


if __name__ == "__main__":
    main()
