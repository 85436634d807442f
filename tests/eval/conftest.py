import pytest

from eval.gates import zero_result_gate
from eval.runs import Card, DatasetResult, ItemResult, RunRecord


def make_dataset(name, scores, *, suite="slides", mode="retrieve", verdicts=None, zero=(), sources=None):
    items = []
    for i, score in enumerate(scores):
        qid = f"q{i}"
        cards = []
        if verdicts:
            cards = [Card(id=f"{qid}-{k}", section=section, score=1.0 - k / 10, verdict=v, judge="label")
                     for k, (v, section) in enumerate(verdicts)]
        items.append(ItemResult(id=qid, query=f"query {i}", n_results=0 if qid in zero else 10, score=score,
                                metrics={"ndcg@10": score, "mrr@10": score, "recall@10": score}, cards=cards))
    counts, wrong = {}, {}
    for item in items:
        for c in item.cards:
            counts[c.verdict] = counts.get(c.verdict, 0) + 1
            if c.verdict == "wrong":
                wrong[c.section] = wrong.get(c.section, 0) + 1
    mean = sum(scores) / len(scores)
    summary = {"ndcg@10": mean, "mrr@10": mean, "recall@10": mean}
    per_group = {}
    if suite == "turns":
        summary = {"technical_score": mean, "hr10": mean, "mrr": mean, "mttc": 5.0, "efficiency": 0.6}
        per_group = {"buying": {"n": 1.0, "hr10": mean, "mrr": mean, "mttc": 5.0}}
    return DatasetResult(
        name=name, suite=suite, mode=mode, primary="ndcg@10", sources=sources or {f"{name}.txt": "ab" * 32},
        summary=summary, verdicts=counts, wrong_by_section=wrong, per_group=per_group, items=items,
        gates=[zero_result_gate({i.id: i.n_results for i in items})],
        trace={"query": "customer analytics",
               "stages": [{"stage": "prefilter", "in": 6000, "out": 2100}, {"stage": "floor", "in": 80, "out": 34}]},
    )


def make_run(run_id, datasets):
    return RunRecord(run_id=run_id, created="2026-11-29T19:00:00+00:00", suite="all", code_version="f" * 40,
                     code_dirty=False, config={"name": run_id}, settings={"embedder": "fast", "llm": "offline",
                     "judge_llm": "offline"}, datasets={d.name: d for d in datasets})


@pytest.fixture(name="make_dataset")
def _make_dataset_fixture():
    return make_dataset


@pytest.fixture(name="make_run")
def _make_run_fixture():
    return make_run


@pytest.fixture
def sample_runs():
    verdicts = [("correct", "Case Studies"), ("wrong", "Case Studies"), ("50-50", "Data & Analytics"),
                ("wrong", "Capabilities & Overview")]
    base = make_run("20261129-190000", [
        make_dataset("generated", [0.6] * 30, mode="pipeline", verdicts=verdicts),
        make_dataset("cranfield", [0.4] * 30),
        make_dataset("public-sample", [0.9] * 30, suite="turns", mode="simulator"),
    ])
    cand = make_run("20261129-190500", [
        make_dataset("generated", [0.7] * 30, mode="pipeline", verdicts=verdicts[:1] * 3 + verdicts[3:]),
        make_dataset("cranfield", [0.4] * 30),
        make_dataset("public-sample", [0.9] * 30, suite="turns", mode="simulator"),
    ])
    return base, cand
