import pytest

from eval.config import EvalConfig
from eval.runs import load_run
from eval.suite import run_suite
from slidesearch.config import SearchConfig


class TestRunSuite:
    def test_missing_dataset_is_recorded_with_its_path_and_fails_the_run(self, tmp_path, monkeypatch,
                                                                         _isolated_seek_home):
        monkeypatch.setenv("SEEK_DATA_DIR", str(tmp_path))
        record = run_suite("slides", EvalConfig(), ["cisi"])
        assert not record.passed
        assert str(tmp_path / "ir" / "cisi" / "CISI.ALL") in record.datasets["cisi"].error
        assert load_run(record.run_id) == record
        assert (_isolated_seek_home / "runs" / record.run_id / "report.html").is_file()

    def test_unknown_dataset_is_refused_before_anything_runs(self):
        with pytest.raises(ValueError, match="unknown dataset"):
            run_suite("slides", EvalConfig(), ["cisi", "nope"])

    def test_record_carries_code_version_config_and_settings(self, tmp_path, monkeypatch):
        monkeypatch.setenv("SEEK_DATA_DIR", str(tmp_path))
        record = run_suite("slides", EvalConfig(name="x"), ["cisi"], store=False)
        assert len(record.code_version) == 40 and record.config["name"] == "x"
        assert record.settings["llm"] == "offline" and record.settings["judge_llm"] == "offline"
        assert record.config["slides"]["search"] == SearchConfig().model_dump(mode="json")


def test_an_engine_crash_on_one_dataset_keeps_the_others(monkeypatch, make_dataset):
    from eval import suite

    def fake_run(name, config, engine_factory):
        if name == "cisi":
            raise AttributeError("'SearchConfig' object has no attribute 'x'")
        return make_dataset(name, [0.5] * 3)

    monkeypatch.setattr(suite, "load_slides_dataset", lambda name: name)
    monkeypatch.setattr(suite, "run_slides_dataset", fake_run)
    record = suite.run_suite("slides", EvalConfig(), ["cisi", "cranfield"], store=False)
    assert record.datasets["cisi"].error == "engine error: AttributeError: 'SearchConfig' object has no attribute 'x'"
    assert record.datasets["cranfield"].passed and not record.passed
