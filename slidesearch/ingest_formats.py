"""Decks that are not .pptx: PDF exports (one slide per page) and .ppt / .odp / .key converted by LibreOffice.

A PDF page's text comes from pypdf; a page with no text at all (a scanned or image-only
export) is rendered by poppler's ``pdftoppm`` and read by OCR into ``picture_text``. Legacy
and foreign formats are converted to .pptx by LibreOffice and read as any .pptx, keeping
the original file's name, path and format on every slide. Both go through the same
incremental ingest as a .pptx (keyed by the original file's sha256).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from slidesearch.content_type import SlideShape, classify_content_type
from slidesearch.extract.convert import ConversionError, convert
from slidesearch.extract.ocr import ocr_image
from slidesearch.extract.pdf import read_pdf_pages
from slidesearch.model import Deck, Slide, deck_id_for, normalise_folder, universe_for

#: Suffixes LibreOffice converts to .pptx for ingest.
CONVERTED_SUFFIXES = (".ppt", ".pps", ".odp", ".key")
PDF_SUFFIX = ".pdf"


#: Reads a .pptx as ``slidesearch.ingest.read_pptx`` does (passed in: ingest builds on this module).
PptxReader = Callable[[Path, Path, "str | None"], tuple[Deck, list[Slide]]]


class FormatError(ValueError):
    """A PDF or converted deck that cannot be read (the ingest reports it and goes on)."""


def _page_image_text(path: Path, number: int) -> str:
    """OCR of one rendered PDF page ("" without pdftoppm or tesseract)."""
    exe = shutil.which("pdftoppm")
    if exe is None:
        return ""
    done = subprocess.run([exe, "-r", "100", "-png", "-f", str(number), "-l", str(number), "-singlefile",
                           str(path), "-"], capture_output=True, timeout=60, check=False)
    return ocr_image(done.stdout) if done.returncode == 0 and done.stdout else ""


def read_pdf(path: Path, root: Path, universe: str | None = None, ocr: bool = True) -> tuple[Deck, list[Slide]]:
    """One PDF deck: a slide per page (title: the page's largest line), image-only pages read by OCR."""
    try:
        pages = read_pdf_pages(path, ocr=ocr)
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds for damaged or encrypted files
        raise FormatError(f"corrupt, encrypted or unreadable PDF ({type(exc).__name__}: {exc})") from exc
    rel = path.relative_to(root) if path != root else Path(path.name)
    folder = normalise_folder(str(rel.parent))
    deck_id, uni = deck_id_for(rel), universe_for(folder, universe)
    deck_date = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).date()
    slides = []
    for page in pages:
        pictures = [*page.pictures] or ([_page_image_text(path, page.number)] if ocr and not page.text else [])
        picture = "\n".join(t for t in pictures if t)
        title = page.title or (page.text.splitlines()[0][:120] if page.text else "")
        slides.append(Slide(
            slide_id=f"{deck_id}_Slide_{page.number}", deck_id=deck_id, deck_name=path.name, folder=folder,
            slide_number=page.number, title=title, text=page.text,
            content_type=classify_content_type(SlideShape(title=title, text=page.text or picture)),
            universe=uni, deck_date=deck_date, source_path=str(path), picture_text=picture, source_format="pdf",
        ))
    deck = Deck(deck_id=deck_id, deck_name=path.name, folder=folder, universe=uni, deck_date=deck_date,
                n_slides=len(slides), source_path=str(path))
    return deck, slides


def read_converted(path: Path, root: Path, universe: str | None, read_pptx: PptxReader) -> tuple[Deck, list[Slide]]:
    """A .ppt / .odp / .key deck: LibreOffice converts it to .pptx, read as one, named as the original."""
    rel = path.relative_to(root) if path != root else Path(path.name)
    with tempfile.TemporaryDirectory(prefix="seek-convert-") as tmp:
        try:
            converted = convert(path, "pptx", Path(tmp) / "out")
        except ConversionError as exc:
            raise FormatError(str(exc)) from exc
        # Placed where the original sits, named with its suffix: "a.ppt" and "a.pptx" keep apart ids.
        placed = Path(tmp) / "tree" / rel.parent / f"{path.name}.pptx"
        placed.parent.mkdir(parents=True, exist_ok=True)
        converted.rename(placed)
        deck, slides = read_pptx(placed, Path(tmp) / "tree", universe)
    fmt = path.suffix.lower().lstrip(".")
    origin = {"deck_name": path.name, "source_path": str(path)}
    slides = [s.model_copy(update={**origin, "source_format": fmt}) for s in slides]
    return deck.model_copy(update=origin), slides


def read_other_format(path: Path, root: Path, universe: str | None,
                      read_pptx: PptxReader) -> tuple[Deck, list[Slide]]:
    """A PDF or LibreOffice-converted deck by its suffix (see the module docstring)."""
    if path.suffix.lower() == PDF_SUFFIX:
        return read_pdf(path, root, universe)
    if path.suffix.lower() in CONVERTED_SUFFIXES:
        return read_converted(path, root, universe, read_pptx)
    raise FormatError(f"{path.name}: not a PDF, .ppt, .pps, .odp or .key deck")
