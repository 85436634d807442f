"""One vocabulary across the commands: the same names for the same things, old names still accepted."""

import json

import pytest
import serve_corpus
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()

COMMANDS = [["slides", c] for c in ("ingest", "index", "search", "explain", "assemble", "serve", "stats", "generate")] + [
    ["slides", "log", "export"], ["turns", "eval"], ["turns", "play"], ["doctor"], ["demo"], ["eval", "run"]]


@pytest.fixture()
def index(_isolated_seek_home):
    return serve_corpus.build_index(_isolated_seek_home)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_names_no_type_beside_a_switch(command):
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "<bool>" not in result.output and "--help" in result.output


@pytest.mark.parametrize("command", [["slides", "search"], ["slides", "explain"], ["slides", "assemble"],
                                     ["slides", "serve"]], ids=" ".join)
def test_every_scoped_command_takes_universe_and_hides_the_old_spelling(command):
    said = " ".join(runner.invoke(app, [*command, "--help"], env={"COLUMNS": "200"}).output.split())
    assert "--universe" in said and "--universes" not in said


def test_universe_is_repeatable_or_comma_separated_in_search(index):
    def universes(*args):
        result = runner.invoke(app, ["slides", "search", "customer analytics", *args, "--index", str(index), "--json"])
        return json.loads(result.stdout)["universes"]

    assert universes("--universe", "S&R", "--universe", "EdTech") == universes("--universe", "S&R,EdTech") == [
        "S&R", "EdTech"]


def test_assemble_takes_the_new_names_and_the_old(index, tmp_path):
    new = runner.invoke(app, ["slides", "assemble", "--query", "analytics", "--universe", "EdTech", "--max-slides", "2",
                              "--out", str(tmp_path / "a.pptx"), "--index", str(index), "--json"])
    old = runner.invoke(app, ["slides", "assemble", "--query", "analytics", "--universes", "EdTech", "--max", "2",
                              "--out", str(tmp_path / "b.pptx"), "--index", str(index), "--json"])
    assert new.exit_code == old.exit_code == 0, new.output + old.output
    assert [s["slide_id"] for s in json.loads(new.stdout)["slides"]] == [s["slide_id"] for s in json.loads(old.stdout)["slides"]]
    assert len(json.loads(new.stdout)["slides"]) == 2


def test_a_deck_size_out_of_range_is_refused_with_the_shared_message(index, tmp_path):
    result = runner.invoke(app, ["slides", "assemble", "--query", "analytics", "--max-slides", "201",
                                 "--out", str(tmp_path / "a.pptx"), "--index", str(index)])
    assert result.exit_code == 1 and "max_slides must be between 1 and 200" in " ".join(result.output.split())


def test_top_per_group_help_says_the_truth():
    said = " ".join(runner.invoke(app, ["slides", "search", "--help"], env={"COLUMNS": "200"}).output.split())
    assert "1 to 50; a section shows at most 15" in said


def test_serve_takes_universe_like_every_other_command(_isolated_seek_home):
    serve_corpus.build_index(_isolated_seek_home)
    result = runner.invoke(app, ["slides", "serve", "--mcp", "--universe", "Pharma,DAAIS"])
    said = " ".join(result.output.split())
    assert result.exit_code == 1 and "unknown universe(s) in --universes: Pharma" in said
