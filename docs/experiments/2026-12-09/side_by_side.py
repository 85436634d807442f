"""Side by side for chosen briefs: plain MiniLM top-10, seek's `retrieve` top-10 and the shown cards, with grades.

Usage: SEEK_HOME=... python docs/experiments/2026-12-09/side_by_side.py DATASET QID[,QID...]
"""

from __future__ import annotations

import sys

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import _flatten, build_library, default_engine, dense_ranking


def main() -> None:
    dataset = load_slides_dataset(sys.argv[1])
    wanted = set(sys.argv[2].split(","))
    config = SlidesConfig()
    library, _ = build_library(dataset, "minilm", config.lexical)
    engine = default_engine(library, config)
    row = {i: n for n, i in enumerate(library.ids)}
    deck = dict(zip(library.ids, library.deck_ids, strict=True))

    def line(i: str, extra: str = "") -> str:
        g = q.qrels.get(dataset.aliases.get(i, i))
        judged = q.judged is None or dataset.aliases.get(i, i) in set(q.judged)
        grade = "?" if not judged else (str(int(g)) if g else "0")
        text = (library.titles[row[i]] + " | " + library.texts[row[i]]) if i in row else i
        return f"   {grade} {deck[i][:28]:28} {i[-14:]:14} {extra} {text[:90]!r}"

    for q in dataset.queries:
        if q.id not in wanted:
            continue
        text = q.text if isinstance(q.text, str) else " / ".join(q.text)
        print(f"== {q.id} {text}  (graded: {sorted(((v, k) for k, v in q.qrels.items()), reverse=True)[:6]})")
        print(" minilm")
        for i in dense_ranking(library, text, 10):
            print(line(i))
        print(" retrieve")
        for i, s in engine.retrieve(text, k=10):
            print(line(i, f"{s:.3f}"))
        print(" shown")
        for c in _flatten(engine.search_v2(q.text, universes=q.universes, top_per_group=config.top_per_group)):
            print(line(c.id, f"{c.score:.3f} {c.section[:14]:14}"))


if __name__ == "__main__":
    main()
