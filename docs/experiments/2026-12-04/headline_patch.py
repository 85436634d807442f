"""#17 experiment: covers by position only in decks numbered from their start; headline slides are content.

SlideVQA's library holds a sample of each deck's slides (numbers 5, 10, 12 ...), so the role reader's "first
slide of a deck of four or more" calls a deck's lowest present slide its cover: "Late night is the best time for
retweets" (slide 10, graded 3 for "best time to post on Facebook and Twitter") is cut x0.4 as a cover. And a
slide whose title is its message over a picture (a headline slide) is typed "title" and filed under Other.

HEADLINE modes (comma-separated):
  cover     the position rule names a cover only when the deck's first present slide is number 0 or 1
  headline  a "title"-typed slide that is not its deck's first and whose title has HEADLINE_WORDS+ words
            (default 6) is filed as content (type "content", so neither cut nor in Other) and is no divider

Usage: HEADLINE=cover,headline SEEK_HOME=... python docs/experiments/2026-12-04/headline_patch.py \
    docs/experiments/2026-12-01/replay.py DATASETS '[{}]'   (or around .venv/bin/seek eval run --suite slides)
"""
import os
import runpy
import sys

import eval.slides_run as sr
import slidesearch.roles as roles

modes = set(filter(None, os.environ.get("HEADLINE", "").split(",")))
words = int(os.environ.get("HEADLINE_WORDS", "6"))
orig_role = roles.slide_role


def slide_role(title, text, number, first_number, deck_slides, content_type="content"):
    if "cover" in modes and number == first_number and first_number > 1:
        # not a cover by position: read as if it were a later slide
        first_number -= 1
    role = orig_role(title, text, number, first_number, deck_slides, content_type)
    if "headline" in modes and role == "divider" and content_type != "section_header" and len(title.split()) >= words:
        return ""
    return role


roles.slide_role = slide_role
orig_build = sr.build_library


def build_library(dataset, embedder_name, lexical=None):
    lib, emb = orig_build(dataset, embedder_name, lexical)
    if "headline" in modes:
        first = {}
        for d, n in zip(lib.deck_ids, lib.slide_numbers, strict=True):
            first[d] = min(first.get(d, n), n)
        table, changed = lib.section_table, 0
        for i, ct in enumerate(lib.content_types):
            if ct == "title" and lib.slide_numbers[i] != first[lib.deck_ids[i]] and len(lib.titles[i].split()) >= words:
                lib.content_types[i] = "content"
                lib.sections[i] = table.index[table.section_in_deck(
                    table.section_for("content", lib.titles[i], lib.texts[i]), lib.deck_names[i])]
                changed += 1
        print(f"[headline] {dataset.name}: {changed} title slides filed as content", file=sys.stderr)
    return lib, emb


sr.build_library = build_library
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
