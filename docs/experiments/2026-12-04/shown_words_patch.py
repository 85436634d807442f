"""#17 experiment: a slide's type, role and section read the words it shows, not only its typed text.

A real deck's chart, table or screenshot is often a pasted picture under a short title; OCR reads its
words into ``picture_text`` (SmartArt and charts have fields of their own). Ingest types a slide with
under 8 typed words beside a picture "image" (section Other, cut x0.4 in 08), and the role reader calls
a short title over under 6 typed words a section divider. On the real decks 27 graded-2+ slides were
so filed ("Model Comparison / Final Model (Test Data)": an AUROC table pasted as a picture).

SHOWN modes (comma-separated):
  type    an "image" slide whose pictures, charts and SmartArt show at least SHOWN_TYPE_WORDS (default 8)
          words (OCR; a photo under a typed caption stays an image) is typed as a slide with that body: "dashboard" with 6+ figures, else "content"
  titled    with type: count the title's words too (title + pictured >= SHOWN_TYPE_WORDS, pictured alone
            >= SHOWN_MIN_WORDS, default 8): a question title over a chart whose labels OCR reads in a few words
  section with type: only the section moves (the slide keeps its "image" type and 08's low-content cut)
  pictured20 with role: only slides whose pictures show 20+ words are read with the pictured words
  role    the role reader counts the shown words as the body (a picture of a table is not a divider)

The "type,section" reading at 20 words became the product's rule (``slidesearch.content_type.filed_type``);
with it in place the patch re-files nothing more at 20.

Usage: SHOWN=type,role SEEK_HOME=... python docs/experiments/2026-12-04/shown_words_patch.py \
    docs/experiments/2026-12-01/replay.py DATASETS '[{}]'   (or around .venv/bin/seek eval run --suite slides)
"""
import os
import runpy
import sys
from functools import cached_property

import eval.slides_run as sr
from core.text import tokenize
from slidesearch.content_type import _NUMBER
from slidesearch.library.view import LibraryView
from slidesearch.roles import deck_roles

modes = set(filter(None, os.environ.get("SHOWN", "").split(",")))
type_words = int(os.environ.get("SHOWN_TYPE_WORDS", "8"))
min_words = int(os.environ.get("SHOWN_MIN_WORDS", "8"))
SHOWN_FIELDS = ("smartart_text", "chart_text", "picture_text")


def shown_texts(lib, typed=True):
    extra = [lib.field_texts.get(f, [""] * lib.n) for f in SHOWN_FIELDS]
    return ["\n".join(t for t in ((x if typed else ""), *(e[i] for e in extra)) if t) for i, x in enumerate(lib.texts)]


orig_build = sr.build_library


def build_library(dataset, embedder_name, lexical=None):
    lib, emb = orig_build(dataset, embedder_name, lexical)
    if "type" in modes:
        shown, pictured = shown_texts(lib), shown_texts(lib, typed=False)
        table = lib.section_table
        changed = 0
        for i, ct in enumerate(lib.content_types):
            enough = (len(tokenize(pictured[i])) >= type_words if "titled" not in modes else
                      len(tokenize(pictured[i])) >= min_words and len(tokenize(f"{lib.titles[i]} {pictured[i]}")) >= type_words)
            if ct == "image" and enough:
                new = "dashboard" if len(_NUMBER.findall(shown[i])) >= 6 else "content"
                if "section" not in modes:
                    lib.content_types[i] = new
                lib.sections[i] = table.index[table.section_in_deck(
                    table.section_for(new, lib.titles[i], lib.texts[i]), lib.deck_names[i])]
                changed += 1
        print(f"[shown] {dataset.name}: {changed} picture slides re-typed", file=sys.stderr)
    return lib, emb


sr.build_library = build_library

if "role" in modes:
    def roles(self):
        lib = self._library
        texts = shown_texts(lib)
        if "pictured20" in modes:  # only a slide whose pictures show PICTURED_WORDS words is read with them
            from slidesearch.content_type import PICTURED_WORDS
            pictured = shown_texts(lib, typed=False)
            texts = [t if len(tokenize(p)) >= PICTURED_WORDS else x for t, p, x in zip(texts, pictured, lib.texts)]
        return deck_roles(lib.titles, texts, lib.slide_numbers, lib.deck_ids, lib.content_types)
    prop = cached_property(roles)
    prop.__set_name__(LibraryView, "roles")
    LibraryView.roles = prop

sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
