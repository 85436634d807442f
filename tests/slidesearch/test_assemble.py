import io
import time
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.util import Inches

from slidesearch.assemble import AssembleError, assemble, pick_cards, validate_sections
from slidesearch.library import Library
from slidesearch.model import Slide, VerifiedCaseStudy
from slidesearch.response import Card, ScoreFactors
from tests.visual_decks import plain_png

WIDE = (Inches(13.333), Inches(7.5))


def _title_and_body(prs, title: str, lines: list[str], notes: str | None = None):
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = title
    body = slide.placeholders[1].text_frame
    body.text = lines[0]
    for line in lines[1:]:
        body.add_paragraph().text = line
    if notes:
        slide.notes_slide.notes_text_frame.text = notes
    return slide


def _build_decks(root: Path) -> dict[str, tuple[str, int, str]]:
    """Two source decks of different sizes and layouts; returns slide id -> (path, slide number, title)."""
    wide = Presentation()
    wide.slide_width, wide.slide_height = WIDE
    _title_and_body(wide, "Retail analytics approach", ["Discovery workshops", "Pilot in 6 weeks"],
                    notes="Mention the pilot results first")
    table_slide = wide.slides.add_slide(wide.slide_layouts[5])
    table_slide.shapes.title.text = "Rate card"
    table = table_slide.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, (role, rate) in enumerate([("Role", "Day rate"), ("Analyst", "$900"), ("Lead", "$1,400")]):
        table.cell(r, 0).text, table.cell(r, 1).text = role, rate
    picture_slide = wide.slides.add_slide(wide.slide_layouts[6])
    picture_slide.shapes.add_picture(io.BytesIO(plain_png((200, 30, 30))), Inches(1), Inches(1))
    picture_slide.shapes.add_textbox(Inches(1), Inches(4), Inches(5), Inches(1)).text_frame.text = "Churn dashboard"
    chart_slide = wide.slides.add_slide(wide.slide_layouts[5])
    chart_slide.shapes.title.text = "Revenue by quarter"
    data = CategoryChartData()
    data.categories = ["Q1", "Q2"]
    data.add_series("Revenue", (1.0, 2.0))
    chart_slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(5), Inches(3), data)
    wide_path = root / "DAAIS" / "Collateral" / "Retail Analytics v2.pptx"
    wide_path.parent.mkdir(parents=True)
    wide.save(wide_path)

    classic = Presentation()
    two = classic.slides.add_slide(classic.slide_layouts[3])
    two.shapes.title.text = "Two ways to start"
    two.placeholders[1].text_frame.text = "Assessment"
    two.placeholders[2].text_frame.text = "Proof of value"
    cover = classic.slides.add_slide(classic.slide_layouts[0])
    cover.shapes.title.text = "Banking overview"
    cover.placeholders[1].text_frame.text = "Capabilities 2025"
    classic_path = root / "S&R" / "Proposals" / "Banking Proposal.pptx"
    classic_path.parent.mkdir(parents=True)
    classic.save(classic_path)

    return {
        "wide-1": (str(wide_path), 1, "Retail analytics approach"),
        "wide-2": (str(wide_path), 2, "Rate card"),
        "wide-3": (str(wide_path), 3, "Churn dashboard"),
        "wide-4": (str(wide_path), 4, "Revenue by quarter"),
        "classic-1": (str(classic_path), 1, "Two ways to start"),
        "classic-2": (str(classic_path), 2, "Banking overview"),
    }


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, tuple[str, int, str]]:
    return _build_decks(tmp_path_factory.mktemp("decks"))


@pytest.fixture(scope="module")
def library(sources) -> Library:
    slides = []
    for slide_id, (path, number, title) in sources.items():
        folder = "/" + "/".join(Path(path).parent.parts[-2:])
        slides.append(Slide(slide_id=slide_id, deck_id=Path(path).stem, deck_name=Path(path).name, folder=folder,
                            slide_number=number, title=title, text=f"{title} text", source_path=path))
    slides += [
        Slide(slide_id="jsonl-7", deck_id="gen-deck", deck_name="Generated Deck V1.pptx", folder="/EdTech/Decks",
              slide_number=7, title="Learning analytics", text="Adaptive learning paths\nCohort dashboards"),
        Slide(slide_id="jsonl-9", deck_id="gen-deck", deck_name="Generated Deck V1.pptx", folder="/EdTech/Decks",
              slide_number=9, title="Outcomes", text="Completion up 18%"),
        Slide(slide_id="lost-1", deck_id="lost", deck_name="Lost.pptx", folder="/DAAIS/Old", slide_number=1,
              title="Moved deck", text="This deck moved", source_path="/nonexistent/Lost.pptx"),
    ]
    master = [VerifiedCaseStudy(row_id="m7", client="Acme Bank", use_case="Churn reduction",
                                title="Churn cut at Acme Bank", summary="Reduced churn by 12% in two quarters.")]
    return Library.from_slides(slides, master, embedder="fast")


ORDER = ["wide-2", "jsonl-7", "classic-1", "wide-1", "wide-3", "wide-4", "jsonl-9"]


@pytest.fixture(scope="module")
def assembled(library, tmp_path_factory):
    out = tmp_path_factory.mktemp("out") / "deck.pptx"
    result = assemble(ORDER, query="retail analytics rate card", library=library, out=out)
    return result, Presentation(str(out))


def _title(slide) -> str:
    return slide.shapes.title.text if slide.shapes.title is not None else ""


def _all_text(slide) -> str:
    return "\n".join(shape.text_frame.text for shape in slide.shapes if shape.has_text_frame)


class TestAssembleMixedDeck:
    def test_slides_come_in_the_order_given_then_sources(self, assembled):
        _, prs = assembled
        titles = [_title(s) for s in prs.slides]
        assert titles == ["Rate card", "Learning analytics", "Two ways to start", "Retail analytics approach",
                          "", "Revenue by quarter", "Outcomes", "Sources"]
        assert "Churn dashboard" in _all_text(prs.slides[4])

    def test_deck_uses_the_first_source_decks_slide_size(self, assembled):
        result, prs = assembled
        assert (prs.slide_width, prs.slide_height) == WIDE
        assert result.template and result.template.endswith("Retail Analytics v2.pptx")

    def test_table_cells_are_copied(self, assembled):
        _, prs = assembled
        tables = [shape.table for shape in prs.slides[0].shapes if shape.has_table]
        assert len(tables) == 1
        cells = [[tables[0].cell(r, c).text for c in range(2)] for r in range(3)]
        assert cells == [["Role", "Day rate"], ["Analyst", "$900"], ["Lead", "$1,400"]]

    def test_picture_is_copied_with_its_image(self, assembled):
        _, prs = assembled
        pictures = [s for s in prs.slides[4].shapes if s.shape_type == MSO_SHAPE_TYPE.PICTURE]
        assert len(pictures) == 1
        assert pictures[0].image.blob == plain_png((200, 30, 30))

    def test_text_and_notes_are_copied(self, assembled):
        _, prs = assembled
        slide = prs.slides[3]
        assert "Discovery workshops" in _all_text(slide) and "Pilot in 6 weeks" in _all_text(slide)
        assert slide.notes_slide.notes_text_frame.text == "Mention the pilot results first"

    def test_copied_slides_keep_their_layout(self, assembled):
        _, prs = assembled
        assert prs.slides[0].slide_layout.name == "Title Only"
        assert prs.slides[2].slide_layout.name == "Two Content"
        assert prs.slides[3].slide_layout.name == "Title and Content"
        two = _all_text(prs.slides[2])
        assert "Assessment" in two and "Proof of value" in two

    def test_slides_from_a_smaller_deck_are_centred_on_the_wider_template(self, assembled):
        result, prs = assembled
        classic = prs.slides[2]
        slack = (WIDE[0] - Inches(10)) // 2
        lefts = [shape.left for shape in classic.shapes]
        assert lefts and all(slack <= left < slack + Inches(10) for left in lefts)
        assert all(shape.left + shape.width <= slack + Inches(10) for shape in classic.shapes)
        assert "centred to fit" in next(n for n in result.slides if n.slide_id == "classic-1").reason

    def test_chart_slide_becomes_text_and_says_why(self, assembled):
        result, prs = assembled
        note = next(n for n in result.slides if n.slide_id == "wide-4")
        assert note.mode == "text" and "chart" in note.reason
        assert not any(shape.has_chart for shape in prs.slides[5].shapes)

    def test_jsonl_slides_are_text_with_a_source_footer(self, assembled):
        result, prs = assembled
        note = next(n for n in result.slides if n.slide_id == "jsonl-7")
        assert note.mode == "text" and "no source" in note.reason
        text = _all_text(prs.slides[1])
        assert "Adaptive learning paths" in text and "Cohort dashboards" in text
        assert "Generated Deck V1.pptx" in text and "slide 7" in text

    def test_result_notes_every_slide_in_order(self, assembled):
        result, _ = assembled
        assert [n.slide_id for n in result.slides] == ORDER
        assert [n.position for n in result.slides] == list(range(1, 8))
        assert {n.slide_id for n in result.copied} == {"wide-2", "classic-1", "wide-1", "wide-3"}
        assert result.n_slides == 8

    def test_sources_slide_lists_deck_folder_and_slide_number(self, assembled):
        _, prs = assembled
        text = _all_text(prs.slides[-1])
        assert "Retail Analytics v2.pptx — slide 2 — /DAAIS/Collateral" in text
        assert "Generated Deck V1.pptx — slide 9 — /EdTech/Decks" in text
        assert text.count("slide ") == len(ORDER)

    def test_core_properties_record_the_query(self, assembled):
        _, prs = assembled
        assert prs.core_properties.subject == "retail analytics rate card"
        assert "retail analytics rate card" in prs.core_properties.comments
        assert prs.core_properties.author == "seek"


class TestAssembleRequests:
    def test_unknown_and_out_of_scope_ids_are_one_error_and_nothing_is_written(self, library, tmp_path):
        out = tmp_path / "deck.pptx"
        with pytest.raises(AssembleError) as err:
            assemble(["wide-1", "nope-1", "jsonl-7", "nope-2"], library=library, out=out, universes=["DAAIS"])
        assert err.value.unknown == ["nope-1", "nope-2"]
        assert err.value.out_of_scope == ["jsonl-7"]
        assert "nope-1" in str(err.value) and "jsonl-7" in str(err.value)
        assert list(tmp_path.iterdir()) == []

    def test_no_ids_is_an_error(self, library):
        with pytest.raises(AssembleError, match="no slide ids"):
            assemble([], library=library)

    def test_bytes_are_returned_without_an_output_path(self, library):
        result = assemble(["jsonl-9"], library=library)
        assert result.path is None
        assert len(Presentation(io.BytesIO(result.data)).slides) == 2

    def test_output_is_renamed_into_place_with_no_temp_left(self, library, tmp_path):
        out = tmp_path / "deck.pptx"
        out.write_bytes(b"old")
        result = assemble(["classic-2"], library=library, out=out)
        assert result.path == out.resolve()
        assert [p.name for p in tmp_path.iterdir()] == ["deck.pptx"]
        assert _title(Presentation(str(out)).slides[0]) == "Banking overview"

    def test_title_adds_a_cover_slide_and_names_the_deck(self, library):
        result = assemble(["classic-1"], title="Banking pitch", query="banking", library=library)
        prs = Presentation(io.BytesIO(result.data))
        assert _title(prs.slides[0]) == "Banking pitch"
        assert "banking" in _all_text(prs.slides[0])
        assert prs.core_properties.title == "Banking pitch"
        assert result.slides[0].position == 2

    def test_missing_source_file_is_rendered_as_text_with_the_reason(self, library):
        result = assemble(["lost-1"], library=library)
        assert result.slides[0].mode == "text"
        assert result.slides[0].reason == "source file /DAAIS/Old/Lost.pptx is missing"  # the library's name, no server path

    def test_verified_master_rows_become_text_slides_and_are_sourced(self, library):
        result = assemble(["verified:m7", "jsonl-9"], library=library, universes=["EdTech"])
        assert result.slides[0].mode == "text" and "master sheet" in result.slides[0].reason
        prs = Presentation(io.BytesIO(result.data))
        assert _title(prs.slides[0]) == "Churn cut at Acme Bank"
        assert "Client: Acme Bank" in _all_text(prs.slides[0]) and "Reduced churn by 12%" in _all_text(prs.slides[0])
        assert "Verified case studies (master sheet) — row m7" in _all_text(prs.slides[-1])

    def test_a_verified_row_of_another_universe_is_out_of_scope(self, library):
        scoped = library.master[0].model_copy(update={"universe": "DAAIS"})
        saved = library.master
        library.master = [scoped, *saved[1:]]
        library.__dict__.pop("_master_universes", None)  # the cached lookup, rebuilt for the edited sheet
        try:
            with pytest.raises(AssembleError, match=f"outside the universes EdTech: verified:{scoped.row_id}"):
                assemble([f"verified:{scoped.row_id}"], library=library, universes=["EdTech"])
            kept = assemble([f"verified:{scoped.row_id}"], library=library, universes=["DAAIS"])
            assert [s.slide_id for s in kept.slides] == [f"verified:{scoped.row_id}"]
        finally:
            library.master = saved
            library.__dict__.pop("_master_universes", None)

    def test_grouped_picture_and_hyperlink_keep_their_relationships(self, tmp_path):
        prs = Presentation()
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        group = slide.shapes.add_group_shape()
        group.shapes.add_picture(io.BytesIO(plain_png((10, 120, 200))), Inches(1), Inches(1))
        run = group.shapes.add_textbox(Inches(1), Inches(3), Inches(4), Inches(1)).text_frame.paragraphs[0].add_run()
        run.text = "Read the report"
        run.hyperlink.address = "https://example.com/report"
        path = tmp_path / "Grouped.pptx"
        prs.save(path)
        library = Library.from_slides([Slide(slide_id="g1", deck_id="grouped", deck_name="Grouped.pptx", folder="/DAAIS",
                                             slide_number=1, title="Grouped", text="x", source_path=str(path))],
                                      embedder="fast")
        result = assemble(["g1"], library=library)
        assert result.slides[0].mode == "copied"
        (copied,) = Presentation(io.BytesIO(result.data)).slides[0].shapes
        inner = {shape.shape_type: shape for shape in copied.shapes}
        assert inner[MSO_SHAPE_TYPE.PICTURE].image.blob == plain_png((10, 120, 200))
        text_run = inner[MSO_SHAPE_TYPE.TEXT_BOX].text_frame.paragraphs[0].runs[0]
        assert text_run.hyperlink.address == "https://example.com/report"

    def test_duplicate_ids_are_assembled_once(self, library):
        result = assemble(["jsonl-7", "jsonl-7"], library=library)
        assert [n.slide_id for n in result.slides] == ["jsonl-7"]

    def test_fifty_slides_take_well_under_a_second_each(self, tmp_path):
        prs = Presentation()
        for i in range(25):
            _title_and_body(prs, f"Slide {i}", [f"Point {i}"], notes=f"note {i}")
            pic = prs.slides.add_slide(prs.slide_layouts[6])
            pic.shapes.add_picture(io.BytesIO(plain_png((i * 9, 0, 0))), Inches(1), Inches(1))
        path = tmp_path / "Big.pptx"
        prs.save(path)
        slides = [Slide(slide_id=f"b{n}", deck_id="big", deck_name="Big.pptx", folder="/DAAIS", slide_number=n,
                        title=f"s{n}", text="x", source_path=str(path)) for n in range(1, 51)]
        library = Library.from_slides(slides, embedder="fast")
        started = time.perf_counter()
        result = assemble([s.slide_id for s in slides], library=library, out=tmp_path / "out.pptx")
        elapsed = time.perf_counter() - started
        assert len(result.copied) == 50
        assert elapsed / 50 < 0.2


def _card(card_id: str, section: str) -> Card:
    return Card(id=card_id, title=card_id, deck_name="Deck.pptx", section=section, own_section=section, score=1.0,
                factors=ScoreFactors(), preview="")


class TestPickCards:
    GROUPS = {
        "Data & Analytics": [_card("a1", "Data & Analytics"), _card("a2", "Data & Analytics"),
                             _card("m-1", "Data & Analytics")],
        "Case Studies": [_card("c1", "Case Studies"), _card("a1", "Case Studies")],
        "Other": [_card("o1", "Other")],
    }

    def test_takes_cards_in_the_engines_order_up_to_max(self):
        assert pick_cards(self.GROUPS, max_slides=3) == ["a1", "a2", "m-1"]

    def test_skips_cards_the_library_cannot_resolve(self, library):
        groups = {"Case Studies": [_card(i, "Case Studies") for i in ("ghost", "wide-1", "verified:m7")]}
        assert pick_cards(groups, library=library) == ["wide-1", "verified:m7"]

    def test_keeps_only_the_named_sections(self):
        assert pick_cards(self.GROUPS, ["case studies", "Other"]) == ["c1", "a1", "o1"]

    def test_unknown_section_lists_the_valid_ones(self):
        with pytest.raises(AssembleError, match="valid sections: Case Studies"):
            validate_sections(["Case Study"])

    def test_max_out_of_range_is_an_error(self):
        with pytest.raises(AssembleError, match="--max"):
            pick_cards(self.GROUPS, max_slides=0)
