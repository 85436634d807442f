"""Getting slides into the library: .pptx folder trees, JSONL, master sheets and the SlideVQA dataset.

Every source file is hashed (sha256 of its bytes). An unchanged file is skipped
without being opened; a changed one replaces the slides it contributed; a file
that cannot be read (corrupt, password-protected, bad rows) is reported and
skipped while the rest goes on, and what was ingested before stays. The
store's per-file transactions make each replacement all-or-nothing, and a file
whose slide ids another file already holds is refused as a conflict (nothing of
it written) instead of taking them over.

Nothing is skipped without a word: hidden files, symbolic links (never followed,
so a link cannot pull in files from outside the tree or loop) and files that are
not slides are listed in the report's ``skipped``; a slide's text longer than
``MAX_SLIDE_TEXT_CHARS`` is cut there and the cut is listed in ``truncated``.
Paths in the report are relative to the ingested folder.
"""

from __future__ import annotations

import csv
import json
import os
import re
import zipfile
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from core.files import file_sha256
from core.settings import get_settings
from slidesearch.content_type import SlideShape, classify_content_type
from slidesearch.extract.convert import INSTALL_HINT, soffice_path
from slidesearch.extract.pptx import read_slide
from slidesearch.ingest_formats import read_other_format
from slidesearch.model import Deck, Slide, VerifiedCaseStudy, deck_id_for, normalise_folder, universe_for
from slidesearch.store import CONFLICT_EXAMPLES, SourceConflict, Store

#: SlideVQA ids are "<deck>-<page>-1024.jpg"; deck names hold '-' and digits, so parse from the right
#: (shared/data/slidevqa/README.md).
SLIDEVQA_ID = re.compile(r"^(?P<deck>.*)-(?P<page>\d+)-1024\.jpg$")
SLIDEVQA_TEXTS = "slide_vqa_image_to_gpt_text.json"
DATASETS = ("slidevqa",)
MASTER_NAMES = ("master.jsonl", "master.csv")
#: Files a generated library directory holds besides slides and master; never ingested as slides.
NON_SLIDE_JSONL = ("queries.jsonl",)
_OLE_MAGIC = b"\xd0\xcf\x11\xe0"
_ZIP_MAGIC = b"PK\x03\x04"
#: ``--universe-from`` values besides a universe name: the first folder under the ingested path, or one universe.
UNIVERSE_FROM = ("top-folder", "none")
#: The universe of every slide under ``--universe-from none`` (and of files directly in the ingested folder).
DEFAULT_UNIVERSE = "Library"
#: The longest slide text kept (about 3,000 words, far beyond a readable slide): a deck whose XML expands to
#: millions of characters on one slide would otherwise cost gigabytes to ingest and memory in every search.
MAX_SLIDE_TEXT_CHARS = 20_000
#: The longest slide title kept.
MAX_TITLE_CHARS = 500


class IngestFailure(BaseModel):
    path: str
    error: str


class IngestReport(BaseModel):
    """What one ingest did: files ingested, skipped as unchanged and failed, and the slides and rows written."""

    files_seen: int = 0
    files_ingested: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    slides_written: int = 0
    decks_written: int = 0
    master_rows_written: int = 0
    failures: list[IngestFailure] = Field(default_factory=list)
    #: Files in an ingested folder that are not slides (a PDF, a Word file, an Office lock file), with why.
    skipped: list[IngestFailure] = Field(default_factory=list)
    row_errors: list[str] = Field(default_factory=list)
    #: Files whose slides' text was cut to ``MAX_SLIDE_TEXT_CHARS`` (or a title to ``MAX_TITLE_CHARS``), with how much.
    truncated: list[IngestFailure] = Field(default_factory=list)
    #: Things ingested but worth a word: master-sheet columns that map to no field.
    warnings: list[str] = Field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.files_ingested > 0 or self.files_removed > 0

    @classmethod
    def combine(cls, reports: list[IngestReport]) -> IngestReport:
        """One report summing several (a path, a master sheet and a dataset ingested by one command)."""
        total = cls()
        for r in reports:
            for name in (
                "files_seen",
                "files_ingested",
                "files_unchanged",
                "files_removed",
                "slides_written",
                "decks_written",
                "master_rows_written",
            ):
                setattr(total, name, getattr(total, name) + getattr(r, name))
            total.failures += r.failures
            total.skipped += r.skipped
            total.row_errors += r.row_errors
            total.truncated += r.truncated
            total.warnings += r.warnings
        return total


def universe_rule(value: str | None) -> str | None:
    """The ``universe`` to ingest with for ``--universe-from value``: None (top folder), 'Library' (none), or a name."""
    choice = (value or "top-folder").strip()
    if not choice:
        raise IngestError("--universe-from needs top-folder, none or a universe name")
    if choice.lower() == "top-folder":
        return None
    if choice.lower() == "none":
        return DEFAULT_UNIVERSE
    return choice


class IngestError(ValueError):
    """A source that cannot be ingested at all (wrong kind, unreadable, no usable rows)."""


# ---------------------------------------------------------------------- pptx


def _deck_date(prs: Any, path: Path) -> date:
    props = prs.core_properties
    for value in (props.created, props.modified):
        if isinstance(value, datetime) and value.year > 1980:
            return value.date()
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).date()


def read_pptx(path: Path, root: Path, universe: str | None = None, ocr: bool = True) -> tuple[Deck, list[Slide]]:
    """One deck's slides: title, text frames, grouped shapes, tables; notes, SmartArt, charts, pictures apart.

    The texts come from ``extract.pptx.read_slide`` (``ocr``: read pictures' text when tesseract is installed).

    The folder is the file's directory relative to ``root``; the deck date comes from the
    file's core properties (created, else modified) or else its mtime. Raises IngestError for
    a file python-pptx cannot open, naming password protection when the bytes show it.
    """
    from pptx import Presentation

    with path.open("rb") as fh:
        head = fh.read(4)
    if head == _OLE_MAGIC:
        raise IngestError("password-protected, or an old PowerPoint 97-2003 file: open it in PowerPoint and "
                          "save it as an unprotected .pptx")
    if head != _ZIP_MAGIC:
        raise IngestError("not a PowerPoint file (named .pptx, but its contents are something else)")
    if not zipfile.is_zipfile(path):
        raise IngestError("a damaged (corrupt) PowerPoint file: it ends before its table of contents")
    try:
        prs = Presentation(str(path))
    except Exception as exc:  # noqa: BLE001 - python-pptx raises zipfile/lxml/KeyError varieties for bad files
        if type(exc).__name__ in ("PackageNotFoundError", "KeyError"):
            raise IngestError("not a PowerPoint file (a zip archive without a presentation in it)") from exc
        raise IngestError(f"a damaged (corrupt) PowerPoint file that cannot be read ({exc})") from exc
    rel = path.relative_to(root) if path != root else Path(path.name)
    folder = normalise_folder(str(rel.parent))
    deck_id = deck_id_for(rel)
    deck_date = _deck_date(prs, path)
    uni = universe_for(folder, universe)
    slides: list[Slide] = []
    size = (prs.slide_width or 0, prs.slide_height or 0)
    for number, page in enumerate(prs.slides, start=1):
        found = read_slide(page, size, ocr=ocr)
        title, body = found.title, "\n".join(found.body)
        shape = SlideShape(
            title=title,
            text="\n".join([body, *found.smartart, *found.charts]),  # what the slide shows, notes aside
            n_tables=found.n_tables,
            n_charts=found.n_charts,
            n_pictures=found.n_pictures,
            n_text_boxes=found.n_text_boxes,
            table_chars=found.table_chars,
            layout=found.layout,
        )
        slides.append(
            Slide(
                slide_id=f"{deck_id}_Slide_{number}",
                deck_id=deck_id,
                deck_name=path.name,
                folder=folder,
                slide_number=number,
                title=title,
                text=body,
                content_type=classify_content_type(shape),
                universe=uni,
                deck_date=deck_date,
                source_path=str(path),
                notes=found.notes,
                smartart_text="\n".join(found.smartart),
                chart_text="\n".join(found.charts),
                picture_text="\n".join(found.pictures),
                source_format="pptx",
            )
        )
    deck = Deck(
        deck_id=deck_id,
        deck_name=path.name,
        folder=folder,
        universe=uni,
        deck_date=deck_date,
        n_slides=len(slides),
        source_path=str(path),
    )
    return deck, slides


# ---------------------------------------------------------------------- JSONL / CSV


def _jsonl_rows(path: Path) -> Iterator[tuple[int, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, start=1):
            if line.strip():
                try:
                    yield line_no, json.loads(line)
                except json.JSONDecodeError as exc:
                    yield line_no, exc


def read_slides_jsonl(path: Path, universe: str | None = None) -> tuple[list[Slide], list[Deck], list[str]]:
    """Slides from JSONL in the model's schema; rows without a content type get the classifier's tag.

    Bad rows (and repeats of a slide id) are returned as "file:line: reason" errors and
    skipped; the decks are derived from the slides.
    """
    slides: list[Slide] = []
    errors: list[str] = []
    seen: set[str] = set()
    for line_no, row in _jsonl_rows(path):
        if isinstance(row, Exception) or not isinstance(row, dict):
            errors.append(f"{path.name}:{line_no}: not a JSON object")
            continue
        if row.get("slide_id") in seen:
            errors.append(f"{path.name}:{line_no}: duplicate slide id {row['slide_id']!r}")
            continue
        if not row.get("content_type"):
            row["content_type"] = classify_content_type(
                SlideShape(title=row.get("title", ""), text=row.get("text", ""))
            )
        if universe:
            row["universe"] = universe
        try:
            slides.append(Slide.model_validate(row))
            seen.add(slides[-1].slide_id)
        except ValidationError as exc:
            errors.append(f"{path.name}:{line_no}: {exc.errors()[0]['loc']} {exc.errors()[0]['msg']}")
    return slides, _decks_of(slides), errors


def _decks_of(slides: list[Slide]) -> list[Deck]:
    decks: dict[str, Deck] = {}
    for s in slides:
        deck = decks.get(s.deck_id)
        if deck is None:
            decks[s.deck_id] = Deck(
                deck_id=s.deck_id,
                deck_name=s.deck_name,
                folder=s.folder,
                universe=s.universe,
                deck_date=s.deck_date,
                n_slides=1,
                source_path=s.source_path,
            )
        else:
            deck.n_slides += 1
    return list(decks.values())


_MASTER_ALIASES = {
    "row_id": ("row_id", "id", "#", "row", "no", "s no", "sno"),
    "client": ("client", "client name", "customer", "account"),
    "use_case": ("use_case", "use case", "usecase", "use-case", "solution area"),
    "title": ("title", "case study", "case study title", "name"),
    "summary": ("summary", "description", "details", "impact", "outcome"),
    "universe": ("universe", "business unit", "practice"),
}


def master_column_help() -> str:
    """The header names each master field is read from (``seek slides ingest --help`` shows the same list)."""
    return "; ".join(f"{field}: {', '.join(names)}" for field, names in _MASTER_ALIASES.items())


def _master_record(raw: dict[str, Any], fallback_id: int) -> dict[str, Any]:
    lowered = {str(k).strip().lower(): v for k, v in raw.items() if k is not None}
    record: dict[str, Any] = {}
    for field, names in _MASTER_ALIASES.items():
        for name in names:
            if lowered.get(name) not in (None, ""):
                record[field] = str(lowered[name]).strip() if field != "row_id" else lowered[name]
                break
    # Without an id column a row is known by its line: the store keys rows by (sheet, row id), so two
    # sheets' line numbers never overwrite each other.
    record.setdefault("row_id", str(fallback_id))
    return record


def _unknown_master_columns(headers: list[str]) -> list[str]:
    known = {name for names in _MASTER_ALIASES.values() for name in names}
    return [h for h in dict.fromkeys(headers) if h.strip().lower() not in known]


def read_master(
    path: Path, warnings: list[str] | None = None, shown: str | None = None
) -> tuple[list[VerifiedCaseStudy], list[str]]:
    """Verified case-study rows from CSV (headers matched case-insensitively, common aliases) or JSONL.

    Bad rows and repeats of a row id are returned as "sheet:line: reason" errors; columns that map to
    no field are named in ``warnings`` (when given). ``shown`` is the sheet's name in messages.
    """
    rows: list[VerifiedCaseStudy] = []
    errors: list[str] = []
    name = shown or path.name
    headers: list[str] = []
    if path.suffix.lower() == ".csv":
        with path.open(encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh)
            raw_rows: list[tuple[int, Any]] = [(i, r) for i, r in enumerate(reader, start=2)]
            headers = [h for h in (reader.fieldnames or []) if h is not None]
    elif path.suffix.lower() in (".jsonl", ".json"):
        raw_rows = list(_jsonl_rows(path))
        headers = [str(k) for _, r in raw_rows if isinstance(r, dict) for k in r]
    else:
        raise IngestError(f"{name}: a master sheet must be .csv or .jsonl")
    unknown = _unknown_master_columns(headers)
    if unknown and warnings is not None:
        warnings.append(f"{name}: column(s) {', '.join(repr(c) for c in unknown)} match no master field and "
                        "were not read (see `seek slides ingest --help` for the names read)")
    seen: set[str] = set()
    for line_no, raw in raw_rows:
        if not isinstance(raw, dict):
            errors.append(f"{name}:{line_no}: not a row")
            continue
        record = _master_record(raw, line_no)
        if not (record.get("title") or record.get("summary")):
            errors.append(f"{name}:{line_no}: no title or summary")
            continue
        try:
            row = VerifiedCaseStudy.model_validate(record)
        except ValidationError as exc:
            errors.append(f"{name}:{line_no}: {exc.errors()[0]['loc']} {exc.errors()[0]['msg']}")
            continue
        if row.row_id in seen:
            errors.append(f"{name}:{line_no}: duplicate row id {row.row_id!r}")
            continue
        seen.add(row.row_id)
        rows.append(row)
    return rows, errors


# ---------------------------------------------------------------------- SlideVQA


def read_slidevqa(data_dir: Path) -> list[Slide]:
    """The SlideVQA slide texts as slides: id kept, deck and page parsed from the right-anchored id pattern.

    The first line of a transcription is its title; folder ``/SlideVQA``, universe ``SlideVQA``.
    """
    path = data_dir / "slidevqa" / SLIDEVQA_TEXTS
    if not path.exists():
        raise IngestError(f"SlideVQA texts not found at {path}")
    texts: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    slides: list[Slide] = []
    for slide_id, text in texts.items():
        match = SLIDEVQA_ID.match(slide_id)
        if match is None:
            raise IngestError(f"{path.name}: slide id {slide_id!r} does not match <deck>-<page>-1024.jpg")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        title = lines[0] if lines else ""
        body = "\n".join(lines[1:])
        slides.append(
            Slide(
                slide_id=slide_id,
                deck_id=match["deck"],
                deck_name=match["deck"],
                folder="/SlideVQA",
                slide_number=int(match["page"]),
                title=title,
                text=body,
                universe="SlideVQA",
                content_type=classify_content_type(SlideShape(title=title, text=body)),
            )
        )
    return slides


# ---------------------------------------------------------------------- orchestration


def _shown(path: Path, root: Path) -> str:
    """``path`` as messages name it: relative to the ingested folder ``root`` when under it."""
    try:
        return str(path.relative_to(root)) if path != root else path.name
    except ValueError:
        return str(path)


def _capped(slides: list[Slide]) -> tuple[list[Slide], int, int]:
    """The slides with text and title cut to the limits, how many were cut and the longest text before the cut."""
    out: list[Slide] = []
    cut = longest = 0
    for slide in slides:
        if len(slide.text) > MAX_SLIDE_TEXT_CHARS or len(slide.title) > MAX_TITLE_CHARS:
            cut += 1
            longest = max(longest, len(slide.text), len(slide.title))
            slide = slide.model_copy(update={"text": slide.text[:MAX_SLIDE_TEXT_CHARS],
                                             "title": slide.title[:MAX_TITLE_CHARS]})
        out.append(slide)
    return out, cut, longest


def _conflict_message(conflict: SourceConflict, root: Path) -> str:
    parts = []
    for owner, ids in sorted(conflict.owners.items()):
        examples = ", ".join(ids[:CONFLICT_EXAMPLES]) + (f" and {len(ids) - CONFLICT_EXAMPLES} more"
                                                         if len(ids) > CONFLICT_EXAMPLES else "")
        parts.append(f"{len(ids)} held by {_shown(Path(owner), root)} ({examples})")
    return ("its slide or deck ids already belong to another file, so nothing of it was ingested: " + "; ".join(parts)
            + ". An id belongs to one file: remove or rename the other file's slides, then ingest again")


DECK_KINDS = frozenset({"pptx", "pdf", "ppt", "odp", "key"})
DECK_READER_VERSION = 5
"""What a deck's reading depends on besides its bytes; bump it when the reader reads decks differently, and the
next ingest reads every deck again (an unchanged file is otherwise never reopened). 2: slide layouts read for
roles (a title or section-header layout), on top of notes, SmartArt, charts and picture text (#17, #20). 3: a
contents slide in another language ("Sommaire", "目次") typed agenda, as its role already was (#17). 4: slide-number,
date, footer and header placeholders left out of the slide's text (#17). 5: the title is the placeholder typed
title, not python-pptx's first index-0 placeholder (a subtitle that states no index)."""


def _refusal(file: Path) -> tuple[bool, str] | None:
    """Why a deck-like ``file`` is not read, as (counts as a failed file, the reason); None when it can be read."""
    name = file.name.lower()
    if name.startswith("~$"):
        return False, "an Office lock file (the deck is open in PowerPoint)"
    if name.endswith(".pot") or (name.endswith((".ppt", ".pps", ".key", ".odp")) and soffice_path() is None):
        return True, (f"a {file.suffix} presentation, not a .pptx: save it as .pptx (PowerPoint or LibreOffice) and "
                      f"ingest again, or let seek convert it: {INSTALL_HINT}")
    return None


def _deck_kind(file: Path) -> str | None:
    """The kind of deck ``file`` is read as (pptx, pdf, ppt, pps, odp, key), or None for any other file or a refused one."""
    kind = file.suffix.lower().lstrip(".")
    return kind if (kind in DECK_KINDS or kind == "pps") and _refusal(file) is None else None


def _read_changed_decks(files: Sequence[Path], store: Store, root: Path, universe: str | None,
                        read_decks: DeckMapper) -> tuple[dict[Path, str], dict[Path, DeckRead]]:
    """Every deck's digest, and the decks among ``files`` whose digest the store does not hold, read by
    ``read_decks`` (one task each). The digests go on to ``_ingest_file``, so no deck is hashed twice."""
    kinds = {file: kind for file in files if (kind := _deck_kind(file)) is not None}
    digests = {file: _digest(file, kind, universe) for file, kind in kinds.items()}
    tasks: list[DeckTask] = [(kinds[file], file, root, universe) for file, digest in digests.items()
                             if store.source_hash(str(file)) != digest]
    reads = read_decks(read_deck_task, tasks) if tasks else []
    return digests, {task[1]: read for task, read in zip(tasks, reads, strict=True)}


def _preread(preread: dict[Path, DeckRead], file: Path) -> tuple[Deck, list[Slide]]:
    read = preread[file]
    if isinstance(read, str):
        raise IngestError(read)
    return read


def _digest(path: Path, kind: str, universe: str | None) -> str:
    """What the store records of a source file: its sha256, the deck reader's version, a universe given for it.

    A universe given for the file is part of what was ingested (the same bytes under another universe rule
    are read again); so is a deck after the deck reader changed (``DECK_READER_VERSION``).
    """
    digest = file_sha256(path)
    if kind in DECK_KINDS:
        digest = f"{digest}|reader={DECK_READER_VERSION}"
    return digest if universe is None else f"{digest}|universe={universe}"


def _ingest_file(
    store: Store, key: str, kind: str, path: Path, report: IngestReport, reader: Callable[[], tuple[Any, ...]],
    universe: str | None = None, root: Path | None = None, digest: str | None = None,
) -> None:
    report.files_seen += 1
    root = root if root is not None else path.parent
    shown = _shown(path, root)
    digest = digest if digest is not None else _digest(path, kind, universe)
    if store.source_hash(key) == digest:
        report.files_unchanged += 1
        return
    try:
        slides, decks, master, errors = reader()
    except UnicodeDecodeError:
        report.failures.append(IngestFailure(path=shown, error="not a text file (JSONL and CSV must be UTF-8 text)"))
        return
    except (IngestError, OSError, ValueError) as exc:
        report.failures.append(IngestFailure(path=shown, error=str(exc)))
        return
    report.row_errors.extend(errors)
    if not slides and not master and errors:
        report.failures.append(IngestFailure(path=shown, error=f"no usable rows ({len(errors)} bad)"))
        return
    slides, cut, longest = _capped(slides)
    try:
        store.replace_source(key, kind, digest, slides, decks, master)
    except SourceConflict as conflict:
        report.failures.append(IngestFailure(path=shown, error=_conflict_message(conflict, root)))
        return
    if cut:
        report.truncated.append(IngestFailure(path=shown, error=(
            f"{cut} slide(s) cut to {MAX_SLIDE_TEXT_CHARS:,} characters of text ({MAX_TITLE_CHARS} of title); "
            f"the longest had {longest:,}")))
    report.files_ingested += 1
    report.slides_written += len(slides)
    report.decks_written += len(decks)
    report.master_rows_written += len(master)


def _walk(path: Path, report: IngestReport) -> list[Path]:
    """The files under the folder ``path``, in order; hidden entries and symbolic links are skipped and listed."""
    files: list[Path] = []
    for top, dirs, names in os.walk(path, followlinks=False):
        here = Path(top)
        for name in sorted(dirs):
            entry = here / name
            if entry.is_symlink() or name.startswith("."):
                dirs.remove(name)
                why = ("a symbolic link to a folder (links are not followed; ingest its target itself)"
                       if entry.is_symlink() else "a hidden folder (its name starts with '.')")
                report.skipped.append(IngestFailure(path=_shown(entry, path), error=why))
        dirs.sort()
        for name in names:
            entry = here / name
            if entry.is_symlink():
                report.skipped.append(IngestFailure(path=_shown(entry, path), error=(
                    "a symbolic link (links are not followed, so nothing outside the folder is read; "
                    "ingest its target itself)")))
            elif name.startswith("."):
                report.skipped.append(IngestFailure(path=_shown(entry, path), error=(
                    "a hidden file (its name starts with '.')")))
            else:
                files.append(entry)
    return sorted(files)


DeckTask = tuple[str, Path, Path, str | None]
"""(kind, deck file, the ingested root, universe): one deck's reading (OCR of its pictures included), run anywhere."""
DeckRead = tuple[Deck, list[Slide]] | str
"""A deck and its slides, or the message of the error that stopped its reading."""
DeckMapper = Callable[[Callable[[DeckTask], DeckRead], list[DeckTask]], list[DeckRead]]


def read_deck_task(task: DeckTask) -> DeckRead:
    """Read one deck (``read_pptx`` or ``read_other_format``): what a Ray worker runs for ``ingest --ray``.

    An error of the deck itself comes back as its message (retrying would fail again); the driver records it
    as a failed file, as a local ingest does.
    """
    kind, file, root, universe = task
    try:
        return read_pptx(file, root, universe) if kind == "pptx" else read_other_format(file, root, universe, read_pptx)
    except (IngestError, OSError, ValueError) as exc:
        return str(exc)


def ingest_path(path: Path, store: Store, universe: str | None = None,
                read_decks: DeckMapper | None = None) -> IngestReport:
    """Ingest a deck (.pptx; .pdf, .ppt, .odp, .key), a slides JSONL file, or a folder tree of them (plus a master).

    Each file is its own all-or-nothing unit. Re-ingesting a folder also forgets the files
    ingested from it before that are no longer there (a deleted deck leaves the library).
    ``universe`` is every slide's universe; None takes each file's first folder under ``path``
    (a file directly in ``path`` gets 'Library'); ``universe_rule`` turns ``--universe-from`` into it.
    Files that are not slides, hidden files and links are listed in ``skipped``; slides that cannot
    be read, and files whose slide ids another file holds, in ``failures``. With ``read_decks``
    (``core.ray_tasks.RayMapper``: ``seek slides ingest --ray``) the decks that changed are read (and their
    pictures OCRed) as one retryable task each, then written to the store here in the same order.
    """
    path = Path(path).absolute()
    report = IngestReport()
    if not path.exists():
        raise IngestError(f"{path} does not exist")
    if path.is_symlink() and not path.is_dir():
        raise IngestError(f"{path.name} is a symbolic link; ingest the file it points to")
    path = path.resolve()
    root = path if path.is_dir() else path.parent
    files = _walk(path, report) if path.is_dir() else [path]
    digests, preread = (_read_changed_decks(files, store, root, universe, read_decks) if read_decks is not None
                        else ({}, {}))
    for file in files:
        name = file.name.lower()
        shown = _shown(file, root)
        refusal = _refusal(file)
        if refusal is not None:
            failed, reason = refusal
            if failed:
                report.files_seen += 1
                report.failures.append(IngestFailure(path=shown, error=reason))
            else:
                report.skipped.append(IngestFailure(path=shown, error=reason))
            continue
        kind = _deck_kind(file)
        if kind == "pptx":

            def read_deck(file: Path = file) -> tuple[Any, ...]:
                deck, slides = _preread(preread, file) if file in preread else read_pptx(file, root, universe)
                return slides, [deck], [], []

            _ingest_file(store, str(file), "pptx", file, report, read_deck, universe, root, digests.get(file))
        elif kind is not None:
            def read_other(file: Path = file) -> tuple[Any, ...]:
                deck, slides = (_preread(preread, file) if file in preread
                                else read_other_format(file, root, universe, read_pptx))
                return slides, [deck], [], []

            _ingest_file(store, str(file), kind, file, report, read_other, universe, root, digests.get(file))
        elif name in MASTER_NAMES and path.is_dir():
            _ingest_master(store, file, report, root)
        elif name.endswith(".jsonl") and name not in NON_SLIDE_JSONL:

            def read_jsonl(file: Path = file) -> tuple[Any, ...]:
                slides, decks, errors = read_slides_jsonl(file, universe)
                return slides, decks, [], errors

            _ingest_file(store, str(file), "jsonl", file, report, read_jsonl, universe, root)
        elif not path.is_dir():
            raise IngestError(f"{shown}: expected a deck (.pptx, .pdf, .ppt, .odp, .key), a .jsonl file or a folder")
        else:
            kind = f"a {file.suffix} file" if file.suffix else "a file without an extension"
            report.skipped.append(IngestFailure(path=shown, error=f"not slides ({kind}; seek reads .pptx, .pdf, .ppt, "
                                                                 ".pps, .odp, .key and .jsonl)"))
    if path.is_dir():
        ingested = {str(f) for f in files}
        for key in store.sources_under(str(path)):
            # A file now skipped (turned into a link, hidden) leaves the library like a deleted one.
            if key not in ingested:
                store.remove_source(key)
                report.files_removed += 1
    return report


def ingest_master(path: Path, store: Store) -> IngestReport:
    """Ingest a master case-study sheet (.csv or .jsonl); unchanged sheets are skipped like any file."""
    path = Path(path).resolve()
    if not path.is_file():
        raise IngestError(f"master sheet {path.name} does not exist")
    report = IngestReport()
    _ingest_master(store, path, report, path.parent)
    return report


def _ingest_master(store: Store, file: Path, report: IngestReport, root: Path) -> None:
    def read() -> tuple[Any, ...]:
        rows, errors = read_master(file, report.warnings, _shown(file, root))
        return [], [], rows, errors

    _ingest_file(store, str(file), "master", file, report, read, root=root)


def ingest_dataset(name: str, store: Store, data_dir: Path | None = None) -> IngestReport:
    """Ingest a named dataset from the shared data directory (only ``slidevqa`` so far)."""
    if name not in DATASETS:
        raise IngestError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")
    data_dir = Path(data_dir) if data_dir is not None else get_settings().data_dir
    source = data_dir / "slidevqa" / SLIDEVQA_TEXTS
    report = IngestReport()
    if not source.exists():
        raise IngestError(f"SlideVQA texts not found at {source}")

    def read() -> tuple[Any, ...]:
        slides = read_slidevqa(data_dir)
        return slides, _decks_of(slides), [], []

    _ingest_file(store, f"dataset:{name}", "dataset", source, report, read)
    return report
