"""#17 experiment: 06b's brief-words rule for questions too. In a factoid question (07a's plain blend) a single
rare word counts as a name only on the same terms as in a topical brief: MiniLM's WordPiece vocabulary lacks it
whole, the question capitalises it past its first word, or the slides write it as a name. Found on
"who is winning India's election on social media" (topical cards: "election" took Team & Credentials'
guaranteed place with a fraud deck's "MINIMUM SECURITY FEATURES") and "which jet is cheapest to fly on gas"
(realdecks-check: "gas" x1.2 lifted an EV slide over the airline's fuel-cost slide).

QWORDS=all: every angle is filtered (profile / bio / "who is" briefs still exempt as in the shipped rule);
QWORDS=noperson: the "who is" exemption also needs a capitalised word after the trigger.

Usage: QWORDS=all SEEK_HOME=... python docs/experiments/2026-12-03/question_words_patch.py SCRIPT ARGS...
"""
import os
import runpy
import sys

from slidesearch.pipeline.query import names

MODE = os.environ.get("QWORDS", "all")
_init = names.DetectNames.__init__


def _patched(self, view, rarity_threshold, brief=None):
    _init(self, view, rarity_threshold, (lambda angle: True) if brief is not None else None)


names.DetectNames.__init__ = _patched
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
