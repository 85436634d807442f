"""Per brief, the 08 factors of every candidate of the answer's top decks, with grades (a reading aid).

Usage: SEEK_HOME=... python docs/experiments/2026-12-10/factors.py DATASET QID[,QID...]
"""

from __future__ import annotations

import sys

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library, default_engine


def main() -> None:
    dataset = load_slides_dataset(sys.argv[1])
    wanted = set(sys.argv[2].split(","))
    config = SlidesConfig()
    library, _ = build_library(dataset, "minilm", config.lexical)
    engine = default_engine(library, config)
    view = engine.view if hasattr(engine, "view") else None
    for q in dataset.queries:
        if q.id not in wanted:
            continue
        state, _ = engine.run_state(q.text, q.universes, config.top_per_group)
        print("==", q.id, q.text, "intents", state.intents)
        for c in state.scored[:25]:
            if c.row < 0:
                continue
            sid = library.ids[c.row]
            g = q.qrels.get(dataset.aliases.get(sid, sid), 0)
            ctype = view.content_types[c.row] if view else "?"
            sec = view.sections[c.row] if view else "?"
            print(f"  {int(g)} {c.score:.3f} prim {c.primary:.3f} boost {c.boost:.3f} fus {c.fusion:.3f} "
                  f"typ {c.type:.2f} rec {c.recency:.2f} ent {c.entity:.2f} deck {c.deck:.3f} {ctype:10} {sec} "
                  f"{library.deck_ids[c.row][:20]} {library.titles[c.row][:50]!r}")


if __name__ == "__main__":
    main()
