import math

import pytest

from eval.metrics import dcg_at_k, mean, mrr_at_k, ndcg_at_k, recall_at_k


class TestNdcg:
    def test_graded_ranking_matches_hand_computation(self):
        qrels = {"a": 3.0, "b": 2.0, "c": 1.0}
        ranked = ["b", "x", "a", "c"]
        dcg = (2**2 - 1) / math.log2(2) + 0 + (2**3 - 1) / math.log2(4) + (2**1 - 1) / math.log2(5)
        ideal = (2**3 - 1) / math.log2(2) + (2**2 - 1) / math.log2(3) + (2**1 - 1) / math.log2(4)
        assert ndcg_at_k(ranked, qrels, 10) == pytest.approx(dcg / ideal)
        # by hand: (3 + 7/2 + 1/log2 5) / (7 + 3/log2 3 + 1/2) = 6.9307 / 9.3928
        assert ndcg_at_k(ranked, qrels, 10) == pytest.approx(0.7379, abs=1e-4)

    def test_ideal_order_scores_one_and_cut_ignores_deeper_hits(self):
        qrels = {"a": 1.0, "b": 1.0}
        assert ndcg_at_k(["a", "b"], qrels, 10) == pytest.approx(1.0)
        assert ndcg_at_k(["x", "a"], qrels, 1) == 0.0

    def test_query_without_relevant_documents_is_an_error(self):
        with pytest.raises(ValueError, match="undefined"):
            ndcg_at_k(["a"], {}, 10)

    def test_dcg_of_binary_gains(self):
        assert dcg_at_k([1, 0, 1], 3) == pytest.approx(1 + 1 / 2)


class TestMrr:
    def test_reciprocal_rank_of_first_relevant(self):
        assert mrr_at_k(["x", "y", "a"], {"a": 1.0}, 10) == pytest.approx(1 / 3)

    def test_relevant_beyond_the_cut_scores_zero(self):
        assert mrr_at_k(["x", "y", "a"], {"a": 1.0}, 2) == 0.0

    def test_zero_gain_judgments_are_not_relevant(self):
        assert mrr_at_k(["z", "a"], {"z": 0.0, "a": 2.0}, 10) == pytest.approx(0.5)


class TestRecall:
    def test_share_of_relevant_found(self):
        assert recall_at_k(["a", "x", "c"], {"a": 1.0, "b": 2.0, "c": 1.0, "d": 1.0}, 3) == pytest.approx(0.5)

    def test_cut_limits_what_counts(self):
        assert recall_at_k(["a", "x", "c"], {"a": 1.0, "c": 1.0}, 1) == pytest.approx(0.5)


def test_mean_of_nothing_is_zero():
    assert mean([]) == 0.0
    assert mean([1.0, 0.0]) == 0.5
