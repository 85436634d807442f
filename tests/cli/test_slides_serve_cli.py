import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import serve_corpus
from typer.testing import CliRunner

from cli.main import app
from slidesearch.serve.http_api import free_port
from slidesearch.serve.usage_log import UsageLog

REPO = Path(__file__).resolve().parents[2]
runner = CliRunner()


def _said(result) -> str:
    """The command's output with rich's line wrapping undone."""
    return " ".join(result.output.split())


class TestServeArguments:
    @pytest.mark.parametrize("args, message", [
        ([], "choose one of --mcp or --http"),
        (["--mcp", "--http"], "choose one of --mcp or --http"),
        (["--mcp", "--stdio", "--port", "9999"], "--stdio and --port are alternatives"),
        (["--http", "--stdio"], "--stdio goes with --mcp"),
    ])
    def test_conflicting_flags_are_refused(self, args, message):
        result = runner.invoke(app, ["slides", "serve", *args])
        assert result.exit_code == 1 and message in _said(result)

    def test_missing_index_says_how_to_build_it(self):
        result = runner.invoke(app, ["slides", "serve", "--http", "--port", "9"])
        assert result.exit_code == 1 and "seek slides index" in _said(result)

    def test_unknown_scope_lists_the_librarys_universes(self, _isolated_seek_home):
        serve_corpus.build_index(_isolated_seek_home)
        result = runner.invoke(app, ["slides", "serve", "--mcp", "--universes", "Pharma"])
        assert result.exit_code == 1 and "the library has DAAIS, EdTech, S&R" in _said(result)


class TestLogExport:
    def test_standalone_export_writes_first_queries_of_sessions(self, _isolated_seek_home, tmp_path):
        log = UsageLog(_isolated_seek_home / "slides" / "library.db")
        for session, query in [("a", "capital call"), ("a", "capital call notices"), ("b", "Capital  call"),
                               ("c", "churn dashboard")]:
            log.record_search(channel="http", session_id=session, query=query, universes=None, slide_ids=["x"],
                              latency_ms=1.0)
        out = tmp_path / "standalone.jsonl"
        result = runner.invoke(app, ["slides", "log", "export", "--standalone", "--out", str(out), "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["queries"] == 2
        assert [json.loads(line)["query"] for line in out.read_text().splitlines()] == ["capital call", "churn dashboard"]

    def test_full_export_keeps_every_search(self, _isolated_seek_home, tmp_path):
        log = UsageLog(_isolated_seek_home / "slides" / "library.db")
        log.record_search(channel="mcp", session_id="a", query="q", universes=None, slide_ids=[], latency_ms=1.0)
        log.record_search(channel="mcp", session_id="a", query="q", universes=None, slide_ids=[], latency_ms=1.0)
        out = tmp_path / "all.jsonl"
        assert runner.invoke(app, ["slides", "log", "export", "--out", str(out)]).exit_code == 0
        assert len(out.read_text().splitlines()) == 2

    def test_nothing_served_yet_is_a_clear_error(self, tmp_path):
        result = runner.invoke(app, ["slides", "log", "export", "--standalone", "--out", str(tmp_path / "q.jsonl")])
        assert result.exit_code == 1 and "nothing has been served" in _said(result)


@pytest.mark.integration
def test_http_server_starts_on_loopback_and_needs_the_token(_isolated_seek_home):
    serve_corpus.build_index(_isolated_seek_home)
    port = free_port()
    env = {**os.environ, "SEEK_HOME": str(_isolated_seek_home), "SEEK_API_TOKEN": "cli-token-123"}
    process = subprocess.Popen([sys.executable, "-m", "cli.main", "slides", "serve", "--http", "--port", str(port),
                                "--universes", "S&R"], cwd=REPO, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stderr.read().decode()
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not come up in 60 s"
            time.sleep(0.2)
        assert httpx.post(f"{base}/search", json={"query": "analytics"}).status_code == 401
        response = httpx.post(f"{base}/search", json={"query": "customer analytics"},
                              headers={"Authorization": "Bearer cli-token-123"}, timeout=30)
        assert response.status_code == 200 and response.json()["universes"] == ["S&R"]
    finally:
        process.terminate()
        process.wait(timeout=20)
        process.stderr.close()
    records = UsageLog(_isolated_seek_home / "slides" / "library.db").records()
    assert [(r.channel, r.query) for r in records] == [("http", "customer analytics")]
    assert b"cli-token-123" not in (_isolated_seek_home / "slides" / "library.db").read_bytes()
