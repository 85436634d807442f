"""Text hidden from text frames: pictures (OCR), SmartArt, charts; titles of slides without a title placeholder."""

import io

import pytest
from pptx import Presentation
from pptx.util import Inches
from system_tools import require_tool

from slidesearch.engine import SlideSearch
from slidesearch.extract.ocr import words_from_tsv
from slidesearch.extract.smartart import diagram_data_texts
from slidesearch.extract.titles import TextBox, detect_title
from slidesearch.ingest import ingest_path, read_pptx
from slidesearch.library import Library
from slidesearch.store import Store
from tests.visual_decks import (
    CHART_AXIS,
    CHART_SERIES,
    CHART_TITLE,
    SMARTART_WORDS,
    TEXTBOX_TITLE,
    _diagram_data,
    plain_png,
    text_picture,
    write_visual_deck,
)


@pytest.fixture(scope="module")
def visual_slides(tmp_path_factory):
    require_tool("tesseract", package="tesseract-ocr")
    root = tmp_path_factory.mktemp("visual")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SEEK_OCR", "on")
        deck, slides = read_pptx(write_visual_deck(root / "Visual.pptx"), root)
    return slides


def test_text_in_a_picture_is_read_by_ocr_into_its_own_field(visual_slides):
    picture = visual_slides[0]
    assert "PLATYPUS" in picture.picture_text.upper()
    assert "platypus" not in picture.text.lower()


def test_smartart_text_comes_from_the_diagram_data_part(visual_slides):
    smart = visual_slides[1]
    assert smart.smartart_text.splitlines() == list(SMARTART_WORDS)
    assert "armadillo" not in smart.text


def test_chart_title_axis_title_series_and_categories_are_read(visual_slides):
    chart = visual_slides[2].chart_text.splitlines()
    assert {CHART_TITLE, CHART_AXIS, CHART_SERIES, "North", "South"} <= set(chart)


def test_a_slide_of_text_boxes_is_titled_by_its_largest_text_not_the_footer(visual_slides):
    assert visual_slides[3].title == TEXTBOX_TITLE


def test_every_slide_says_it_came_from_a_pptx(visual_slides):
    assert {s.source_format for s in visual_slides} == {"pptx"}


def test_hidden_text_is_searchable_and_why_this_names_where_it_was_found(visual_slides):
    engine = SlideSearch(Library.from_slides(visual_slides, embedder="fast"))
    for query, slide, place in (("platypus revenue", visual_slides[0], "a picture on this slide"),
                                ("armadillo", visual_slides[1], "a SmartArt diagram on this slide"),
                                ("wombat segment", visual_slides[2], "a chart on this slide")):
        top = engine.search_v2(query).cards()[0]
        assert top.id == slide.slide_id, query
        why = engine.explain(query, [slide.slide_id])[0].explanation
        assert f"Found in {place}" in why, why


def test_the_fields_survive_the_store_and_a_saved_index(visual_slides, tmp_path):
    library = Library.from_slides(visual_slides, embedder="fast")
    library.save(tmp_path / "index")
    opened = Library.open(tmp_path / "index")
    assert opened.slide(1).smartart_text == visual_slides[1].smartart_text
    assert opened.previews == library.previews and opened.source_formats == ["pptx"] * 4


def test_an_ingested_store_keeps_the_fields(tmp_path, monkeypatch):
    monkeypatch.setenv("SEEK_OCR", "on")
    write_visual_deck(tmp_path / "decks" / "Visual.pptx")
    store = Store(tmp_path / "library.db")
    try:
        assert ingest_path(tmp_path / "decks", store).files_ingested == 1
        slides = list(store.iter_slides())
    finally:
        store.close()
    assert "pangolin" in slides[1].smartart_text and slides[2].chart_text


def test_structural_diagram_points_are_not_text():
    assert diagram_data_texts(_diagram_data(("One", "Two"))) == ["One", "Two"]


def test_ocr_keeps_only_confident_words():
    header = "\t".join(["level", "page", "block", "par", "line", "word", "l", "t", "w", "h", "conf", "text"])
    rows = [header, "5\t1\t1\t1\t1\t1\t0\t0\t9\t9\t96.0\tRevenue", "5\t1\t1\t1\t1\t2\t0\t0\t9\t9\t20.0\tx~q",
            "5\t1\t1\t1\t2\t1\t0\t0\t9\t9\t91.5\tgrowth"]
    assert words_from_tsv("\n".join(rows)) == "Revenue\ngrowth"


def test_title_detection_prefers_size_then_position_and_skips_numbers():
    boxes = [TextBox("Body text", top=0.1, font_pt=14), TextBox("12", top=0.05, font_pt=40),
             TextBox("Heading", top=0.5, font_pt=28)]
    assert detect_title(boxes) == "Heading"
    assert detect_title([TextBox("Lower", top=0.6), TextBox("Upper", top=0.2)]) == "Upper"
    assert detect_title([TextBox("Footer", top=0.95, font_pt=50)]) == ""


def test_an_index_written_before_the_fields_opens_with_them_empty(visual_slides, tmp_path):
    Library.from_slides(visual_slides, embedder="fast").save(tmp_path / "index")
    for column in (tmp_path / "index" / "columns").glob("*"):
        if column.name.startswith(("field_", "source_formats")):
            column.unlink()
    opened = Library.open(tmp_path / "index")
    assert opened.slide(1).smartart_text == "" and opened.source_formats == [""] * 4
    assert opened.slide(1).title == visual_slides[1].title


def test_a_store_written_before_the_fields_gains_them_empty(tmp_path):
    import sqlite_utils

    old = sqlite_utils.Database(tmp_path / "library.db")
    old["slides"].insert({"slide_id": "s1", "deck_id": "d", "deck_name": "", "folder": "/", "slide_number": 1,
                          "title": "t", "text": "x", "content_type": "content", "universe": "U", "deck_date": None,
                          "source_path": None, "source_key": "k"}, pk="slide_id")
    old.conn.close()
    store = Store(tmp_path / "library.db")
    try:
        (slide,) = store.iter_slides()
    finally:
        store.close()
    assert slide.title == "t" and slide.notes == "" and slide.source_format == ""


def test_ocr_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("SEEK_OCR", "off")
    _, slides = read_pptx(write_visual_deck(tmp_path / "Visual.pptx"), tmp_path)
    assert slides[0].picture_text == "" and slides[1].smartart_text  # the other fields are still read


def _ingest_one(prs, tmp_path, name: str) -> dict:
    """``prs`` saved as ``decks/<name>`` and ingested through the real path: its slides by title."""
    (tmp_path / "decks").mkdir()
    prs.save(str(tmp_path / "decks" / name))
    store = Store(tmp_path / "library.db")
    try:
        assert ingest_path(tmp_path / "decks", store).files_ingested == 1
        return {s.title: s for s in store.iter_slides()}
    finally:
        store.close()


PICTURED_CHART = ("Top five states by penetration rate\nGoa Kerala Karnataka Maharashtra Delhi\n"
                  "Bottom five states by penetration rate\nBihar Assam Jharkhand Punjab Odisha\n"
                  "Electric two wheeler sales growth by region")


def test_a_chart_pasted_as_a_picture_is_filed_by_what_it_shows_not_under_other(tmp_path, monkeypatch):
    """Real decks paste charts and tables as pictures under a short title (#17: "slides filed by shape"):
    ingest types such a slide "image", which once filed it under Other, a section a topical brief never
    searches. OCR reads the picture's words; a picture showing 20 or more is filed by them."""
    require_tool("tesseract", package="tesseract-ocr")
    monkeypatch.setenv("SEEK_OCR", "on")
    prs = Presentation()
    cover = prs.slides.add_slide(prs.slide_layouts[0])
    cover.shapes.title.text = "Quarterly market review"
    for title, words in (("EV adoption", PICTURED_CHART), ("Our offsite", "TEAM OFFSITE")):
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = title
        picture = text_picture(tmp_path / f"{title}.png", words, size=60)
        slide.shapes.add_picture(str(picture), Inches(0.5), Inches(1.8), Inches(9))
    slides = _ingest_one(prs, tmp_path, "Market review.pptx")
    chart, photo = slides["EV adoption"], slides["Our offsite"]
    assert chart.content_type == photo.content_type == "image"
    assert "penetration" in chart.picture_text.lower()
    assert chart.section == "Capabilities & Overview" and photo.section == "Other"
    library = Library.from_slides(list(slides.values()), embedder="fast")
    assert library.section_of(library.id_to_row[chart.slide_id]) == "Capabilities & Overview"
    shown = [c.id for c in SlideSearch(library).search_v2("penetration rate by state").cards()]
    assert chart.slide_id in shown


def test_slide_numbers_dates_footers_and_headers_are_not_the_slides_text(tmp_path):
    # realdecks: Google Slides exports keep "‹#›" in every slide-number placeholder, and footers repeat on every
    # slide ("Application iOS de solution de point de vente pour la restauration" on 17 of one deck's slides).
    from pptx.enum.shapes import PP_PLACEHOLDER

    chrome = {PP_PLACEHOLDER.SLIDE_NUMBER: "‹#›", PP_PLACEHOLDER.DATE: "25.02.2015",
              PP_PLACEHOLDER.FOOTER: "BDM Capstone Project"}
    prs = Presentation()
    layout = prs.slide_layouts[1]
    for title, body in (("Market competition", "Rama Traders holds a third of the market"),
                        ("Supply chain", "Lead times fell from nine days to four")):
        slide = prs.slides.add_slide(layout)
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = body
        for placeholder in layout.placeholders:
            if placeholder.placeholder_format.type in chrome:
                slide.shapes.clone_placeholder(placeholder)
        for shape in slide.placeholders:
            if shape.placeholder_format.type in chrome:
                shape.text_frame.text = chrome[shape.placeholder_format.type]
    path = tmp_path / "Capstone.pptx"
    prs.save(str(path))
    _, slides = read_pptx(path, tmp_path, ocr=False)
    assert [s.title for s in slides] == ["Market competition", "Supply chain"]
    assert slides[0].text == "Rama Traders holds a third of the market"
    assert not any(word in s.text for s in slides for word in ("‹#›", "2015", "BDM"))


def test_a_chart_pasted_under_a_title_saying_what_it_shows_is_an_answer_not_a_divider(tmp_path, monkeypatch):
    # realdecks "Polymarket trading bot" showed one card: the deck's results were screenshots pasted under titles
    # such as "Results – Script #2: Trade Execution Bot", read as section dividers and cut as low-content slides.
    require_tool("tesseract", package="tesseract-ocr")
    monkeypatch.setenv("SEEK_OCR", "on")
    prs = Presentation()
    cover = prs.slides.add_slide(prs.slide_layouts[0])
    cover.shapes.title.text = "Churn model review"
    for title, body in (("Business problem", "Prepaid customers leave after their first recharge"),
                        ("Data sources", "Recharge history, call records and complaints for two years")):
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = body
    for title, words in (("Cutoff on train data for logistic regression", "SENSITIVITY SPECIFICITY CUTOFF 0.42"),
                         ("Our approach", "")):
        slide = prs.slides.add_slide(prs.slide_layouts[5])
        slide.shapes.title.text = title
        image = str(text_picture(tmp_path / "chart.png", words, size=60)) if words else io.BytesIO(plain_png((40, 90, 160)))
        slide.shapes.add_picture(image, Inches(0.5), Inches(1.8), Inches(9))
    slides = _ingest_one(prs, tmp_path, "Churn review.pptx")
    chart, divider = slides["Cutoff on train data for logistic regression"], slides["Our approach"]
    assert chart.content_type == divider.content_type == "image" and "specificity" in chart.picture_text.lower()
    engine = SlideSearch(Library.from_slides(list(slides.values()), embedder="fast"), llm="offline")
    row = engine.library.ids.index
    assert (engine.view.roles[row(chart.slide_id)], engine.view.roles[row(divider.slide_id)]) == ("", "divider")
    cards = sorted(engine.search_v2("logistic regression cutoff").cards(), key=lambda c: -c.score)
    assert cards and cards[0].id == chart.slide_id
    assert cards[0].factors.type == 1.0  # not cut as a low-content slide


def test_the_title_is_the_placeholder_typed_title_not_a_subtitle_without_an_index(tmp_path):
    # realdecks Modelo-de-Churn slide 7: a subtitle placeholder that states no index (so index 0, python-pptx's rule
    # for the title) sits before the title placeholder; its 600-character body was read as the title.
    from pptx.enum.shapes import PP_PLACEHOLDER

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[0])
    slide.shapes.title.text = "Columnas eliminadas"
    subtitle = next(s for s in slide.placeholders if s.placeholder_format.type == PP_PLACEHOLDER.SUBTITLE)
    subtitle.text_frame.text = "Se tomo la decision de eliminar estas columnas por los siguientes motivos"
    ph = subtitle._element.xpath("./*[1]/p:nvPr/p:ph")[0]
    ph.attrib.pop("idx", None)
    tree = subtitle._element.getparent()
    tree.remove(subtitle._element)
    tree.insert(2, subtitle._element)  # after the group properties, before the title
    assert slide.shapes.title.placeholder_format.type == PP_PLACEHOLDER.SUBTITLE  # the quirk this guards against
    path = tmp_path / "presentacion.pptx"
    prs.save(str(path))
    _, slides = read_pptx(path, tmp_path, ocr=False)
    assert slides[0].title == "Columnas eliminadas"
    assert "eliminar estas columnas" in slides[0].text and "Columnas eliminadas" not in slides[0].text
