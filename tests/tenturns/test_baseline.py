import pytest

import tenturns
from tenturns.agents import AGENTS, make_agent
from tenturns.agents.baseline import BaselineAgent, query_terms


@pytest.fixture(scope="module")
def agent(shared_data):
    return BaselineAgent(shared_data / "techjam" / "catalog_sample.jsonl")


class TestQueryTerms:
    def test_drops_stopwords_single_characters_and_repeats(self):
        assert query_terms("I'm looking for Shoes Slippers. A key requirement is: cotton, cotton!") == [
            "shoes", "slippers", "key", "requirement", "cotton"]

    def test_at_most_forty_terms(self):
        assert len(query_terms(" ".join(f"word{i}" for i in range(60)))) == 40


class TestBaselineAgent:
    def test_never_asks_and_reports_zero_tokens(self, agent):
        agent.reset("s", {})
        out = agent.respond("s", "I'm looking for Underwear Briefs. A key requirement is: cotton.", 1)
        assert out["ask_attribute"] is None
        assert out["usage"] == {"prompt_tokens": 0, "completion_tokens": 0}
        assert isinstance(out["message"], str) and len(out["recommendations"]) == 10

    def test_title_matches_rank_first(self, agent):
        agent.reset("s", {})
        out = agent.respond("s", "Hanes Underwear Briefs Moisture-Wicking 6-Pack", 1)
        assert out["recommendations"][0]["parent_asin"] == "B088QF5G58"

    def test_no_terms_no_recommendations(self, agent):
        agent.reset("s", {})
        assert agent.respond("s", "I a the", 1)["recommendations"] == []

    def test_respond_before_reset_is_an_error(self, agent):
        with pytest.raises(RuntimeError, match="reset must be called"):
            agent.respond("never-reset", "shoes", 1)

    def test_respects_top_k(self, agent):
        agent.reset("s", {})
        assert len(agent.respond("s", "women dress", 1, top_k=3)["recommendations"]) == 3


class TestRegistry:
    def test_make_agent_by_name(self, shared_data):
        assert isinstance(make_agent("baseline", shared_data / "techjam" / "catalog_sample.jsonl"), BaselineAgent)

    def test_unknown_name_lists_the_valid_ones(self):
        with pytest.raises(ValueError, match="baseline, generic, tenturns"):
            make_agent("nope", "x")

    def test_registry_names_the_contract_agents(self):
        assert set(AGENTS) == {"baseline", "generic", "tenturns"}
        assert tenturns.make_agent is make_agent

    def test_default_agent_class_is_resolved_lazily(self):
        from tenturns.agents import DEFAULT_AGENT, agent_class

        assert DEFAULT_AGENT == "tenturns"
        assert tenturns.Agent is agent_class("tenturns")
        with pytest.raises(AttributeError):
            _ = tenturns.NoSuchThing
