import json
from datetime import date

import pytest
from typer.testing import CliRunner

from cli.main import app
from slidesearch.library import Library
from slidesearch.model import Slide, VerifiedCaseStudy

runner = CliRunner()

ROWS = [
    ("Capital call notice automation", "Automated capital call notices for fund administrators", "content", "DAAIS"),
    ("Fraud detection for a bank", "Cut fraud losses by 23% and saved $4.5M", "case_study", "DAAIS"),
    ("Customer analytics dashboard", "NPS and revenue per account", "dashboard", "DAAIS"),
    ("Learning analytics", "Student engagement analytics for universities", "content", "EdTech"),
]


def _said(result) -> str:
    return " ".join(result.output.split())


@pytest.fixture()
def index(tmp_path):
    slides = [Slide(slide_id=f"s{i}", deck_id=f"d{i}", deck_name=f"Deck {i}.pptx", folder=f"/{u}/Sales", title=t,
                    text=x, content_type=c, universe=u, deck_date=date(2024, 1, 1))
              for i, (t, x, c, u) in enumerate(ROWS)]
    master = [VerifiedCaseStudy(row_id="m1", client="Acme Bank", use_case="fraud", title="Fraud analytics at Acme",
                                summary="Cut fraud by 30%")]
    folder = tmp_path / "index"
    Library.from_slides(slides, master=master, embedder="fast").save(folder)
    return folder


class TestSearch:
    def test_prints_sections_of_cards_and_the_coverage_note(self, index):
        result = runner.invoke(app, ["slides", "search", "capital call fan360", "--index", str(index)])
        assert result.exit_code == 0, result.output
        said = _said(result)
        assert "Capital call notice automation" in said and "Deck 0.pptx" in said
        assert "fan360" in said and "note:" in said

    def test_a_scoped_search_names_words_only_other_universes_hold(self, index):
        said = _said(runner.invoke(app, ["slides", "search", "capital call", "--universe", "EdTech", "--index", str(index)]))
        assert 'nothing in EdTech uses "capital" or "call" (other universes do)' in said
        whole = _said(runner.invoke(app, ["slides", "search", "capital call", "--index", str(index)]))
        assert "other universes do" not in whole

    def test_a_query_without_words_says_it_is_answered_by_meaning(self, index):
        said = _said(runner.invoke(app, ["slides", "search", "😀", "--index", str(index)]))
        assert "no words to match literally" in said

    def test_square_brackets_in_a_query_print_as_typed(self, index):
        result = runner.invoke(app, ["slides", "search", "capital [/] call [red]x", "--index", str(index)])
        assert result.exit_code == 0, result.output
        assert "capital [/] call [red]x" in _said(result)
        bad = runner.invoke(app, ["slides", "search", "x", "--universe", "[/bold]", "--index", str(index)])
        assert bad.exit_code == 1 and "unknown universe(s): [/bold]" in _said(bad)

    def test_the_headline_counts_cards_in_good_english(self, index):
        for query in ("capital call fan360", "fraud", "learning analytics for universities"):
            total = json.loads(runner.invoke(app, ["slides", "search", query, "--json", "--index", str(index)]).stdout)[
                "total_matches"]
            headline = _said(runner.invoke(app, ["slides", "search", query, "--index", str(index)])).split("╭")[0]
            assert f" {total} card{'' if total == 1 else 's'} " in headline, (total, headline)

    def test_json_prints_the_response_model(self, index):
        result = runner.invoke(app, ["slides", "search", "fraud", "--json", "--index", str(index)])
        data = json.loads(result.stdout)
        assert data["master_sheet"] == [] and data["total_matches"] == sum(len(v) for v in data["groups"].values())

    def test_several_arguments_are_several_angles(self, index):
        result = runner.invoke(app, ["slides", "search", "fraud", "learning analytics", "--json", "--index", str(index)])
        assert json.loads(result.stdout)["angles"] == ["fraud", "learning analytics"]

    def test_a_card_of_a_several_angle_brief_says_which_angle_it_answers(self, index):
        brief = _said(runner.invoke(app, ["slides", "search", "fraud", "learning analytics", "--index", str(index)]))
        assert "answers: learning analytics" in brief
        single = _said(runner.invoke(app, ["slides", "search", "learning analytics", "--index", str(index)]))
        assert "answers:" not in single

    def test_universe_scope(self, index):
        result = runner.invoke(app, ["slides", "search", "analytics", "--universe", "EdTech", "--json",
                                     "--index", str(index)])
        cards = [c for cards in json.loads(result.stdout)["groups"].values() for c in cards if not c["verified"]]
        assert cards and {c["universe"] for c in cards} == {"EdTech"}

    def test_explain_and_trace(self, index):
        result = runner.invoke(app, ["slides", "search", "capital call", "--explain", "--trace", "--index", str(index)])
        said = _said(result)
        assert "why:" in said and "06 prefilter" in said and "candidates per stage" in said

    def test_empty_query_is_a_clean_error(self, index):
        result = runner.invoke(app, ["slides", "search", "   ", "--index", str(index)])
        assert result.exit_code == 1 and "empty" in _said(result)

    def test_missing_index_says_how_to_build_one(self, tmp_path):
        result = runner.invoke(app, ["slides", "search", "fraud", "--index", str(tmp_path / "none")])
        assert result.exit_code == 1 and "seek slides index" in _said(result)


class TestExplain:
    def test_explains_ids_under_a_query(self, index):
        result = runner.invoke(app, ["slides", "explain", "--query", "capital call", "s0", "--json",
                                     "--index", str(index)])
        (explanation,) = json.loads(result.stdout)
        assert explanation["slide_id"] == "s0" and explanation["matched_terms"] == ["capital call"]

    def test_unknown_id_is_a_clean_error(self, index):
        result = runner.invoke(app, ["slides", "explain", "--query", "q", "nope", "--index", str(index)])
        assert result.exit_code == 1 and "unknown" in _said(result)
