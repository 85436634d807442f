"""#17 experiment: 07's dense voter reads a slide as the better of its snippet and its title alone.

Each angle's cosine with a slide becomes max(snippet cosine, title cosine) for slides with a title
(TITLEMAX=all) or only for slides read from a .pptx file (TITLEMAX=pptx: a title placeholder or the heading
the extractor picked, not a first line of text read off an image). Expansion-term cosines are left alone.
Title vectors are embedded once per library view, on first use.

Usage: TITLEMAX=all|pptx SEEK_HOME=... python docs/experiments/2026-12-05/title_max_patch.py SCRIPT ARGS...
"""
import os
import runpy
import sys
from dataclasses import replace

import numpy as np

from slidesearch.pipeline.rank import primary

MODE = os.environ.get("TITLEMAX", "all")
_orig = primary.DenseScores.run
_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _titles(view):
    key = id(view._library)
    if key not in _cache:
        lib = view._library
        titles = list(lib.titles)
        formats = list(getattr(lib, "source_formats", [""] * len(titles)))
        use = np.array([bool(t.strip()) and (MODE == "all" or f == "pptx") for t, f in zip(titles, formats, strict=True)])
        vecs = lib.embedder().encode([t if t.strip() else " " for t in titles])
        _cache[key] = (np.asarray(vecs, dtype=np.float32), use)
    return _cache[key]


def run(self, state):
    state = _orig(self, state)
    if state.pool is None or state.pool.size == 0:
        return state
    vecs, use = _titles(self.view)
    title = vecs[state.pool] @ state.query_vectors.T
    mask = use[state.pool][:, None]
    return replace(state, angle_cosines=np.where(mask, np.maximum(state.angle_cosines, title), state.angle_cosines))


primary.DenseScores.run = run
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
