import json

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()

FAKE_KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant-fake-0123456789abcdef",
    "GEMINI_API_KEY": "AIza-fake-gemini-key-987654",
    "SEEK_API_TOKEN": "bearer-fake-token-555",
}


def _doctor(*args):
    result = runner.invoke(app, ["doctor", *args])
    assert result.exit_code == 0, result.output
    return result.output


class TestDoctorJson:
    def test_reports_versions_settings_keys_and_data(self, shared_data):
        report = json.loads(_doctor("--json", "--no-embedder"))
        assert report["packages"]["numpy"] != "not installed"
        assert report["settings"]["SEEK_EMBEDDER"] == "minilm"
        assert report["settings"]["SEEK_DATA_DIR"] == str(shared_data)
        assert report["llm_keys"] == {"anthropic": False, "gemini": False, "nvidia": False}
        assert report["data"] == {"techjam": True, "slidevqa": True, "ir": True}
        assert "embedder" not in report

    def test_settings_follow_the_environment(self, monkeypatch, tmp_path):
        monkeypatch.setenv("SEEK_HOME", str(tmp_path))
        monkeypatch.setenv("SEEK_LLM", "anthropic:claude-haiku-4-5")
        monkeypatch.setenv("TECHJAM_PHASE6_MODE", "1")
        settings = json.loads(_doctor("--json", "--no-embedder"))["settings"]
        assert settings["SEEK_HOME"] == str(tmp_path)
        assert settings["SEEK_LLM"] == "anthropic:claude-haiku-4-5"
        assert settings["TECHJAM_PHASE6_MODE"] == "1"

    def test_reports_whether_the_embedder_loads(self, monkeypatch):
        monkeypatch.setenv("SEEK_EMBEDDER", "fast")
        embedder = json.loads(_doctor("--json"))["embedder"]
        assert embedder["ok"] is True
        assert embedder["name"] == "wordllama-256"


class TestDoctorNeverPrintsKeys:
    @pytest.fixture
    def fake_keys(self, monkeypatch):
        for name, value in FAKE_KEYS.items():
            monkeypatch.setenv(name, value)

    @pytest.mark.usefixtures("fake_keys")
    def test_json_shows_presence_not_values(self):
        output = _doctor("--json", "--no-embedder")
        report = json.loads(output)
        assert report["llm_keys"] == {"anthropic": True, "gemini": True, "nvidia": False}
        assert report["settings"]["SEEK_API_TOKEN"] == "set"
        for value in FAKE_KEYS.values():
            assert value not in output

    @pytest.mark.usefixtures("fake_keys")
    def test_tables_show_presence_not_values(self):
        output = _doctor("--no-embedder")
        said = " ".join(output.split())
        assert "│ anthropic │ yes │ ANTHROPIC_API_KEY set" in said and "│ nvidia │ no │ NVIDIA_API_KEY not set" in said
        for value in FAKE_KEYS.values():
            assert value not in output


class TestDoctorTables:
    def test_providers_are_a_table_not_python_dicts(self):
        output = _doctor("--no-embedder")
        assert "{'usable'" not in output and "'reason'" not in output
        assert "LLM provider" in output and "NVIDIA_API_KEY not set" in " ".join(output.split())

    def test_names_a_missing_index_and_says_how_to_build_it(self):
        report = json.loads(_doctor("--json", "--no-embedder"))
        assert report["index"]["freshness"] == "no index" and "seek slides index" in report["index"]["message"]
        assert "no index at" in " ".join(_doctor("--no-embedder").split())
