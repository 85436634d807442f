from slidesearch.library import Library
from slidesearch.model import Slide
from slidesearch.sections import SECTIONS
from slidesearch.stats import library_stats


def _slides():
    return [
        Slide(
            slide_id="a",
            deck_id="d1",
            deck_name="Fraud V1.pptx",
            folder="/DAAIS/Clients/X",
            title="Fraud case",
            text="Challenge, solution, impact",
            content_type="case_study",
        ),
        Slide(
            slide_id="b",
            deck_id="d2",
            deck_name="Fraud V2.pptx",
            folder="/DAAIS/Clients/X",
            title="Why choose us",
            text="Ten years",
        ),
        Slide(
            slide_id="c",
            deck_id="d2",
            deck_name="Fraud V2.pptx",
            folder="/EdTech/Domain",
            title="Team",
            text="Jane",
            content_type="team",
        ),
    ]


class TestLibraryStats:
    def test_counts_by_universe_section_type_and_deck(self):
        stats = library_stats(Library.from_slides(_slides(), embedder="fast"))
        assert stats["slides"] == 3 and stats["decks"] == 2 and stats["canonical_decks"] == 1
        assert stats["by_universe"] == {"DAAIS": 2, "EdTech": 1}
        assert list(stats["by_section"]) == list(SECTIONS)
        assert stats["by_section"]["Credibility & Recognition"] == 1
        assert stats["by_content_type"] == {"case_study": 1, "content": 1, "team": 1}
        assert stats["largest_decks"][0] == {"deck_id": "d2", "deck_name": "Fraud V2.pptx", "slides": 2}
        assert stats["embedder"] == "fast" and stats["dim"] == 256 and stats["index_path"] is None

    def test_opened_index_reports_its_file_sizes(self, tmp_path):
        Library.from_slides(_slides(), embedder="fast").save(tmp_path / "index")
        stats = library_stats(Library.open(tmp_path / "index"))
        assert stats["index_bytes"] == sum(stats["index_files"].values()) > 0
        assert "vectors.npy" in stats["index_files"] and "library.sqlite" in stats["index_files"]
