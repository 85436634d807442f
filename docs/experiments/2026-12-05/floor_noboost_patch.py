"""#17 experiment: the relevance floor measures each card without 07b's expansion boost (and, as now, without
06b's entity factor): score x primary / fusion. Found on slidevqa-topical-cards t50, where the best slide's
+19% boost raised the bar over a graded-3 slide while a number-dense slide lifted x1.3 by its type stayed.

Usage: SEEK_HOME=... python docs/experiments/2026-12-05/floor_noboost_patch.py SCRIPT ARGS...
"""
import runpy
import sys

from slidesearch.pipeline.trim import floor as fl


def bar(self, c):
    own = c.score / c.entity if c.entity > 0 else c.score
    if c.fusion > 0 and c.primary > 0:
        own *= c.primary / c.fusion
    return own if c.took_place_of is None else max(own, bar(self, c.took_place_of))


fl.RelevanceFloor._bar_value = bar
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
