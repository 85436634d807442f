"""#17 experiment: 08's type table only when the brief names an intent (INTENT_SIGNALS), not for the
default "capability" intent every unclassified brief gets; the low-content / role cut stays.

Usage: TYPEPRIOR=explicit SEEK_HOME=... python docs/experiments/2026-12-02/implicit_type_patch.py \
    docs/experiments/2026-12-01/replay.py DATASETS '[{}]' [--kinds]
"""
import os
import runpy
import sys
from dataclasses import replace

from slidesearch.pipeline.query.classify import INTENT_SIGNALS
from slidesearch.pipeline.rank import multipliers as m

mode = os.environ.get("TYPEPRIOR", "")
orig = m.Multipliers.run
if mode == "explicit":
    def run(self, state):
        explicit = any(p.search(a) for a in state.angles for p in INTENT_SIGNALS.values())
        if explicit:
            return orig(self, state)
        saved = m.TYPE_WEIGHTS
        m.TYPE_WEIGHTS = {}
        try:
            return orig(self, state)
        finally:
            m.TYPE_WEIGHTS = saved
    m.Multipliers.run = run
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
