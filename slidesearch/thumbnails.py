"""Slide thumbnails: every deck rendered once per content hash, in a worker pool, each with a time limit.

A deck is turned into PDF by LibreOffice headless (a PDF deck is used as it is), then
poppler's ``pdftoppm`` writes one small PNG per slide; the PDF is kept so a large view of
one slide is rendered on demand. Everything lives under ``SEEK_HOME/slides/thumbnails``:
one folder per deck sha256 and ``renders.sqlite``, which records for every rendered hash
whether it worked (pages, seconds, or the error) and which file path has which hash. A
deck whose hash was rendered before is not rendered again (the same bytes at two paths
render once); a deck that fails keeps its text card, and the failure is reported and not
retried until the deck changes. Hidden slides (PowerPoint leaves them out of the PDF) get
no thumbnail; the others keep their slide numbers.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pydantic import BaseModel, Field

from core.files import file_sha256
from core.settings import get_settings
from slidesearch.extract.convert import INSTALL_HINT, ConversionError, convert, soffice_path

#: Longest side of a card thumbnail and of the large view, in pixels.
SMALL_PX = 480
LARGE_PX = 1280
DEFAULT_TIMEOUT_S = 120.0
RENDERABLE = (".pptx", ".pdf", ".ppt", ".pps", ".odp", ".key")


class RenderRecord(BaseModel):
    """The outcome of rendering one deck's bytes."""

    sha256: str
    ok: bool
    slides: list[int] = Field(default_factory=list, description="Slide numbers that have a thumbnail.")
    seconds: float = 0.0
    error: str = ""


class RenderFailure(BaseModel):
    path: str
    error: str


class RenderReport(BaseModel):
    """What one render run did."""

    decks_seen: int = 0
    decks_rendered: int = 0
    decks_unchanged: int = 0
    thumbnails_written: int = 0
    seconds: float = 0.0
    render_seconds: list[float] = Field(default_factory=list, description="Wall time of each deck rendered.")
    failures: list[RenderFailure] = Field(default_factory=list)


def rendering_available() -> str | None:
    """None when thumbnails can be made, else what to install."""
    missing = [name for name, found in (("LibreOffice", soffice_path()), ("pdftoppm", shutil.which("pdftoppm")))
               if found is None]
    return f"{' and '.join(missing)} not installed: {INSTALL_HINT}" if missing else None


def _visible_slides(source: Path, n_pages: int) -> list[int]:
    """The slide number of each PDF page: a .pptx's hidden slides are not in its PDF; other formats page 1..n."""
    if source.suffix.lower() == ".pptx":
        from pptx import Presentation

        shown = [n for n, s in enumerate(Presentation(str(source)).slides, start=1) if s._element.get("show") != "0"]
        if len(shown) == n_pages:
            return shown
    return list(range(1, n_pages + 1))


def _pdftoppm(pdf: Path, out_prefix: Path, px: int, timeout: float, page: int | None = None) -> None:
    pages = ["-f", str(page), "-l", str(page), "-singlefile"] if page is not None else []
    subprocess.run(["pdftoppm", "-png", "-scale-to", str(px), *pages, str(pdf), str(out_prefix)],
                   check=True, capture_output=True, timeout=timeout)


def render_deck(source: Path, sha256: str, out_dir: Path, timeout: float = DEFAULT_TIMEOUT_S) -> RenderRecord:
    """Render ``source`` into ``out_dir`` (``deck.pdf`` and ``slide-<n>.png``); the record says how it went."""
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix=".render-", dir=out_dir.parent))
    try:
        if source.suffix.lower() == ".pdf":
            pdf = work / "deck.pdf"
            shutil.copyfile(source, pdf)
        else:
            pdf = convert(source, "pdf", work, timeout=timeout).rename(work / "deck.pdf")
        left = max(timeout - (time.perf_counter() - started), 1.0)
        _pdftoppm(pdf, work / "page", SMALL_PX, left)
        pages = sorted(work.glob("page-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
        numbers = _visible_slides(source, len(pages))
        for page, number in zip(pages, numbers, strict=True):
            page.rename(work / f"slide-{number}.png")
        shutil.rmtree(out_dir, ignore_errors=True)
        work.rename(out_dir)
        return RenderRecord(sha256=sha256, ok=True, slides=numbers, seconds=round(time.perf_counter() - started, 3))
    except (ConversionError, subprocess.SubprocessError, OSError, ValueError) as exc:
        message = "pdftoppm took too long" if isinstance(exc, subprocess.TimeoutExpired) else str(exc)
        return RenderRecord(sha256=sha256, ok=False, seconds=round(time.perf_counter() - started, 3),
                            error=message or type(exc).__name__)
    finally:
        shutil.rmtree(work, ignore_errors=True)


class ThumbnailStore:
    """Rendered decks by sha256 and which path has which hash (see the module docstring)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else get_settings().slides_dir / "thumbnails"
        self.root.mkdir(parents=True, exist_ok=True)
        self.db_path = self.root / "renders.sqlite"
        with self._connect() as db:
            db.execute("CREATE TABLE IF NOT EXISTS renders (sha256 TEXT PRIMARY KEY, record TEXT NOT NULL)")
            db.execute("CREATE TABLE IF NOT EXISTS paths (source_path TEXT PRIMARY KEY, sha256 TEXT NOT NULL)")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.db_path, timeout=30)

    def record(self, sha256: str) -> RenderRecord | None:
        with self._connect() as db:
            row = db.execute("SELECT record FROM renders WHERE sha256 = ?", [sha256]).fetchone()
        return RenderRecord.model_validate_json(row[0]) if row else None

    def save(self, source_path: str, record: RenderRecord) -> None:
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO renders VALUES (?, ?)", [record.sha256, record.model_dump_json()])
            db.execute("INSERT OR REPLACE INTO paths VALUES (?, ?)", [source_path, record.sha256])

    def link(self, source_path: str, sha256: str) -> None:
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO paths VALUES (?, ?)", [source_path, sha256])

    def deck_dir(self, sha256: str) -> Path:
        return self.root / sha256

    def _sha_of(self, source_path: str | None) -> str | None:
        if not source_path:
            return None
        with self._connect() as db:
            row = db.execute("SELECT sha256 FROM paths WHERE source_path = ?", [source_path]).fetchone()
        return row[0] if row else None

    def thumbnail(self, source_path: str | None, slide_number: int) -> Path | None:
        """The small PNG of a slide, or None (not rendered, failed, hidden, or not from a deck file)."""
        sha = self._sha_of(source_path)
        path = self.deck_dir(sha) / f"slide-{slide_number}.png" if sha else None
        return path if path is not None and path.exists() else None

    def large(self, source_path: str | None, slide_number: int, timeout: float = 30.0) -> Path | None:
        """The large PNG of a slide, rendered from the kept PDF on first request; None like ``thumbnail``."""
        sha = self._sha_of(source_path)
        record = self.record(sha) if sha else None
        if record is None or not record.ok or slide_number not in record.slides:
            return None
        out = self.deck_dir(record.sha256) / f"large-{slide_number}.png"
        if not out.exists():
            page = record.slides.index(slide_number) + 1
            staging = out.with_suffix(f".{time.monotonic_ns()}")
            _pdftoppm(self.deck_dir(record.sha256) / "deck.pdf", staging, LARGE_PX, timeout, page=page)
            staging.with_suffix(staging.suffix + ".png").rename(out)
        return out


def card_thumbnails(library: object, slide_ids: Iterable[str], root: Path | None = None) -> dict[str, Path]:
    """Slide id -> its thumbnail file for the ids of ``library`` that have one (none before a render)."""
    root = Path(root) if root is not None else get_settings().slides_dir / "thumbnails"
    if not (root / "renders.sqlite").exists():
        return {}
    thumbs, found = ThumbnailStore(root), {}
    for slide_id in slide_ids:
        row = library.id_to_row.get(slide_id)  # type: ignore[attr-defined]
        path = thumbs.thumbnail(library.source_paths[row], int(library.slide_numbers[row])) if row is not None else None  # type: ignore[attr-defined]
        if path is not None:
            found[slide_id] = path
    return found


RenderTask = tuple[Path, str, Path, float]
"""(deck file, its sha256, the folder its thumbnails go to, timeout): one deck's rendering, run anywhere."""
Mapper = Callable[[Callable[[RenderTask], RenderRecord], list[RenderTask]], list[RenderRecord]]


def render_task(task: RenderTask) -> RenderRecord:
    """``render_deck`` on one task: what a Ray worker runs (idempotent: the folder is keyed by the deck's hash and
    replaced whole by a rename, so a retried task after a lost node writes the same files once)."""
    return render_deck(*task)


def render_decks(paths: Iterable[Path], thumbs: ThumbnailStore, *, workers: int = 1,
                 timeout: float = DEFAULT_TIMEOUT_S, progress: Callable[[str, int, int], None] | None = None,
                 mapper: Mapper | None = None) -> RenderReport:
    """Render every deck in ``paths`` whose bytes were not rendered before, ``workers`` at a time.

    With ``mapper`` (``core.ray_tasks.RayMapper``: ``seek slides render --ray``) each deck is one retryable task
    on a cluster whose nodes see the same files; the records are saved here, on the driver, as they are locally.
    """
    started = time.perf_counter()
    report = RenderReport()
    todo: dict[str, list[Path]] = {}
    for path in paths:
        if path.suffix.lower() not in RENDERABLE or not path.is_file():
            continue
        report.decks_seen += 1
        sha = file_sha256(path)
        previous = thumbs.record(sha)
        if previous is not None:
            thumbs.link(str(path), sha)
            report.decks_unchanged += 1
            if not previous.ok:
                report.failures.append(RenderFailure(path=str(path), error=previous.error))
            continue
        todo.setdefault(sha, []).append(path)
    if progress:
        progress("render", 0, len(todo))
    tasks = [(files[0], sha, thumbs.deck_dir(sha), timeout) for sha, files in todo.items()]
    with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:  # the local work is in LibreOffice processes
        records: Iterable[RenderRecord] = (
            mapper(render_task, tasks) if mapper is not None
            else (job.result() for job in [pool.submit(render_task, task) for task in tasks]))
        for done, (sha, record) in enumerate(zip(todo, records, strict=True), start=1):
            for path in todo[sha]:
                thumbs.save(str(path), record)
            report.render_seconds.append(record.seconds)
            if record.ok:
                report.decks_rendered += 1
                report.thumbnails_written += len(record.slides)
            else:
                report.failures.extend(RenderFailure(path=str(p), error=record.error) for p in todo[sha])
            if progress:
                progress("render", done, len(todo))
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def library_deck_paths(store: object) -> list[Path]:
    """The deck files of an ingest store (``slidesearch.store.Store``) that can be rendered."""
    rows = store.db.query("SELECT DISTINCT source_path FROM decks WHERE source_path IS NOT NULL")  # type: ignore[attr-defined]
    return sorted(Path(r["source_path"]) for r in rows if Path(r["source_path"]).suffix.lower() in RENDERABLE)
