import pytest

from llm_adapters.pricing import PRICES, estimate_cost, price_for


class TestPriceFor:
    def test_known_alias(self):
        assert price_for("anthropic:claude-haiku-4-5") == PRICES["anthropic:claude-haiku-4-5"]

    def test_dated_snapshot_prices_like_its_alias(self):
        assert price_for("anthropic:claude-haiku-4-5-20251001") == PRICES["anthropic:claude-haiku-4-5"]

    def test_unknown_model_has_no_price(self):
        assert price_for("nvidia:meta/llama-3.3-70b-instruct") is None
        assert price_for("anthropic:claude-unreleased-9") is None

    def test_every_entry_names_a_supported_provider_and_positive_prices(self):
        for model_id, price in PRICES.items():
            assert model_id.split(":")[0] in {"anthropic", "gemini"}
            assert price.input_per_mtok > 0 and price.output_per_mtok >= price.input_per_mtok


class TestEstimateCost:
    def test_million_tokens_each_way_costs_the_sum_of_both_rates(self):
        assert estimate_cost("gemini:gemini-2.5-flash", 1_000_000, 1_000_000) == pytest.approx(0.30 + 2.50)

    def test_small_call(self):
        assert estimate_cost("anthropic:claude-haiku-4-5", 1200, 300) == pytest.approx(
            (1200 * 1 + 300 * 5) / 1e6
        )

    def test_unknown_model_cost_is_none(self):
        assert estimate_cost("nvidia:some/model", 10, 10) is None
