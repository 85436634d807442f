"""#17 experiment: the dense voter reads a slide past its first 600 characters (max over passages), plain ranker only.

MiniLM embeds a slide's snippet (the first 600 characters of its search document: title, body, notes, chart,
SmartArt and picture text). A long slide's later passages are never seen by the dense voter. Here each search
document is cut into the snippet plus further 500-character passages (each prefixed by the slide title), every
passage is embedded, and a slide scores as: snippet cosine (base), the best passage cosine (max), or the snippet
cosine plus W x the amount by which the best later passage beats it (lift). Reported as plain MiniLM is in the
harness (`eval.product.reference_figures`: uncapped and deck-capped nDCG@10), by kind of brief.

Usage: SEEK_HOME=... python docs/experiments/2026-12-05/chunk_voter.py DATASETS
"""

from __future__ import annotations

import sys
from collections import defaultdict

import numpy as np

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, reference_figures
from eval.slides_run import build_library, ids_by_score
from slidesearch.model import SNIPPET_CHARS

STEP = 500


def passages(title: str, document: str) -> list[str]:
    """The document's text after the snippet, in STEP-character windows, each headed by the title."""
    text = " ".join(document.split())
    rest = text[SNIPPET_CHARS:]
    return [f"{title}\n{rest[i:i + STEP]}" if title else rest[i:i + STEP] for i in range(0, len(rest), STEP)]


def main() -> None:
    for name in sys.argv[1].split(","):
        dataset = load_slides_dataset(name)
        library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
        model = library.embedder()
        docs = library.search_documents()
        rows, texts = [], []
        for r, (t, d) in enumerate(zip(library.titles, docs, strict=True)):
            for p in passages(t, d):
                rows.append(r)
                texts.append(p)
        print(f"{name}: {library.n} slides, {len(texts)} extra passages on {len(set(rows))} slides", flush=True)
        extra = model.encode(texts) if texts else np.zeros((0, library.vectors.shape[1]), dtype=np.float32)
        rows_a = np.asarray(rows, dtype=np.int64)
        base_vecs = np.asarray(library.vectors)

        def rankers(qv: np.ndarray, base_vecs=base_vecs, extra=extra, rows_a=rows_a) -> dict[str, np.ndarray]:
            base = base_vecs @ qv
            best = base.copy()
            if rows_a.size:
                np.maximum.at(best, rows_a, extra @ qv)
            return {"base": base, "max": best, **{f"lift{w}": base + w * (best - base) for w in (0.25, 0.5)}}

        report(name, dataset, library, rankers)


def report(name, dataset, library, rankers) -> None:
    """Print, by kind of brief, each ranker's nDCG@10 (uncapped and deck-capped) as the harness reads plain
    MiniLM; ``rankers(query_vector)`` returns {label: one score per library row}."""
    model = library.embedder()
    deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
    figures: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for q in dataset.queries:
        if not q.qrels:
            continue
        qv = model.encode([q.text if isinstance(q.text, str) else "; ".join(q.text)])[0]
        for label, scores in rankers(qv).items():
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
