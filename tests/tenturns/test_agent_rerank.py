import json

import pytest

from core.settings import get_settings
from llm_adapters import FakeModel, LLMError
from tenturns.agents.phrase import TenTurnsAgent
from tenturns.agents.rerank import (
    RerankShortlist,
    ShortlistOrder,
    is_permutation,
    make_shortlist_reranker,
    phase6_model_id,
    shortlist_prompt,
)

ROWS = [
    {"parent_asin": f"S{i}", "title": f"Crew Socks model {i}", "features": [f"feature {i}"],
     "categories": ["Clothing, Shoes & Jewelry", "Men", "Socks"], "rating_number": 100 - i}
    for i in range(4)
]
OPENING = "I'm looking for Men Socks. A key requirement is: feature 2."


@pytest.fixture
def catalog_path(tmp_path):
    path = tmp_path / "catalog.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


def agent_with(catalog_path, model):
    titles = [r["title"] for r in ROWS]
    return TenTurnsAgent(catalog_path, reranker=RerankShortlist(model, titles, depth=4))


def run_last_turn(agent):
    """Turn 10 shows the whole four-item shelf, so the full order is visible."""
    agent.reset("s", {})
    return agent.respond("s", OPENING, 10)


class TestRerankShortlist:
    def test_the_model_order_replaces_the_top_of_the_ranking(self, catalog_path):
        model = FakeModel([ShortlistOrder(order=[4, 3, 2, 1])])
        agent = agent_with(catalog_path, model)
        deterministic = TenTurnsAgent(catalog_path)
        expected = [r["parent_asin"] for r in run_last_turn(deterministic)["recommendations"]][::-1]
        assert [r["parent_asin"] for r in run_last_turn(agent)["recommendations"]] == expected
        assert agent.traces("s")[-1]["llm"] == model.id

    def test_an_llm_error_keeps_the_deterministic_order(self, catalog_path):
        agent = agent_with(catalog_path, FakeModel([LLMError("down")] * 3))
        deterministic = TenTurnsAgent(catalog_path)
        assert run_last_turn(agent)["recommendations"] == run_last_turn(deterministic)["recommendations"]
        assert agent.traces("s")[-1]["llm"] == "fallback"

    def test_a_reply_that_is_not_a_permutation_keeps_the_deterministic_order(self, catalog_path):
        agent = agent_with(catalog_path, FakeModel([ShortlistOrder(order=[1, 1, 2, 3])] * 3))
        deterministic = TenTurnsAgent(catalog_path)
        assert run_last_turn(agent)["recommendations"] == run_last_turn(deterministic)["recommendations"]

    def test_tokens_are_reported_through_usage(self, catalog_path):
        agent = agent_with(catalog_path, FakeModel([ShortlistOrder(order=[1, 2, 3, 4])] * 3))
        usage = run_last_turn(agent)["usage"]
        assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0

    def test_the_prompt_carries_titles_and_phrase_evidence(self, catalog_path):
        model = FakeModel([ShortlistOrder(order=[1, 2, 3, 4])])
        agent = agent_with(catalog_path, model)
        agent.reset("s", {})
        agent.respond("s", OPENING, 1)
        assert "Crew Socks model 2" in model.prompts[0] and "feature 2 -> verbatim" in model.prompts[0]

    def test_depth_below_two_is_rejected(self):
        with pytest.raises(ValueError, match="at least 2"):
            RerankShortlist(FakeModel([]), [], depth=1)


class TestHelpers:
    def test_permutation_check(self):
        assert is_permutation([2, 1, 3], 3) and not is_permutation([1, 2], 3) and not is_permutation([1, 1, 2], 3)

    def test_prompt_lists_requirements(self):
        prompt = shortlist_prompt(["cotton"], [("A shirt", [("cotton", "verbatim", 1.0)])])
        assert "- cotton" in prompt and "1. A shirt" in prompt


class TestFlag:
    def test_off_by_default(self):
        assert make_shortlist_reranker(get_settings()) is None

    def test_flag_with_a_model_id_selects_that_model(self, monkeypatch):
        monkeypatch.setenv("TECHJAM_PHASE6_MODE", "anthropic:claude-haiku-4-5")
        assert phase6_model_id(get_settings()) == "anthropic:claude-haiku-4-5"

    def test_bare_flag_uses_seek_llm(self, monkeypatch):
        monkeypatch.setenv("TECHJAM_PHASE6_MODE", "1")
        monkeypatch.setenv("SEEK_LLM", "offline")
        reranker = make_shortlist_reranker(get_settings(), ["t"])
        assert reranker is not None and reranker.model.id == "offline"

    def test_offline_model_fails_open_with_zero_tokens(self, monkeypatch, catalog_path):
        monkeypatch.setenv("TECHJAM_PHASE6_MODE", "1")
        agent = TenTurnsAgent(catalog_path)
        response = run_last_turn(agent)
        assert response["usage"] == {"prompt_tokens": 0, "completion_tokens": 0}
        assert agent.traces("s")[-1]["llm"] == "fallback"
