import os, runpy, sys
from slidesearch.pipeline.trim import floor as fl
mode = os.environ.get("FLOORBAR", "")
orig = fl.RelevanceFloor._bar_value
if mode == "fusion":
    def bar(self, c):
        own = c.fusion if c.fusion > 0 else c.score
        return own if c.took_place_of is None else max(own, bar(self, c.took_place_of))
    fl.RelevanceFloor._bar_value = bar
if mode == "notype":
    def bar(self, c):
        own = c.score / (c.entity if c.entity > 0 else 1) / (c.type if c.type > 0 else 1) / (c.recency if c.recency > 0 else 1)
        return own if c.took_place_of is None else max(own, bar(self, c.took_place_of))
    fl.RelevanceFloor._bar_value = bar
if mode == "norecency":
    def bar(self, c):
        own = c.score / (c.entity if c.entity > 0 else 1) / (c.recency if c.recency > 0 else 1)
        return own if c.took_place_of is None else max(own, bar(self, c.took_place_of))
    fl.RelevanceFloor._bar_value = bar
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
