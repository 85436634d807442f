"""Everything readable on one python-pptx slide, each kind of text kept apart.

Typed text (text frames and table cells, into groups) is the slide's body; speaker notes,
SmartArt, chart words and text read from pictures are their own fields. The title is the
title placeholder's text, else the heading ``titles.detect_title`` picks from the text
boxes, else the first line of the body. The layout kind says what the deck's author made the
slide as: a title slide (a centred-title or subtitle placeholder) or a section header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from slidesearch.extract.charts import chart_texts
from slidesearch.extract.ocr import ocr_image
from slidesearch.extract.smartart import smartart_texts
from slidesearch.extract.titles import MAX_TITLE_CHARS, TextBox, detect_title


@dataclass
class SlideTexts:
    """The texts of one slide by where they were found, and the shape counts the content-type classifier reads."""

    title: str = ""
    body: list[str] = field(default_factory=list)
    notes: str = ""
    smartart: list[str] = field(default_factory=list)
    charts: list[str] = field(default_factory=list)
    pictures: list[str] = field(default_factory=list)
    boxes: list[TextBox] = field(default_factory=list)
    n_tables: int = 0
    n_charts: int = 0
    n_pictures: int = 0
    n_text_boxes: int = 0
    table_chars: int = 0
    layout: str = ""
    """``TITLE_LAYOUT``, ``SECTION_LAYOUT`` or "" (any other layout): see ``layout_kind``."""


TITLE_LAYOUT, SECTION_LAYOUT = "title", "section"
_SECTION_LAYOUT_NAME = re.compile(r"section|divider|sectie|abschnitt|secci[oó]n|se[cç][aã]o|chapitre", re.IGNORECASE)


def _placeholder_type(shape: Any) -> Any | None:
    """The shape's placeholder type (``PP_PLACEHOLDER``), or None for a shape that is no placeholder or one whose
    type python-pptx does not know."""
    try:
        return shape.placeholder_format.type
    except ValueError:
        return None


def layout_kind(page: Any) -> str:
    """What the slide's layout makes it: ``TITLE_LAYOUT``, ``SECTION_LAYOUT`` or "".

    A layout whose name says section ("Section Header", "SECTION_TITLE_AND_DESCRIPTION") is a
    section header; otherwise one with a centred-title or a subtitle placeholder is a title
    slide ("Title Slide", "Diapositive de titre": the placeholder types hold in every language).
    """
    from pptx.enum.shapes import PP_PLACEHOLDER

    layout = page.slide_layout
    if _SECTION_LAYOUT_NAME.search(layout.name or ""):
        return SECTION_LAYOUT
    types = {_placeholder_type(placeholder) for placeholder in page.placeholders}
    if types & {PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.SUBTITLE}:
        return TITLE_LAYOUT
    return ""


def _largest_font_pt(frame: Any) -> float | None:
    sizes = [run.font.size.pt for p in frame.paragraphs for run in p.runs if run.font.size is not None]
    return max(sizes) if sizes else None


def _picture_blob(shape: Any) -> bytes | None:
    try:
        return shape.image.blob
    except (AttributeError, KeyError, ValueError):  # a linked (not embedded) picture has no bytes
        return None


def _is_chrome(shape: Any) -> bool:
    """A slide-number, date, footer or header placeholder: the deck's furniture, repeated on every slide ("‹#›",
    "25.02.2015", "BDM Capstone Project"), not what the slide says."""
    from pptx.enum.shapes import PP_PLACEHOLDER

    if not getattr(shape, "is_placeholder", False):
        return False
    return _placeholder_type(shape) in (PP_PLACEHOLDER.SLIDE_NUMBER, PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER,
                                        PP_PLACEHOLDER.HEADER)


def _walk(shapes: Any, out: SlideTexts, title_id: int | None, size: tuple[int, int], ocr: bool) -> None:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    width, height = size
    for shape in shapes:
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            _walk(shape.shapes, out, title_id, size, ocr)
            continue
        if getattr(shape, "has_table", False) and shape.has_table:
            out.n_tables += 1
            rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in shape.table.rows]
            table_text = "\n".join(r for r in rows if r.strip(" |"))
            out.table_chars += len(table_text)
            out.body.append(table_text)
            continue
        if getattr(shape, "has_chart", False) and shape.has_chart:
            out.n_charts += 1
            out.charts.extend(chart_texts(shape.chart))
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.PICTURE or hasattr(shape, "image"):
            out.n_pictures += 1
            blob = _picture_blob(shape) if ocr else None
            text = ocr_image(blob) if blob else ""
            if text:
                out.pictures.append(text)
        if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            if title_id is not None and shape.shape_id == title_id:
                continue
            if _is_chrome(shape):
                continue
            text = shape.text_frame.text.strip()
            if text:
                out.n_text_boxes += 1
                out.body.append(text)
                out.boxes.append(TextBox(
                    text=text,
                    top=(shape.top or 0) / height if height else 0.0,
                    left=(shape.left or 0) / width if width else 0.0,
                    font_pt=_largest_font_pt(shape.text_frame),
                ))


def title_placeholder(page: Any) -> Any | None:
    """The slide's title placeholder: the first placeholder typed title / centred title / vertical title.

    python-pptx's ``shapes.title`` is the first placeholder with index 0, and a placeholder that states no index
    has index 0: a subtitle placeholder written before the title (realdecks' Modelo-de-Churn, slide 7, a body of
    600 characters in "Subtítulo 2" above "Título 3": "Columnas eliminadas") was read as the slide's title and the
    title as its body. That rule still answers when no placeholder states a title type, unless it finds a subtitle.
    """
    from pptx.enum.shapes import PP_PLACEHOLDER

    titled = (PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE, PP_PLACEHOLDER.VERTICAL_TITLE)
    for placeholder in page.placeholders:
        if _placeholder_type(placeholder) in titled:
            return placeholder
    shape = page.shapes.title
    return None if shape is not None and _placeholder_type(shape) == PP_PLACEHOLDER.SUBTITLE else shape


def read_slide(page: Any, size: tuple[int, int], ocr: bool = True) -> SlideTexts:
    """The texts of one slide (``size``: the deck's slide width and height in EMU; ``ocr``: read pictures)."""
    title_shape = title_placeholder(page)
    out = SlideTexts(layout=layout_kind(page))
    if title_shape is not None and title_shape.has_text_frame:
        out.title = title_shape.text_frame.text.strip()
    _walk(page.shapes, out, title_shape.shape_id if title_shape is not None else None, size, ocr)
    out.smartart = smartart_texts(page)
    if page.has_notes_slide:
        notes = page.notes_slide.notes_text_frame
        out.notes = notes.text.strip() if notes is not None else ""
    if not out.title:
        out.title = detect_title(out.boxes)
    if not out.title:
        fallback = "\n".join(out.body) or "\n".join(out.smartart) or (out.charts[0] if out.charts else "")
        out.title = fallback.strip().splitlines()[0][:MAX_TITLE_CHARS] if fallback.strip() else ""
    return out
