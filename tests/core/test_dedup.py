import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core.dedup import (
    NEAR_DUPLICATE_THRESHOLD,
    UnionFind,
    exact_dedup,
    near_duplicate_dedup,
    near_duplicate_groups,
)
from core.embed import l2_normalise
from core.text import normalise


def _chain(steps):
    """Unit vectors in a plane, each rotated from the previous one by the given angle (radians)."""
    angles = np.concatenate([[0.0], np.cumsum(steps)])
    return np.stack([np.cos(angles), np.sin(angles)], axis=1).astype(np.float32)


def _greedy_keep(vectors, scores, threshold):
    """The walk union-find replaces: in score order, keep an item unless it is close to something already kept."""
    kept = []
    for i in sorted(range(len(scores)), key=lambda i: -scores[i]):
        if all(float(vectors[i] @ vectors[j]) < threshold for j in kept):
            kept.append(i)
    return kept


class TestExactDedup:
    def test_keeps_the_best_scored_copy_of_each_normalised_text(self):
        texts = ["Our Team", "our   team", "Pricing", "OUR TEAM "]
        assert exact_dedup(texts, [0.2, 0.9, 0.5, 0.1]) == [1, 2]

    def test_earliest_copy_wins_a_tie(self):
        assert exact_dedup(["a", "A", "b"], [1.0, 1.0, 0.5]) == [0, 2]

    def test_punctuation_still_distinguishes_texts(self):
        assert exact_dedup(["Q3 results", "Q3: results"], [1.0, 0.5]) == [0, 1]

    def test_lengths_must_match(self):
        with pytest.raises(ValueError, match="2 texts for 1 scores"):
            exact_dedup(["a", "b"], [1.0])

    @given(st.lists(st.tuples(st.sampled_from(["a", "A ", "b", " B", "c"]), st.floats(0, 1)), max_size=12))
    def test_one_best_copy_per_distinct_text(self, rows):
        texts, scores = [t for t, _ in rows], [s for _, s in rows]
        keep = exact_dedup(texts, scores)
        assert sorted(normalise(texts[i]) for i in keep) == sorted({normalise(t) for t in texts})
        for i in keep:
            assert scores[i] == max(s for t, s in rows if normalise(t) == normalise(texts[i]))
        assert [scores[i] for i in keep] == sorted((scores[i] for i in keep), reverse=True)


class TestUnionFind:
    def test_starts_as_singletons(self):
        uf = UnionFind(3)
        assert [uf.find(i) for i in range(3)] == [0, 1, 2]

    def test_union_is_transitive(self):
        uf = UnionFind(5)
        uf.union(0, 1)
        uf.union(3, 4)
        uf.union(1, 4)
        assert len({uf.find(i) for i in (0, 1, 3, 4)}) == 1
        assert uf.find(2) == 2
        assert uf.size[uf.find(0)] == 4

    def test_repeated_union_changes_nothing(self):
        uf = UnionFind(2)
        uf.union(0, 1)
        uf.union(1, 0)
        assert uf.size[uf.find(0)] == 2


class TestNearDuplicateDedup:
    # Consecutive cosines 0.99, 0.955, 0.99, 0.988 (all >= 0.90); the chain's ends sit at 0.74.
    CHAIN_STEPS = [np.arccos(0.99), 0.30, np.arccos(0.99), np.arccos(0.74) - 0.30 - 2 * np.arccos(0.99)]

    def test_the_chain_spans_the_smeared_range(self):
        vectors = _chain(self.CHAIN_STEPS)
        sims = vectors @ vectors.T
        pairs = sims[np.triu_indices(len(vectors), k=1)]
        assert pairs.min() == pytest.approx(0.74, abs=1e-4)
        assert pairs.max() == pytest.approx(0.99, abs=1e-4)
        assert np.diag(sims, k=1).min() >= NEAR_DUPLICATE_THRESHOLD

    def test_a_smeared_chain_collapses_to_one_survivor_where_a_greedy_walk_keeps_several(self):
        vectors = _chain(self.CHAIN_STEPS)
        scores = [0.9, 0.8, 0.7, 0.6, 0.5]
        assert near_duplicate_dedup(vectors, scores) == [0]
        assert len(_greedy_keep(vectors, scores, NEAR_DUPLICATE_THRESHOLD)) > 1

    def test_the_survivor_is_the_best_scored_member_wherever_it_sits(self):
        vectors = _chain(self.CHAIN_STEPS)
        assert near_duplicate_dedup(vectors, [0.1, 0.2, 0.3, 0.9, 0.4]) == [3]

    def test_distinct_items_all_survive_in_score_order(self):
        vectors = np.eye(3, dtype=np.float32)
        assert near_duplicate_dedup(vectors, [0.1, 0.9, 0.5]) == [1, 2, 0]

    def test_groups_of_zero_and_one_row(self):
        assert near_duplicate_groups(np.zeros((0, 4), dtype=np.float32)) == []
        assert near_duplicate_groups(np.ones((1, 4), dtype=np.float32)) == [0]

    @pytest.mark.parametrize("threshold", [0.0, -0.5, 1.01])
    def test_threshold_outside_zero_one_is_an_error(self, threshold):
        with pytest.raises(ValueError, match="threshold must be in"):
            near_duplicate_dedup(np.eye(2, dtype=np.float32), [1.0, 0.5], threshold=threshold)

    def test_threshold_of_one_joins_only_identical_vectors(self):
        vectors = np.array([[1, 0], [1, 0], [0.999, 0.0447]], dtype=np.float32)
        assert near_duplicate_dedup(l2_normalise(vectors), [0.5, 0.9, 0.1], threshold=1.0) == [1, 2]

    def test_lengths_must_match(self):
        with pytest.raises(ValueError, match="3 vectors for 2 scores"):
            near_duplicate_dedup(np.eye(3, dtype=np.float32), [1.0, 0.5])

    @settings(max_examples=60)
    @given(
        arrays(np.float32, st.tuples(st.integers(1, 12), st.just(3)), elements=st.floats(-1, 1, width=32)),
        st.floats(0.5, 0.99),
        st.data(),
    )
    def test_survivors_are_few_never_none_and_pairwise_below_threshold(self, raw, threshold, data):
        vectors = l2_normalise(raw)
        scores = data.draw(st.lists(st.floats(0, 1), min_size=len(raw), max_size=len(raw)))
        keep = near_duplicate_dedup(vectors, scores, threshold)
        assert 1 <= len(keep) <= len(raw)
        assert len(set(keep)) == len(keep)
        sims = vectors[keep] @ vectors[keep].T
        assert (sims[np.triu_indices(len(keep), k=1)] < threshold + 1e-6).all()
        assert len(keep) <= len(_greedy_keep(vectors, scores, threshold))
