from datetime import UTC, datetime

import pytest

from eval.runs import git_version, list_runs, load_run, new_run_id, save_run


class TestRunStorage:
    def test_round_trip_keeps_everything(self, sample_runs, tmp_path):
        run, _ = sample_runs
        folder = save_run(run, tmp_path)
        assert (folder / "config.json").is_file()
        loaded = load_run(run.run_id, tmp_path)
        assert loaded == run
        assert loaded.datasets["generated"].items[0].cards[1].verdict == "wrong"
        assert load_run(folder, tmp_path) == run and load_run(folder / "run.json", tmp_path) == run

    def test_latest_and_listing(self, sample_runs, tmp_path):
        for run in sample_runs:
            save_run(run, tmp_path)
        assert list_runs(tmp_path) == [r.run_id for r in sample_runs]
        assert load_run("latest", tmp_path).run_id == sample_runs[1].run_id

    def test_missing_run_names_where_it_looked(self, tmp_path):
        with pytest.raises(FileNotFoundError, match="nope"):
            load_run("nope", tmp_path)

    def test_default_location_is_seek_home_runs(self, sample_runs, _isolated_seek_home):
        save_run(sample_runs[0])
        assert (_isolated_seek_home / "runs" / sample_runs[0].run_id / "run.json").is_file()


def test_run_ids_are_unique_within_a_second(tmp_path):
    now = datetime(2026, 11, 29, 19, 0, 0, tzinfo=UTC)
    first = new_run_id(tmp_path, now)
    (tmp_path / first).mkdir()
    assert first == "20261129-190000" and new_run_id(tmp_path, now) == "20261129-190000-2"


def test_git_version_reads_the_repository():
    commit, _ = git_version()
    assert len(commit) == 40


def test_gate_status_and_usage_aggregate(sample_runs):
    run, _ = sample_runs
    assert run.passed
    assert run.usage.calls == 0
