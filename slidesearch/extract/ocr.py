"""Text in pictures, read by Debian's ``tesseract`` (tesseract-ocr 5) when it is installed.

The command line is called directly (pytesseract is a wrapper around the same call). Words
tesseract is less than ``MIN_CONFIDENCE`` sure of are dropped: photographs otherwise yield
strings of stray letters. Each image is read once per process (a logo repeated on every
slide costs one call), keyed by the sha256 of its bytes.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

MIN_CONFIDENCE = 60.0
#: Smaller images are icons and bullets; text in them is too small to read and rarely worth finding.
MIN_SIDE_PX = 48
OCR_TIMEOUT_S = 60.0


def tesseract_path() -> str | None:
    """The tesseract executable, or None when OCR is not installed or turned off (``SEEK_OCR=off``).

    OCR is most of the cost of reading a deck with pictures (54 real decks: about 11 minutes on a
    busy 2-core machine); ``SEEK_OCR=off`` reads decks without it.
    """
    if os.environ.get("SEEK_OCR", "").strip().lower() in ("off", "0", "false", "no"):
        return None
    return shutil.which("tesseract")


def ocr_available() -> bool:
    return tesseract_path() is not None


def _as_png(blob: bytes) -> bytes | None:
    """The image as PNG bytes, or None for a format Pillow cannot open (EMF, WMF, SVG) or a tiny image."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(blob)) as image:
            if min(image.size) < MIN_SIDE_PX:
                return None
            out = io.BytesIO()
            # Palette images go through RGBA: Pillow warns when a palette's transparency meets RGB directly.
            (image.convert("RGBA") if image.mode == "P" else image).convert("RGB").save(out, format="PNG")
            return out.getvalue()
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def words_from_tsv(tsv: str, min_confidence: float = MIN_CONFIDENCE) -> str:
    """Lines of confidently read words from tesseract's TSV output (block/paragraph/line kept as line breaks)."""
    lines: dict[tuple[str, str, str], list[str]] = {}
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or not cols[11].strip():
            continue
        try:
            confidence = float(cols[10])
        except ValueError:
            continue
        word = cols[11].strip()
        if confidence >= min_confidence and any(ch.isalnum() for ch in word):
            lines.setdefault((cols[2], cols[3], cols[4]), []).append(word)
    return "\n".join(" ".join(words) for words in lines.values() if words)


#: sha256 of an image's PNG bytes -> its text (the texts are small; the images are not kept).
_READ: dict[str, str] = {}


def _tesseract(exe: str, png: bytes) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        image = Path(tmp) / "image.png"
        image.write_bytes(png)
        try:
            done = subprocess.run(
                [exe, str(image), "stdout", "-l", "eng", "tsv"],
                capture_output=True, text=True, timeout=OCR_TIMEOUT_S, check=False,
            )
        except subprocess.TimeoutExpired:
            return ""
    return words_from_tsv(done.stdout) if done.returncode == 0 else ""


def ocr_image(blob: bytes) -> str:
    """The confidently read text of one image ("" without tesseract, for unreadable formats and tiny images)."""
    exe = tesseract_path()
    png = _as_png(blob) if exe is not None else None
    if exe is None or png is None:
        return ""
    digest = hashlib.sha256(png).hexdigest()
    if digest not in _READ:
        _READ[digest] = _tesseract(exe, png)
    return _READ[digest]
