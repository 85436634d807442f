"""PDF decks: one slide per page, text by pypdf, each page's title its largest line of text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from slidesearch.extract.ocr import ocr_image
from slidesearch.extract.titles import TextBox, detect_title


@dataclass(frozen=True)
class PdfPage:
    """One page's text and the title read from it."""

    number: int
    title: str
    text: str
    pictures: tuple[str, ...] = ()


def _page_boxes(page: Any) -> list[TextBox]:
    """The page's text runs with their height on the page (0 top) and effective font size."""
    height = float(page.mediabox.height) or 1.0
    width = float(page.mediabox.width) or 1.0
    boxes: list[TextBox] = []

    def visit(text: str, cm: Any, tm: Any, font: Any, size: float) -> None:  # noqa: ARG001 - pypdf's signature
        if text.strip():
            scale = abs(tm[3] * cm[3]) or 1.0
            y, x = tm[5] * cm[3] + cm[5], tm[4] * cm[0] + cm[4]
            boxes.append(TextBox(text=text.strip(), top=1.0 - y / height, left=x / width, font_pt=size * scale))

    page.extract_text(visitor_text=visit)
    return _merge_wrapped(boxes)


def _merge_wrapped(boxes: list[TextBox]) -> list[TextBox]:
    """Consecutive runs of one font size on neighbouring lines as one box (a heading wrapped over two lines)."""
    merged: list[TextBox] = []
    for box in boxes:
        last = merged[-1] if merged else None
        if (last is not None and last.font_pt and box.font_pt and abs(last.font_pt - box.font_pt) < 0.5
                and 0 <= box.top - last.top < 0.12):
            merged[-1] = TextBox(text=f"{last.text} {box.text}", top=last.top, left=last.left, font_pt=last.font_pt)
        else:
            merged.append(box)
    return merged


def page_image_texts(page: Any) -> list[str]:
    """OCR of each picture drawn on a page (images pypdf cannot decode are skipped).

    A page lists every image of its resource dictionary, which exporters share between
    pages; only those the page's content stream draws (``/Name Do``) are its own.
    """
    texts = []
    try:
        contents = page.get_contents()
        drawn = re.findall(rb"/([^\s/]+)\s+Do\b", contents.get_data()) if contents is not None else []
        names = {name.decode(errors="replace") for name in drawn}
        images = [image for image in page.images if Path(image.name).stem in names]
    except Exception:  # noqa: BLE001 - pypdf raises many kinds for filters it does not support
        return []
    for image in images:
        text = ocr_image(image.data)
        if text:
            texts.append(text)
    return texts


def read_pdf_pages(path: Path, ocr: bool = True) -> list[PdfPage]:
    """Every page of the PDF with its text (pypdf's extraction), detected title and (``ocr``) pictures' text."""
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    pages: list[PdfPage] = []
    for number, page in enumerate(reader.pages, start=1):
        text = (page.extract_text() or "").strip()
        pictures = tuple(page_image_texts(page)) if ocr else ()
        pages.append(PdfPage(number=number, title=detect_title(_page_boxes(page)), text=text, pictures=pictures))
    return pages
