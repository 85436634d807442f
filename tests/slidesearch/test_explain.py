import pytest

from llm_adapters import FakeModel, LLMError, OfflineModel
from slidesearch.explain import ExplainItem, ExplainReply, explain_items, explain_prompt, literal_matches
from slidesearch.response import Card, ScoreFactors


def _item(i, title="Private Equity Capital Call Notice Automation", snippet=None, **factors):
    card = Card(id=f"s{i}", title=title, deck_name="Deck", section="Capabilities & Overview",
                own_section="Capabilities & Overview", score=1.0, factors=ScoreFactors(**factors), preview="p")
    return ExplainItem(card=card, snippet=snippet or f"{title} automated capital call notices for funds " + "x" * 500)


class TestLiteralMatches:
    def test_phrases_before_their_words(self):
        assert literal_matches("capital call reporting", "capital call notices and reporting") == \
            ["capital call", "reporting"]

    def test_nothing_the_text_lacks(self):
        assert literal_matches("blackrock case studies", "fraud detection for a bank") == []


class TestOfflineExplainer:
    def test_names_only_what_the_slide_contains(self):
        (out,) = explain_items("capital call reporting", [_item(1, entity=1.5)], OfflineModel())
        assert out.llm == "offline"
        assert out.matched_terms == ["capital call"]
        assert '"capital call"' in out.explanation and "reporting" not in out.explanation

    def test_says_meaning_only_when_no_query_word_is_there(self):
        (out,) = explain_items("blackrock", [_item(1, title="Fraud detection", snippet="fraud")], OfflineModel())
        assert "meaning only" in out.explanation and out.matched_terms == []

    def test_related_terms_only_when_literally_present(self):
        (out,) = explain_items("fund admin", [_item(1)], OfflineModel(), expanded=["capital call", "kyc"])
        assert '"capital call"' in out.explanation and "kyc" not in out.explanation


    def test_the_guaranteed_slot_names_the_term_it_holds_not_a_name(self):
        # "who is winning India's election on social media": 06b's rare word "election" is no name.
        item = _item(1, title="Anatomy of election fraud", snippet="how an election is rigged")
        guaranteed = ExplainItem(card=item.card.model_copy(update={"guaranteed": True}), snippet=item.snippet)
        (out,) = explain_items("who is winning India's election on social media", [guaranteed], OfflineModel(),
                               entity_terms=["election", "social media"])
        assert 'best literal match for "election", a specific term from the query' in out.explanation
        assert "name" not in out.explanation and '"social media"' not in out.explanation.split("Given")[1]

    def test_the_entity_factor_names_the_terms_the_card_holds(self):
        (out,) = explain_items("capital call reporting", [_item(1, entity=1.2)], OfflineModel(),
                               entity_terms=["capital call", "kyc"])
        assert 'Scored x1.2 for containing "capital call", a specific term from the query.' in out.explanation
        (bare,) = explain_items("capital call reporting", [_item(1, entity=1.2)], OfflineModel())
        assert "Scored x1.2 for naming something specific from the query." in bare.explanation

    def test_mentions_the_deck_only_when_its_lift_is_a_real_share_of_the_score(self):
        (lifted,) = explain_items("capital call", [_item(1, primary=0.8, deck=0.3)], OfflineModel())
        (slight,) = explain_items("capital call", [_item(1, primary=0.8, deck=0.05)], OfflineModel())
        assert "Other slides of its deck" in lifted.explanation
        assert "deck" not in slight.explanation


class TestBatchedLLM:
    def test_one_call_with_the_ranked_query_and_full_snippets(self):
        items = [_item(i) for i in range(3)]
        model = FakeModel([ExplainReply(explanations=["a", "b", "c"])])
        out = explain_items("capital call", items, model)
        assert [e.explanation for e in out] == ["a", "b", "c"] and {e.llm for e in out} == {"fake:model"}
        assert len(model.requests) == 1
        prompt = model.prompts[0]
        assert "'capital call'" in prompt and items[0].snippet in prompt

    @pytest.mark.parametrize("replies", [["a", "b"], ["a", "b", "c", "d"]])
    def test_wrong_length_falls_back_for_the_whole_batch(self, replies):
        out = explain_items("capital call", [_item(i) for i in range(3)],
                            FakeModel([ExplainReply(explanations=replies)]))
        assert {e.llm for e in out} == {"offline"} and [e.slide_id for e in out] == ["s0", "s1", "s2"]

    def test_failure_falls_back(self):
        out = explain_items("capital call", [_item(0)], FakeModel([LLMError("down")]))
        assert out[0].llm == "offline"

    def test_prompt_numbers_every_card(self):
        prompt = explain_prompt("q", [_item(i) for i in range(2)])
        assert "[1]" in prompt and "[2]" in prompt and "exactly 2" in prompt


class TestEngineExplain:
    def test_explain_uses_the_cards_own_factors(self):
        from datetime import date

        from slidesearch.engine import SlideSearch
        from slidesearch.library import Library
        from slidesearch.model import Slide

        slides = [Slide(slide_id=f"s{i}", deck_id=f"d{i}", deck_name=f"D{i}", title=t, text=x, folder="/U/Sales",
                        content_type="content", deck_date=date(2024, 1, 1))
                  for i, (t, x) in enumerate([("Capital call notice automation", "capital call notices"),
                                              ("Fraud detection", "fraud models for banks"),
                                              ("Cloud migration", "workloads moved to cloud")])]
        engine = SlideSearch(Library.from_slides(slides, embedder="fast"))
        first, other = engine.explain("capital call reporting", ["s0", "s2"])
        assert first.matched_terms == ["capital call"] and other.matched_terms == []
        with pytest.raises(ValueError, match="unknown"):
            engine.explain("q", ["nope"])
