"""Thumbnails and other formats on a library of real decks the test writes: a .pptx, and a PDF and a .ppt
LibreOffice makes from it. Every slide gets a picture; rendering is once per deck hash; HTTP serves the
pictures under the token and scope; the page shows them on the cards in chromium (screenshot kept).
"""

import base64
import json
import time

import httpx
import pytest
from system_tools import require_tool

from slidesearch.engine import SlideSearch
from slidesearch.extract.convert import convert
from slidesearch.ingest import ingest_path
from slidesearch.library import Library
from slidesearch.serve.http_api import create_app, serve_in_thread
from slidesearch.serve.service import SlideService
from slidesearch.store import Store
from slidesearch.thumbnails import ThumbnailStore, library_deck_paths, render_decks
from tests.slidesearch.test_browser import _wait, browser  # noqa: F401 - browser is a fixture
from tests.visual_decks import write_visual_deck

pytestmark = pytest.mark.integration
TOKEN = "s3cret"


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    for tool, package in (("soffice", "libreoffice-impress-nogui"), ("pdftoppm", "poppler-utils"),
                          ("tesseract", "tesseract-ocr")):
        require_tool(tool, package=package)
    root = tmp_path_factory.mktemp("visual-library")
    folder = root / "decks" / "Sales"
    pptx = write_visual_deck(folder / "Visual.pptx")
    convert(pptx, "pdf", folder)
    convert(pptx, "ppt", folder)
    store = Store(root / "library.db")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SEEK_OCR", "on")
        report = ingest_path(root / "decks", store)
    slides = list(store.iter_slides())
    paths = library_deck_paths(store)
    store.close()
    thumbs = ThumbnailStore(root / "thumbnails")
    rendered = render_decks(paths, thumbs, workers=2)
    return {"root": root, "report": report, "slides": slides, "paths": paths, "thumbs": thumbs, "rendered": rendered}


def test_every_format_is_ingested_with_its_format_on_the_slide(decks):
    assert decks["report"].files_ingested == 3 and not decks["report"].failures
    by_format = {}
    for s in decks["slides"]:
        by_format.setdefault(s.source_format, []).append(s)
    assert {k: len(v) for k, v in by_format.items()} == {"pptx": 4, "pdf": 4, "ppt": 4}


def test_every_slide_gets_a_thumbnail(decks):
    assert decks["rendered"].decks_rendered == 3 and decks["rendered"].thumbnails_written == 12
    for s in decks["slides"]:
        assert decks["thumbs"].thumbnail(s.source_path, s.slide_number) is not None, s.slide_id


def test_picture_chart_and_smartart_text_is_found_in_each_format(decks):
    for fmt in ("pptx", "pdf", "ppt"):  # one library per format: the engine folds copies of one deck into one
        slides = [s for s in decks["slides"] if s.source_format == fmt]
        top = SlideSearch(Library.from_slides(slides, embedder="fast")).search_v2("platypus revenue").cards()[0]
        assert top.id == slides[0].slide_id and top.source_format == fmt  # OCR of the picture in all three
    chart_hits = [s.source_format for s in decks["slides"] if "Wombat segment" in s.chart_text]
    assert sorted(chart_hits) == ["ppt", "pptx"]  # the PDF has the chart's words as page text instead
    assert any("Churn by region" in s.text for s in decks["slides"] if s.source_format == "pdf")
    # The hand-built SmartArt has no drawing part, so LibreOffice does not carry it into the PDF or .ppt.
    assert [s.source_format for s in decks["slides"] if "armadillo" in s.smartart_text] == ["pptx"]


def test_an_unchanged_deck_is_not_rendered_again_and_a_changed_one_is(decks, tmp_path):
    again = render_decks(decks["paths"], decks["thumbs"], workers=2)
    assert (again.decks_seen, again.decks_unchanged, again.decks_rendered) == (3, 3, 0)
    changed = tmp_path / "Changed.pptx"
    write_visual_deck(changed)  # new bytes (a new creation time) at a new path
    once = render_decks([changed], decks["thumbs"])
    assert once.decks_rendered == 1 and render_decks([changed], decks["thumbs"]).decks_rendered == 0


def test_a_deck_that_fails_to_render_is_reported_and_keeps_its_text(decks, tmp_path):
    broken = tmp_path / "Broken.odp"
    broken.write_bytes(b"not an OpenDocument file")
    report = render_decks([broken, decks["paths"][0]], ThumbnailStore(tmp_path / "t"), timeout=60)
    assert [f.path for f in report.failures] == [str(broken)] and report.decks_rendered == 1
    slow = render_decks([decks["paths"][1]], ThumbnailStore(tmp_path / "slow"), timeout=0.05)
    assert slow.failures and "longer than" in slow.failures[0].error or "too long" in slow.failures[0].error
    assert any(s.source_path == str(decks["paths"][1]) for s in decks["slides"])  # the text cards stay


@pytest.fixture(scope="module")
def server(decks):
    library = Library.from_slides(decks["slides"], embedder="fast")
    service = SlideService(SlideSearch(library), thumbnails=decks["thumbs"], scope=["Sales"])
    with serve_in_thread(create_app(service, api_token=TOKEN)) as url:
        yield url


def test_http_serves_thumbnails_under_the_token_and_scope(server, decks):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    response = httpx.post(f"{server}/search", json={"query": "platypus revenue"}, headers=auth).json()
    card = next(c for sec in response["groups"].values() for c in sec)
    assert card["thumbnail"] == f"/slides/{card['id']}/thumbnail.png"
    small = httpx.get(server + card["thumbnail"], headers=auth)
    assert small.status_code == 200 and small.content.startswith(b"\x89PNG")
    large = httpx.get(server + card["thumbnail"], params={"size": "large"}, headers=auth)
    assert large.status_code == 200 and len(large.content) > len(small.content)
    assert httpx.get(server + card["thumbnail"]).status_code == 401
    assert httpx.get(f"{server}/slides/nope/thumbnail.png", headers=auth).status_code == 400


def test_the_page_shows_thumbnails_on_the_cards_in_chromium(server, browser, tmp_path):  # noqa: F811
    _, page = browser
    page.send("Page.enable")
    page.send("Page.navigate", url=f"{server}/")
    _wait(lambda: page.evaluate("document.readyState") == "complete", "the page to load")
    page.evaluate(f"sessionStorage.setItem('seek-token', {json.dumps(TOKEN)})")
    page.evaluate("document.querySelector('#query').value = 'platypus revenue chart'")
    page.evaluate("document.querySelector('form').requestSubmit()")
    _wait(lambda: page.evaluate("document.querySelectorAll('.card').length") > 0, "cards")
    loaded = _wait(lambda: page.evaluate(
        "Array.from(document.querySelectorAll('.card img.thumb')).filter(i => i.naturalWidth > 0).length"),
        "thumbnails to load")
    cards = page.evaluate("document.querySelectorAll('.card').length")
    assert loaded >= 1 and page.evaluate("document.querySelectorAll('.card img.thumb').length") == cards
    shot = tmp_path / "cards-with-thumbnails.png"
    shot.write_bytes(base64.b64decode(page.send("Page.captureScreenshot", format="png")["data"]))
    print(f"screenshot of the cards with thumbnails: {shot}")
    page.evaluate("document.querySelector('.card img.thumb').click()")
    time.sleep(0.2)
    _wait(lambda: page.evaluate("(document.querySelector('dialog.slide-view img.large') || {}).naturalWidth || 0"),
          "the large view")
    assert page.evaluate("document.querySelector('dialog.slide-view .passage').textContent.length") > 0
