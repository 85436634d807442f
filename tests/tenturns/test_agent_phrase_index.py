import json
import math

import numpy as np
import pytest

from tenturns.agents.phrase_index import PhraseIndex, exact_form, loose_form
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
        assert index.factors("machine wash", index.rows_view(np.array([0])))[0] == 2.0

    def test_punctuation_insensitive_hit_scores_one_and_a_half(self, index):
        assert index.factors("cushioned sole comfort", index.rows_view(np.array([0, 1]))).tolist() == [1.5, 2.0]

    def test_partial_token_overlap_scores_a_quarter_of_the_share(self, index):
        assert index.factors("wool blend", index.rows_view(np.array([1])))[0] == pytest.approx(0.25 * 0.5)

    def test_details_render_as_key_value_so_a_detail_phrase_matches_loosely(self, index):
        assert index.factors("Material: Cotton", index.rows_view(np.array([0])))[0] == 1.5


class TestTextForms:
    def test_fast_forms_equal_the_core_regex_forms(self, shared_data):
        from core.text import normalise, punctuation_insensitive
        from tenturns.catalog import searchable_text

        catalog = load_catalog(shared_data / "techjam" / "catalog_sample.jsonl")
        texts = [searchable_text(p) for p in catalog.products]
        assert [exact_form(t) for t in texts] == [normalise(t) for t in texts]
        assert [loose_form(exact_form(t)) for t in texts] == [punctuation_insensitive(t) for t in texts]

    def test_a_match_never_spans_two_products(self, index):
        view = index.rows_view(np.array([0, 1]))
        assert view.exact.containing("men socks") == [0, 1] and view.exact.containing("socks wool") == []


class TestWeights:
    def test_weight_is_the_mean_of_the_three_rarest_token_idfs(self, index):
        view = index.rows_view(np.arange(3), own_frequencies=True)
        n, df = len(view.rows), view.df
        expected = [math.log(1 + n / (1 + d)) for d in (0, 1, 1)]  # "zzz" unseen; hiking, wool in one doc
        assert index.phrase_weight("wool hiking socks zzz", n, df) == pytest.approx(sum(expected) / 3)

    def test_shelf_frequencies_count_only_the_shelf(self, index):
        view = index.view("Men Socks")
        assert len(view.rows) == 2 and view.df(index.vocab["socks"]) == 2 and view.df(index.vocab["silk"]) == 0
        assert view.holding(index.vocab["wool"]).tolist() == [1]

    def test_catalog_scope_weighs_by_catalog_frequencies(self, index):
        shelf = index.score(index.view("Men Socks"), ["socks"], "shelf").weights[0]
        catalog = index.score(index.view("Men Socks"), ["socks"], "catalog").weights[0]
        assert shelf == pytest.approx(math.log(1 + 2 / 3)) and catalog == pytest.approx(math.log(1 + 3 / 3))

    def test_unknown_scope_is_rejected(self, index):
        with pytest.raises(ValueError, match="shelf, catalog"):
            index.score(index.view("Men Socks"), [], "everywhere")


class TestScore:
    def test_score_is_weighted_factors_plus_rating_prior(self, index):
        view = index.view("Men Socks")
        scored = index.score(view, ["machine wash"])
        prior = 0.3 * np.log1p([999_999, 10]) / math.log(1e6)
        expected = prior + scored.weights[0] * np.array([2.0, 0.25 * 0.5])
        assert scored.scores == pytest.approx(expected)

    def test_ranking_breaks_ties_by_catalog_order(self, index):
        scored = index.score(index.rows_view(np.array([0, 1, 2])), [], "catalog")
        scored_flat = type(scored)(scored.rows, np.zeros(3), scored.prior, (), (), ())
        assert scored_flat.rows[scored_flat.ranking()].tolist() == [0, 1, 2]

    def test_explain_names_each_phrase_tier(self, index):
        scored = index.score(index.view("Men Socks"), ["machine wash", "cushioned sole comfort"])
        tiers = [m.tier for m in scored.explain(0)]
        assert tiers == ["verbatim", "punctuation"]
