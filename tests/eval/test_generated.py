from eval.generated import generated_folder, load_generated


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
        assert all(set(q.qrels) <= ids for q in first.queries)
        assert {"topic", "exclusion", "multi_part"} <= {q.kind for q in first.queries}

    def test_each_verified_row_stands_for_the_slide_it_was_made_from(self, _isolated_seek_home):
        dataset = load_generated(300, 1)
        ids = {s.slide_id for s in dataset.docs}
        assert set(dataset.aliases) == {f"verified:{m.row_id}" for m in dataset.master}
        assert set(dataset.aliases.values()) <= ids
        by_id = {s.slide_id: s for s in dataset.docs}
        for row in dataset.master:
            assert by_id[dataset.aliases[f"verified:{row.row_id}"]].title == row.title
        assert dataset.hashes["judging"] and "judging" not in dataset.model_copy(update={"aliases": {}}).hashes
