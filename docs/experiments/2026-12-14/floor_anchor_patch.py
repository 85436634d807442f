"""#17, 2026-12-07: the 12 floor measured against the ANCHOR-th best bar value (of the answers, per angle) instead
of the best, so one slide that BM25 and the dense voter both peak on (fusion > 1) does not floor every other card.
ANCHOR=1 is the shipped rule. A sweep patch around the 2026-12-13 replay:
SEEK_HOME=... ANCHOR=2 python docs/experiments/2026-12-14/floor_anchor_patch.py DATASETS '[{"floor": 0.58}]'"""
import os
import runpy
from pathlib import Path

from slidesearch.pipeline.trim import floor as floor_mod

ANCHOR = int(os.environ.get("ANCHOR", "1"))


def _per_angle(candidates, value, share):
    def kth(values):
        top = sorted(values, reverse=True)
        return top[min(ANCHOR, len(top)) - 1]

    overall = kth([value(c) for c in candidates])
    by_angle: dict[int, list[float]] = {}
    for c in candidates:
        if c.angle >= 0:
            by_angle.setdefault(c.angle, []).append(value(c))
    best = {a: kth(v) for a, v in by_angle.items()} if len(by_angle) >= 2 else {}
    return lambda c: share * best.get(c.angle, overall)


floor_mod._per_angle = _per_angle
runpy.run_path(str(Path(__file__).parents[1] / "2026-12-13" / "replay.py"), run_name="__main__")
