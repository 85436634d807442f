"""The search page in a real browser: Debian's chromium, headless, driven over the DevTools protocol.

The API runs under uvicorn on a free loopback port; chromium loads the page,
runs a search, clicks "Why this?", adds two cards to the deck and downloads it.
Chromium missing is a skip saying how to install it, and a failure under CI, whose .ci/run installs it.
"""

import base64
import itertools
import json
import subprocess
import time

import httpx
import pytest
import serve_corpus
from pptx import Presentation
from system_tools import require_tool
from websockets.sync.client import connect

from slidesearch.engine import SlideSearch
from slidesearch.serve.http_api import create_app, serve_in_thread
from slidesearch.serve.service import SlideService
from slidesearch.serve.usage_log import UsageLog

pytestmark = pytest.mark.integration

CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--window-size=1280,1100", "--remote-debugging-port=0"]
QUERY = "customer analytics"
CTRL = 2  # the DevTools protocol's modifier bit for Control
#: A two-angle brief whose second angle the library never uses (coverage note) and that finds a verified row.
BRIEF = ["fraud detection", "zebrafish"]


def _chromium() -> str:
    return require_tool("chromium", "chromium-browser", package="chromium chromium-driver")


def _wait(check, what: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.1)


class DevTools:
    """A minimal Chrome DevTools Protocol client over one websocket: commands in, results out, events ignored."""

    def __init__(self, websocket) -> None:
        self._ws = websocket
        self._ids = itertools.count(1)

    def send(self, method: str, **params):
        message_id = next(self._ids)
        self._ws.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.recv(timeout=60))
            if message.get("id") == message_id:
                if "error" in message:
                    raise AssertionError(f"{method} failed: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click at the centre of the element, after scrolling it into view."""
        box = self.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
            " if (!el) return null; el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect();"
            " return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()")
        assert box is not None, f"no element matches {selector}"
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=box["x"], y=box["y"], button="left", clickCount=1)


@pytest.fixture()
def browser(tmp_path):
    profile = tmp_path / "chromium-profile"
    process = subprocess.Popen([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        active = profile / "DevToolsActivePort"
        _wait(lambda: active.exists() and len(active.read_text().split()) == 2, "chromium's DevTools port")
        port, browser_path = active.read_text().split()
        pages = _wait(lambda: [t for t in httpx.get(f"http://127.0.0.1:{port}/json/list").json()
                               if t["type"] == "page"], "a page target")
        with connect(f"ws://127.0.0.1:{port}{browser_path}", max_size=2**26, open_timeout=30) as browser_ws, \
                connect(pages[0]["webSocketDebuggerUrl"], max_size=2**26, open_timeout=30) as page_ws:
            yield DevTools(browser_ws), DevTools(page_ws)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def test_search_explain_and_download_a_deck_in_chromium(browser, tmp_path):
    browser_session, page = browser
    engine = SlideSearch(serve_corpus.build_library())
    log = UsageLog(tmp_path / "library.db")
    service = SlideService(engine, usage_log=log)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    browser_session.send("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(downloads))

    with serve_in_thread(create_app(service)) as base:
        page.send("Page.enable")
        page.send("Page.navigate", url=f"{base}/")
        _wait(lambda: page.evaluate("document.readyState === 'complete' && !!document.getElementById('query')"),
              "the page to load")

        page.click("#query")
        page.send("Input.insertText", text=QUERY)
        page.click("#search")
        _wait(lambda: page.evaluate("document.querySelectorAll('article.card').length"), "result cards")

        expected = engine.search_v2(QUERY)
        sections = page.evaluate("Array.from(document.querySelectorAll('section.group')).map(s => s.dataset.section)")
        assert sections == [name for name, cards in expected.groups.items() if cards]
        ids = page.evaluate("Array.from(document.querySelectorAll('article.card')).map(c => c.dataset.id)")
        assert ids == [card.id for card in expected.cards()]
        first = expected.cards()[0]
        first_card = page.evaluate(
            "(() => { const c = document.querySelector('article.card'); return {title: c.querySelector('h3').textContent,"
            " deck: c.querySelector('.deck').textContent, preview: c.querySelector('.preview').textContent,"
            " score: c.querySelector('.score').textContent}; })()")
        assert first_card["title"] == first.title and first.deck_name in first_card["deck"]
        assert first_card["preview"] == first.preview and first_card["score"] == f"score {first.score:.3f}"

        page.click(f"article.card[data-id='{ids[1]}'] button.why")
        _wait(lambda: page.evaluate("Array.from(document.querySelectorAll('.explanation')).every(e => !e.hidden)"),
              "explanations on every card")
        shown = page.evaluate(
            "Object.fromEntries(Array.from(document.querySelectorAll('article.card'))"
            ".map(c => [c.dataset.id, c.querySelector('.explanation').textContent]))")
        explanations = {e.slide_id: e.explanation for e in engine.explain(QUERY, ids)}
        assert shown == explanations
        page.click(f"article.card[data-id='{ids[0]}'] button.why")
        assert service.stats()["served"]["explain"] == 1

        picked = ids[:2]
        for slide_id in picked:
            page.click(f"article.card[data-id='{slide_id}'] button.add")
        assert page.evaluate("document.getElementById('deck-count').textContent") == "Deck: 2 slides"
        page.click("#download")
        deck = _wait(lambda: next((p for p in downloads.iterdir() if p.suffix == ".pptx"), None), "the downloaded deck")

        page.evaluate("document.getElementById('query').value = ''")
        page.click("#query")
        page.send("Input.insertText", text="\n".join(BRIEF))
        for kind in ("rawKeyDown", "keyUp"):  # Ctrl+Enter searches from the text box
            page.send("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", modifiers=CTRL,
                      windowsVirtualKeyCode=13)
        brief = engine.search_v2(BRIEF)
        assert brief.coverage_note and any(card.verified for card in brief.cards())
        _wait(lambda: page.evaluate("!document.getElementById('coverage').hidden"), "the coverage note")
        assert page.evaluate("document.getElementById('coverage').textContent") == brief.coverage_note
        verified = [card.id for card in brief.cards() if card.verified]
        badges = page.evaluate(
            "Array.from(document.querySelectorAll('article.card')).filter(c => c.querySelector('.badge'))"
            ".map(c => [c.dataset.id, !!c.querySelector('button.add')])")
        assert badges == [[card_id, True] for card_id in verified]
        assert page.evaluate("document.getElementById('deck-count').textContent") == "Deck: 2 slides"

        shot = page.send("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        (tmp_path / "page.png").write_bytes(base64.b64decode(shot["data"]))

    prs = Presentation(str(deck))
    titles = [s.shapes.title.text for s in prs.slides]
    by_id = {card.id: card.title for card in expected.cards()}
    assert titles == [by_id[picked[0]], by_id[picked[1]], "Sources"]
    assert prs.core_properties.subject == QUERY
    first_search, brief_search = log.records()
    assert (first_search.channel, first_search.query, first_search.explained_ids) == ("page", QUERY, ids)
    assert brief_search.query == BRIEF and first_search.session_id == brief_search.session_id
    assert (tmp_path / "page.png").stat().st_size > 10_000


def test_the_address_holds_the_search_so_it_can_be_linked_and_gone_back_to(browser):
    _, page = browser
    engine = SlideSearch(serve_corpus.build_library())
    service = SlideService(engine)

    def card_ids():
        return page.evaluate("Array.from(document.querySelectorAll('article.card')).map(c => c.dataset.id)")

    with serve_in_thread(create_app(service)) as base:
        page.send("Page.enable")
        page.send("Page.navigate", url=f"{base}/?q=customer+analytics&universes=S%26R")
        scoped = [card.id for card in engine.search_v2(QUERY, ["S&R"]).cards()]
        _wait(lambda: card_ids() == scoped, "the search named in the address")
        assert page.evaluate("document.getElementById('query').value") == QUERY
        assert page.evaluate("document.getElementById('universes').value") == "S&R"
        placeholder = _wait(lambda: page.evaluate(
            "(p => p.startsWith('all, or e.g.') && p)(document.getElementById('universes').placeholder)"),
            "the placeholder naming the library's universes")
        assert placeholder == "all, or e.g. DAAIS, EdTech, S&R"

        page.evaluate("document.getElementById('query').value = ''; document.getElementById('universes').value = ''")
        page.click("#query")
        page.send("Input.insertText", text="\n".join(BRIEF))
        page.click("#search")
        brief = [card.id for card in engine.search_v2(BRIEF).cards()]
        _wait(lambda: card_ids() == brief, "the brief's cards")
        assert page.evaluate("location.search") == "?q=fraud+detection&q=zebrafish"

        page.evaluate("history.back()")
        _wait(lambda: card_ids() == scoped, "the earlier search again after going back")
        assert page.evaluate("document.getElementById('query').value") == QUERY
