"""#17 robustness: how many briefs of odd shapes get no card at all, on a real-deck library.

Briefs: every slide title of the library, random pairs of library words, titles with a typo, single
words, stop-word-only text, numbers, other scripts, long pasted paragraphs, and kind-of-slide asks.
Prints the count of zero-card answers and refusals per shape, and the first few of each.

Usage: SEEK_HOME=... python docs/experiments/2026-12-09/zero_fuzz.py DATASET
"""

from __future__ import annotations

import random
import sys
from collections import Counter, defaultdict

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.slides_run import _flatten, build_library, default_engine


def briefs(library, rng):
    titles = [t for t in library.titles if t.strip()]
    words = sorted({w for t in library.texts for w in t.lower().split() if w.isalpha() and len(w) > 3})
    out = []
    out += [("title", t) for t in rng.sample(titles, min(150, len(titles)))]
    out += [("pair", f"{rng.choice(words)} {rng.choice(words)}") for _ in range(100)]
    out += [("word", rng.choice(words)) for _ in range(60)]
    for t in rng.sample(titles, min(60, len(titles))):
        if len(t) > 4:
            i = rng.randrange(1, len(t) - 1)
            out.append(("typo", t[:i] + t[i + 1] + t[i] + t[i + 2:]))
    out += [("stop", s) for s in ("the of and", "what is it", "how to", "a", "we our us", "slides", "deck")]
    out += [("number", s) for s in ("2023", "18%", "$2.4M", "42", "Q3 2024 revenue")]
    out += [("script", s) for s in ("需要予測", "顧客分析の事例", "تحليل العملاء", "анализ оттока клиентов", "고객 이탈", "análisis de churn")]
    out += [("long", " ".join(rng.sample(library.texts, 1)[0].split()[:120])) for _ in range(20)]
    out += [("kind", s) for s in ("agenda slide", "a team slide", "our methodology", "results with numbers",
                                  "case study", "pricing", "thank you slide", "appendix", "contact details")]
    return out


def main() -> None:
    dataset = load_slides_dataset(sys.argv[1])
    config = SlidesConfig()
    library, _ = build_library(dataset, "minilm", config.lexical)
    engine = default_engine(library, config)
    rng = random.Random(0)
    zero, refused, total = defaultdict(list), defaultdict(list), Counter()
    cards = Counter()
    for shape, text in briefs(library, rng):
        total[shape] += 1
        try:
            response = engine.search_v2(text, top_per_group=config.top_per_group)
        except ValueError as exc:
            refused[shape].append((text[:60], str(exc)[:80]))
            continue
        n = len(_flatten(response))
        cards[shape] += n
        if n == 0:
            zero[shape].append(text[:80])
    for shape in total:
        print(f"{shape:7s} briefs {total[shape]:4d} zero {len(zero[shape]):3d} refused {len(refused[shape]):3d} "
              f"cards/brief {cards[shape] / max(1, total[shape] - len(refused[shape])):.1f}", zero[shape][:4], refused[shape][:2])


if __name__ == "__main__":
    main()
