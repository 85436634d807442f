import json

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()
ROWS = [
    {"parent_asin": f"S{i}", "title": f"Crew Socks model {i}", "features": [f"feature {i}"], "price": 5.0 + i,
     "categories": ["Clothing, Shoes & Jewelry", "Men", "Socks"], "rating_number": 100 - i}
    for i in range(5)
]


@pytest.fixture
def catalog(tmp_path):
    path = tmp_path / "catalog.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


@pytest.fixture
def sessions(tmp_path):
    path = tmp_path / "sessions.jsonl"
    path.write_text(json.dumps({"sample_id": "t1", "scenario_type": "browsing", "user_profile": {},
                                "ground_truth": {"parent_asin": "S3"}}) + "\n")
    return path


class TestInteractive:
    def test_a_person_shops_and_picks_an_item(self, catalog):
        typed = "I'm looking for Men Socks. A key requirement is: feature 3.\npick 1\n"
        result = runner.invoke(app, ["turns", "play", "--catalog", str(catalog)], input=typed)
        assert result.exit_code == 0, result.output
        assert "Crew Socks model 3" in result.output and "found at turn 1, rank 1" in result.output

    def test_the_shopper_sees_the_full_list_and_why_and_no_simulator_jargon(self, catalog):
        typed = "I'm looking for Men Socks.\nquit\n"
        result = runner.invoke(app, ["turns", "play", "--catalog", str(catalog)], input=typed)
        assert result.exit_code == 0, result.output
        assert all(f"Crew Socks model {i}" in result.output for i in range(5))  # the list, not one item
        assert "why S" in result.output and "asks about: other" not in result.output
        assert "nothing like that here" not in result.output
        scored = runner.invoke(app, ["turns", "play", "--catalog", str(catalog), "--scored-width"], input=typed)
        assert sum(f"Crew Socks model {i}" in scored.output for i in range(5)) == 1

    def test_says_honestly_when_the_catalog_has_nothing_like_the_request(self, catalog):
        result = runner.invoke(app, ["turns", "play", "--catalog", str(catalog)],
                               input="wireless earbuds under 50 dollars\nquit\n")
        said = " ".join(result.output.split())
        assert "nothing like that here: no item in this catalog is called 'earbuds', 'wireless'" in said
        assert "'dollars'" not in said

    def test_quit_ends_the_session(self, catalog):
        result = runner.invoke(app, ["turns", "play", "--catalog", str(catalog), "--agent", "baseline"], input="quit\n")
        assert result.exit_code == 0 and "bye." in result.output

    def test_catalog_and_dataset_are_exclusive(self, catalog):
        result = runner.invoke(app, ["turns", "play", "--catalog", str(catalog), "--dataset", "public-sample"])
        assert result.exit_code == 1

    def test_unknown_agent_lists_the_valid_names(self, catalog):
        result = runner.invoke(app, ["turns", "play", "--catalog", str(catalog), "--agent", "nope"])
        assert result.exit_code == 1 and "baseline" in result.output


class TestWatch:
    def test_replays_a_simulated_session_turn_by_turn(self, catalog, sessions):
        result = runner.invoke(app, ["turns", "play", "--catalog", str(catalog), "--sessions", str(sessions),
                                     "--watch", "t1"])
        assert result.exit_code == 0, result.output
        assert "turn 1" in result.output and "For that, what matters is" in result.output
        assert "target shown at rank" in result.output and "hit at turn" in result.output

    def test_unknown_sample_is_a_clear_error(self, catalog, sessions):
        result = runner.invoke(app, ["turns", "play", "--catalog", str(catalog), "--sessions", str(sessions),
                                     "--watch", "nope"])
        assert result.exit_code == 1 and "no session 'nope'" in result.output
