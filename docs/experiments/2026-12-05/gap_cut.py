"""#17 experiment, offline: cut a run's shown cards at a big score drop and re-score them (no engine run).

Each brief's cards (flattened by score, as the harness shows them) are cut at the first card, past the first
KEEP, scoring under RATIO x the card before it; product nDCG@10 and precision of shown cards are recomputed with
`eval.product.shown_card_figures` (means over the briefs that have an answer). A cut can only drop cards, so it
says whether the floor leaves a removable tail of weak cards.

Usage: SEEK_HOME=... python docs/experiments/2026-12-05/gap_cut.py RUN_DIR/run.json DATASETS
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, shown_card_figures
from eval.slides_run import as_slides, build_library


def cut_at_drop(scores: list[float], ratio: float, keep: int) -> int:
    """How many cards stay: all, or those before the first card past ``keep`` under ``ratio`` x its predecessor."""
    for i in range(keep, len(scores)):
        if ratio and scores[i] < ratio * scores[i - 1]:
            return i
    return len(scores)


def main() -> None:
    run = json.loads(Path(sys.argv[1]).read_text())
    for name in sys.argv[2].split(","):
        dataset = load_slides_dataset(name)
        queries = {q.id: q for q in dataset.queries}
        library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
        deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
        items = run["datasets"][name]["items"]
        for ratio in (0.0, 0.6, 0.7, 0.75, 0.8):
            for keep in (2, 3):
                ndcg, precision = [], []
                for item in items:
                    q = queries[item["id"]]
                    if not q.qrels:
                        continue
                    ids = [c["id"] for c in item["cards"]]
                    cut = cut_at_drop([c["score"] for c in item["cards"]], ratio, keep)
                    f = shown_card_figures(as_slides(ids[:cut], dataset.aliases), q.qrels, q.judged, deck_of,
                                           IDEAL_DECK_CAP, dataset.gain)
                    ndcg.append(f["product_ndcg@10"])
                    precision.append(f["precision"])
                print(name, ratio, keep, f"ndcg {np.nanmean(ndcg):.4f} precision {np.nanmean(precision):.4f}",
                      flush=True)


if __name__ == "__main__":
    main()
