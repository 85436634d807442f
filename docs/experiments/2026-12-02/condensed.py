"""How much the unjudged cards could matter: product nDCG@10 of a stored run with each brief's unjudged cards
(outside the realdecks pool) left out of the list (Sakai's condensed list), beside the figure of record.
A measurement aid; the figure of record stays the one that scores an unjudged card as gain 0.

Usage: SEEK_HOME=... python docs/experiments/2026-12-02/condensed.py RUN_ID DATASETS
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, capped_ndcg, ndcg_against
from eval.slides_run import build_library, dense_ranking


def main() -> None:
    run = json.loads((Path(os.environ["SEEK_HOME"]) / "runs" / sys.argv[1] / "run.json").read_text())
    for name in sys.argv[2].split(","):
        dataset = load_slides_dataset(name)
        library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
        deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
        queries = {q.id: q for q in dataset.queries}
        full, condensed, minilm, minilm_condensed = [], [], [], []
        for item in run["datasets"][name]["items"]:
            q = queries[item["id"]]
            if not q.qrels or "product_ndcg@10" not in item["metrics"]:
                continue
            shown = [dataset.aliases.get(c["id"], c["id"]) for c in item["cards"]]
            pool = set(q.judged) if q.judged is not None else set(q.qrels)
            full.append(capped_ndcg(shown, q.qrels, deck_of, IDEAL_DECK_CAP, dataset.gain))
            condensed.append(capped_ndcg([d for d in shown if d in pool], q.qrels, deck_of, IDEAL_DECK_CAP, dataset.gain))
            text = q.text if isinstance(q.text, str) else "; ".join(q.text)
            ranked = dense_ranking(library, text, 200)
            ideal = sorted((g for g in q.qrels.values() if g > 0), reverse=True)
            minilm.append(ndcg_against(ranked[:10], q.qrels, ideal, dataset.gain))
            minilm_condensed.append(ndcg_against([d for d in ranked if d in pool][:10], q.qrels, ideal, dataset.gain))
        print(f"{name}: product nDCG@10 {sum(full) / len(full):.4f} (record "
              f"{run['datasets'][name]['summary']['product_ndcg@10']:.4f}), condensed {sum(condensed) / len(condensed):.4f}; "
              f"plain MiniLM {sum(minilm) / len(minilm):.4f}, condensed {sum(minilm_condensed) / len(minilm_condensed):.4f}")


if __name__ == "__main__":
    main()
