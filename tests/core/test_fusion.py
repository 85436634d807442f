import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from core.fusion import RRF_K, min_max, normalised_blend, ranked, rrf

ITEMS = st.sampled_from("abcdefgh")
RANKING = st.lists(ITEMS, unique=True, max_size=8)


class TestRrf:
    def test_matches_a_hand_computed_weighted_example(self):
        # k = 10, weights 2 and 1:
        #   a = 2/11 + 1/12, b = 2/12, c = 2/13 + 1/11, d = 1/13
        fused = rrf([["a", "b", "c"], ["c", "a", "d"]], k=10, weights=[2.0, 1.0])
        assert fused == pytest.approx({"a": 2 / 11 + 1 / 12, "b": 2 / 12, "c": 2 / 13 + 1 / 11, "d": 1 / 13})
        assert ranked(fused) == ["a", "c", "b", "d"]

    def test_default_is_unweighted_with_k_60(self):
        assert RRF_K == 60
        assert rrf([["x", "y"], ["y"]]) == pytest.approx({"x": 1 / 61, "y": 1 / 62 + 1 / 61})

    def test_item_in_both_lists_beats_the_top_of_one(self):
        fused = rrf([["solo", "both"], ["other", "both"]])
        assert ranked(fused)[0] == "both"

    def test_weights_must_match_rankings(self):
        with pytest.raises(ValueError, match="1 weights for 2 rankings"):
            rrf([["a"], ["b"]], weights=[1.0])

    def test_negative_k_is_an_error(self):
        with pytest.raises(ValueError, match="non-negative"):
            rrf([["a"]], k=-1)

    def test_no_rankings_fuse_to_nothing(self):
        assert rrf([]) == {}

    @given(RANKING, st.integers(0, 100))
    def test_one_list_keeps_its_order(self, ranking, k):
        assert ranked(rrf([ranking], k=k)) == ranking

    @given(st.lists(RANKING, min_size=1, max_size=4), st.data())
    def test_promoting_an_item_never_lowers_its_score_or_raises_the_one_it_passes(self, rankings, data):
        which = data.draw(st.integers(0, len(rankings) - 1))
        ranking = rankings[which]
        assume(len(ranking) >= 2)
        pos = data.draw(st.integers(1, len(ranking) - 1))
        promoted, passed = ranking[pos], ranking[pos - 1]
        swapped = [*ranking[: pos - 1], promoted, passed, *ranking[pos + 1 :]]
        before = rrf(rankings)
        after = rrf([*rankings[:which], swapped, *rankings[which + 1 :]])
        assert after[promoted] > before[promoted]
        assert after[passed] < before[passed]

    @given(st.lists(RANKING, min_size=1, max_size=4))
    def test_every_ranked_item_gets_a_positive_score(self, rankings):
        fused = rrf(rankings)
        assert set(fused) == {item for ranking in rankings for item in ranking}
        assert all(score > 0 for score in fused.values())


class TestMinMax:
    def test_scales_to_zero_one(self):
        assert min_max({"a": 10.0, "b": 0.0, "c": 5.0}) == pytest.approx({"a": 1.0, "b": 0.0, "c": 0.5})

    def test_constant_list_is_all_ones(self):
        assert min_max({"a": 3.0, "b": 3.0}) == {"a": 1.0, "b": 1.0}

    def test_empty_stays_empty(self):
        assert min_max({}) == {}

    @given(st.dictionaries(ITEMS, st.floats(-1e6, 1e6), min_size=1))
    def test_stays_within_zero_one(self, scores):
        assert all(-1e-9 <= v <= 1 + 1e-9 for v in min_max(scores).values())


class TestNormalisedBlend:
    def test_matches_a_hand_computed_example(self):
        # min-max: first list a=1, b=0, c=0.5; second list a=0, c=1; weights 1 and 2.
        blended = normalised_blend([{"a": 10.0, "b": 0.0, "c": 5.0}, {"a": 1.0, "c": 3.0}], weights=[1.0, 2.0])
        assert blended == pytest.approx({"a": 1.0, "b": 0.0, "c": 2.5})

    def test_weights_must_match_lists(self):
        with pytest.raises(ValueError, match="2 weights for 1 score lists"):
            normalised_blend([{"a": 1.0}], weights=[1.0, 1.0])


class TestRanked:
    def test_descending_with_ties_in_insertion_order(self):
        assert ranked({"x": 0.5, "y": 0.9, "z": 0.5, "w": 0.1}) == ["y", "x", "z", "w"]
