"""#17 experiment: 07a reads an opening "who is / are / was / were" that no capitalised word follows (and no
question mark) as a brief, not a person lookup: "who is winning India's election on social media".

Usage: SEEK_HOME=... python docs/experiments/2026-12-04/who_brief_patch.py .venv/bin/seek eval run --suite slides
"""
import re
import runpy
import sys

import core.text as text
import slidesearch.pipeline.rank.primary as primary

orig = text.asks_for_a_fact
WHO = re.compile(r"^\s*who\b", re.I)
WHO_NAME = re.compile(r"^\s*(?i:who)(?:\s+(?i:is|are|was|were)|['’](?i:s))\s+[A-Z]")


def asks(query: str) -> bool:
    stripped = query.strip()
    if not stripped.endswith("?") and WHO.match(stripped) and not WHO_NAME.match(stripped):
        return False
    return orig(query)


text.asks_for_a_fact = primary.asks_for_a_fact = asks
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
