import json

from slidesearch.serve.usage_log import REDACTED, UsageLog, usage_db_path


def _search(log, session, query, ids=("s1", "s2"), channel="http", universes=None):
    return log.record_search(channel=channel, session_id=session, query=query, universes=universes,
                             slide_ids=list(ids), latency_ms=12.5)


class TestRecording:
    def test_a_search_is_stored_with_every_field(self, tmp_path):
        log = UsageLog(tmp_path / "library.db")
        _search(log, "sess-a", ["fraud detection", "regulatory compliance"], universes=["DAAIS"], channel="mcp")
        (record,) = log.records()
        assert record.session_id == "sess-a" and record.channel == "mcp"
        assert record.query == ["fraud detection", "regulatory compliance"]
        assert record.universes == ["DAAIS"] and record.slide_ids == ["s1", "s2"]
        assert record.latency_ms == 12.5 and record.time > 0 and record.explained_ids == []

    def test_off_records_nothing_and_creates_no_database(self, tmp_path):
        log = UsageLog(tmp_path / "library.db", enabled=False)
        assert _search(log, "sess-a", "customer analytics") is None
        assert not (tmp_path / "library.db").exists()
        assert log.records() == []

    def test_missing_session_gets_a_fresh_one(self, tmp_path):
        log = UsageLog(tmp_path / "library.db")
        _search(log, None, "q1")
        _search(log, None, "q2")
        sessions = {r.session_id for r in log.records()}
        assert len(sessions) == 2 and all(len(s) == 32 for s in sessions)

    def test_explanations_attach_to_the_sessions_latest_matching_search(self, tmp_path):
        log = UsageLog(tmp_path / "library.db")
        _search(log, "sess-a", "customer analytics")
        _search(log, "sess-a", "pricing")
        _search(log, "sess-b", "customer analytics")
        assert log.record_explanations(session_id="sess-a", query="Customer  Analytics", slide_ids=["s2", "s1"])
        assert log.record_explanations(session_id="sess-a", query="customer analytics", slide_ids=["s1", "s9"])
        explained = {(r.session_id, json.dumps(r.query)): r.explained_ids for r in log.records()}
        assert explained[("sess-a", '"customer analytics"')] == ["s2", "s1", "s9"]
        assert explained[("sess-a", '"pricing"')] == []
        assert explained[("sess-b", '"customer analytics"')] == []

    def test_explanations_without_a_session_attach_to_the_channels_latest_search(self, tmp_path):
        log = UsageLog(tmp_path / "library.db")
        _search(log, None, "capital call", channel="mcp")
        _search(log, None, "capital call", channel="http")
        _search(log, None, "churn", channel="mcp")
        assert log.record_explanations(session_id=None, channel="mcp", query="capital call", slide_ids=["s1"])
        assert [r.explained_ids for r in log.records()] == [["s1"], [], []]

    def test_explanations_without_a_logged_search_are_not_recorded(self, tmp_path):
        log = UsageLog(tmp_path / "library.db")
        _search(log, "sess-a", "customer analytics")
        assert not log.record_explanations(session_id="sess-z", query="customer analytics", slide_ids=["s1"])
        assert not log.record_explanations(session_id=None, query="customer analytics", slide_ids=["s1"])


class TestSecrets:
    def test_configured_token_and_provider_keys_are_masked(self, tmp_path, monkeypatch):
        monkeypatch.setenv("SEEK_API_TOKEN", "tok-very-secret-123")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "plainkeyvalue987")
        log = UsageLog.from_settings(tmp_path / "library.db")
        _search(log, "s", ["use tok-very-secret-123 please", "plainkeyvalue987 analytics"])
        stored = (tmp_path / "library.db").read_bytes()
        assert b"tok-very-secret-123" not in stored and b"plainkeyvalue987" not in stored
        assert log.records()[0].query == [f"use {REDACTED} please", f"{REDACTED} analytics"]

    def test_credential_shaped_strings_are_masked(self, tmp_path):
        log = UsageLog(tmp_path / "library.db")
        query = "case studies sk-ant-api03-abcdefghijklmnopqrst Bearer xyz123 AIzaSyA1234567890abcdefghijk"
        _search(log, "s", query)
        assert log.records()[0].query == f"case studies {REDACTED} {REDACTED} {REDACTED}"

    def test_setting_turns_the_log_off(self, tmp_path, monkeypatch):
        monkeypatch.setenv("SEEK_USAGE_LOG", "false")
        assert not UsageLog.from_settings(tmp_path / "library.db").enabled


class TestStandaloneExport:
    def test_first_query_of_each_session_deduplicated_in_time_order(self, tmp_path):
        log = UsageLog(tmp_path / "library.db")
        _search(log, "a", "Customer analytics")
        _search(log, "a", "customer analytics for retail")
        _search(log, "b", "fraud detection")
        _search(log, "c", "customer  ANALYTICS")
        _search(log, "d", ["blackrock case studies", "asset management"], universes=["S&R"])
        rows = log.standalone_queries()
        assert [r["query"] for r in rows] == [
            "Customer analytics", "fraud detection", ["blackrock case studies", "asset management"]]
        assert [r["id"] for r in rows] == ["log-0001", "log-0002", "log-0003"]
        assert rows[2]["universes"] == ["S&R"] and rows[2]["session_id"] == "d"

    def test_export_writes_jsonl_with_query_fields(self, tmp_path):
        log = UsageLog(tmp_path / "library.db")
        _search(log, "a", "capital call")
        _search(log, "b", "Anand S profile")
        out = tmp_path / "sets" / "standalone.jsonl"
        assert log.export(out) == 2
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert [r["query"] for r in rows] == ["capital call", "Anand S profile"]
        assert [p.name for p in out.parent.iterdir()] == ["standalone.jsonl"]

    def test_empty_log_exports_an_empty_set(self, tmp_path):
        assert UsageLog(tmp_path / "none.db").export(tmp_path / "q.jsonl") == 0
        assert (tmp_path / "q.jsonl").read_text() == ""

    def test_full_export_keeps_every_search(self, tmp_path):
        log = UsageLog(tmp_path / "library.db")
        _search(log, "a", "capital call")
        _search(log, "a", "capital call")
        assert log.export(tmp_path / "all.jsonl", standalone=False) == 2
        rows = [json.loads(line) for line in (tmp_path / "all.jsonl").read_text().splitlines()]
        assert [r["session_id"] for r in rows] == ["a", "a"] and rows[0]["slide_ids"] == ["s1", "s2"]


def test_database_is_the_library_database_beside_the_index(tmp_path, monkeypatch):
    monkeypatch.setenv("SEEK_HOME", str(tmp_path))
    assert usage_db_path() == tmp_path / "slides" / "library.db"
    assert usage_db_path(tmp_path / "other" / "index") == tmp_path / "other" / "library.db"
