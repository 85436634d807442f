from typer.testing import CliRunner

from cli.main import app


class TestDemo:
    def test_demo_builds_a_library_answers_searches_and_plays_sessions(self, tmp_path, monkeypatch, shared_data):
        monkeypatch.setenv("SEEK_EMBEDDER", "fast")
        result = CliRunner().invoke(app, ["demo", "--home", str(tmp_path / "demo"), "--slides", "400", "--sessions", "5"])
        assert result.exit_code == 0, result.output
        assert (tmp_path / "demo" / "slides" / "index").exists()
        assert "exclusion" in result.output
        assert "Case Studies" in result.output
        assert "nothing in the library uses that exact wording" in result.output
        assert "tenturns" in result.output and "TechnicalScore" in result.output
