"""#17 experiment: a slide's title embedded alone as a second dense reading, plain ranker only.

MiniLM embeds a slide's snippet (title and the first of its text). Here the title is also embedded alone and a slide
scores snippet cosine + W x title cosine (W 0.25 / 0.5), or the larger of the two (max). Slides without a title keep
their snippet cosine. Reported as plain MiniLM is in the harness (`eval.product.reference_figures`: uncapped and
deck-capped nDCG@10), by kind of brief.

Usage: SEEK_HOME=... python docs/experiments/2026-12-05/title_voter.py DATASETS
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, reference_figures
from eval.slides_run import build_library, ids_by_score


def main() -> None:
    for name in sys.argv[1].split(","):
        dataset = load_slides_dataset(name)
        library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
        model = library.embedder()
        titled = np.array([bool(t.strip()) for t in library.titles])
        titles = model.encode([t if t.strip() else " " for t in library.titles])
        snippets = np.asarray(library.vectors)
        deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
        figures: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for q in dataset.queries:
            if not q.qrels:
                continue
            qv = model.encode([q.text if isinstance(q.text, str) else "; ".join(q.text)])[0]
            base, title = snippets @ qv, np.where(titled, titles @ qv, -1.0)
            rankers = {"base": base, "max": np.maximum(base, title)}
            for w in (0.25, 0.5):
                rankers[f"plus{w}"] = np.where(titled, (base + w * title) / (1 + w), base)
            for label, scores in rankers.items():
                f = reference_figures(label, ids_by_score(library, scores, 100), q.qrels, q.judged, deck_of,
                                      IDEAL_DECK_CAP, dataset.gain)
                for key in (f"{label}_ndcg@10", f"{label}_capped_ndcg@10"):
                    figures[q.kind or "-"][key].append(f[key])
                    figures["all"][key].append(f[key])
        for kind, figs in sorted(figures.items()):
            print(name, kind, len(next(iter(figs.values()))),
                  " ".join(f"{k}={np.mean(v):.4f}" for k, v in figs.items()), flush=True)


if __name__ == "__main__":
    main()
