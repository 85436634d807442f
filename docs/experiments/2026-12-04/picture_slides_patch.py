"""#17 experiment: 08's low-content cut on picture slides ("image": under 8 typed words beside a picture).

A real deck's chart is often a pasted picture under a title that says what it shows ("Identify the top
5 states with the highest penetration rate in EV sales"); OCR reads its labels into ``picture_text``.
The cut measures content on the typed text alone, so such a slide is cut x0.4 like a cover.

LOWC modes:
  snippet   content-rich measured on the slide's snippet (title + typed text + picture / chart / SmartArt words)
  noimage   "image" is not a low-content type at all
  titled    an "image" slide whose title has at least LOWC_WORDS (default 6) words is not low-content

Usage: LOWC=snippet SEEK_HOME=... python docs/experiments/2026-12-04/picture_slides_patch.py \
    docs/experiments/2026-12-01/replay.py DATASETS '[{}]' [--kinds]
(or around ``.venv/bin/seek eval run --suite slides``)
"""
import os
import runpy
import sys
from functools import cached_property

import numpy as np

from slidesearch.pipeline.rank import multipliers as m

mode = os.environ.get("LOWC", "")
words = int(os.environ.get("LOWC_WORDS", "6"))


def _low_content(self):
    view, limit = self.view, self.weights.content_rich_chars
    out = []
    for t, x, s, title in zip(view.content_types, view.texts, view.snippets, view.titles, strict=True):
        low = t in m.LOW_CONTENT_TYPES and len(x) < limit
        if low and t == "image":
            if mode == "snippet":
                low = len(s) < limit
            elif mode == "noimage":
                low = False
            elif mode == "titled":
                low = len(title.split()) < words
        out.append(low)
    return np.array(out, dtype=bool)


if mode:
    prop = cached_property(_low_content)
    prop.__set_name__(m.Multipliers, "_low_content")
    m.Multipliers._low_content = prop
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
