"""Paired comparison of two stored runs, dataset by dataset, ending in the agreement gate's verdict."""

from __future__ import annotations

from pydantic import BaseModel, Field

from eval.gates import AgreementVerdict, PairedDifference, agreement_gate, paired_bootstrap
from eval.runs import RunRecord


class DatasetComparison(BaseModel):
    """One dataset measured by both runs."""

    name: str
    primary: str
    comparable: bool
    note: str = ""
    summary_delta: dict[str, float] = Field(default_factory=dict)
    paired: PairedDifference | None = None
    candidate_gates_passed: bool = True


class Comparison(BaseModel):
    """Baseline run A against candidate run B."""

    baseline: str
    candidate: str
    datasets: list[DatasetComparison]
    only_in_baseline: list[str]
    only_in_candidate: list[str]
    verdict: AgreementVerdict


def compare_runs(baseline: RunRecord, candidate: RunRecord, metric: str | None = None) -> Comparison:
    """Pair per-item scores on every shared dataset and apply the cross-dataset agreement gate.

    ``metric`` pairs another per-item value instead of each dataset's primary score (an
    item metric such as ``mrr@10``, or ``correct_share`` / ``not_wrong_share`` of a
    pipeline dataset's judged cards); a dataset without it is reported, not paired.
    A dataset whose source hashes differ between the runs is reported but not paired:
    the same item ids over different data would compare different things.
    """
    rows: list[DatasetComparison] = []
    paired: dict[str, PairedDifference] = {}
    blocked: list[str] = []
    for name in sorted(set(baseline.datasets) & set(candidate.datasets)):
        a, b = baseline.datasets[name], candidate.datasets[name]
        delta = {k: b.summary[k] - a.summary[k] for k in a.summary if k in b.summary}
        if a.sources != b.sources:
            rows.append(DatasetComparison(name=name, primary=a.primary, comparable=False,
                                          note="dataset hashes differ", summary_delta=delta))
            continue
        if a.error or b.error or not a.items or not b.items:
            rows.append(DatasetComparison(name=name, primary=a.primary, comparable=False,
                                          note=b.error or a.error or "no per-item results", summary_delta=delta))
            if b.error:
                blocked.append(name)
            continue
        values_a, values_b = a.item_values(metric), b.item_values(metric)
        if not values_a or not values_b:
            rows.append(DatasetComparison(name=name, primary=metric or a.primary, comparable=False,
                                          note=f"no per-item {metric}", summary_delta=delta))
            continue
        diff = paired_bootstrap(values_a, values_b)
        paired[name] = diff
        if not b.passed:
            blocked.append(name)
        rows.append(DatasetComparison(name=name, primary=metric or a.primary, comparable=True, summary_delta=delta,
                                      paired=diff, candidate_gates_passed=b.passed))
    return Comparison(
        baseline=baseline.run_id, candidate=candidate.run_id, datasets=rows,
        only_in_baseline=sorted(set(baseline.datasets) - set(candidate.datasets)),
        only_in_candidate=sorted(set(candidate.datasets) - set(baseline.datasets)),
        verdict=agreement_gate(paired, blocked=blocked),
    )
