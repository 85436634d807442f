import pytest

from tenturns.catalog import Product, load_catalog
from tenturns.simulator import (
    NO_QUESTION_REPLY,
    Behavior,
    IntentCard,
    Override,
    Shopper,
    TurnsSession,
    behavior_for,
    classify_constraint,
    clean_constraint,
    intent_card,
    normalize_recommendations,
    override_turn,
)


@pytest.fixture(scope="module")
def sample(shared_data):
    return load_catalog(shared_data / "techjam" / "catalog_sample.jsonl")


def _session(scenario, asin="X", sample_id="s1"):
    return TurnsSession(sample_id=sample_id, scenario_type=scenario, ground_truth={"parent_asin": asin})


def _shopper(scenario, hard, soft, sample_id="s1", override=None):
    card = IntentCard(target_category="t", hard_constraints=hard, soft_preferences=soft)
    behavior = Behavior(scenario_type=scenario, override=override)
    return Shopper(_session(scenario, sample_id=sample_id), card, behavior, "Underwear Briefs")


class TestIntentCard:
    def test_material_first_then_colour_word_from_anywhere_in_the_text(self, sample):
        # "White" appears only in the last feature of these scrub pants; polyester is the first material word.
        card = intent_card(sample.get("B07QMS8TX8"))
        assert card.hard_constraints == ["polyester", "color: white"]
        assert card.soft_preferences == ["65% Polyester, 35% Cotton", "Imported"]
        assert card.target_category.startswith("Medical Cargo Pants for Men")

    def test_without_a_colour_the_second_hard_constraint_is_the_first_feature(self, sample):
        card = intent_card(sample.get("B088QF5G58"))
        assert card.hard_constraints == ["cotton", "Solids: 100% Cotton; heathers: 75% cotton, 25% polyester"]
        assert card.soft_preferences == ["Imported", "Pull On closure"]

    def test_long_features_are_cut_to_180_characters(self, sample):
        card = intent_card(sample.get("B07VFZ2FC2"))
        assert card.hard_constraints == ["Ethylene Vinyl Acetate sole", "Heel measures approximately 2.3 centimeters"]
        assert all(len(p) <= 180 for p in card.soft_preferences)
        assert card.soft_preferences[0].startswith("【Concise Style】Diamond pattern")

    def test_details_render_as_key_colon_value_and_any_price_text_is_the_budget(self, sample):
        card = intent_card(sample.get("B01N0I8BFI"))
        assert card.hard_constraints == ["Item Weight: 0.48 ounces", "budget around $—"]
        assert card.soft_preferences == ["Item Weight: 0.48 ounces"]

    def test_a_product_with_nothing_falls_back_to_its_title(self, sample):
        product = sample.get("B07WSRXL3X")
        card = intent_card(product)
        assert card.hard_constraints == [product.title] == card.soft_preferences

    def test_price_is_printed_as_python_str_of_the_float(self):
        card = intent_card(Product.model_validate({"parent_asin": "X", "features": ["a", "b", "c"], "price": 20.0}))
        assert card.soft_preferences == ["c", "budget around $20.0"]

    def test_cleaning_collapses_whitespace_and_strips_punctuation_then_dedups(self):
        assert clean_constraint("  - Soft\n\t cotton ;. ") == "Soft cotton"
        card = intent_card(Product.model_validate({"parent_asin": "X", "features": ["Soft.", "Soft", " ", "Warm"]}))
        assert card.hard_constraints == ["Soft", "Warm"]


class TestClassifier:
    @pytest.mark.parametrize(("value", "label"), [
        ("budget around $19.19", "budget"),
        ("under 30 dollars", "budget"),
        ("costs $ 5", "budget"),
        ("100% cotton budget", "budget"),
        ("cotton black", "material"),
        ("Leather upper", "material"),
        ("color: blue wide", "color"),
        ("wide width", "size"),
        ("Department: Mens", "style"),
        ("Relaxed fit sleeve", "style"),
        ("for hiking and work", "use_case"),
        ("color: purple", "color"),
        ("purple", "feature"),
        ("Imported", "feature"),
    ])
    def test_first_rule_that_fires(self, value, label):
        assert classify_constraint(value) == label

    def test_substring_tests_are_not_word_bounded(self):
        # "outfit" contains "fit": the official classifier is a plain substring test.
        assert classify_constraint("great outfit") == "style"


class TestOpening:
    def test_buying_states_and_discloses_the_first_hard_constraint(self):
        shopper = _shopper("buying", ["cotton", "color: blue"], ["Imported"])
        assert shopper.opening() == "I'm looking for Underwear Briefs. A key requirement is: cotton."
        assert shopper.disclosed == {"cotton"}

    def test_override_opens_with_the_old_preference(self):
        shopper = _shopper("intent_override", ["cotton"], ["Imported"],
                           override=Override(turn=3, old_value="Imported", new_value="cotton"))
        assert shopper.opening() == "I'm looking for Underwear Briefs. Imported"

    @pytest.mark.parametrize("scenario", ["browsing", "boundary"])
    def test_browsing_and_boundary_are_still_exploring(self, scenario):
        assert _shopper(scenario, ["a"], ["b"]).opening() == "I'm looking for Underwear Briefs, but I'm still exploring."

    def test_shelf_comes_from_the_target_with_the_quirk(self, sample):
        session = _session("browsing", "B07VFZ2FC2")
        shopper = Shopper.for_session(session, sample.get("B07VFZ2FC2"))
        assert shopper.opening() == "I'm looking for Shoes & Jewelry Men, but I'm still exploring."


class TestReplies:
    def test_no_question_gets_the_nudge(self):
        shopper = _shopper("browsing", ["a"], ["b"])
        assert shopper.next_message(None, 1) == NO_QUESTION_REPLY
        assert shopper.next_message(7, 1) == NO_QUESTION_REPLY

    def test_attribute_discloses_only_matching_class(self):
        shopper = _shopper("browsing", ["cotton", "color: blue"], ["Imported", "budget around $10.0"])
        assert shopper.next_message("color", 1) == "For that, what matters is: color: blue."
        assert shopper.next_message("color", 2) == "I don't have an additional preference for color."
        assert shopper.next_message("brand", 3) == "I don't have an additional preference for brand."

    def test_other_drains_two_at_a_time_hard_then_soft(self, sample):
        card = intent_card(sample.get("B088QF5G58"))
        shopper = Shopper(_session("browsing", "B088QF5G58"), card, Behavior(scenario_type="browsing"), "x")
        assert shopper.next_message("other", 1) == (
            "For that, what matters is: cotton; Solids: 100% Cotton; heathers: 75% cotton, 25% polyester.")
        assert shopper.next_message("other", 2) == "For that, what matters is: Imported; Pull On closure."
        assert shopper.next_message("other", 3) == "I don't have an additional preference for other."

    def test_unknown_attribute_is_treated_as_other(self):
        shopper = _shopper("browsing", ["a", "b"], ["c"])
        assert shopper.next_message("vibe", 1) == "For that, what matters is: a; b."

    def test_boundary_refuses_the_first_question_only(self):
        shopper = _shopper("boundary", ["cotton"], ["Imported"])
        assert shopper.next_message("material", 1) == "I don't have a preference for material; please use your judgment."
        assert shopper.next_message("material", 2) == "For that, what matters is: cotton."

    def test_boundary_not_spent_by_turns_without_a_question(self):
        shopper = _shopper("boundary", ["cotton"], ["Imported"])
        assert shopper.next_message(None, 1) == NO_QUESTION_REPLY
        assert shopper.next_message("other", 2) == "I don't have a preference for other; please use your judgment."


class TestOverride:
    def test_turn_is_drawn_from_the_seeded_rng(self):
        assert override_turn("public_0002", "intent_override") == 3
        assert override_turn("public_0013", "intent_override") == 4
        draws = {override_turn(f"public_{i:04d}", "intent_override") for i in range(40)}
        assert draws == {3, 4}

    def test_behavior_switches_from_last_soft_to_first_hard(self, sample):
        card = intent_card(sample.get("B071X54486"))
        behavior = behavior_for("public_0002", "intent_override", card)
        assert behavior.override.old_value == "Buckle closure"
        assert behavior.override.new_value == "leather"
        assert behavior.override.message == "Actually, ignore my earlier preference. What I need is: leather."
        assert behavior.override.turn == 3

    def test_override_message_replaces_the_reply_before_its_turn_and_hits_count_from_then(self):
        shopper = _shopper("intent_override", ["leather"], ["Buckle closure"],
                           override=Override(turn=4, old_value="Buckle closure", new_value="leather",
                                             message="Actually, ignore my earlier preference. What I need is: leather."))
        assert not shopper.counts()
        assert shopper.next_message("other", 1) == "For that, what matters is: leather; Buckle closure."
        assert shopper.next_message(None, 2) == NO_QUESTION_REPLY
        assert not shopper.counts()
        assert shopper.next_message("other", 3) == "Actually, ignore my earlier preference. What I need is: leather."
        assert shopper.counts()
        assert "leather" in shopper.disclosed
        assert shopper.next_message("other", 4) == "I don't have an additional preference for other."

    def test_non_override_scenarios_have_no_override(self):
        card = IntentCard(hard_constraints=["a"], soft_preferences=["b"])
        assert behavior_for("s", "buying", card).override is None


class TestNormalisation:
    def test_drops_unknown_and_repeated_ids_and_keeps_ten(self):
        ids = {f"A{i}" for i in range(20)}
        payload = [{"parent_asin": "A0"}, "A1", {"parent_asin": " A1 "}, {"parent_asin": "nope"}, {"score": 1},
                   *[{"parent_asin": f"A{i}"} for i in range(2, 20)]]
        assert normalize_recommendations(payload, ids) == [f"A{i}" for i in range(10)]

    def test_garbage_is_nothing(self):
        assert normalize_recommendations("A1", {"A1"}) == []
        assert normalize_recommendations(None, {"A1"}) == []
