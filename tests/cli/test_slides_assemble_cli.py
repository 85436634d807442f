import importlib.util
import json
import sys
from pathlib import Path

import pytest
from pptx import Presentation
from typer.testing import CliRunner

from cli.main import app
from slidesearch.library import Library

runner = CliRunner()


def _said(result) -> str:
    """The command's output with rich's line wrapping undone."""
    return " ".join(result.output.split())
TEST_ASSEMBLE = Path(__file__).resolve().parents[1] / "slidesearch" / "test_assemble.py"


def _build_decks(root: Path):
    """The source decks of tests/slidesearch/test_assemble.py (text, table, picture, notes, a chart), by path."""
    if "assemble_decks" not in sys.modules:
        spec = importlib.util.spec_from_file_location("assemble_decks", TEST_ASSEMBLE)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["assemble_decks"] = module
    return sys.modules["assemble_decks"]._build_decks(root)


@pytest.fixture()
def library(tmp_path, monkeypatch):
    """Decks and a JSONL file ingested and indexed through `seek slides ingest`, as a user would."""
    monkeypatch.setenv("SEEK_EMBEDDER", "fast")
    root = tmp_path / "library"
    _build_decks(root)
    (root / "generated.jsonl").write_text(json.dumps({
        "slide_id": "gen-3", "deck_id": "gen", "deck_name": "Generated V1.pptx", "folder": "/EdTech/Decks",
        "slide_number": 3, "title": "Learning analytics", "text": "Cohort dashboards for online courses",
        "content_type": "dashboard"}) + "\n")
    result = runner.invoke(app, ["slides", "ingest", str(root)])
    assert result.exit_code == 0, result.output
    return root


def _slide_id(deck_name: str, number: int) -> str:
    """The id ingestion gave a deck's slide (ids are ingestion's business; tests look them up)."""
    library = Library.open()
    return next(library.ids[r] for r in range(library.n)
                if library.deck_names[r] == deck_name and library.slide_numbers[r] == number)


def wide(number: int) -> str:
    return _slide_id("Retail Analytics v2.pptx", number)


def classic(number: int) -> str:
    return _slide_id("Banking Proposal.pptx", number)


class TestAssembleIds:
    def test_writes_the_deck_in_order_with_the_query_recorded(self, library, tmp_path):
        out = tmp_path / "deck.pptx"
        result = runner.invoke(app, ["slides", "assemble", wide(2), "gen-3", classic(1), "--out", str(out),
                                     "--title", "Rate card pitch", "--query", "rate card", "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        assert [s["mode"] for s in report["slides"]] == ["copied", "text", "copied"]
        prs = Presentation(str(out))
        titles = [s.shapes.title.text if s.shapes.title is not None else "" for s in prs.slides]
        assert titles == ["Rate card pitch", "Rate card", "Learning analytics", "Two ways to start", "Sources"]
        assert prs.core_properties.subject == "rate card"

    def test_unknown_ids_fail_listing_them_and_write_nothing(self, library, tmp_path):
        out = tmp_path / "deck.pptx"
        result = runner.invoke(app, ["slides", "assemble", wide(1), "ghost-1", "--out", str(out)])
        assert result.exit_code == 1
        assert "unknown slide ids: ghost-1" in _said(result)
        assert not out.exists()

    def test_ids_outside_the_universes_fail(self, library, tmp_path):
        result = runner.invoke(app, ["slides", "assemble", classic(2), "--universes", "DAAIS",
                                     "--out", str(tmp_path / "d.pptx")])
        assert result.exit_code == 1 and classic(2) in _said(result)

    def test_a_folder_for_out_and_an_empty_query_are_clear_errors(self, library, tmp_path):
        folder = runner.invoke(app, ["slides", "assemble", "gen-3", "--out", str(tmp_path)])
        assert folder.exit_code == 1 and "is a folder" in _said(folder)
        empty = runner.invoke(app, ["slides", "assemble", "--query", "  ", "--out", str(tmp_path / "d.pptx")])
        assert empty.exit_code == 1 and "the query is empty" in _said(empty)

    def test_an_unwritable_out_is_a_clear_error(self, library, tmp_path):
        (tmp_path / "file.pptx").write_text("not a folder")
        result = runner.invoke(app, ["slides", "assemble", "gen-3", "--out", str(tmp_path / "file.pptx" / "d.pptx")])
        assert result.exit_code == 1 and "cannot write the deck to" in _said(result)

    def test_needs_ids_or_a_query(self, library, tmp_path):
        result = runner.invoke(app, ["slides", "assemble", "--out", str(tmp_path / "d.pptx")])
        assert result.exit_code == 1 and "give slide ids, or --query" in _said(result)

    def test_sections_only_go_with_a_query_alone(self, library, tmp_path):
        result = runner.invoke(app, ["slides", "assemble", "gen-3", "--sections", "Other", "--out", str(tmp_path / "d.pptx")])
        assert result.exit_code == 1 and "--query alone" in _said(result)

    def test_missing_index_says_how_to_build_it(self, tmp_path):
        result = runner.invoke(app, ["slides", "assemble", "x", "--out", str(tmp_path / "d.pptx")])
        assert result.exit_code == 1 and "seek slides index" in _said(result)


class TestAssembleQuery:
    def test_takes_the_top_cards_of_the_named_sections(self, library, tmp_path):
        out = tmp_path / "deck.pptx"
        result = runner.invoke(app, ["slides", "assemble", "--query", "learning analytics dashboards",
                                     "--sections", "Data & Analytics", "--max", "1", "--out", str(out), "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.output)
        assert len(report["slides"]) == 1 and report["query"] == "learning analytics dashboards"
        assert len(Presentation(str(out)).slides) == 2

    def test_universes_match_case_insensitively_and_an_unknown_one_is_a_clear_error(self, library, tmp_path):
        out = tmp_path / "deck.pptx"
        result = runner.invoke(app, ["slides", "assemble", "--query", "learning analytics dashboards",
                                     "--universes", "edtech", "--out", str(out), "--json"])
        assert result.exit_code == 0, result.output
        assert out.exists()
        typo = runner.invoke(app, ["slides", "assemble", "--query", "analytics", "--universes", "Nowhere",
                                   "--out", str(tmp_path / "typo.pptx")])
        assert typo.exit_code == 1 and "error: unknown universe(s): Nowhere" in _said(typo)
        by_id = runner.invoke(app, ["slides", "assemble", "gen-3", "--universes", "EDTECH",
                                    "--out", str(tmp_path / "ids.pptx")])
        assert by_id.exit_code == 0, by_id.output

    def test_unknown_section_lists_the_valid_ones(self, library, tmp_path):
        result = runner.invoke(app, ["slides", "assemble", "--query", "analytics", "--sections", "Case Study",
                                     "--out", str(tmp_path / "d.pptx")])
        assert result.exit_code == 1 and "valid sections: Case Studies" in _said(result)
