import json
import subprocess
import sys
from pathlib import Path

import pytest

from tenturns.agents.base import BaseAgent
from tenturns.evaluate import SessionResult, evaluate_agent, metric_summary, technical_score

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def techjam(shared_data):
    return shared_data / "techjam"


@pytest.fixture(scope="module")
def public_rows(techjam):
    return [json.loads(line) for line in (techjam / "public_set.jsonl").read_text(encoding="utf-8").splitlines()]


def _first(rows, scenario, n=1):
    return [r for r in rows if r["scenario_type"] == scenario][:n]


class ScriptedAgent(BaseAgent):
    """Shows the target at ``rank`` from ``turn`` on; a fixed question; optional tokens."""

    def __init__(self, catalog_path, *, targets, turn=1, rank=1, ask=None, usage=None):
        super().__init__(catalog_path)
        self.targets, self.turn, self.rank, self.ask, self.usage = targets, turn, rank, ask, usage
        self.current = None
        self.seen_messages = []

    def reset(self, session_id, user_profile):
        super().reset(session_id, user_profile)
        self.current = None

    def respond(self, session_id, user_message, turn, top_k=10):
        self.session(session_id)
        self.seen_messages.append(user_message)
        fillers = [p.parent_asin for p in self.catalog.products if p.parent_asin not in self.targets][: self.rank - 1]
        recs = [*fillers, self.targets[0]] if turn >= self.turn else fillers
        out = {"message": "ok", "ask_attribute": self.ask, "recommendations": [{"parent_asin": a} for a in recs]}
        if self.usage is not None:
            out["usage"] = self.usage
        return out


def _factory(**kwargs):
    def build(catalog_path):
        return ScriptedAgent(catalog_path, **kwargs)
    return build


class TestMetrics:
    def test_a_miss_counts_eleven_turns(self):
        results = [
            SessionResult(sample_id="a", scenario_type="buying", target="x", hit=True, first_hit_turn=2,
                          best_rank=2, reciprocal_rank=0.5),
            SessionResult(sample_id="b", scenario_type="buying", target="y", hit=False, first_hit_turn=None,
                          best_rank=None, reciprocal_rank=0.0),
        ]
        summary = metric_summary(results)
        assert (summary.hr10, summary.mrr, summary.mttc) == (0.5, 0.25, 6.5)

    def test_score_uses_rounded_metrics_and_is_rounded_to_six_decimals(self):
        efficiency, score = technical_score(0.125, 0.068034, 9.81)
        assert efficiency == pytest.approx(0.119)
        assert score == 0.10671

    def test_efficiency_is_clamped(self):
        assert technical_score(1.0, 1.0, 0.5)[0] == 1.0
        assert technical_score(0.0, 0.0, 11.0)[0] == 0.0


class TestEvaluateAgent:
    def test_hit_at_rank_three_on_turn_two(self, techjam, public_rows):
        rows = _first(public_rows, "buying", 2)
        targets = [r["ground_truth"]["parent_asin"] for r in rows]
        report = evaluate_agent(_factory(targets=targets[:1], turn=2, rank=3), techjam / "catalog_sample.jsonl", rows[:1])
        assert (report.hr10, report.mrr, report.mttc) == (1.0, 0.333333, 2.0)
        assert report.per_session[0].best_rank == 3
        assert report.technical_score == round(0.5 + 0.3 * 0.333333 + 0.2 * 0.9, 6)

    def test_progress_is_called_once_per_session_after_the_build(self, techjam, public_rows):
        rows = _first(public_rows, "browsing", 3)
        calls = []
        evaluate_agent(_factory(targets=["x"], turn=99), techjam / "catalog_sample.jsonl", rows,
                       progress=lambda stage, done, total: calls.append((stage, done, total)))
        assert calls == [("build", 0, 1), ("build", 1, 1), ("sessions", 0, 3), ("sessions", 1, 3),
                         ("sessions", 2, 3), ("sessions", 3, 3)]

    def test_a_session_that_never_hits_counts_eleven(self, techjam, public_rows):
        rows = _first(public_rows, "browsing", 1)
        report = evaluate_agent(_factory(targets=["not-the-target"], turn=99), techjam / "catalog_sample.jsonl", rows)
        assert (report.hr10, report.mrr, report.mttc, report.technical_score) == (0.0, 0.0, 11.0, 0.0)

    def test_hits_before_the_override_turn_do_not_count(self, techjam, public_rows):
        row = next(r for r in public_rows if r["sample_id"] == "public_0013")  # override drawn at turn 4
        target = row["ground_truth"]["parent_asin"]
        report = evaluate_agent(_factory(targets=[target], turn=1), techjam / "catalog_sample.jsonl", [row])
        assert report.per_session[0].first_hit_turn == 4

    def test_raising_and_garbage_agents_get_empty_turns(self, techjam, public_rows):
        rows = _first(public_rows, "buying", 3)

        class Flaky(BaseAgent):
            def respond(self, session_id, user_message, turn, top_k=10):
                if turn == 1:
                    raise RuntimeError("boom")
                if turn == 2:
                    return ["not", "a", "dict"]
                if turn == 3:
                    return {"message": None, "recommendations": [{"parent_asin": rows[0]["ground_truth"]["parent_asin"]}]}
                return {"message": "x", "ask_attribute": 5, "recommendations": "garbage"}

        report = evaluate_agent(Flaky, techjam / "catalog_sample.jsonl", rows)
        assert report.hr10 == 0.0 and report.n_sessions == 3

    def test_token_totals_count_only_non_negative_integers(self, techjam, public_rows):
        rows = _first(public_rows, "browsing", 2)
        usage = {"prompt_tokens": 7, "completion_tokens": -1}
        report = evaluate_agent(_factory(targets=["none"], turn=99, usage=usage), techjam / "catalog_sample.jsonl", rows)
        assert (report.prompt_tokens, report.completion_tokens) == (7 * 10 * 2, 0)

    def test_per_scenario_metrics_and_provenance(self, techjam):
        report = evaluate_agent("baseline", techjam / "catalog_sample.jsonl", techjam / "public_set.jsonl")
        assert {name: m.n_sessions for name, m in report.per_scenario.items()} == {
            "boundary": 10, "browsing": 80, "buying": 80, "intent_override": 30}
        assert report.sessions_sha256 == "571359a8a69014c43fc30d39c996c4a28e875dccc249dffc707358757beb16c0"
        assert report.catalog_sha256 == "4ab047be3e9b3f9034d1674eccbceae5d29c5b8d15fa37324b48c0573821f54e"
        assert report.prompt_tokens == report.completion_tokens == 0

    def test_session_may_carry_its_own_intent_card_and_behavior(self, techjam, public_rows):
        row = {**_first(public_rows, "browsing")[0],
               "intent_card": {"target_category": "t", "hard_constraints": ["alpha", "beta"], "soft_preferences": ["gamma"]},
               "behavior": {"scenario_type": "browsing"}}
        agent = ScriptedAgent(techjam / "catalog_sample.jsonl", targets=["none"], turn=99, ask="other")
        evaluate_agent(agent, techjam / "catalog_sample.jsonl", [row])
        assert agent.seen_messages[1:3] == ["For that, what matters is: alpha; beta.", "For that, what matters is: gamma."]

    def test_traces_record_every_turn(self, techjam, public_rows, tmp_path):
        rows = _first(public_rows, "buying", 1)
        target = rows[0]["ground_truth"]["parent_asin"]
        evaluate_agent(_factory(targets=[target], turn=3, rank=2, ask="other"), techjam / "catalog_sample.jsonl", rows,
                       trace_dir=tmp_path)
        trace = json.loads((tmp_path / f"{rows[0]['sample_id']}.json").read_text(encoding="utf-8"))
        assert [t["turn"] for t in trace["turns"]] == [1, 2, 3]
        assert trace["turns"][0]["user_message"].startswith("I'm looking for")
        assert trace["turns"][1]["user_message"].startswith("For that, what matters is:")
        assert trace["turns"][2]["target_rank"] == 2 and trace["turns"][0]["target_rank"] is None
        assert trace["turns"][0]["ask_attribute"] == "other"

    def test_unknown_target_is_a_clear_error(self, techjam):
        row = {"sample_id": "z", "scenario_type": "buying", "ground_truth": {"parent_asin": "NOPE"}}
        with pytest.raises(ValueError, match="NOPE is not in the catalog"):
            evaluate_agent("baseline", techjam / "catalog_sample.jsonl", [row])


class TestReproducibility:
    def test_two_processes_agree_to_six_decimals(self, techjam, public_rows, tmp_path):
        subset = tmp_path / "subset.jsonl"
        subset.write_text("".join(json.dumps(r) + "\n" for r in public_rows[::5]), encoding="utf-8")
        code = (
            "import json, sys; from tenturns.evaluate import evaluate_agent; "
            "r = evaluate_agent('baseline', sys.argv[1], sys.argv[2]); "
            "print(json.dumps(r.model_dump(exclude={'wall_seconds', 'build_seconds'})))"
        )
        runs = [
            subprocess.run([sys.executable, "-c", code, str(techjam / "catalog_sample.jsonl"), str(subset)],
                           cwd=REPO, capture_output=True, text=True, check=True, timeout=120).stdout
            for _ in range(2)
        ]
        assert runs[0] == runs[1]
        assert json.loads(runs[0])["n_sessions"] == 40
