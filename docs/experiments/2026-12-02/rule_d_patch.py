"""#17 experiment: the narrower 07a factoid rule ("rule D", run 20261202-030329) as a patch, to sweep it
together with other variants through replay.py. A factoid question is one with a question mark, a person
lookup ("who / whom / whose" + is / are / was / were + a capitalised word) or "how many / how much".

Usage: SEEK_HOME=... python docs/experiments/2026-12-02/rule_d_patch.py docs/experiments/2026-12-01/replay.py DATASETS '[...]'
"""
import re
import runpy
import sys

from slidesearch.pipeline.rank import primary

_WHO = re.compile(r"^\s*(who|whom|whose)\s+(is|are|was|were)\s+[A-Z]")
_HOW = re.compile(r"^\s*how\s+(many|much)\b", re.I)


def rule_d(text: str) -> bool:
    stripped = text.strip()
    return stripped.endswith("?") or bool(_WHO.match(stripped)) or bool(_HOW.match(stripped))


primary.asks_for_a_fact = rule_d
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
