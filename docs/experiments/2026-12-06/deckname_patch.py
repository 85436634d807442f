"""#17 experiment: 07a reads the deck's name and folder as a third voter.

Each deck's name text is its folder path and file name (extension dropped, split on anything not a letter or
digit). Per angle, DECKNAME=bm25 scores the angle against those texts with BM25 (the library's analyser),
DECKNAME=dense with the encoder's cosine; the score is min-max scaled over the angle's candidates and added to
07a's fused score x DECKNAME_W / angles (before deck context). Candidates are not widened: only slides already
found by the slide's own text can gain.

Usage: DECKNAME=bm25|dense DECKNAME_W=0.1 SEEK_HOME=... python docs/experiments/2026-12-06/deckname_patch.py SCRIPT ARGS...
"""
import os
import re

import numpy as np
from patch_runner import around_primary_run, run_script

from core.lexical import BM25Index
from slidesearch.pipeline.rank import primary

MODE = os.environ.get("DECKNAME", "bm25")
WEIGHT = float(os.environ.get("DECKNAME_W", "0.1"))
_cache: dict[int, tuple] = {}


def name_text(folder: str, name: str) -> str:
    stem = re.sub(r"\.(pptx?|pdf|key|odp|docx?)$", "", name, flags=re.I)
    return " ".join(re.split(r"[\W_]+", f"{folder} {stem}")).strip()


def _decks(view):
    lib = view._library
    key = id(lib)
    if key not in _cache:
        index: dict[str, int] = {}
        texts: list[str] = []
        deck_of = np.zeros(len(lib.deck_ids), dtype=np.int64)
        for r, (d, f, n) in enumerate(zip(lib.deck_ids, lib.folders, lib.deck_names, strict=True)):
            if d not in index:
                index[d] = len(texts)
                texts.append(name_text(f, n))
            deck_of[r] = index[d]
        bm25 = BM25Index.from_texts(texts, stemmer=view.bm25.stemmer)
        vecs = np.asarray(lib.embedder().encode(texts), dtype=np.float32) if MODE == "dense" else None
        _cache[key] = (deck_of, bm25, vecs)
    return _cache[key]


_orig_fuse = primary.fuse_angles_by_angle


def fuse(dense, bm25, always, cfg, questions=()):
    fused, angle_of = _orig_fuse(dense, bm25, always, cfg, questions)
    extra = _current.get("scores")
    if extra is None or not fused:
        return fused, angle_of
    positions = np.fromiter(fused, dtype=np.int64)
    n_angles = extra.shape[1]
    for a in range(n_angles):
        col = extra[positions, a]
        lo, hi = float(col.min()), float(col.max())
        if hi <= lo or hi <= 0:
            continue
        scaled = (col - lo) / (hi - lo)
        for pos, value in zip(positions.tolist(), scaled.tolist(), strict=True):
            fused[pos] += WEIGHT * value / n_angles
    return fused, angle_of


def context(self, state):
    if state.pool is None or not state.pool.size or not state.angles:
        return None
    deck_of, names, vecs = _decks(self.view)
    if MODE == "dense":
        per_deck = vecs @ np.asarray(state.query_vectors, dtype=np.float32).T
    else:
        per_deck = np.stack([names.scores(names.analyse(a)) for a in state.angles], axis=1)
    return {"scores": per_deck[deck_of[state.pool]]}


primary.fuse_angles_by_angle = fuse
_current = around_primary_run(context)
run_script()
