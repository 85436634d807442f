import pytest

import bench.turns_bench as turns_bench


@pytest.mark.integration
class TestBenchTurnsQuick:
    def test_every_agent_gets_build_and_run_figures_a_ratio_and_a_plot(self, tmp_path, monkeypatch, shared_data):
        monkeypatch.setattr(turns_bench, "QUICK_MAX_SESSIONS", 4)
        out = turns_bench.bench_turns(quick=True, out_dir=tmp_path)
        assert out["dataset"] == "public-sample"
        assert set(out["agents"]) == {"tenturns", "generic", "baseline"}
        for figures in out["agents"].values():
            assert figures["sessions"] == 4
            assert figures["sessions_per_s"] > 0 and figures["build_s"] > 0
            assert 0 < figures["build_share"] < 1
        assert set(out["sessions_per_s_vs_baseline"]) == {"tenturns", "generic"}
        assert "tenturns / baseline sessions/s" in out["headline"]
        assert (tmp_path / "turns_agents.png").stat().st_size > 2_000

    def test_a_failing_agent_is_named_and_the_others_still_run(self, tmp_path, monkeypatch, shared_data):
        monkeypatch.setattr(turns_bench, "AGENTS", ("nope", "baseline"))
        monkeypatch.setattr(turns_bench, "QUICK_MAX_SESSIONS", 2)
        out = turns_bench.bench_turns(quick=True, out_dir=tmp_path)
        assert list(out["agents"]) == ["baseline"]
        assert "--agent nope" in out["errors"]["nope"]
        assert "nope not measured" in out["headline"]

    def test_no_agent_measured_fails_the_section(self, tmp_path, monkeypatch, shared_data):
        monkeypatch.setattr(turns_bench, "AGENTS", ("nope",))
        with pytest.raises(RuntimeError, match="--agent nope"):
            turns_bench.bench_turns(quick=True, out_dir=tmp_path)
