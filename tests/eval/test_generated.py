from eval.datasets import LabelledQuery
from eval.generated import generated_folder, label_verified_rows, load_generated, verified_sources


class TestGeneratedDataset:
    def test_generated_once_then_reused_with_graded_labels(self, _isolated_seek_home):
        first = load_generated(300, 1)
        folder = generated_folder(300, 1)
        assert folder == _isolated_seek_home / "eval" / "generated" / "n300-s1"
        stamp = (folder / "slides.jsonl").stat().st_mtime_ns
        second = load_generated(300, 1)
        assert (folder / "slides.jsonl").stat().st_mtime_ns == stamp and second.hashes == first.hashes
        assert len(first.docs) == 300 and first.mode == "pipeline" and first.params == {"slides": 300, "seed": 1}
        ids = {s.slide_id for s in first.docs}
        grades = {g for q in first.queries for g in q.qrels.values()}
        assert grades <= {1.0, 2.0, 3.0} and 3.0 in grades
        rows = {f"verified:{m.row_id}" for m in first.master}
        assert all(set(q.qrels) <= ids | rows for q in first.queries)
        assert first.verified_labels
        assert {"topic", "exclusion", "multi_part"} <= {q.kind for q in first.queries}

    def test_a_verified_row_is_graded_as_the_slide_it_was_made_from(self, _isolated_seek_home):
        dataset = load_generated(300, 1)
        sources = verified_sources(generated_folder(300, 1) / "master.jsonl")
        assert sources and set(sources) == {f"verified:{m.row_id}" for m in dataset.master}
        graded = 0
        for q in dataset.queries:
            for row, slide in sources.items():
                assert q.qrels.get(row) == q.qrels.get(slide)
                graded += row in q.qrels
        assert graded > 0

    def test_label_verified_rows_leaves_a_query_without_their_slides_alone(self):
        q = LabelledQuery(id="q", text="t", qrels={"s1": 3.0, "s2": 1.0})
        out = label_verified_rows([q], {"verified:A": "s2", "verified:B": "s9"})
        assert out[0].qrels == {"s1": 3.0, "s2": 1.0, "verified:A": 1.0}
        assert label_verified_rows([q], {"verified:B": "s9"})[0] is q
