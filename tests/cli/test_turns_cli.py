import json

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


@pytest.fixture(scope="module")
def techjam(shared_data):
    return shared_data / "techjam"


@pytest.fixture
def few_sessions(techjam, tmp_path):
    lines = (techjam / "public_set.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "few.jsonl"
    path.write_text("\n".join(lines[:12]) + "\n", encoding="utf-8")
    return path


class TestTurnsEval:
    def test_public_sample_json_report(self, shared_data):
        result = runner.invoke(app, ["turns", "eval", "--agent", "baseline", "--dataset", "public-sample", "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        assert report["n_sessions"] == 200
        assert set(report["per_scenario"]) == {"boundary", "browsing", "buying", "intent_override"}
        assert report["technical_score"] == round(
            0.5 * report["hr10"] + 0.3 * report["mrr"] + 0.2 * max(0.0, min(1.0, (11 - report["mttc"]) / 10)), 6)

    def test_table_shows_metrics_per_scenario_and_wall_time(self, techjam, few_sessions):
        result = runner.invoke(app, ["turns", "eval", "--agent", "baseline", "--catalog",
                                     str(techjam / "catalog_sample.jsonl"), "--sessions", str(few_sessions)])
        assert result.exit_code == 0, result.output
        for text in ("HR@10", "MRR", "MTTC", "TechnicalScore", "efficiency", "buying", "wall"):
            assert text in result.output

    @pytest.mark.parametrize("flag", ["--trace-dir", "--trace"])  # --trace: the folder's old name, still accepted
    def test_trace_folder_gets_one_file_per_session(self, techjam, few_sessions, tmp_path, flag):
        traces = tmp_path / "traces"
        result = runner.invoke(app, ["turns", "eval", "--agent", "baseline", "--catalog",
                                     str(techjam / "catalog_sample.jsonl"), "--sessions", str(few_sessions),
                                     flag, str(traces)])
        assert result.exit_code == 0, result.output
        assert len(list(traces.glob("*.json"))) == 12

    def test_progress_bars_count_the_sessions(self, techjam, few_sessions):
        args = ["turns", "eval", "--agent", "baseline", "--catalog", str(techjam / "catalog_sample.jsonl"),
                "--sessions", str(few_sessions)]
        shown = runner.invoke(app, args)
        assert shown.exit_code == 0 and "playing sessions" in shown.output and "12/12" in shown.output
        quiet = runner.invoke(app, [*args, "--no-progress"])
        assert quiet.exit_code == 0 and "playing sessions" not in quiet.output

    def test_unknown_agent_and_dataset_are_clear_errors(self, shared_data):
        result = runner.invoke(app, ["turns", "eval", "--agent", "nope", "--dataset", "public-sample"])
        assert result.exit_code == 1 and "unknown agent 'nope'" in result.output
        result = runner.invoke(app, ["turns", "eval", "--agent", "baseline", "--dataset", "nope"])
        assert result.exit_code == 1 and "public-sample" in result.output

    def test_missing_data_names_the_path(self, monkeypatch, tmp_path):
        monkeypatch.setenv("SEEK_DATA_DIR", str(tmp_path / "absent"))
        result = runner.invoke(app, ["turns", "eval", "--agent", "baseline", "--dataset", "public-sample"])
        output = result.output.replace("\n", "")  # rich wraps long lines
        assert result.exit_code == 1
        assert "absent/techjam/catalog_sample.jsonl" in output

    def test_dataset_and_explicit_files_are_exclusive(self, techjam):
        result = runner.invoke(app, ["turns", "eval", "--agent", "baseline", "--dataset", "public-sample",
                                     "--catalog", str(techjam / "catalog_sample.jsonl")])
        assert result.exit_code == 1 and "either --dataset" in result.output


class TestCatalogBuildAndSessionsDraw:
    def test_build_then_draw_then_eval(self, techjam, tmp_path):
        catalog = tmp_path / "cat.jsonl.gz"
        result = runner.invoke(app, ["turns", "catalog", "build", "--base", str(techjam / "catalog_sample.jsonl"),
                                     "--size", "1500", "--seed", "3", "--out", str(catalog)])
        assert result.exit_code == 0, result.output
        assert "wrote 1500 rows" in result.output
        sessions = tmp_path / "s.jsonl"
        result = runner.invoke(app, ["turns", "sessions", "draw", "--catalog", str(catalog), "--n", "20",
                                     "--seed", "3", "--out", str(sessions)])
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in sessions.read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 20 and rows[0]["source"]["seed"] == 3
        result = runner.invoke(app, ["turns", "eval", "--agent", "baseline", "--catalog", str(catalog),
                                     "--sessions", str(sessions), "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["n_sessions"] == 20

    def test_missing_base_is_a_clear_error(self, tmp_path):
        result = runner.invoke(app, ["turns", "catalog", "build", "--base", str(tmp_path / "none.jsonl"),
                                     "--out", str(tmp_path / "o.jsonl")])
        assert result.exit_code == 1 and "base catalog not found" in result.output


@pytest.mark.slow
class TestNamedGeneratedDatasets:
    def test_synthetic_set_over_the_50k_approximation_is_built_once_with_the_real_shape(self, shared_data):
        import statistics

        from tenturns.catalog import load_catalog
        from tenturns.datasets import resolve_dataset

        result = runner.invoke(app, ["turns", "eval", "--agent", "baseline", "--dataset", "synthetic-1", "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        assert report["n_sessions"] == 200
        dataset = resolve_dataset("synthetic-1")
        built = dataset.catalog_path.stat().st_mtime_ns
        assert resolve_dataset("public-50k").catalog_path.stat().st_mtime_ns == built  # reused, not rebuilt
        rows = [json.loads(line) for line in dataset.sessions_path.read_text(encoding="utf-8").splitlines()]
        assert {r["source"]["seed"] for r in rows} == {1}
        assert {r["source"]["catalog_sha256"] for r in rows} == {report["catalog_sha256"]}
        catalog = load_catalog(dataset.catalog_path)
        sizes = sorted(len(rows) for rows in catalog.shelves.values())
        assert len(catalog) == 50_000
        assert 1_000 <= len(sizes) <= 1_200
        assert 6 <= statistics.median(sizes) <= 11
        assert sizes[-1] > 1_000


class TestTurnsEvalInputs:
    """Bad inputs are said, never scored silently (#18 case 15)."""

    @pytest.fixture
    def bad_catalog(self, techjam, tmp_path):
        lines = (techjam / "catalog_sample.jsonl").read_text(encoding="utf-8").splitlines()
        path = tmp_path / "catalog.jsonl"
        path.write_text("\n".join([lines[0], "{not json", '{"title": "no id"}', *lines[1:]]) + "\n", encoding="utf-8")
        return path

    def _eval(self, catalog, sessions, *extra):
        return runner.invoke(app, ["turns", "eval", "--agent", "baseline", "--catalog", str(catalog),
                                   "--sessions", str(sessions), "--no-progress", *extra])

    def test_bad_catalog_rows_are_counted_and_named_in_both_outputs(self, bad_catalog, few_sessions):
        report = json.loads(self._eval(bad_catalog, few_sessions, "--json").output)
        assert report["catalog_skipped"] >= 2
        assert report["catalog_errors"][:2] == ["line 2: invalid JSON (Expecting property name enclosed in double "
                                                "quotes)", "line 3: missing parent_asin"]
        human = self._eval(bad_catalog, few_sessions)
        said = " ".join(human.output.split())
        assert human.exit_code == 0
        assert f"catalog.jsonl: {report['catalog_skipped']} bad row(s) skipped: line 2: invalid JSON" in said
        assert "line 3: missing parent_asin" in said

    def test_a_repeated_sample_id_is_refused(self, techjam, few_sessions, tmp_path):
        lines = few_sessions.read_text(encoding="utf-8").splitlines()
        doubled = tmp_path / "doubled.jsonl"
        doubled.write_text("\n".join([*lines, lines[0]]) + "\n", encoding="utf-8")
        result = self._eval(techjam / "catalog_sample.jsonl", doubled)
        sample_id = json.loads(lines[0])["sample_id"]
        assert result.exit_code == 1
        assert f"sample_id given twice: '{sample_id}' at line 1 and line {len(lines) + 1}" in " ".join(result.output.split())

    def test_an_unknown_scenario_type_is_refused(self, techjam, few_sessions, tmp_path):
        row = json.loads(few_sessions.read_text(encoding="utf-8").splitlines()[0])
        odd = tmp_path / "odd.jsonl"
        odd.write_text(json.dumps({**row, "scenario_type": "haggling"}) + "\n", encoding="utf-8")
        result = self._eval(techjam / "catalog_sample.jsonl", odd)
        said = " ".join(result.output.split())
        assert result.exit_code == 1 and "unknown scenario type at line 1 ('haggling')" in said
        assert "buying, browsing, intent_override, boundary" in said

    def test_an_empty_sessions_file_is_an_error(self, techjam, tmp_path):
        empty = tmp_path / "empty.jsonl"
        empty.write_text("\n", encoding="utf-8")
        result = self._eval(techjam / "catalog_sample.jsonl", empty)
        assert result.exit_code == 1 and "holds no sessions; nothing to evaluate" in " ".join(result.output.split())
