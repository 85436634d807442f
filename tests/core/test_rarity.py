import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.rarity import (
    IDF_VARIANTS,
    DocFreqTable,
    idf_classic,
    idf_function,
    idf_lucene,
    idf_plus_one_smooth,
    idf_robertson,
    mean_k_rarest_idf,
    scaled_threshold,
)

# Counted by hand. Words: pricing 3; acme, retail, supply, chain 2; strategy 1.
# Phrases: "retail pricing" 2, "supply chain" 2, every other pair and triple 1.
CORPUS = [
    "Acme retail pricing",
    "Retail pricing strategy",
    "Acme supply chain",
    "Supply chain pricing",
]


@pytest.fixture
def table():
    return DocFreqTable.build(CORPUS)


class TestDocFreqTable:
    def test_counts_documents(self, table):
        assert table.n_docs == 4

    def test_word_document_frequencies_match_hand_count(self, table):
        assert dict(table.words) == {"acme": 2, "retail": 2, "pricing": 3, "strategy": 1, "supply": 2, "chain": 2}

    def test_phrase_document_frequencies_match_hand_count(self, table):
        assert table.df("retail pricing") == 2
        assert table.df("supply chain") == 2
        assert table.df("acme retail pricing") == 1
        assert table.df("chain pricing") == 1
        assert table.df("pricing acme") == 0
        assert len(table.phrases) == 10

    def test_a_word_repeated_in_one_document_counts_once(self):
        table = DocFreqTable.build(["pricing pricing pricing", "pricing"])
        assert table.df("pricing") == 2
        assert table.df("pricing pricing") == 1

    def test_phrases_skip_over_the_given_stopwords(self):
        table = DocFreqTable.build(["supply of the chain"], stopwords=frozenset({"of", "the"}))
        assert table.df("supply chain") == 1
        assert table.df("the") == 1

    def test_phrase_sizes_can_be_turned_off(self):
        assert DocFreqTable.build(CORPUS, phrase_sizes=()).phrases == {}

    def test_share_is_fraction_of_documents(self, table):
        assert table.share("pricing") == 0.75
        assert table.share("supply chain") == 0.5
        assert table.share("unseen") == 0.0

    def test_share_of_an_empty_table_is_zero(self):
        assert DocFreqTable().share("x") == 0.0

    def test_idf_uses_the_named_variant(self, table):
        assert table.idf("strategy") == pytest.approx(math.log(1 + 4 / 2))
        assert table.idf("strategy", "classic") == pytest.approx(math.log(4))


class TestRarityLookups:
    def test_rare_by_count(self, table):
        assert table.is_rare("strategy", max_count=1)
        assert not table.is_rare("acme", max_count=1)
        assert table.is_rare("acme", max_count=2)

    def test_rare_by_share(self, table):
        assert table.is_rare("supply chain", max_share=0.5)
        assert not table.is_rare("pricing", max_share=0.5)

    def test_both_limits_must_hold(self, table):
        assert not table.is_rare("acme", max_count=2, max_share=0.25)

    def test_unseen_term_is_not_rare(self, table):
        assert not table.is_rare("zebra", max_count=10)

    def test_rare_terms_keeps_input_order_once_each(self, table):
        terms = ["strategy", "pricing", "strategy", "acme", "zebra", "supply chain"]
        assert table.rare_terms(terms, max_count=2) == ["strategy", "acme", "supply chain"]


class TestIdfVariants:
    # N = 4 documents; df = 2 and df = 3 worked by hand.
    @pytest.mark.parametrize(
        ("variant", "df", "expected"),
        [
            (idf_plus_one_smooth, 2, math.log(1 + 4 / 3)),
            (idf_plus_one_smooth, 0, math.log(5)),
            (idf_robertson, 2, 0.0),
            (idf_robertson, 3, math.log(1.5 / 3.5)),
            (idf_lucene, 2, math.log(2)),
            (idf_lucene, 3, math.log(1 + 1.5 / 3.5)),
            (idf_classic, 2, math.log(2)),
            (idf_classic, 0, math.log(4)),
        ],
    )
    def test_matches_hand_computed_value(self, variant, df, expected):
        assert variant(4, df) == pytest.approx(expected)

    def test_robertson_goes_negative_for_terms_in_most_documents(self):
        assert idf_robertson(10, 8) < 0

    @pytest.mark.parametrize("name", ["plus_one_smooth", "lucene"])
    @given(n=st.integers(1, 10_000), data=st.data())
    def test_smoothed_variants_are_positive_and_fall_with_df(self, name, n, data):
        df = data.draw(st.integers(0, n - 1))
        idf = idf_function(name)
        assert idf(n, df) > 0
        assert idf(n, df) > idf(n, df + 1)

    @pytest.mark.parametrize("name", sorted(IDF_VARIANTS))
    def test_selector_returns_each_registered_variant(self, name):
        assert idf_function(name) is IDF_VARIANTS[name]

    def test_unknown_variant_error_lists_the_valid_names(self):
        with pytest.raises(ValueError, match="unknown IDF variant 'bm42'") as err:
            idf_function("bm42")
        for name in IDF_VARIANTS:
            assert name in str(err.value)


class TestMeanKRarestIdf:
    def test_mean_of_the_k_largest(self):
        assert mean_k_rarest_idf([1.0, 5.0, 3.0, 4.0], k=3) == pytest.approx(4.0)

    def test_mean_of_all_when_fewer_than_k(self):
        assert mean_k_rarest_idf([2.0, 4.0], k=3) == pytest.approx(3.0)

    def test_no_idfs_give_zero(self):
        assert mean_k_rarest_idf([], k=3) == 0.0

    def test_k_below_one_is_an_error(self):
        with pytest.raises(ValueError, match="k must be at least 1"):
            mean_k_rarest_idf([1.0], k=0)

    @given(st.lists(st.floats(0, 20), min_size=1, max_size=12), st.integers(1, 5))
    def test_lies_between_the_mean_and_the_maximum(self, idfs, k):
        value = mean_k_rarest_idf(idfs, k)
        assert sum(idfs) / len(idfs) - 1e-9 <= value <= max(idfs) + 1e-9


class TestScaledThreshold:
    def test_is_300_at_the_reference_corpus(self):
        assert scaled_threshold(122_623) == 300

    def test_scales_linearly(self):
        assert scaled_threshold(1_226_230) == 3000
        assert scaled_threshold(12_262) == 30

    def test_never_below_the_floor(self):
        assert scaled_threshold(100) == 3
        assert scaled_threshold(0) == 3
        assert scaled_threshold(100, floor=1) == 1
