"""#17 experiment: in a topical brief (07a's brief: not a factoid question, at most 8 content words), a single
rare word is a name only when the encoder's vocabulary lacks it as one word (an invented or foreign name:
"initech" -> in ##ite ##ch) or the brief writes it with a capital past its first word. A paraphrase's
"electricity", "car", "instead" are rare in an 823-slide library (T = 2) but are not names.
Phrases and person names are kept as they are.

Usage: BRIEFWORDS=1 SEEK_HOME=... python docs/experiments/2026-12-02/brief_words_patch.py docs/experiments/2026-12-01/replay.py DATASETS '[...]'
"""
import os
import re
import runpy
import sys

from tokenizers import Tokenizer

from core.embed import TOKENIZER_PATH
from core.text import ENGLISH_STOPWORDS, asks_for_a_fact, tokenize
from slidesearch.pipeline.query import names

VOCAB = set(Tokenizer.from_file(str(TOKENIZER_PATH)).get_vocab())
_WORD = re.compile(r"[^\W\d_][\w'’.\-]*", re.UNICODE)
orig_rare_words = names.rare_words


def is_brief(angle: str) -> bool:
    return not asks_for_a_fact(angle) and len(tokenize(angle, ENGLISH_STOPWORDS)) <= 8


def capitalised(angle: str) -> set[str]:
    words = _WORD.findall(angle)
    return {w.lower().strip(".'’-") for w in words[1:] if w[:1].isupper()}


def rare_words(angle, table, threshold):
    found = orig_rare_words(angle, table, threshold)
    if not is_brief(angle):
        return found
    caps = capitalised(angle)
    return [w for w in found if w not in VOCAB or w in caps]


if os.environ.get("BRIEFWORDS"):
    names.rare_words = rare_words
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
