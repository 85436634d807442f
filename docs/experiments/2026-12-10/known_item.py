"""#17 known-item reading: a slide's own title as the brief, on a real-deck library; is that slide shown?

For every content slide (no role, not filed under Other) whose title holds three words or more, the title is
the brief. A miss is reported with the stage that dropped the slide: never a candidate, cut by 10/11 (deck
versions, deck cap), cut at the floor (12), or at the section caps (14). A throwaway reading aid, not a figure
of record.

Usage: SEEK_HOME=... python docs/experiments/2026-12-10/known_item.py DATASET [LIMIT] ['{SearchConfig overrides}']
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter

from core.text import tokenize
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library, default_engine
from slidesearch.config import SearchConfig


def main() -> None:
    dataset = load_slides_dataset(sys.argv[1])
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 10**9
    overrides = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    config = SlidesConfig(search=SearchConfig(**overrides))
    library, _ = build_library(dataset, "minilm", config.lexical)
    engine = default_engine(library, config)
    view = engine.view
    other = view.section_table.index["Other"]
    rows = [r for r in range(view.n) if not view.roles[r] and int(view.sections[r]) != other
            and len(tokenize(library.titles[r].splitlines()[0] if library.titles[r] else "")) >= 3]
    random.Random(0).shuffle(rows)
    rows = rows[:limit]
    why = Counter()
    for r in rows:
        title = library.titles[r].splitlines()[0]
        state, _ = engine.run_state(title, None, config.top_per_group)
        response = engine._response(state, None)
        sid = library.ids[r]
        shown = {c.id for c in response.cards()} | {v for c in response.cards() for v in c.versions}
        if sid in shown:
            why["shown"] += 1
            continue
        def has(stage):
            return any(c.row == r for c in getattr(state, stage, ()) or ())
        stage = next((s for s in ("scored", "unique", "distinct", "deck_capped", "floored") if not has(s)), "sections")
        # same text elsewhere (a copy in another deck that is shown) counts apart
        same = [c for c in response.cards() if (c.title.splitlines() or [""])[0].strip().lower() == title.strip().lower()]
        why[f"lost at {stage}" + (" (a same-titled slide shown)" if same else "")] += 1
        if not same:
            best = sorted(response.cards(), key=lambda c: -c.score)[:3]
            print(f"MISS [{stage}] {sid[-40:]} {title[:60]!r} -> {[c.title[:30] for c in best]}")
    print(dict(why), "of", len(rows))


if __name__ == "__main__":
    main()
