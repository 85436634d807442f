import json

import pytest

from tenturns.agents.phrase import TenTurnsAgent, TenTurnsConfig
from tenturns.evaluate import evaluate_agent

ROWS = [
    {"parent_asin": f"S{i}", "title": f"Crew Socks model {i}", "features": [f"feature {i}", "Machine Wash"],
     "categories": ["Clothing, Shoes & Jewelry", "Men", "Socks"], "rating_number": 100 - i}
    for i in range(30)
] + [
    {"parent_asin": "H1", "title": "Wool Hat", "features": ["Hand Wash"],
     "categories": ["Clothing, Shoes & Jewelry", "Women", "Hats"], "rating_number": 5},
]


@pytest.fixture
def agent(tmp_path):
    path = tmp_path / "catalog.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return TenTurnsAgent(path)


def play(agent, messages, session="s"):
    agent.reset(session, {})
    return [agent.respond(session, m, turn) for turn, m in enumerate(messages, start=1)]


class TestShelfRestriction:
    def test_recommendations_come_only_from_the_named_shelf(self, agent):
        [first] = play(agent, ["I'm looking for Women Hats, but I'm still exploring."])
        assert [r["parent_asin"] for r in first["recommendations"]] == ["H1"]

    def test_without_a_shelf_the_whole_catalog_is_searched(self, agent):
        [first] = play(agent, ["wool hat"])
        assert first["recommendations"][0]["parent_asin"] == "H1"


class TestDraining:
    def test_asks_other_until_nothing_is_left(self, agent):
        replies = play(agent, ["I'm looking for Men Socks, but I'm still exploring.",
                               "I don't have an additional preference for other."])
        assert [r["ask_attribute"] for r in replies] == ["other", None]

    def test_boundary_no_preference_wastes_one_ask_and_asks_again(self, agent):
        replies = play(agent, ["I'm looking for Men Socks, but I'm still exploring.",
                               "I don't have a preference for other; please use your judgment."])
        assert replies[1]["ask_attribute"] == "other"


SEED_WIDTHS = TenTurnsConfig(width_policy="seed")


class TestSeedEmissionWidth:
    def test_width_follows_the_number_of_known_requirements(self, agent):
        agent = TenTurnsAgent(agent.catalog_path, config=SEED_WIDTHS)
        replies = play(agent, [
            "I'm looking for Men Socks. A key requirement is: feature 3.",
            "For that, what matters is: Machine Wash; crew.",
            "For that, what matters is: model.",
        ])
        assert [len(r["recommendations"]) for r in replies] == [1, 2, 10]

    def test_full_width_from_turn_four(self, agent):
        agent = TenTurnsAgent(agent.catalog_path, config=SEED_WIDTHS)
        replies = play(agent, ["I'm looking for Men Socks, but I'm still exploring."] + [
            "Those options are not quite right yet. Ask me about one specific attribute."] * 3)
        assert [len(r["recommendations"]) for r in replies] == [1, 1, 1, 10]


class TestExpectedWidth:
    def test_one_item_while_more_can_be_learned(self, agent):
        replies = play(agent, ["I'm looking for Men Socks. A key requirement is: Machine Wash.",
                               "For that, what matters is: crew; socks."])
        assert [len(r["recommendations"]) for r in replies] == [1, 1]

    def test_once_nothing_is_left_a_wide_tie_is_spread_over_the_turns_left(self, agent):
        replies = play(agent, ["I'm looking for Men Socks. A key requirement is: Machine Wash.",
                               "I don't have an additional preference for other."])
        assert 1 < len(replies[1]["recommendations"]) <= 10

    def test_the_last_turn_shows_the_full_list(self, agent):
        replies = play(agent, ["I'm looking for Men Socks, but I'm still exploring."] + [
            "Those options are not quite right yet. Ask me about one specific attribute."] * 9)
        assert len(replies[-1]["recommendations"]) == 10


class TestRuledOut:
    def test_an_item_shown_at_a_counting_turn_is_never_shown_again(self, agent):
        replies = play(agent, ["I'm looking for Men Socks, but I'm still exploring."] + [
            "Those options are not quite right yet. Ask me about one specific attribute."] * 4)
        shown = [r["parent_asin"] for reply in replies for r in reply["recommendations"]]
        assert len(shown) == len(set(shown))

    def test_before_an_announced_override_nothing_is_ruled_out(self, agent):
        replies = play(agent, ["I'm looking for Men Socks. feature 3",
                               "I don't have an additional preference for other."])
        assert replies[0]["recommendations"][0] == replies[1]["recommendations"][0]

    def test_when_the_shelf_is_exhausted_the_catalog_takes_over(self, agent):
        replies = play(agent, ["I'm looking for Women Hats, but I'm still exploring.",
                               "Those options are not quite right yet. Ask me about one specific attribute."])
        assert replies[1]["recommendations"] and replies[1]["recommendations"][0]["parent_asin"] != "H1"


class TestScoring:
    def test_the_disclosed_rare_phrase_puts_its_product_first(self, agent):
        [first] = play(agent, ["I'm looking for Men Socks. A key requirement is: feature 7."])
        assert first["recommendations"][0]["parent_asin"] == "S7"

    def test_trace_explains_each_shown_item_by_phrase(self, agent):
        play(agent, ["I'm looking for Men Socks. A key requirement is: feature 7."])
        [trace] = agent.traces("s")
        item = trace["items"][0]
        assert item["phrases"][0]["tier"] == "verbatim"
        explained = item["prior"] + item.get("card_bonus", 0.0) + item["phrases"][0]["contribution"]
        assert item["score"] == pytest.approx(explained, abs=1e-5)

    def test_default_path_spends_no_tokens(self, agent):
        [first] = play(agent, ["I'm looking for Men Socks, but I'm still exploring."])
        assert first["usage"] == {"prompt_tokens": 0, "completion_tokens": 0}


class TestCardConsistency:
    @pytest.fixture
    def twins(self, tmp_path):
        # Two socks match "Machine Wash" alike; only T2's own intent card states it (T1 lists it fifth).
        extra = ["feature a", "feature b", "feature c", "feature d"]
        rows = [
            {"parent_asin": "T1", "title": "Crew Socks", "features": [*extra, "Machine Wash"],
             "categories": ["Clothing, Shoes & Jewelry", "Men", "Socks"], "rating_number": 900},
            {"parent_asin": "T2", "title": "Crew Socks", "features": ["Machine Wash", *extra],
             "categories": ["Clothing, Shoes & Jewelry", "Men", "Socks"], "rating_number": 5},
        ]
        path = tmp_path / "twins.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        return path

    def test_the_item_whose_card_states_the_phrase_wins_an_evidence_tie(self, twins):
        [first] = play(TenTurnsAgent(twins), ["I'm looking for Men Socks. A key requirement is: Machine Wash."])
        assert first["recommendations"][0]["parent_asin"] == "T2"

    def test_switched_off_the_rating_prior_decides(self, twins):
        agent = TenTurnsAgent(twins, config=TenTurnsConfig(card_consistency=False))
        [first] = play(agent, ["I'm looking for Men Socks. A key requirement is: Machine Wash."])
        assert first["recommendations"][0]["parent_asin"] == "T1"


class TestOverride:
    def test_replace_drops_the_opening_phrase(self, agent):
        agent = TenTurnsAgent(agent.catalog_path, config=TenTurnsConfig(override="replace"))
        play(agent, ["I'm looking for Men Socks. feature 2",
                     "Actually, ignore my earlier preference. What I need is: feature 9."])
        assert agent.sessions["s"]["memory"].phrases == ["feature 9"]

    def test_keep_holds_both_phrases_by_default(self, agent):
        keeper = agent
        play(keeper, ["I'm looking for Men Socks. feature 2",
                      "Actually, ignore my earlier preference. What I need is: feature 9."])
        assert keeper.sessions["s"]["memory"].phrases == ["feature 2", "feature 9"]


class TestOnThePublicSample:
    def test_hits_every_public_session_and_beats_the_baseline(self, shared_data):
        catalog = shared_data / "techjam" / "catalog_sample.jsonl"
        sessions = shared_data / "techjam" / "public_set.jsonl"
        ours = evaluate_agent("tenturns", catalog, sessions)
        assert ours.hr10 == 1.0 and ours.technical_score >= 0.95
        assert ours.prompt_tokens == ours.completion_tokens == 0


@pytest.mark.integration
class TestReproducible:
    def test_same_figures_in_processes_with_different_hash_seeds(self, shared_data, tmp_path):
        import os
        import subprocess
        import sys

        script = (
            "from tenturns.evaluate import evaluate_agent\n"
            f"r = evaluate_agent('tenturns', {str(shared_data / 'techjam' / 'catalog_sample.jsonl')!r}, "
            f"{str(shared_data / 'techjam' / 'public_set.jsonl')!r})\n"
            "print(r.hr10, r.mrr, r.mttc, r.technical_score, [s.reciprocal_rank for s in r.per_session])\n"
        )
        outputs = []
        for seed in ("1", "2"):
            env = {**os.environ, "PYTHONHASHSEED": seed, "SEEK_HOME": str(tmp_path / seed)}
            done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, done.stderr
            outputs.append(done.stdout)
        assert outputs[0] == outputs[1]
