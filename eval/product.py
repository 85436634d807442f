"""The product measure: what a rep sees for one brief, judged against the best answer the deck cap allows.

Pure functions over plain data (ids, grades, deck names), so every figure can be checked by hand.

Per brief, the shown cards are the search_v2 response's cards flattened by score (the engine's
own global order). The figures:

- ``product_ndcg@10``: DCG@10 of the shown cards over the DCG of the **deck-capped ideal**: the
  judged grades sorted best first, taking at most ``cap`` slides from one deck (the engine's
  global deck cap, 2 by default), so a perfect answer that obeys the product's own rule scores 1; a
  deck's cards past the cap (the guaranteed slot may add one) and repeats gain 0, so none scores above 1.
  Gain is 2^g - 1 (``exponential``, the TREC form ``eval.metrics`` uses) or g (``linear``); the
  dataset says which. Undefined (left out) for a brief with no relevant slide.
- ``precision``: shown cards with grade >= 1 over the shown cards that are judged. With a judged
  pool, a card outside it is *unjudged* and left out of the denominator (never silently wrong);
  its count is always reported beside it. Without a pool (only a graded list), an unlisted card
  is taken as gain 0, counted in the denominator, and reported as *not in the graded list*.
- ``cards_shown``, ``zero_result`` (1 when nothing was shown), ``unjudged`` / ``unjudged_share``
  (or ``ungraded`` / ``ungraded_share`` without a pool) and, for a brief with no answer,
  ``coverage_note`` and ``any_note`` (1 when the response said so).

A reference ranking (plain dense top-10, the engine's retrieve top-10) obeys no deck cap, so
against the deck-capped ideal it would score above 1 whenever it stacks good slides of one deck
(on realdecks plain MiniLM averaged 1.018 that way: a figure that ranks nothing). Each is read
two ways instead, both at most 1: ``<name>_ndcg@10``, its top 10 against its own best (the
uncapped ideal of every judged grade), and ``<name>_capped_ndcg@10``, its ranking walked with
the deck cap (``cap_ranking``) against the deck-capped ideal, the product's own yardstick.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import Literal

GainForm = Literal["exponential", "linear"]
NDCG_DEPTH = 10
IDEAL_DECK_CAP = 2
"""The product's rule, one deck at most twice (``SearchConfig.global_deck_cap``'s default, the seed's 2).
Fixed here rather than read from the run's config: a candidate that changes its cap must not move the ruler."""
MEASURE = (f"product v2: cards by score, nDCG@10 vs deck-capped ideal (cap {IDEAL_DECK_CAP}; a deck's cards past it "
           "and repeats gain 0), unjudged kept apart")
"""Recorded with a dataset's source hashes, so a run scored this way is never paired with one scored otherwise."""
REFERENCES = ("minilm", "retrieve")
ANSWERED, PRECISION, SHOWN = "product_ndcg@10", "precision", "cards_shown"


def gain(grade: float, form: GainForm) -> float:
    """A grade's gain: 2^g - 1 (exponential) or g (linear); both give 0 for grade 0."""
    if form == "exponential":
        return 2.0**grade - 1.0
    if form == "linear":
        return float(grade)
    raise ValueError(f"unknown gain form {form!r}; choose exponential or linear")


def dcg(grades_in_rank_order: Sequence[float], form: GainForm, k: int = NDCG_DEPTH) -> float:
    """DCG@k with a log2(rank + 1) discount."""
    return float(sum(gain(g, form) / math.log2(rank + 1) for rank, g in enumerate(grades_in_rank_order[:k], start=1)))


def cap_ranking(ranked: Sequence[str], deck_of: Mapping[str, str], cap: int) -> list[str]:
    """``ranked`` walked best first, skipping an id once its deck has appeared ``cap`` times (no deck: kept)."""
    seen: dict[str, int] = {}
    out = []
    for doc in ranked:
        deck = deck_of.get(doc)
        if deck is None:
            out.append(doc)
            continue
        if seen.get(deck, 0) < cap:
            seen[deck] = seen.get(deck, 0) + 1
            out.append(doc)
    return out


def deck_capped_ideal(grades: Mapping[str, float], deck_of: Mapping[str, str], cap: int) -> list[float]:
    """The best grades an answer obeying the deck cap can show, best first (grade-0 slides dropped).

    Taking the best ``cap`` of each deck and then the best overall is optimal: any capped answer
    can swap a slide for a better one of the same deck until it holds each deck's best.
    """
    if cap < 1:
        raise ValueError(f"the deck cap must be at least 1, got {cap}")
    ordered = sorted((doc for doc, g in grades.items() if g > 0), key=lambda d: (-grades[d], d))
    return [grades[doc] for doc in cap_ranking(ordered, deck_of, cap)]


def ndcg_against(
    ranked: Sequence[str], grades: Mapping[str, float], ideal: Sequence[float], form: GainForm, k: int = NDCG_DEPTH,
) -> float:
    """nDCG@k of ``ranked`` against the ideal grades ``ideal`` (best first; an id without a grade gains 0)."""
    return _ndcg([grades.get(doc, 0.0) for doc in ranked], ideal, form, k)


def _ndcg(grades_in_rank_order: Sequence[float], ideal: Sequence[float], form: GainForm, k: int) -> float:
    best = dcg(ideal, form, k)
    if best == 0:
        raise ValueError("nDCG is undefined for a brief with no relevant slide")
    return dcg(grades_in_rank_order, form, k) / best


def within_cap_grades(
    ranked: Sequence[str], grades: Mapping[str, float], deck_of: Mapping[str, str], cap: int,
) -> list[float]:
    """Each ranked id's grade, or 0 for a repeat of an id already ranked and for a deck's slides past its ``cap``-th.

    The deck-capped ideal holds at most ``cap`` slides of a deck, so a slide past them (the guaranteed
    slot of 14b may splice in a third) or a slide counted twice (a verified row beside the slide it
    stands for) gains nothing: otherwise an answer could score above the ideal (product v1 gave 1.13
    and 1.57 on three briefs), a figure that ranks nothing.
    """
    seen: set[str] = set()
    per_deck: dict[str, int] = {}
    out = []
    for doc in ranked:
        deck = deck_of.get(doc)
        repeat = doc in seen
        seen.add(doc)
        if deck is not None:
            per_deck[deck] = per_deck.get(deck, 0) + 1
        out.append(0.0 if repeat or (deck is not None and per_deck[deck] > cap) else grades.get(doc, 0.0))
    return out


def capped_ndcg(
    ranked: Sequence[str], grades: Mapping[str, float], deck_of: Mapping[str, str], cap: int,
    form: GainForm, k: int = NDCG_DEPTH,
) -> float:
    """nDCG@k of ``ranked`` against the deck-capped ideal, a deck's slides past its ``cap``-th gaining 0."""
    return _ndcg(within_cap_grades(ranked, grades, deck_of, cap), deck_capped_ideal(grades, deck_of, cap), form, k)


def _unjudged_key(judged: Collection[str] | None) -> str:
    return "unjudged" if judged is not None else "ungraded"


def shown_card_figures(
    shown: Sequence[str], grades: Mapping[str, float], judged: Collection[str] | None,
    deck_of: Mapping[str, str], cap: int, form: GainForm, notes: tuple[bool, bool] | None = None,
) -> dict[str, float]:
    """One brief's product figures (module docstring); ``notes`` = (coverage note given, any note given).

    ``judged`` is the pool of graded ids (grade 0 included) or None when only ``grades`` is known.
    """
    relevant = {doc for doc, g in grades.items() if g > 0}
    pool = set(judged) if judged is not None else None
    outside = [doc for doc in shown if (doc not in pool if pool is not None else doc not in grades)]
    counted = [doc for doc in shown if pool is None or doc in pool]
    key = _unjudged_key(judged)
    figures = {
        SHOWN: float(len(shown)),
        "zero_result": float(not shown),
        key: float(len(outside)),
        f"{key}_share": len(outside) / len(shown) if shown else 0.0,
        "relevant_shown": float(sum(doc in relevant for doc in shown)),
        "judged_shown": float(len(counted)),
    }
    if counted:
        figures[PRECISION] = sum(doc in relevant for doc in counted) / len(counted)
    if relevant:
        figures[ANSWERED] = capped_ndcg(shown, grades, deck_of, cap, form)
    elif notes is not None:
        figures["coverage_note"], figures["any_note"] = float(notes[0]), float(notes[1])
    return figures


def reference_figures(
    name: str, ranked: Sequence[str], grades: Mapping[str, float], judged: Collection[str] | None,
    deck_of: Mapping[str, str], cap: int, form: GainForm,
) -> dict[str, float]:
    """A reference ranker on one answerable brief (module docstring): nDCG@10 of its top 10 against the
    uncapped ideal, of its deck-capped ranking against the capped ideal, and how many of its top 10 are
    outside the pool (or the graded list)."""
    top = list(ranked[:NDCG_DEPTH])
    capped = cap_ranking(ranked, deck_of, cap)[:NDCG_DEPTH]
    pool = set(judged) if judged is not None else set(grades)
    uncapped_ideal = sorted((g for g in grades.values() if g > 0), reverse=True)
    return {
        f"{name}_ndcg@10": ndcg_against(top, grades, uncapped_ideal, form),
        f"{name}_capped_ndcg@10": capped_ndcg(capped, grades, deck_of, cap, form),
        f"{name}_{_unjudged_key(judged)}@10": float(sum(doc not in pool for doc in top)),
    }


def summarise(briefs: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Figures over briefs: each per-brief figure averaged over the briefs that have it, plus totals.

    ``n`` briefs, ``answered`` (briefs with an nDCG), ``zero_results`` (count), and for the cards:
    total shown, total unjudged (or not in the graded list) and its share of all shown cards, and
    ``precision_pooled``: relevant shown cards over all judged shown cards (``precision`` is the
    per-brief mean). ``product_minus_<ref>`` is the difference of the two means.
    """
    out: dict[str, float] = {"n": float(len(briefs)), "answered": float(sum(ANSWERED in b for b in briefs))}
    keys = sorted({k for b in briefs for k in b})
    for key in keys:
        values = [b[key] for b in briefs if key in b]
        out[key] = round(sum(values) / len(values), 6)
    for ref in REFERENCES:
        if ANSWERED in out and f"{ref}_ndcg@10" in out:
            out[f"product_minus_{ref}"] = round(out[ANSWERED] - out[f"{ref}_ndcg@10"], 6)
    out["zero_results"] = float(sum(b.get("zero_result", 0.0) for b in briefs))
    shown = sum(b.get(SHOWN, 0.0) for b in briefs)
    out["shown_total"] = shown
    judged = sum(b.get("judged_shown", 0.0) for b in briefs)
    if judged:
        out["precision_pooled"] = round(sum(b.get("relevant_shown", 0.0) for b in briefs) / judged, 6)
    for key in ("unjudged", "ungraded"):
        if any(key in b for b in briefs):
            total = sum(b.get(key, 0.0) for b in briefs)
            out[f"{key}_total"] = total
            out[f"{key}_share"] = round(total / shown, 6) if shown else 0.0
    return out


def summarise_by_kind(briefs: Sequence[tuple[str, Mapping[str, float]]]) -> dict[str, dict[str, float]]:
    """``summarise`` per kind of brief (kinds in alphabetical order; an empty kind is ``-``)."""
    kinds = sorted({kind or "-" for kind, _ in briefs})
    return {kind: summarise([f for k, f in briefs if (k or "-") == kind]) for kind in kinds}


TARGETS = (
    ("product − plain MiniLM nDCG@10", "product_minus_minilm", 0.10),
    ("precision of shown cards", PRECISION, 0.6),
)
"""Issue #17's done-when figures for a product dataset (each at least its bound), plus zero results = 0."""
SLIDEVQA_MRR_FLOOR = 0.890
"""Issue #17: SlideVQA's MRR@10 (factoid questions, ``retrieve``) must not fall below this."""


def target_checks(dataset: str, summary: Mapping[str, float]) -> list[tuple[str, float, bool]]:
    """(what, measured value, met) for every issue #17 target ``summary`` has figures for."""
    checks = [(f"{label} ≥ {bound:g}", summary[key], summary[key] >= bound)
              for label, key, bound in TARGETS if key in summary]
    if "zero_results" in summary and ANSWERED in summary:
        checks.append(("zero-result briefs = 0", summary["zero_results"], summary["zero_results"] == 0))
    if dataset == "slidevqa" and "mrr@10" in summary:
        checks.append((f"SlideVQA MRR@10 ≥ {SLIDEVQA_MRR_FLOOR:g}", summary["mrr@10"],
                       summary["mrr@10"] >= SLIDEVQA_MRR_FLOOR))
    return checks


PRODUCT_HEADLINE = ("product_ndcg@10", "minilm_ndcg@10", "retrieve_ndcg@10", "product_minus_minilm", "precision",
                    "precision_pooled", "cards_shown", "zero_results", "unjudged_total", "unjudged_share", "ungraded_total", "ungraded_share")
"""The summary figures a run's one-line view shows for a product dataset."""
BY_KIND_COLUMNS = (
    ("briefs", "n"), ("answer nDCG@10", ANSWERED), ("MiniLM", "minilm_ndcg@10"),
    ("MiniLM capped", "minilm_capped_ndcg@10"), ("retrieve", "retrieve_ndcg@10"),
    ("retrieve capped", "retrieve_capped_ndcg@10"), ("precision", PRECISION),
    ("precision pooled", "precision_pooled"), ("cards shown", SHOWN),
    ("zero", "zero_results"), ("unjudged", "unjudged_total"), ("not in graded list", "ungraded_total"),
    ("coverage note", "coverage_note"), ("any note", "any_note"),
)
_COUNTS = frozenset({"n", "zero_results", "unjudged_total", "ungraded_total"})


def by_kind_table(
    summary: Mapping[str, float], per_kind: Mapping[str, Mapping[str, float]]
) -> tuple[list[str], list[list[str]]]:
    """Header and formatted rows (one per kind, then ``all``) of the product figures; blank where undefined.

    Only the columns some row has are kept, so a set without a pool shows "not in graded list" and
    one with a pool shows "unjudged".
    """
    rows = {**per_kind, "all": summary}
    columns = [(title, key) for title, key in BY_KIND_COLUMNS if any(key in f for f in rows.values())]
    body = [[kind, *("" if key not in f else f"{f[key]:.0f}" if key in _COUNTS else f"{f[key]:.3f}"
                     for _, key in columns)] for kind, f in rows.items()]
    return ["kind", *(title for title, _ in columns)], body
