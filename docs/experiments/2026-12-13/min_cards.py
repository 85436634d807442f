"""#17, 2026-12-07: a minimum answer beside the floor, measured (a patch, not in the tree): after 12's floor, the
best K answers (by the floor's bar value) that reach WEAK x the best are kept too. Usage: SEEK_HOME=...
MINK=8 WEAK=0.45 python docs/experiments/2026-12-13/min_cards.py DATASETS '[{}]' (the 2026-12-13 replay's output)."""
import os
from dataclasses import replace

from slidesearch.pipeline.trim import floor as floor_mod

K, WEAK = int(os.environ["MINK"]), float(os.environ["WEAK"])
_run = floor_mod.RelevanceFloor.run


def run(self, state):
    out = _run(self, state)
    cands = state.deck_capped
    if not cands or len(out.floored) >= K:
        return out
    roles = self.view.roles if self.view is not None else []
    answers = [c for c in cands if c.row < 0 or not roles or not roles[c.row]]
    if not answers:
        return out
    best = max(self._bar_value(c) for c in answers)
    extra = sorted((c for c in answers if c not in out.floored and self._bar_value(c) >= WEAK * best),
                   key=lambda c: -self._bar_value(c))[: K - len(out.floored)]
    keep = set(map(id, out.floored)) | set(map(id, extra))
    return replace(out, floored=tuple(c for c in cands if id(c) in keep))


floor_mod.RelevanceFloor.run = run
import runpy, sys  # noqa: E402
sys.argv = [sys.argv[0], *sys.argv[1:]]
runpy.run_path(os.path.join(os.path.dirname(__file__), "replay.py"), run_name="__main__")
