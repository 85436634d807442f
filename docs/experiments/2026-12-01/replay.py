"""Sweep SearchConfig variants over the product datasets in one process (libraries built once).

Usage: SEEK_HOME=... python docs/experiments/2026-12-01/replay.py DATASETS '[{"floor": 0.5}, ...]'
Prints, per dataset and config, the product figures the harness reports (``eval.slides_run``).
A sweep only: the figures of record come from ``seek eval run``.
"""

from __future__ import annotations

import json
import sys

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import assemble_slides_result, build_library, default_engine, measure_queries
from slidesearch.config import SearchConfig

KEYS = ("product_ndcg@10", "minilm_ndcg@10", "retrieve_ndcg@10", "retrieve_capped_ndcg@10", "product_minus_minilm", "precision", "precision_pooled",
        "cards_shown", "zero_results", "mrr@10", "ndcg@10", "unjudged_share")


def main(embedder_name: str = "minilm") -> None:
    names = sys.argv[1].split(",")
    variants = json.loads(sys.argv[2]) if len(sys.argv) > 2 else [{}]
    by_kind = "--kinds" in sys.argv
    for name in names:
        dataset = load_slides_dataset(name)
        base = SlidesConfig()
        library, embedder = build_library(dataset, embedder_name, base.lexical)
        for variant in variants:
            config = SlidesConfig(search=SearchConfig(**variant))
            engine = default_engine(library, config)
            result = assemble_slides_result(dataset, config, [measure_queries(dataset, dataset.queries, config, engine)], 0)
            s = result.summary
            print(name, json.dumps(variant), " ".join(f"{k}={s[k]:.4f}" for k in KEYS if k in s), flush=True)
            if by_kind:
                for kind, fig in sorted(result.per_group.items()):
                    print("   ", kind, " ".join(f"{k}={fig[k]:.3f}" for k in KEYS if k in fig))


if __name__ == "__main__":
    main()
