"""LibreOffice, headless: legacy and foreign decks to .pptx, any deck to PDF.

Each call gets its own LibreOffice user profile, so conversions may run in parallel
(two ``soffice`` processes sharing a profile wait on each other's lock) and a crashed
run leaves nothing behind. A conversion that outlives ``timeout`` is killed and reported.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

#: What Debian needs for ingest of other formats, thumbnails and OCR (the README's one line).
APT_PACKAGES = ("libreoffice-impress-nogui", "poppler-utils", "tesseract-ocr")
INSTALL_HINT = f"apt-get install -y {' '.join(APT_PACKAGES)}"
DEFAULT_TIMEOUT_S = 120.0


class ConversionError(RuntimeError):
    """LibreOffice is missing, failed, or ran out of time on a file."""


def soffice_path() -> str | None:
    """The LibreOffice executable, or None when it is not installed."""
    return shutil.which("soffice") or shutil.which("libreoffice")


def convert(source: Path, target_format: str, out_dir: Path, timeout: float = DEFAULT_TIMEOUT_S) -> Path:
    """``source`` converted by LibreOffice to ``target_format`` (pdf, pptx) in ``out_dir``; the new file's path."""
    exe = soffice_path()
    if exe is None:
        raise ConversionError(f"LibreOffice is not installed ({INSTALL_HINT})")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="seek-lo-") as profile:
        command = [exe, f"-env:UserInstallation=file://{profile}", "--headless", "--norestore",
                   "--convert-to", target_format, "--outdir", str(out_dir), str(source)]
        # Its own process group: on a timeout the whole LibreOffice tree is killed, not only the launcher.
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            _, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise ConversionError(f"LibreOffice took longer than {timeout:g} s") from exc
    produced = out_dir / f"{source.stem}.{target_format}"
    if process.returncode != 0 or not produced.exists():
        detail = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output file"]
        raise ConversionError(f"LibreOffice could not convert {source.name} to {target_format}: {detail[0]}")
    return produced
