import sys, runpy
from dataclasses import replace
import slidesearch.pipeline.trim.floor as F
orig = F.RelevanceFloor.run
def overall_per_angle(self, state):
    if not state.candidates: return state
    overall = max(c.score for c in state.candidates)
    best = {}
    for c in state.candidates:
        if c.angle >= 0: best[c.angle] = max(best.get(c.angle, 0.0), c.score)
    if len(best) < 2: best = {}
    return replace(state, candidates=tuple(c for c in state.candidates if c.score >= self.share * best.get(c.angle, overall)))
def overall_only(self, state):
    if not state.candidates: return state
    overall = max(c.score for c in state.candidates)
    return replace(state, candidates=tuple(c for c in state.candidates if c.score >= self.share * overall))
mode = sys.argv.pop(1)
F.RelevanceFloor.run = {"current": orig, "overall_per_angle": overall_per_angle, "overall_only": overall_only}[mode]
sys.argv[0] = "/tmp/i7/geneval.py"
runpy.run_path("/tmp/i7/geneval.py", run_name="__main__")
