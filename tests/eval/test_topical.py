import json

import pytest

from eval.dataset_types import DatasetMissing
from eval.topical import TOPICAL_QUERIES, load_slidevqa_topical


@pytest.fixture(scope="module")
def topical(shared_data):
    return load_slidevqa_topical(shared_data)


@pytest.fixture(scope="module")
def slide_ids(topical):
    return {d.slide_id for d in topical.docs}


def rows():
    return [
        json.loads(line) for line in TOPICAL_QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def write_rows(path, rows_):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows_), encoding="utf-8")
    return path


def assert_refused(shared_data, tmp_path, rows_, match):
    """``rows_`` written to bad.jsonl must be refused by the loader with a ValueError matching ``match``."""
    bad = write_rows(tmp_path / "bad.jsonl", rows_)
    with pytest.raises(ValueError, match=match):
        load_slidevqa_topical(shared_data, path=bad)


class TestShippedSet:
    def test_loads_as_a_retrieve_dataset_over_all_slidevqa_slides(self, topical):
        assert topical.name == "slidevqa-topical"
        assert topical.mode == "retrieve"
        assert len(topical.docs) == 1284
        assert topical.labelled
        assert topical.params == {"relevant": "hand-graded topical briefs", "gain": "graded 1-3",
                                  "judged": "pooled: listed + pooled grades, 0 kept"}

    def test_every_brief_has_a_judged_pool_holding_its_labels(self, topical):
        assert all(q.judged is not None and set(q.qrels) <= set(q.judged) for q in topical.queries)

    def test_the_pool_judged_362_more_slides_mostly_not_relevant(self):
        pooled = [g for r in rows() for g in r["pooled"].values()]
        assert len(pooled) == 362
        assert sum(g == 0 for g in pooled) > len(pooled) / 2

    def test_fingerprints_the_slide_texts_and_the_query_file(self, topical):
        assert set(topical.hashes) == {"slide_vqa_image_to_gpt_text.json", "slidevqa_topical.jsonl"}

    def test_holds_forty_to_fifty_briefs(self, topical):
        assert 40 <= len(topical.queries) <= 50

    def test_query_ids_are_unique(self, topical):
        ids = [q.id for q in topical.queries]
        assert len(ids) == len(set(ids))

    def test_every_labelled_id_is_a_real_slide(self, topical, slide_ids):
        assert all(sid in slide_ids for q in topical.queries for sid in q.qrels)

    def test_every_brief_has_a_grade_three_slide(self, topical):
        assert all(3.0 in q.qrels.values() for q in topical.queries)

    def test_grades_are_one_to_three(self, topical):
        assert {g for q in topical.queries for g in q.qrels.values()} <= {1.0, 2.0, 3.0}

    def test_every_row_says_what_a_relevant_slide_must_show(self):
        assert all(r["note"].strip() for r in rows())

    def test_queries_are_briefs_not_questions(self, topical):
        assert not [
            q.text
            for q in topical.queries
            if str(q.text).rstrip().endswith("?")
            and str(q.text)[:4].lower() in ("what", "whic", "who ", "when", "how ")
        ]

    def test_mixes_narrow_and_broad_briefs(self, topical):
        sizes = [len(q.qrels) for q in topical.queries]
        assert min(sizes) <= 3
        assert sum(4 <= n <= 20 for n in sizes) > len(sizes) / 2


class TestBadRows:
    def test_unknown_slide_id_names_its_line(self, shared_data, tmp_path):
        data = rows()
        data[2]["relevance"]["no-such-deck-1-1024.jpg"] = 2
        assert_refused(shared_data, tmp_path, data, r"bad\.jsonl:3: unknown slide id\(s\) no-such-deck-1-1024\.jpg")

    @pytest.mark.parametrize("field", ["query_id", "query", "relevance", "note"])
    def test_missing_field_names_its_line(self, shared_data, tmp_path, field):
        data = rows()
        del data[4][field]
        assert_refused(shared_data, tmp_path, data, rf"bad\.jsonl:5: missing field\(s\) {field}")

    def test_grade_outside_one_to_three_names_its_line(self, shared_data, tmp_path):
        data = rows()
        sid = next(iter(data[0]["relevance"]))
        data[0]["relevance"][sid] = 4
        assert_refused(shared_data, tmp_path, data, r"bad\.jsonl:1: grades must be 1, 2 or 3")

    def test_brief_without_a_grade_three_slide_names_its_line(self, shared_data, tmp_path):
        data = rows()
        data[1]["relevance"] = {sid: 1 for sid in data[1]["relevance"]}
        assert_refused(shared_data, tmp_path, data, r"bad\.jsonl:2: .* has no grade-3 slide")

    def test_duplicate_query_id_names_its_line(self, shared_data, tmp_path):
        data = rows()
        data[3]["query_id"] = data[0]["query_id"]
        assert_refused(shared_data, tmp_path, data, r"bad\.jsonl:4: duplicate query_id")

    def test_invalid_json_names_its_line(self, shared_data, tmp_path):
        bad = tmp_path / "bad.jsonl"
        bad.write_text(TOPICAL_QUERIES.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
        with pytest.raises(ValueError, match=rf"bad\.jsonl:{len(rows()) + 1}: invalid JSON"):
            load_slidevqa_topical(shared_data, path=bad)

    def test_blank_lines_are_skipped_and_line_numbers_stay_true(self, shared_data, tmp_path):
        data = rows()
        data[1]["relevance"]["no-such-deck-1-1024.jpg"] = 1
        bad = tmp_path / "bad.jsonl"
        bad.write_text(json.dumps(data[0]) + "\n\n" + json.dumps(data[1]) + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match=r"bad\.jsonl:3: unknown slide"):
            load_slidevqa_topical(shared_data, path=bad)

    def test_empty_file_is_an_error(self, shared_data, tmp_path):
        empty = tmp_path / "empty.jsonl"
        empty.write_text("\n", encoding="utf-8")
        with pytest.raises(ValueError, match="holds no topical queries"):
            load_slidevqa_topical(shared_data, path=empty)

    def test_pooled_grade_outside_zero_to_three_names_its_line(self, shared_data, tmp_path, slide_ids):
        data = rows()
        data[0]["pooled"] = {next(sid for sid in sorted(slide_ids) if sid not in data[0]["relevance"]): 4}
        assert_refused(shared_data, tmp_path, data, r"bad\.jsonl:1: pooled grades must be 0, 1, 2 or 3")

    def test_a_slide_graded_twice_names_its_line(self, shared_data, tmp_path):
        data = rows()
        sid = next(iter(data[2]["relevance"]))
        data[2]["pooled"] = {**data[2]["pooled"], sid: 0}
        assert_refused(shared_data, tmp_path, data, r"bad\.jsonl:3: slide\(s\) graded in both")

    def test_unknown_pooled_slide_names_its_line(self, shared_data, tmp_path):
        data = rows()
        data[1]["pooled"] = {"no-such-deck-1-1024.jpg": 0}
        assert_refused(shared_data, tmp_path, data, r"bad\.jsonl:2: unknown pooled slide id\(s\) no-such-deck")

    def test_pooled_must_be_an_object(self, shared_data, tmp_path):
        data = rows()
        data[1]["pooled"] = ["x"]
        assert_refused(shared_data, tmp_path, data, r"bad\.jsonl:2: 'pooled' must be an object")

    def test_missing_file_is_dataset_missing(self, shared_data, tmp_path):
        with pytest.raises(DatasetMissing, match="topical query set not found"):
            load_slidevqa_topical(shared_data, path=tmp_path / "absent.jsonl")


class TestPooledRows:
    """A row's ``pooled`` grades join its labels and make its judged pool; a row without it has none."""

    def row(self, pooled=None):
        data = {k: v for k, v in rows()[0].items() if k != "pooled"}
        data["relevance"] = dict(list(data["relevance"].items())[:2])
        if pooled is not None:
            data["pooled"] = pooled
        return data

    def test_grade_zero_is_judged_but_not_relevant_and_a_grade_joins_the_labels(self, shared_data, tmp_path,
                                                                                 slide_ids):
        labelled = list(self.row()["relevance"])
        zero, two = [sid for sid in sorted(slide_ids) if sid not in labelled][:2]
        path = write_rows(tmp_path / "pooled.jsonl", [self.row({zero: 0, two: 2})])
        (q,) = load_slidevqa_topical(shared_data, path=path).queries
        assert set(q.judged) == {*labelled, zero, two}
        assert q.qrels[two] == 2.0 and zero not in q.qrels

    def test_an_empty_pool_still_means_judged(self, shared_data, tmp_path):
        path = write_rows(tmp_path / "pooled.jsonl", [self.row({})])
        (q,) = load_slidevqa_topical(shared_data, path=path).queries
        assert sorted(q.judged) == sorted(self.row()["relevance"])

    def test_without_pooled_only_the_graded_list_is_known(self, shared_data, tmp_path):
        path = write_rows(tmp_path / "plain.jsonl", [self.row()])
        ds = load_slidevqa_topical(shared_data, path=path)
        assert ds.queries[0].judged is None and "judged" not in ds.params


def test_the_cards_variant_runs_the_same_briefs_through_the_pipeline(shared_data):
    from eval.datasets import load_slides_dataset

    retrieve, cards = load_slides_dataset("slidevqa-topical"), load_slides_dataset("slidevqa-topical-cards")
    assert (retrieve.mode, cards.mode, cards.name) == ("retrieve", "pipeline", "slidevqa-topical-cards")
    assert [q.qrels for q in cards.queries] == [q.qrels for q in retrieve.queries]
