"""#17 experiment: a slide's title embedded alone as a second dense reading, plain ranker only.

MiniLM embeds a slide's snippet (title and the first of its text). Here the title is also embedded alone and a
slide scores the larger of its snippet and title cosines (untitled slides keep the snippet's). The weighted sum
of the two was measured before (`docs/experiments/2026-12-02/title_voter.py`, log 6e6cb74). Reported as plain
MiniLM is in the harness, by kind of brief (`chunk_voter.report`).

Usage: SEEK_HOME=... python docs/experiments/2026-12-05/title_voter.py DATASETS
"""

from __future__ import annotations

import sys

import numpy as np
from chunk_voter import report  # this folder is on sys.path when the script runs

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library


def main() -> None:
    for name in sys.argv[1].split(","):
        dataset = load_slides_dataset(name)
        library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
        titled = np.array([bool(t.strip()) for t in library.titles])
        titles = library.embedder().encode([t if t.strip() else " " for t in library.titles])
        snippets = np.asarray(library.vectors)

        def rankers(qv: np.ndarray, snippets=snippets, titles=titles, titled=titled) -> dict[str, np.ndarray]:
            base = snippets @ qv
            return {"base": base, "max": np.where(titled, np.maximum(base, titles @ qv), base)}

        report(name, dataset, library, rankers)


if __name__ == "__main__":
    main()
