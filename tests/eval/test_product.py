import math

import pytest

from eval.product import (
    by_kind_table,
    cap_ranking,
    capped_ndcg,
    dcg,
    deck_capped_ideal,
    gain,
    reference_figures,
    shown_card_figures,
    summarise,
    summarise_by_kind,
    target_checks,
)

# Deck A holds three grade-3 slides, deck B a grade-2 and a grade-1; c1 is judged 0, z is in no pool.
GRADES = {"a1": 3.0, "a2": 3.0, "a3": 3.0, "b1": 2.0, "b2": 1.0}
DECKS = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "b2": "B", "c1": "C", "z": "Z"}
POOL = [*GRADES, "c1"]


class TestGain:
    def test_exponential_and_linear_forms(self):
        assert (gain(3, "exponential"), gain(3, "linear"), gain(0, "exponential")) == (7.0, 3.0, 0.0)

    def test_unknown_form_names_the_valid_ones(self):
        with pytest.raises(ValueError, match="exponential or linear"):
            gain(1, "cubic")


class TestDeckCappedIdeal:
    def test_takes_at_most_cap_slides_of_one_deck(self):
        assert deck_capped_ideal(GRADES, DECKS, cap=2) == [3.0, 3.0, 2.0, 1.0]

    def test_a_cap_of_one_keeps_each_decks_best(self):
        assert deck_capped_ideal(GRADES, DECKS, cap=1) == [3.0, 2.0]

    def test_grade_zero_slides_are_not_in_the_ideal(self):
        assert deck_capped_ideal({"a1": 0.0, "b1": 1.0}, DECKS, cap=2) == [1.0]

    def test_a_cap_below_one_is_refused(self):
        with pytest.raises(ValueError, match="at least 1"):
            deck_capped_ideal(GRADES, DECKS, cap=0)


class TestCappedNdcg:
    def test_the_capped_ideal_itself_scores_one(self):
        assert capped_ndcg(["a1", "a2", "b1", "b2"], GRADES, DECKS, 2, "exponential") == pytest.approx(1.0)

    def test_hand_computed_value(self):
        # shown a1, c1, b1: DCG = 7/1 + 0 + 3/2 = 8.5; ideal 3,3,2,1 = 7 + 7/log2(3) + 3/2 + 1/log2(5).
        ideal = 7 + 7 / math.log2(3) + 1.5 + 1 / math.log2(5)
        assert capped_ndcg(["a1", "c1", "b1"], GRADES, DECKS, 2, "exponential") == pytest.approx(8.5 / ideal)

    def test_linear_gain_uses_the_grade(self):
        # shown b1 alone: DCG 2; capped linear ideal 3 + 3/log2(3) + 2/2 + 1/log2(5).
        ideal = 3 + 3 / math.log2(3) + 1 + 1 / math.log2(5)
        assert capped_ndcg(["b1"], GRADES, DECKS, 2, "linear") == pytest.approx(2 / ideal)

    def test_undefined_without_a_relevant_slide(self):
        with pytest.raises(ValueError, match="undefined"):
            capped_ndcg(["a1"], {"a1": 0.0}, DECKS, 2, "exponential")

    def test_a_decks_slides_past_the_cap_and_repeats_gain_nothing(self):
        # a3 is deck A's third slide and a1 comes back: neither can lift the answer above the ideal.
        assert capped_ndcg(["a1", "a2", "a3", "a1", "b1", "b2"], GRADES, DECKS, 2, "exponential") < 1.0
        assert capped_ndcg(["a1", "a2", "b1", "b2", "a3", "a1"], GRADES, DECKS, 2, "exponential") == pytest.approx(1.0)

    def test_dcg_cuts_at_k(self):
        assert dcg([1.0] * 12, "linear", k=1) == 1.0


class TestShownCardFigures:
    def test_unjudged_card_is_counted_apart_not_as_wrong(self):
        f = shown_card_figures(["a1", "z", "c1"], GRADES, POOL, DECKS, 2, "exponential")
        # judged shown: a1 (relevant), c1 (grade 0) -> precision 1/2; z is unjudged, outside the denominator.
        assert f["precision"] == 0.5
        assert (f["unjudged"], f["unjudged_share"], f["cards_shown"]) == (1.0, pytest.approx(1 / 3), 3.0)
        assert (f["judged_shown"], f["relevant_shown"]) == (2.0, 1.0)
        assert "ungraded" not in f

    def test_without_a_pool_an_unlisted_card_is_gain_zero_and_not_in_the_graded_list(self):
        f = shown_card_figures(["a1", "z", "c1"], GRADES, None, DECKS, 2, "exponential")
        assert f["precision"] == pytest.approx(1 / 3)
        assert (f["ungraded"], f["ungraded_share"]) == (2.0, pytest.approx(2 / 3))
        assert "unjudged" not in f

    def test_nothing_shown_is_a_zero_result_with_no_precision(self):
        f = shown_card_figures([], GRADES, POOL, DECKS, 2, "exponential")
        assert (f["zero_result"], f["cards_shown"], f["product_ndcg@10"]) == (1.0, 0.0, 0.0)
        assert "precision" not in f

    def test_only_unjudged_cards_leave_precision_undefined(self):
        f = shown_card_figures(["z"], GRADES, POOL, DECKS, 2, "exponential")
        assert "precision" not in f and f["unjudged"] == 1.0

    def test_absent_brief_reports_notes_and_no_ndcg(self):
        f = shown_card_figures(["c1"], {}, ["c1"], DECKS, 2, "exponential", notes=(True, True))
        assert (f["coverage_note"], f["any_note"], f["precision"], f["cards_shown"]) == (1.0, 1.0, 0.0, 1.0)
        assert "product_ndcg@10" not in f


class TestReferenceFigures:
    def test_reads_its_top_ten_both_ways(self):
        f = reference_figures("minilm", ["a1", "a2", "a3", "z"], GRADES, POOL, DECKS, 2, "linear")
        uncapped_ideal = 3 + 3 / math.log2(3) + 3 / 2 + 2 / math.log2(5) + 1 / math.log2(6)
        as_ranked = 3 + 3 / math.log2(3) + 3 / 2
        capped_ideal = 3 + 3 / math.log2(3) + 2 / 2 + 1 / math.log2(5)
        assert f["minilm_ndcg@10"] == pytest.approx(as_ranked / uncapped_ideal)
        # capped walk drops a3: a1, a2, z.
        assert f["minilm_capped_ndcg@10"] == pytest.approx((3 + 3 / math.log2(3)) / capped_ideal)
        assert f["minilm_unjudged@10"] == 1.0

    def test_cap_ranking_keeps_ids_without_a_deck(self):
        assert cap_ranking(["a1", "a2", "a3", "x"], DECKS, 2) == ["a1", "a2", "x"]


class TestSummaries:
    BRIEFS = [
        ("topical", {"product_ndcg@10": 0.5, "minilm_ndcg@10": 0.3, "precision": 1.0, "cards_shown": 2.0,
                     "zero_result": 0.0, "unjudged": 1.0, "relevant_shown": 1.0, "judged_shown": 1.0}),
        ("topical", {"product_ndcg@10": 0.0, "minilm_ndcg@10": 0.1, "cards_shown": 0.0, "zero_result": 1.0,
                     "unjudged": 0.0}),
        ("absent", {"precision": 0.0, "cards_shown": 2.0, "zero_result": 0.0, "unjudged": 1.0,
                    "coverage_note": 1.0, "any_note": 1.0, "relevant_shown": 0.0, "judged_shown": 1.0}),
    ]

    def test_overall_averages_each_figure_over_the_briefs_that_have_it(self):
        s = summarise([f for _, f in self.BRIEFS])
        assert (s["n"], s["answered"], s["product_ndcg@10"], s["precision"]) == (3.0, 2.0, 0.25, 0.5)
        assert s["product_minus_minilm"] == pytest.approx(0.25 - 0.2)
        assert (s["zero_results"], s["shown_total"], s["unjudged_total"]) == (1.0, 4.0, 2.0)
        assert s["unjudged_share"] == 0.5 and s["precision_pooled"] == 0.5
        assert s["coverage_note"] == 1.0

    def test_by_kind_splits_the_same_figures(self):
        by_kind = summarise_by_kind(self.BRIEFS)
        assert list(by_kind) == ["absent", "topical"]
        assert (by_kind["topical"]["n"], by_kind["topical"]["cards_shown"], by_kind["topical"]["zero_results"]) == (
            2.0, 1.0, 1.0)
        assert "product_ndcg@10" not in by_kind["absent"] and by_kind["absent"]["any_note"] == 1.0

    def test_targets_say_which_are_met(self):
        checks = target_checks("realdecks", {"product_ndcg@10": 0.5, "product_minus_minilm": 0.12, "precision": 0.55,
                                             "zero_results": 1.0})
        assert [met for _, _, met in checks] == [True, False, False]
        assert target_checks("slidevqa", {"mrr@10": 0.9})[0][2] is True

    def test_by_kind_table_keeps_only_columns_some_row_has(self):
        header, rows = by_kind_table(summarise([f for _, f in self.BRIEFS]), summarise_by_kind(self.BRIEFS))
        assert header[:3] == ["kind", "briefs", "answer nDCG@10"] and "not in graded list" not in header
        assert [r[0] for r in rows] == ["absent", "topical", "all"]
        assert rows[0][header.index("answer nDCG@10")] == "" and rows[2][header.index("unjudged")] == "2"
