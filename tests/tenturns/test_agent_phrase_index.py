import json
import math

import numpy as np
import pytest

from tenturns.agents.phrase_index import PhraseIndex
from tenturns.catalog import load_catalog

ROWS = [
    {"parent_asin": "A1", "title": "Cotton Crew Socks", "features": ["Machine Wash", "Cushioned-sole comfort"],
     "categories": ["Clothing, Shoes & Jewelry", "Men", "Socks"], "details": {"Material": "Cotton"},
     "rating_number": 999_999},
    {"parent_asin": "A2", "title": "Wool Hiking Socks", "features": ["Hand Wash Only", "cushioned sole comfort"],
     "categories": ["Clothing, Shoes & Jewelry", "Men", "Socks"], "rating_number": 10},
    {"parent_asin": "A3", "title": "Silk Scarf", "features": ["Dry clean"],
     "categories": ["Clothing, Shoes & Jewelry", "Women", "Scarves"]},
]


@pytest.fixture
def index(tmp_path):
    path = tmp_path / "catalog.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return PhraseIndex(load_catalog(path))


class TestMatchTiers:
    def test_verbatim_hit_scores_two(self, index):
        assert index.factors("machine wash", np.array([0]))[0] == 2.0

    def test_punctuation_insensitive_hit_scores_one_and_a_half(self, index):
        assert index.factors("cushioned sole comfort", np.array([0, 1])).tolist() == [1.5, 2.0]

    def test_partial_token_overlap_scores_a_quarter_of_the_share(self, index):
        assert index.factors("wool blend", np.array([1]))[0] == pytest.approx(0.25 * 0.5)

    def test_details_render_as_key_value_so_a_detail_phrase_matches_loosely(self, index):
        assert index.factors("Material: Cotton", np.array([0]))[0] == 1.5


class TestWeights:
    def test_weight_is_the_mean_of_the_three_rarest_token_idfs(self, index):
        n, df = index.document_frequencies(None)
        expected = [math.log(1 + n / (1 + d)) for d in (0, 1, 1)]  # "zzz" unseen; hiking, wool in one doc
        assert index.phrase_weight("wool hiking socks zzz", n, df) == pytest.approx(sum(expected) / 3)

    def test_shelf_frequencies_count_only_the_shelf(self, index):
        n, df = index.document_frequencies("Men Socks")
        assert n == 2 and df[index.vocab["socks"]] == 2 and df[index.vocab["silk"]] == 0


class TestScore:
    def test_score_is_weighted_factors_plus_rating_prior(self, index):
        rows = np.array([0, 1])
        scored = index.score(rows, ["machine wash"], "Men Socks")
        prior = 0.3 * np.log1p([999_999, 10]) / math.log(1e6)
        expected = prior + scored.weights[0] * index.factors("machine wash", rows)
        assert scored.scores == pytest.approx(expected)

    def test_ranking_breaks_ties_by_catalog_order(self, index):
        scored = index.score(np.array([2, 1, 0]), [], None)
        scored_flat = type(scored)(scored.rows, np.zeros(3), scored.prior, (), (), ())
        assert scored_flat.rows[scored_flat.ranking()].tolist() == [0, 1, 2]

    def test_explain_names_each_phrase_tier(self, index):
        scored = index.score(np.array([0, 1]), ["machine wash", "cushioned sole comfort"], "Men Socks")
        tiers = [m.tier for m in scored.explain(0)]
        assert tiers == ["verbatim", "punctuation"]
