import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.text import (
    ENGLISH_STOPWORDS,
    GENERIC_BUSINESS_TERMS,
    asks_for_a_fact,
    foreign_share,
    ngrams,
    normalise,
    punctuation_insensitive,
    stoplist,
    tokenize,
    without_surrogates,
)


class TestNormalise:
    def test_lower_cases_and_collapses_whitespace(self):
        assert normalise("  Hello \t  World\n\nAgain ") == "hello world again"

    def test_keeps_punctuation(self):
        assert normalise("Q3: Revenue, up 5%!") == "q3: revenue, up 5%!"

    def test_folds_compatibility_characters(self):
        assert normalise("ﬁnance\u00a0team") == "finance team"

    @given(st.text())
    def test_is_idempotent(self, text):
        assert normalise(normalise(text)) == normalise(text)


class TestPunctuationInsensitive:
    def test_turns_every_punctuation_run_into_one_space(self):
        assert punctuation_insensitive("Go-to-Market -- (GTM) strategy!") == "go to market gtm strategy"

    def test_variants_of_a_phrase_meet(self):
        assert punctuation_insensitive("e-commerce") == punctuation_insensitive("E Commerce")


class TestTokenize:
    def test_alphanumeric_runs_in_order(self):
        assert tokenize("The CRM's 2024 road-map") == ["the", "crm", "s", "2024", "road", "map"]

    def test_drops_given_stopwords(self):
        assert tokenize("The plan for the team", frozenset({"the", "for"})) == ["plan", "team"]

    def test_empty_text_has_no_tokens(self):
        assert tokenize("  ...  ") == []

    @given(st.text())
    def test_tokens_are_lower_case_alphanumeric(self, text):
        assert all(tok.isalnum() and tok == tok.lower() for tok in tokenize(text))


class TestStoplist:
    def test_default_holds_english_and_business_terms(self):
        words = stoplist()
        assert words >= ENGLISH_STOPWORDS
        assert words >= GENERIC_BUSINESS_TERMS

    def test_business_terms_can_be_left_out(self):
        assert stoplist(include_business=False) == ENGLISH_STOPWORDS

    def test_engines_extend_it_case_insensitively(self):
        words = stoplist(["Shopify", "SKU"], ["price"])
        assert {"shopify", "sku", "price"} <= words

    def test_stopwords_are_lower_case(self):
        assert all(w == w.lower() for w in stoplist())


class TestNgrams:
    def test_adjacent_pairs_then_triples(self):
        assert list(ngrams(["a", "b", "c", "d"])) == ["a b", "b c", "c d", "a b c", "b c d"]

    def test_sizes_longer_than_the_tokens_give_nothing(self):
        assert list(ngrams(["a", "b"], sizes=(3,))) == []

    @given(st.lists(st.sampled_from(["x", "y", "z"]), max_size=8), st.integers(1, 4))
    def test_count_is_len_minus_n_plus_one(self, tokens, n):
        assert len(list(ngrams(tokens, (n,)))) == max(0, len(tokens) - n + 1)


class TestAsksForAFact:
    @pytest.mark.parametrize("text", ["What share of revenue comes from EMEA?", "who is Amara Novak",
                                      "Who's Naveen Gattu", "who is winning the election?", "how many stores opened in 2019", "How much did ads cost", "Is churn falling?",
                                      "which regions grew"])
    def test_factoid_questions(self, text):
        assert asks_for_a_fact(text)

    @pytest.mark.parametrize("text", ["why junior engineers are quitting the electricity producer",
                                      "how smartphone adoption is changing online shopping",
                                      "is solar power worth the investment", "customer analytics case study", "", "how",
                                      "who is winning India's election on social media", "who uses cloud billing"])
    def test_questions_about_a_topic_and_briefs(self, text):
        assert not asks_for_a_fact(text)


class TestUnsegmentedAndForeignText:
    def test_accented_words_stay_whole(self):
        assert tokenize("Apresentação do case") == ["apresentação", "do", "case"]

    def test_japanese_becomes_character_pairs(self):
        assert tokenize("需要予測の概要") == ["需要", "要予", "予測", "測の", "の概", "概要"]
        assert tokenize("AI需要") == ["ai", "需要"]

    def test_foreign_share_counts_letters_outside_latin(self):
        assert foreign_share("需要予測") == 1.0
        assert foreign_share("Customer analytics, 2025") == 0.0
        assert foreign_share("12 345") == 0.0


class TestWithoutSurrogates:
    def test_lone_halves_become_replacement_characters_that_encode(self):
        cleaned = without_surrogates("\ud800abc \udfff")
        assert cleaned == "\ufffdabc \ufffd" and cleaned.encode("utf-8")

    @given(st.text())
    def test_real_characters_are_untouched(self, text):
        assert without_surrogates(text) == text
