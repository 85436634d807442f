import itertools
import statistics

import pytest

from eval.config import EvalConfig, TurnsConfig
from eval.dataset_types import TurnsDatasetInfo, source_file
from eval.turns_run import agent_options_model, run_turns_dataset, session_score, turns_cost


@pytest.fixture
def small_public(shared_data, tmp_path):
    techjam = shared_data / "techjam"
    sessions = tmp_path / "sessions.jsonl"
    with (techjam / "public_set.jsonl").open() as fh:
        sessions.write_text("".join(itertools.islice(fh, 24)))
    catalog = techjam / "catalog_sample.jsonl"
    return TurnsDatasetInfo(name="public-sample", catalog_path=str(catalog), sessions_path=str(sessions),
                            n_sessions=24, sources=[source_file(catalog), source_file(sessions)])


class TestSessionScore:
    def test_hit_on_turn_one_at_rank_one_scores_full(self):
        assert session_score(True, 1.0, 1) == pytest.approx(0.5 + 0.3 + 0.2)

    def test_miss_scores_zero(self):
        assert session_score(False, 0.0, None) == 0.0

    def test_late_hit_at_rank_two(self):
        assert session_score(True, 0.5, 6) == pytest.approx(0.5 + 0.15 + 0.2 * 0.5)


class TestRunTurnsDataset:
    def test_official_metrics_reproducible_and_session_scores_average_to_technical_score(self, small_public):
        result = run_turns_dataset(small_public, TurnsConfig(agent="baseline"))
        assert result.passed and result.gates[0].name == "reproducibility"
        assert result.summary["n_sessions"] == 24 and len(result.items) == 24
        mean = statistics.fmean(result.item_scores.values())
        assert round(mean, 6) == pytest.approx(result.summary["technical_score"], abs=2e-6)
        assert sum(m["n"] for m in result.per_group.values()) == 24
        assert result.llm == "offline" and result.usage.prompt_tokens == 0

    def test_stored_numbers_that_differ_fail_the_gate(self, small_public):
        stored = {"hr10": 0.0, "mrr": 0.0, "mttc": 11.0, "efficiency": 0.0, "technical_score": 0.0}
        result = run_turns_dataset(small_public, TurnsConfig(agent="baseline", reproducibility="stored"), stored)
        assert not result.passed and "stored run" in result.gates[0].detail

    def test_unknown_agent_is_a_clear_error(self, small_public):
        with pytest.raises(ValueError, match="baseline"):
            run_turns_dataset(small_public, TurnsConfig(agent="nope"))


def test_stored_reproducibility_reuses_the_previous_run(small_public, monkeypatch):
    from eval import suite

    monkeypatch.setattr(suite, "load_turns_dataset", lambda name: small_public)
    config = EvalConfig(turns=TurnsConfig(agent="baseline", reproducibility="stored"))
    first = suite.run_suite("turns", config, ["public-sample"])
    second = suite.run_suite("turns", config, ["public-sample"])
    assert first.passed and second.passed
    assert "two runs" in first.datasets["public-sample"].gates[0].detail
    assert "stored run" in second.datasets["public-sample"].gates[0].detail


class TestAgentOptions:
    def test_options_are_validated_into_the_agents_own_config(self, small_public):
        model = agent_options_model("tenturns")
        name = next(iter(model.model_fields))
        options = {name: model().model_dump(mode="json")[name]}
        result = run_turns_dataset(small_public, TurnsConfig(agent="tenturns", options=options))
        assert result.params["options"] == options and result.passed

    def test_unknown_option_is_an_error(self, small_public):
        with pytest.raises(ValueError, match="no_such_option"):
            run_turns_dataset(small_public, TurnsConfig(agent="tenturns", options={"no_such_option": 1}))

    def test_agent_without_a_config_takes_no_options(self, small_public):
        with pytest.raises(ValueError, match="takes no options"):
            run_turns_dataset(small_public, TurnsConfig(agent="baseline", options={"x": 1}))


class TestTurnsCost:
    def test_off_costs_nothing(self):
        assert turns_cost(1000, 1000) == 0.0

    def test_phase6_model_is_priced_at_list_price(self, monkeypatch):
        monkeypatch.setenv("TECHJAM_PHASE6_MODE", "anthropic:claude-haiku-4-5")
        from llm_adapters import estimate_cost

        assert turns_cost(2_000_000, 100_000) == pytest.approx(estimate_cost("anthropic:claude-haiku-4-5", 2_000_000, 100_000))

    def test_mode_one_uses_the_slides_llm(self, monkeypatch):
        monkeypatch.setenv("TECHJAM_PHASE6_MODE", "1")
        monkeypatch.setenv("SEEK_LLM", "anthropic:claude-haiku-4-5")
        assert turns_cost(1_000_000, 0) > 0
