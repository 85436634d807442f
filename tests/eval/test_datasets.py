import json

import pytest

from eval.dataset_types import DatasetMissing
from eval.datasets import (
    dataset_suite,
    load_cisi,
    load_cranfield,
    load_query_log,
    load_slides_dataset,
    load_slidevqa,
    load_turns_dataset,
    suite_datasets,
)


@pytest.fixture(scope="module")
def cranfield(shared_data):
    return load_cranfield(shared_data / "ir" / "cranfield")


@pytest.fixture(scope="module")
def cisi(shared_data):
    return load_cisi(shared_data / "ir" / "cisi")


@pytest.fixture(scope="module")
def slidevqa(shared_data):
    return load_slidevqa(shared_data / "slidevqa")


class TestCranfield:
    def test_counts_match_the_readme(self, cranfield):
        assert len(cranfield.docs) == 1400
        assert [d.slide_id for d in cranfield.docs[:3]] == ["1", "2", "3"]
        assert len(cranfield.queries) == 225
        assert sum(len(q.qrels) for q in cranfield.queries) == 1612
        assert all(1 <= len(q.qrels) <= 39 for q in cranfield.queries)

    def test_gain_is_five_minus_code_and_minus_one_lines_are_dropped(self, cranfield):
        gains = [g for q in cranfield.queries for g in q.qrels.values()]
        assert {g: gains.count(g) for g in set(gains)} == {4.0: 128, 3.0: 387, 2.0: 734, 1.0: 363}

    def test_qrels_map_by_query_position_not_by_dot_i(self, cranfield):
        # the second query in cran.qry is ".I 002"; the 4th is ".I 008" and is qrel query 4
        assert cranfield.queries[3].id == "4"
        assert cranfield.queries[3].text.startswith("can a criterion be developed")
        assert cranfield.queries[0].qrels["184"] == 3.0

    def test_doc_240_keeps_its_body_after_stray_markers(self, cranfield):
        doc = cranfield.docs[239]
        assert doc.slide_id == "240" and doc.deck_id == "cranfield-240"
        assert "application to turbulent separations" in doc.text
        assert doc.text.endswith("laminar separated flow .")

    def test_sources_are_hashed(self, cranfield):
        assert len(cranfield.sources) == 3
        assert all(len(s.sha256) == 64 for s in cranfield.sources)


class TestCisi:
    def test_counts_match_the_readme(self, cisi):
        assert len(cisi.docs) == 1460
        assert len(cisi.queries) == 76
        assert sum(len(q.qrels) for q in cisi.queries) == 3114
        assert len({d for q in cisi.queries for d in q.qrels}) == 1162

    def test_judgments_are_binary_and_x_is_not_used(self, cisi):
        assert {g for q in cisi.queries for g in q.qrels.values()} == {1.0}
        assert all(".X" not in d.text for d in cisi.docs)


class TestSlideVqa:
    def test_counts_match_the_readme(self, slidevqa):
        assert len(slidevqa.docs) == 1284
        assert len(slidevqa.queries) == 1640
        assert sum(len(q.qrels) for q in slidevqa.queries) == 2148
        assert len({d.deck_id for d in slidevqa.docs}) == 379

    def test_deck_and_page_parse_from_the_right(self, slidevqa):
        doc = next(d for d in slidevqa.docs if d.slide_id.endswith("science-33-3-1024.jpg"))
        assert doc.deck_id.endswith("science-33") and doc.slide_number == 3

    def test_hashes_match_the_readme(self, slidevqa):
        assert slidevqa.hashes["slide_vqa_image_to_gpt_text.json"].startswith("6293e4ddf6bb")
        assert slidevqa.hashes["slide_vqa_question_answer_docid_list.json"].startswith("bcad326dc0b2")


@pytest.fixture
def index(tmp_path):
    folder = tmp_path / "index"
    folder.mkdir()
    (folder / "meta.json").write_text("{}")
    return folder


class TestQueryLog:
    def test_plain_lines_and_jsonl_rows(self, tmp_path, index):
        plain = tmp_path / "q.txt"
        plain.write_text("customer analytics\n\nblackrock case studies\n")
        assert [q.text for q in load_query_log(plain, index).queries] == ["customer analytics", "blackrock case studies"]
        rows = tmp_path / "q.jsonl"
        rows.write_text(json.dumps({"id": "a", "query": ["fraud detection", "compliance"], "universes": ["DAAIS"]}) + "\n")
        log = load_query_log(rows, index)
        assert log.library_path == str(index) and "meta.json" in log.hashes
        assert log.queries[0].text == ["fraud detection", "compliance"] and log.queries[0].universes == ["DAAIS"]
        assert log.mode == "pipeline" and not log.labelled

    def test_bad_row_names_its_line(self, tmp_path, index):
        bad = tmp_path / "q.jsonl"
        bad.write_text('{"query": "ok"}\n{"query": 3}\n')
        with pytest.raises(ValueError, match=r"q.jsonl:2"):
            load_query_log(bad, index)

    def test_without_a_slide_index_names_where_it_looked(self, tmp_path, _isolated_seek_home):
        plain = tmp_path / "q.txt"
        plain.write_text("customer analytics\n")
        with pytest.raises(DatasetMissing, match=str(_isolated_seek_home / "slides" / "index")):
            load_query_log(plain)


class TestRegistry:
    def test_missing_dataset_names_the_path(self, tmp_path, monkeypatch):
        monkeypatch.setenv("SEEK_DATA_DIR", str(tmp_path))
        with pytest.raises(DatasetMissing, match=str(tmp_path / "ir" / "cisi" / "CISI.ALL")):
            load_slides_dataset("cisi")

    def test_unknown_name_lists_the_valid_ones(self):
        with pytest.raises(ValueError, match="cranfield"):
            load_slides_dataset("nope")
        with pytest.raises(ValueError, match="public-sample"):
            dataset_suite("nope")

    def test_suites(self):
        assert "cisi" in suite_datasets("slides") and "synthetic-2" in suite_datasets("turns")
        assert set(suite_datasets("all")) == set(suite_datasets("slides")) | set(suite_datasets("turns"))
        assert dataset_suite("log:/tmp/x.txt") == "slides"


def test_the_served_usage_log_export_loads_as_a_query_log(tmp_path, index):
    from slidesearch.serve.usage_log import UsageLog

    log = UsageLog(tmp_path / "usage.db")
    log.record_search(channel="http", session_id="s1", query="customer analytics", universes=["DAAIS"],
                      slide_ids=["a"], latency_ms=3.0)
    log.record_search(channel="http", session_id="s1", query="follow-on query", universes=None,
                      slide_ids=[], latency_ms=3.0)
    log.record_search(channel="mcp", session_id="s2", query=["fraud", "compliance"], universes=None,
                      slide_ids=["b"], latency_ms=3.0)
    log.export(tmp_path / "export.jsonl")
    log.close()
    queries = load_query_log(tmp_path / "export.jsonl", index).queries
    assert [q.text for q in queries] == ["customer analytics", ["fraud", "compliance"]]
    assert queries[0].universes == ["DAAIS"]


def test_turns_dataset_resolves_through_the_environment(shared_data):
    info = load_turns_dataset("public-sample")
    assert info.n_sessions == 200 and info.catalog_path.endswith("catalog_sample.jsonl")
    assert set(info.hashes) == {"catalog_sample.jsonl", "public_set.jsonl"}
