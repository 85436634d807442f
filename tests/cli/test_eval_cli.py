import json

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


@pytest.fixture
def smoke_config(tmp_path):
    path = tmp_path / "smoke.json"
    path.write_text(json.dumps({"name": "smoke", "slides": {"embedder": "fast", "max_queries": 5}}))
    return path


@pytest.fixture
def experiment_log(tmp_path, monkeypatch):
    import eval.explog

    log = tmp_path / "EXPERIMENT_LOG.md"
    log.write_text("# Experiment log\n")
    monkeypatch.setattr(eval.explog, "EXPERIMENT_LOG", log)
    return log


def test_run_compare_report_round_trip(smoke_config, experiment_log, tmp_path, _isolated_seek_home, shared_data):
    result = runner.invoke(app, ["eval", "run", "--suite", "slides", "--datasets", "cisi", "--config",
                                 str(smoke_config), "--json", "--log", "smoke run"])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout[result.stdout.index("{"):])
    assert record["config"]["name"] == "smoke" and record["datasets"]["cisi"]["summary"]["ndcg@10"] > 0
    run_id = record["run_id"]
    assert (_isolated_seek_home / "runs" / run_id / "run.json").is_file()
    assert "smoke run" in experiment_log.read_text() and run_id in experiment_log.read_text()

    compared = runner.invoke(app, ["eval", "compare", run_id, "latest"])
    assert compared.exit_code == 0, compared.output
    assert "REJECT" in compared.output and "no win" in compared.output

    out = tmp_path / "report.html"
    reported = runner.invoke(app, ["eval", "report", run_id, "--out", str(out)])
    assert reported.exit_code == 0, reported.output
    assert out.is_file() and out.with_suffix(".png").is_file()


def test_unknown_dataset_is_a_clear_error():
    result = runner.invoke(app, ["eval", "run", "--datasets", "nope"])
    assert result.exit_code == 1 and "unknown dataset 'nope'" in result.output


def test_bad_config_names_the_problem(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"slides": {"search": {"rrf_kk": 60}}}))
    result = runner.invoke(app, ["eval", "run", "--config", str(bad)])
    assert result.exit_code == 1 and "rrf_kk" in result.output


def test_missing_run_is_a_clear_error():
    result = runner.invoke(app, ["eval", "compare", "nope", "latest"])
    assert result.exit_code == 1 and "not found" in result.output


def test_datasets_lists_sources_with_hashes(shared_data):
    result = runner.invoke(app, ["eval", "datasets", "--datasets", "cisi,cranfield,slidevqa", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["cisi"]["items"] == 76 and len(rows["cranfield"]["sources"]) == 3
    assert all(len(s["sha256"]) == 64 for s in rows["slidevqa"]["sources"])


def test_datasets_reports_a_missing_source_with_its_path(tmp_path, monkeypatch):
    monkeypatch.setenv("SEEK_DATA_DIR", str(tmp_path))
    result = runner.invoke(app, ["eval", "datasets", "--datasets", "cranfield", "--json"])
    assert result.exit_code == 0
    assert str(tmp_path / "ir" / "cranfield" / "cran.all.1400") in json.loads(result.stdout)[0]["error"]


def test_a_config_list_is_a_sweep_with_one_run_and_log_line_each(tmp_path, experiment_log, _isolated_seek_home,
                                                                  shared_data):
    sweep = tmp_path / "sweep.json"
    sweep.write_text(json.dumps([
        {"name": "k60", "slides": {"embedder": "fast", "max_queries": 3}},
        {"name": "k10", "slides": {"embedder": "fast", "max_queries": 3, "search": {"rrf_k": 10}}},
    ]))
    result = runner.invoke(app, ["eval", "run", "--suite", "slides", "--datasets", "cisi", "--config", str(sweep),
                                 "--log", "rrf k sweep"])
    assert result.exit_code == 0, result.output
    assert "[k60]" in result.output and "[k10]" in result.output
    assert len(list((_isolated_seek_home / "runs").iterdir())) == 2
    lines = experiment_log.read_text().splitlines()[1:]
    assert [("[k60]" in line, "[k10]" in line) for line in lines] == [(True, False), (False, True)]
