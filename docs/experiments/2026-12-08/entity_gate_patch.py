"""#17 experiment: a semantic gate on 06b's literal matches before they act (08's entity factor, 14b's slot, 12's exemption).

06b marks every pool slide holding a rare query term; a question keeps every rare word, so "gas" in "which jet is
cheapest to fly on gas" marked a resume slide and "election" in "who is winning India's election on social media"
an anatomy-of-fraud slide: each took the guaranteed slot and the x1.2, and raised the floor's bar. Here a marked
slide stays marked only when its best angle cosine reaches GATE x the best cosine of any pool slide (07's
``angle_cosines``); the others are plain candidates. The pool (06) is unchanged.

With GATE_WORDS=1 only the rows of single plain words are gated: a term of one word the query never capitalises
(phrases, person names and capitalised words keep every row they mark).

Usage: GATE=0.8 [GATE_WORDS=1] SEEK_HOME=... python docs/experiments/2026-12-08/entity_gate_patch.py SCRIPT ARGS...
"""
import os
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-12-06"))
from patch_runner import run_script  # noqa: E402

from slidesearch.pipeline.rank import primary  # noqa: E402

GATE = float(os.environ.get("GATE", "0.8"))
WORDS_ONLY = os.environ.get("GATE_WORDS", "0") == "1"
gated_log: list[tuple[int, int]] = []
_original = primary.PrimaryPass.run


def run(self, state):
    if GATE > 0 and state.entity_rows and state.pool is not None and state.angle_cosines is not None \
            and state.angle_cosines.size:
        best_of = state.angle_cosines.max(axis=1)
        top = float(best_of.max())
        where = {int(r): i for i, r in enumerate(state.pool.tolist())}
        kept = frozenset(r for r in state.entity_rows if r in where and best_of[where[r]] >= GATE * top)
        if WORDS_ONLY:
            named = [t for t in state.entity_terms if " " in t or any(
                m.group(0)[:1].isupper() for a in state.angles
                for m in re.finditer(rf"\b{re.escape(t)}\b", a, re.IGNORECASE))]
            held = {int(r) for t in named for r in self.view.literal_rows(t).tolist()}
            kept = kept | frozenset(r for r in state.entity_rows if r in held)
        gated_log.append((len(state.entity_rows), len(kept)))
        state = replace(state, entity_rows=kept, entity_terms=state.entity_terms if kept else ())
    return _original(self, state)


primary.PrimaryPass.run = run
if __name__ == "__main__":
    try:
        run_script()
    finally:
        print("gate", GATE, "entity rows before/after summed:", sum(a for a, _ in gated_log), sum(b for _, b in gated_log),
              file=sys.stderr)
