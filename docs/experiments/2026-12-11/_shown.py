"""What the 2026-12-11 reading aids share: one dataset of a stored run, its library as the harness builds it, and
each brief's shown cards (read as the harness reads them: a verified row counts as the slide it stands for)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import Any

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, capped_ndcg
from eval.slides_run import as_slides, build_library, default_engine


class Shown:
    def __init__(self, name: str, run: dict[str, Any]) -> None:
        self.name = name
        self.dataset = load_slides_dataset(name)
        self.library, _ = build_library(self.dataset, "minilm", SlidesConfig().lexical)
        self.deck_of = dict(zip(self.library.ids, self.library.deck_ids, strict=True))
        queries = {q.id: q for q in self.dataset.queries}
        self.briefs = [(queries[i["id"]], as_slides(i["ranked"], self.dataset.aliases))
                       for i in run["datasets"][name]["items"]]

    @cached_property
    def engine(self) -> Any:
        return default_engine(self.library, SlidesConfig())

    def answered(self) -> list[tuple[Any, list[str]]]:
        """The briefs with a graded answer (the ones the product's nDCG@10 is measured on), with their shown cards."""
        return [(q, shown) for q, shown in self.briefs if q.qrels]

    def ndcg(self, q: Any, ranked: Sequence[str]) -> float:
        """Deck-capped nDCG@10 of ``ranked`` for brief ``q``, as the harness measures the product."""
        return capped_ndcg(ranked, q.qrels, self.deck_of, IDEAL_DECK_CAP, self.dataset.gain)

    def candidates(self, q: Any) -> dict[str, Any]:
        """The brief's scored candidates (stage 08) by slide id, best first, as the current code ranks them."""
        state, _ = self.engine.run_state(q.text if isinstance(q.text, str) else list(q.text))
        return {self.library.ids[c.row]: c for c in state.scored if c.row >= 0}


def datasets(argv: Sequence[str]) -> Iterator[Shown]:
    """``argv[1]``: comma-separated dataset names; ``argv[2]``: a run's run.json."""
    with open(argv[2], encoding="utf-8") as f:
        run = json.load(f)
    for name in argv[1].split(","):
        yield Shown(name, run)
