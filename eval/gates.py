"""The harness's gates: zero results, reproducibility, and cross-dataset agreement by paired bootstrap.

Zero-result gate (slides): a run fails if any query returns no card or no ranked
document. The seed's reverted hard filter looked fine on percentages and still
left 3 queries empty; the standing rule makes that the worst outcome, so the
gate is absolute rather than a share.

Reproducibility gate (turns): the simulator's official numbers from two runs of
the same agent on the same data must agree to six decimals (the precision the
official evaluator reports).

Agreement gate: a candidate is accepted over a baseline only if on every dataset
it does not lose and on at least one it wins. Per dataset the per-item primary
scores are paired by item id and the mean difference (candidate − baseline) is
bootstrapped: ``BOOTSTRAP_RESAMPLES`` = 1,000 resamples of the items with
replacement, fixed seed ``BOOTSTRAP_SEED`` (any fixed value; this is the seed trace's
date) so a comparison prints the same interval every time, percentile 95% interval.

- *loss*: the interval's upper bound is below 0. Any reliable loss rejects, however
  small: the seed's lesson is that a sweep "improving" on one set can be an artefact
  of that set, so a change must not cost anything measurable elsewhere.
- *win*: the interval's lower bound is above 0 **and** the mean gain is at least
  ``MIN_EFFECT`` (0.005 on a 0-1 metric). The interval does the noise work; the floor
  only stops a negligible gain that a large set can detect from carrying a change. On
  SlideVQA (1,640 questions) the 95% interval of an nDCG@10 difference measured here was
  about ±0.011 wide, so gains under half a point clear zero only on the largest sets; the
  seed itself refused to call a +0.8-point topline move an improvement.
- otherwise *tie* (within the noise band the interval describes).
The asymmetry is deliberate: it is easier to be rejected than accepted.

What is paired is each dataset's primary per-item score. For a labelled pipeline dataset
(realdecks, slidevqa-topical-cards, generated) that is the product measure, ``product_ndcg@10``
of the shown cards against the deck-capped ideal (``eval.product``); a brief with no answer has
none and is not paired. The gate reads one figure per dataset; ``seek eval compare --metric
precision`` pairs the shown cards' precision instead, and cards shown, zero results and unjudged
counts are in every comparison's summary deltas. Runs scored by a different measure carry
different ``sources`` (the measure is recorded there) and are never paired.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20260922
MIN_EFFECT = 0.005
REPRO_DECIMALS = 6


class GateResult(BaseModel):
    """A gate's verdict with the reason in words and the evidence behind it."""

    name: str
    passed: bool
    detail: str
    offenders: list[str] = []


def zero_result_gate(result_counts: Mapping[str, int]) -> GateResult:
    """Fail when any query id maps to zero results."""
    empty = sorted(qid for qid, count in result_counts.items() if count == 0)
    if empty:
        return GateResult(
            name="zero-result", passed=False, offenders=empty,
            detail=f"{len(empty)} of {len(result_counts)} queries returned zero results",
        )
    return GateResult(name="zero-result", passed=True, detail=f"all {len(result_counts)} queries returned results")


def reproducibility_gate(first: Mapping[str, float], second: Mapping[str, float]) -> GateResult:
    """Pass when every official metric agrees between two runs once rounded to six decimals."""
    keys = sorted(set(first) | set(second))
    differing = [
        k for k in keys
        if k not in first or k not in second
        or round(float(first[k]), REPRO_DECIMALS) != round(float(second[k]), REPRO_DECIMALS)
    ]
    if differing:
        shown = ", ".join(f"{k}: {first.get(k)} vs {second.get(k)}" for k in differing)
        return GateResult(name="reproducibility", passed=False, offenders=differing, detail=f"not reproducible: {shown}")
    return GateResult(name="reproducibility", passed=True, detail=f"{len(keys)} metrics identical to 6 decimals")


class PairedDifference(BaseModel):
    """Paired bootstrap of candidate − baseline over the items both runs scored."""

    n: int
    baseline_mean: float
    candidate_mean: float
    diff: float
    ci_low: float
    ci_high: float
    outcome: Literal["win", "loss", "tie"]


def paired_bootstrap(
    baseline: Mapping[str, float],
    candidate: Mapping[str, float],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
    min_effect: float = MIN_EFFECT,
) -> PairedDifference:
    """Bootstrap the mean paired difference over the item ids present in both runs."""
    common = sorted(set(baseline) & set(candidate))
    if not common:
        raise ValueError("the two runs share no items to pair")
    base = np.array([baseline[i] for i in common], dtype=np.float64)
    cand = np.array([candidate[i] for i in common], dtype=np.float64)
    diffs = cand - base
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(diffs), size=(resamples, len(diffs)))
    means = diffs[idx].mean(axis=1)
    low, high = (float(x) for x in np.percentile(means, [2.5, 97.5]))
    diff = float(diffs.mean())
    outcome: Literal["win", "loss", "tie"]
    if high < 0:
        outcome = "loss"
    elif low > 0 and diff >= min_effect:
        outcome = "win"
    else:
        outcome = "tie"
    return PairedDifference(
        n=len(common), baseline_mean=float(base.mean()), candidate_mean=float(cand.mean()),
        diff=diff, ci_low=low, ci_high=high, outcome=outcome,
    )


class AgreementVerdict(BaseModel):
    """The cross-dataset agreement gate over every dataset both runs measured."""

    accepted: bool
    detail: str
    per_dataset: dict[str, PairedDifference]


def agreement_gate(per_dataset: Mapping[str, PairedDifference], blocked: Sequence[str] = ()) -> AgreementVerdict:
    """Accept only with no loss anywhere, a win somewhere and no dataset blocked by another gate."""
    losses = sorted(name for name, d in per_dataset.items() if d.outcome == "loss")
    wins = sorted(name for name, d in per_dataset.items() if d.outcome == "win")
    if not per_dataset:
        accepted, detail = False, "no dataset in common"
    elif blocked:
        accepted, detail = False, f"candidate failed a gate on {', '.join(blocked)}"
    elif losses:
        accepted, detail = False, f"loses on {', '.join(losses)}"
    elif not wins:
        accepted, detail = False, "no win on any dataset (all within noise)"
    else:
        accepted, detail = True, f"wins on {', '.join(wins)}, no loss elsewhere"
    return AgreementVerdict(accepted=accepted, detail=detail, per_dataset=dict(per_dataset))
