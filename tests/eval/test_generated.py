from eval.dataset_types import LabelledQuery
from eval.generated import copy_aliases, fold_copies, generated_folder, load_generated
from slidesearch.model import Slide


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
        verified = {k: v for k, v in dataset.aliases.items() if k.startswith("verified:")}
        assert set(verified) == {f"verified:{m.row_id}" for m in dataset.master}
        assert set(dataset.aliases.values()) <= ids
        by_id = {s.slide_id: s for s in dataset.docs}
        for row in dataset.master:
            assert by_id[dataset.aliases[f"verified:{row.row_id}"]].title == row.title
        assert dataset.hashes["judging"] and "judging" not in dataset.model_copy(update={"aliases": {}}).hashes

    def test_a_slides_copies_are_judged_as_that_slide_at_their_best_grade(self, _isolated_seek_home):
        dataset = load_generated(300, 1)
        copies = {k: v for k, v in dataset.aliases.items() if not k.startswith("verified:")}
        assert copies, "the generator's deck versions copy slides"
        by_id = {s.slide_id: s for s in dataset.docs}
        for copy, first in copies.items():
            assert copy > first and (by_id[copy].title, by_id[copy].text) == (by_id[first].title, by_id[first].text)
            assert first not in copies  # every copy points at the first of its group
        assert not any(set(q.qrels) & set(copies) for q in dataset.queries)

    def test_copy_aliases_and_fold_copies(self):
        def slide(sid, title, text):
            return Slide(slide_id=sid, title=title, text=text, deck_id="d", deck_name="d.pptx", folder="/f")
        slides = [slide("b2", "Grant writing", "Support for universities"), slide("a1", "Grant  Writing", "support for universities"),
                  slide("c3", "Grant writing", "Support for colleges")]
        aliases = copy_aliases(slides)
        assert aliases == {"b2": "a1"}
        query = LabelledQuery(id="q", text="grant proposal writing", qrels={"a1": 2.0, "b2": 3.0, "c3": 1.0})
        assert fold_copies(query, aliases).qrels == {"a1": 3.0, "c3": 1.0}
