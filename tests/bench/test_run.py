import json

import pytest

from bench.run import markdown_summary, run_benchmarks


class TestRunBenchmarks:
    def test_core_section_writes_figures_with_machine_info(self, tmp_path, monkeypatch):
        import bench.core_bench as core_bench

        monkeypatch.setattr(core_bench, "QUICK_DEDUP_SIZES", (200, 400))
        monkeypatch.setattr(core_bench, "QUICK_BM25_DOCS", 1_000)
        results = run_benchmarks(tmp_path, quick=True, only=["core"], progress=lambda _: None)
        stored = json.loads((tmp_path / "results.json").read_text())
        assert stored["machine"]["cpus"] >= 1
        core = stored["sections"]["core"]
        assert core["ok"] is True
        assert core["dedup_200_union_find"]["median_ms"] > 0
        assert core["dedup_200_greedy_baseline"]["median_ms"] > 0
        assert core["bm25_per_query"]["docs"] == 1_000
        assert 0.0 <= core["bm25_per_query"]["top10_agreement"] <= 1.0
        assert "rarity lookup vs corpus scan" in markdown_summary(results)

    def test_summary_names_each_sections_plot_files_and_where_they_are(self, tmp_path, monkeypatch):
        import bench.run as run_module

        def plotted(quick, out_dir):
            (out_dir / "p.png").write_bytes(b"png")
            return {"headline": {"figure": "1 ms"}, "plots": ["p.png"]}

        monkeypatch.setitem(run_module.SECTIONS, "core", plotted)
        summary = markdown_summary(run_benchmarks(tmp_path, quick=True, only=["core"], progress=lambda _: None))
        assert "- figure: 1 ms" in summary
        assert f"plot files (in `{tmp_path}`): p.png" in summary

    def test_a_run_stopped_part_way_keeps_the_sections_already_measured(self, tmp_path, monkeypatch):
        import bench.run as run_module

        def interrupted(quick, out_dir):
            raise KeyboardInterrupt

        monkeypatch.setitem(run_module.SECTIONS, "core", lambda quick, out_dir: {"headline": {"x": "1"}})
        monkeypatch.setitem(run_module.SECTIONS, "slides", interrupted)
        with pytest.raises(KeyboardInterrupt):
            run_benchmarks(tmp_path, quick=True, only=["core", "slides"], progress=lambda _: None)
        stored = json.loads((tmp_path / "results.json").read_text())
        assert stored["complete"] is False
        assert stored["sections"]["core"]["headline"] == {"x": "1"}

    def test_unknown_section_is_a_clear_error(self, tmp_path):
        with pytest.raises(ValueError, match="choose from core, slides, turns"):
            run_benchmarks(tmp_path, only=["nope"], progress=lambda _: None)

    def test_a_failing_section_is_recorded_and_does_not_stop_the_run(self, tmp_path, monkeypatch):
        import bench.run as run_module

        def broken(quick, out_dir):
            raise RuntimeError("boom")

        monkeypatch.setitem(run_module.SECTIONS, "core", broken)
        results = run_benchmarks(tmp_path, quick=True, only=["core"], progress=lambda _: None)
        assert results["sections"]["core"]["ok"] is False
        assert json.loads((tmp_path / "results.json").read_text())["complete"] is True
        assert "boom" in results["sections"]["core"]["error"]


class TestSummaryCommand:
    def test_summarises_a_run_stopped_part_way_without_appending(self, tmp_path, monkeypatch):
        from typer.testing import CliRunner

        import bench.run as run_module
        from cli.bench_cmd import app

        def interrupted(quick, out_dir):
            raise KeyboardInterrupt

        monkeypatch.setitem(run_module.SECTIONS, "core", lambda quick, out_dir: {"headline": {"rrf": "0.1 ms"}})
        monkeypatch.setitem(run_module.SECTIONS, "slides", interrupted)
        with pytest.raises(KeyboardInterrupt):
            run_benchmarks(tmp_path, quick=True, only=["core", "slides"], progress=lambda _: None)
        result = CliRunner().invoke(app, ["summary", str(tmp_path / "results.json"), "--no-append"])
        assert result.exit_code == 0, result.output
        assert "stopped part-way" in result.output
        assert "- rrf: 0.1 ms" in result.output

    def test_unreadable_results_are_a_clear_error(self, tmp_path):
        from typer.testing import CliRunner

        from cli.bench_cmd import app

        bad = tmp_path / "results.json"
        bad.write_text("{not json")
        result = CliRunner().invoke(app, ["summary", str(bad), "--no-append"])
        assert result.exit_code == 1
