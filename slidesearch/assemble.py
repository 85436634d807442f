"""Deck assembly: turn chosen slide ids into a new .pptx deck (issue 11).

Slides that came from a real .pptx file are copied with their content — shapes
(text frames, tables, groups), pictures (their image parts and relationships),
hyperlinks, the background and the speaker notes — onto the layout they used,
in the order given, into a deck built on the first source deck's template (its
slide size, masters and layouts; its own slides removed). A slide whose shapes
reference a part the copier does not handle (a chart, an embedded OLE object,
SmartArt, audio or video) is rendered as a clean text slide instead, and the
result says so and why. Slides without a source file (JSONL, generated,
SlideVQA) are rendered as text slides with a footer naming their deck and slide.
A closing "Sources" slide lists every slide's deck, folder and slide number; the
deck's core properties record the query it was built from.

Unknown or out-of-scope ids are one clear error that lists them, raised before
anything is written; the file is written to a temporary name and renamed.
"""

from __future__ import annotations

import copy
import hashlib
import io
import os
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pptx import Presentation
from pptx.enum.shapes import PP_PLACEHOLDER
from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.oxml.ns import qn
from pptx.parts.image import ImagePart
from pptx.util import Emu, Pt
from pydantic import BaseModel, ConfigDict, Field

from slidesearch.config import MAX_DECK_SLIDES
from slidesearch.model import VERIFIED_PREFIX, Slide, VerifiedCaseStudy
from slidesearch.response import Card
from slidesearch.sections import DEFAULT_SECTIONS, SectionTable

if TYPE_CHECKING:
    from pptx.presentation import Presentation as PresentationType
    from pptx.slide import Slide as PptxSlide
    from pptx.slide import SlideLayout

    from slidesearch.library import Library

#: Body text of a text-rendered slide is cut here so that, at the smallest body size, it still fits the slide.
TEXT_SLIDE_BODY_CHARS = 1200
#: Body font size by body length (characters up to, points): a short slide reads at 20 pt; a full one
#: (1,200 characters) needs 12 pt to fit a title-and-content body on a 4:3 or 16:9 slide.
BODY_SIZES = ((300, 20), (700, 16), (TEXT_SLIDE_BODY_CHARS + 2, 12))
#: Lines per "Sources" slide: 18 lines at 14 pt fill a 16:9 or 4:3 slide body without overflowing.
SOURCES_PER_SLIDE = 18
MASTER_DECK_ID = "master-sheet"
MASTER_DECK_NAME = "Verified case studies (master sheet)"

_R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_LINK_TAGS = {qn("a:hlinkClick"), qn("a:hlinkHover"), qn("a:hlinkMouseOver")}
_TITLE_TYPES = {PP_PLACEHOLDER.TITLE, PP_PLACEHOLDER.CENTER_TITLE}
_BODY_TYPES = {PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT}
#: Short names for the relationship types a slide can reference, for the "why" of a text fallback.
_REL_NAMES = {
    RT.CHART: "a chart",
    RT.OLE_OBJECT: "an embedded OLE object",
    RT.PACKAGE: "an embedded package",
    RT.DIAGRAM_DATA: "SmartArt",
    RT.DIAGRAM_LAYOUT: "SmartArt",
    RT.DIAGRAM_QUICK_STYLE: "SmartArt",
    RT.DIAGRAM_COLORS: "SmartArt",
    RT.MEDIA: "embedded media",
    RT.VIDEO: "a video",
    RT.AUDIO: "audio",
    RT.SLIDE: "a link to another slide",
}


class AssembleError(ValueError):
    """A request that cannot be assembled; ``unknown`` and ``out_of_scope`` list the offending ids."""

    def __init__(self, message: str, unknown: Sequence[str] = (), out_of_scope: Sequence[str] = ()):
        super().__init__(message)
        self.unknown = list(unknown)
        self.out_of_scope = list(out_of_scope)


class AssembledSlide(BaseModel):
    """What happened to one requested slide: copied from its .pptx, or rendered as text, and why."""

    position: int = Field(description="1-based position of the slide in the assembled deck.")
    slide_id: str
    deck_name: str
    slide_number: int
    mode: Literal["copied", "text"]
    reason: str


class AssembleResult(BaseModel):
    """The assembled deck (a path when written to disk, else the bytes) and one note per requested slide."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    path: Path | None = None
    data: bytes | None = Field(default=None, repr=False, exclude=True)
    slides: list[AssembledSlide]
    n_slides: int = Field(description="Slides in the deck, including the cover and the Sources slides.")
    template: str | None = Field(description="The source deck whose template the deck is built on, if any, named by "
                                             "its place in the library (folder and file), never by a server path.")
    query: str | None = None
    seconds: float

    @property
    def copied(self) -> list[AssembledSlide]:
        return [s for s in self.slides if s.mode == "copied"]

    @property
    def rendered_as_text(self) -> list[AssembledSlide]:
        return [s for s in self.slides if s.mode == "text"]


class _Unsupported(Exception):
    """A slide the copier cannot reproduce faithfully; the message says why."""


@dataclass(frozen=True)
class _Source:
    """A source deck opened once per assembly, or the reason it could not be opened."""

    prs: PresentationType | None
    error: str | None


def resolve_slides(slide_ids: Iterable[str], library: Library, universes: Sequence[str] | None = None) -> list[Slide]:
    """The slides for ``slide_ids`` in order (duplicates dropped), or one error listing every bad id.

    A verified master-sheet card (``verified:<row_id>``, as the engine names it) becomes a
    text-only slide of its title, client, use case and summary; it is in scope in its own
    universe, or in every one when it has none.
    """
    wanted = list(dict.fromkeys(str(s) for s in slide_ids))
    if not wanted:
        raise AssembleError("no slide ids given; pass at least one slide id")
    master = {row.card_id: row for row in library.master}
    unknown = [s for s in wanted if s not in library.id_to_row and s not in master]
    scope = set(universes) if universes else None
    out_of_scope = [s for s in wanted if s not in unknown and scope is not None and not library.in_scope(s, scope)]
    if unknown or out_of_scope:
        parts = []
        if unknown:
            parts.append(f"unknown slide ids: {', '.join(unknown)}")
        if out_of_scope:
            parts.append(f"slide ids outside the universes {', '.join(sorted(scope or ()))}: {', '.join(out_of_scope)}")
        raise AssembleError("; ".join(parts) + "; nothing was written", unknown=unknown, out_of_scope=out_of_scope)
    return [library.slide(library.id_to_row[s]) if s in library.id_to_row else _verified_slide(s, master[s])
            for s in wanted]


def _verified_slide(slide_id: str, row: VerifiedCaseStudy) -> Slide:
    facts = [f"Client: {row.client}" if row.client else "", f"Use case: {row.use_case}" if row.use_case else ""]
    return Slide(
        slide_id=slide_id, deck_id=MASTER_DECK_ID, deck_name=MASTER_DECK_NAME, slide_number=0,
        title=row.title or ": ".join(p for p in (row.client, row.use_case) if p) or "Verified case study",
        text="\n".join([*[f for f in facts if f], row.summary]).strip(), content_type="case_study",
    )


def assemble(
    slide_ids: Sequence[str],
    title: str | None = None,
    query: str | None = None,
    *,
    library: Library | None = None,
    out: Path | str | None = None,
    universes: Sequence[str] | None = None,
) -> AssembleResult:
    """Build a deck from ``slide_ids`` in the order given; write it to ``out`` or return its bytes.

    ``universes`` is a scope: ids outside it are refused like unknown ones. ``title``
    adds a cover slide and names the deck; ``query`` is recorded in the core
    properties (subject and comments) and on the cover.
    """
    started = time.perf_counter()
    if library is None:
        from slidesearch.library import Library

        library = Library.open()
    slides = resolve_slides(slide_ids, library, universes)
    builder = _DeckBuilder(slides)
    notes: list[AssembledSlide] = []
    if title:
        builder.cover(title, query)
    for slide in slides:
        mode, reason = builder.add(slide)
        notes.append(
            AssembledSlide(
                position=len(builder.prs.slides), slide_id=slide.slide_id, deck_name=slide.deck_name or slide.deck_id,
                slide_number=slide.slide_number, mode=mode, reason=reason,
            )
        )
    builder.sources(slides)
    builder.properties(title, query)
    buffer = io.BytesIO()
    builder.prs.save(buffer)
    data = buffer.getvalue()
    path = _write_atomically(Path(out), data) if out is not None else None
    return AssembleResult(
        path=path, data=None if path else data, slides=notes, n_slides=len(builder.prs.slides),
        template=builder.template_name, query=query, seconds=time.perf_counter() - started,
    )


def pick_cards(groups: Mapping[str, Sequence[Card]], sections: Sequence[str] | None = None, max_slides: int = 12,
               library: Library | None = None) -> list[str]:
    """The ids of the top cards of ``sections`` (all when None) in the engine's section and card order.

    ``groups`` is a response's ``groups`` (section -> cards, in display order). When
    ``library`` is given, cards it cannot resolve (neither a slide nor a verified
    master-sheet row) are skipped. An unknown section name is an error listing the valid ones.
    """
    if not 1 <= max_slides <= MAX_DECK_SLIDES:
        raise AssembleError(f"--max must be between 1 and {MAX_DECK_SLIDES}, got {max_slides}")
    table = library.section_table if library is not None else DEFAULT_SECTIONS
    wanted = set(validate_sections(sections, table)) if sections else None
    verified = {row.card_id for row in library.master} if library is not None else set()
    picked: list[str] = []
    for section, cards in groups.items():
        if wanted is not None and section not in wanted:
            continue
        for card in cards:
            if library is not None and card.id not in library.id_to_row and card.id not in verified:
                continue
            if card.id not in picked:
                picked.append(card.id)
            if len(picked) == max_slides:
                return picked
    return picked


def validate_sections(sections: Sequence[str], table: SectionTable = DEFAULT_SECTIONS) -> list[str]:
    """Section names matched case-insensitively to ``table``'s; an unknown one is an error listing the valid names."""
    by_lower = {s.lower(): s for s in table.names}
    names = [s.strip() for s in sections if s.strip()]
    unknown = [s for s in names if s.lower() not in by_lower]
    if unknown:
        raise AssembleError(f"unknown sections: {', '.join(unknown)}; valid sections: {', '.join(table.names)}")
    return [by_lower[s.lower()] for s in names]


def _write_atomically(out: Path, data: bytes) -> Path:
    """Write to a temporary name beside ``out`` and rename, so a failure never leaves half a deck."""
    out = out.expanduser().resolve()
    if out.is_dir():
        raise AssembleError(f"{out} is a folder; give the path of the .pptx file to write")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{uuid.uuid4().hex}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out


def library_name(slide: Slide) -> str:
    """Where a slide's deck sits in the library ("/DAAIS/Sales/Fraud.pptx"): what notes and errors name.

    A source file's absolute path is the server's business; a response or an error sent to a
    caller names the deck the way the library does, by folder and file name.
    """
    name = slide.deck_name or (Path(slide.source_path).name if slide.source_path else slide.deck_id)
    return f"{slide.folder.rstrip('/')}/{name}"


class _DeckBuilder:
    """One assembly: the destination deck, the source decks opened once each, and the image parts copied."""

    def __init__(self, slides: Sequence[Slide]):
        self._sources: dict[str, _Source] = {}
        self._names = {slide.source_path: library_name(slide) for slide in slides if slide.source_path}
        self.template_path: str | None = None
        for slide in slides:
            if slide.source_path and self._source(slide.source_path).prs is not None:
                self.template_path = slide.source_path
                break
        self.prs = Presentation(self.template_path) if self.template_path else Presentation()
        _remove_all_slides(self.prs)
        self._images: dict[str, ImagePart] = {}
        self._layouts_by_name = {layout.name: layout for layout in self.prs.slide_layouts}

    @property
    def template_name(self) -> str | None:
        """The template deck's library name (``library_name``), if the deck is built on one."""
        return self._names.get(self.template_path) if self.template_path else None

    def _source(self, path: str) -> _Source:
        if path not in self._sources:
            name = self._names.get(path, Path(path).name)
            if not Path(path).is_file():
                self._sources[path] = _Source(None, f"source file {name} is missing")
            else:
                try:
                    self._sources[path] = _Source(Presentation(path), None)
                except Exception as exc:  # python-pptx raises several types for a corrupt or protected file
                    self._sources[path] = _Source(None, f"source file {name} could not be opened ({exc.__class__.__name__})")
        return self._sources[path]

    def add(self, slide: Slide) -> tuple[Literal["copied", "text"], str]:
        if slide.deck_id == MASTER_DECK_ID:
            self._text_slide(slide.title, slide.text, _footer(slide))
            return "text", "a verified case study from the master sheet (no slide of its own)"
        if not slide.source_path:
            self._text_slide(slide.title, slide.text, _footer(slide))
            return "text", "no source .pptx (JSONL, generated or dataset slide)"
        source = self._source(slide.source_path)
        if source.prs is None:
            self._text_slide(slide.title, slide.text, _footer(slide))
            return "text", source.error or "source file could not be opened"
        n = len(source.prs.slides)
        if not 1 <= slide.slide_number <= n:
            self._text_slide(slide.title, slide.text, _footer(slide))
            return "text", f"slide {slide.slide_number} not found in {library_name(slide)} ({n} slides)"
        src = source.prs.slides[slide.slide_number - 1]
        layout, layout_note = self._layout_for(src, slide.source_path)
        fit = self._fit_for(source.prs)
        try:
            self._copy(src, layout, fit)
        except _Unsupported as why:
            self._text_slide(slide.title, slide.text, _footer(slide))
            return "text", f"{why}; rendered as text"
        if fit is not None:
            layout_note += f"; scaled by {fit[0]:.2f} and centred to fit the template's slide size"
        return "copied", f"copied from {Path(slide.source_path).name} slide {slide.slide_number} ({layout_note})"

    def _fit_for(self, src_prs: PresentationType) -> tuple[float, int, int] | None:
        """(scale, dx, dy) mapping a source deck's slide size onto the template's, or None when they match.

        One uniform scale (the smaller of the two ratios) keeps pictures and diagrams in
        proportion; the slack is split evenly so the content sits centred.
        """
        src_w, src_h = src_prs.slide_width, src_prs.slide_height
        dest_w, dest_h = self.prs.slide_width, self.prs.slide_height
        if not (src_w and src_h and dest_w and dest_h) or (src_w, src_h) == (dest_w, dest_h):
            return None
        scale = min(dest_w / src_w, dest_h / src_h)
        return scale, int((dest_w - src_w * scale) / 2), int((dest_h - src_h * scale) / 2)

    def _layout_for(self, src: PptxSlide, source_path: str) -> tuple[SlideLayout, str]:
        """The destination layout for a source slide: the same one for the template deck, else by name."""
        src_layout = src.slide_layout
        if source_path == self.template_path:
            src_prs = self._source(source_path).prs
            assert src_prs is not None
            for m, master in enumerate(src_prs.slide_masters):
                for li, layout in enumerate(master.slide_layouts):
                    if layout.part is src_layout.part:
                        return self.prs.slide_masters[m].slide_layouts[li], f"layout '{src_layout.name}'"
        if src_layout.name in self._layouts_by_name:
            return self._layouts_by_name[src_layout.name], f"layout '{src_layout.name}' matched by name"
        fallback = _fewest_placeholders(self.prs)
        return fallback, f"layout '{src_layout.name}' not in the template; used '{fallback.name}'"

    def _copy(self, src: PptxSlide, layout: SlideLayout, fit: tuple[float, int, int] | None) -> None:
        """Copy one source slide onto ``layout``; on _Unsupported the half-built slide is removed again."""
        dest = self.prs.slides.add_slide(layout)
        images_before = set(self._images)
        try:
            self._fill(src, dest, fit)
        except _Unsupported:
            _remove_last_slide(self.prs)
            # Images first copied for this slide are now unreachable; forget them so no partname is handed out twice.
            for digest in set(self._images) - images_before:
                del self._images[digest]
            raise

    def _fill(self, src: PptxSlide, dest: PptxSlide, fit: tuple[float, int, int] | None) -> None:
        tree = dest.shapes._spTree
        for placeholder in list(dest.placeholders):
            tree.remove(placeholder._element)
        src_bg = src._element.cSld.bg
        if src_bg is not None:
            dest._element.cSld.insert(0, self._with_relationships(src, copy.deepcopy(src_bg), dest))
        for shape in src.shapes:
            element = self._with_relationships(src, copy.deepcopy(shape._element), dest)
            if shape.is_placeholder:
                _pin_inherited_position(element, shape)
            if fit is not None:
                _refit(element, *fit)
            tree.append(element)
        if src.has_notes_slide:
            notes = src.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                target = dest.notes_slide.notes_text_frame
                if target is not None:
                    target.text = notes.text

    def _with_relationships(self, src: PptxSlide, element: Any, dest: PptxSlide) -> Any:
        """Re-point every relationship id in a copied element at a part or link of the destination slide."""
        for node in list(element.iter()):
            for attr, rid in list(node.attrib.items()):
                if not attr.startswith(f"{{{_R_NS}}}"):
                    continue
                rel = src.part.rels.get(rid)
                if rel is None:
                    raise _Unsupported(f"refers to a missing relationship {rid}")
                if rel.is_external:
                    node.set(attr, dest.part.relate_to(rel.target_ref, rel.reltype, is_external=True))
                elif rel.reltype == RT.IMAGE:
                    node.set(attr, dest.part.relate_to(self._image_part(rel.target_part), RT.IMAGE))
                elif node.tag in _LINK_TAGS:
                    # An internal jump (to another slide of the source deck) has no target here: drop the link,
                    # keep the text it was on.
                    node.getparent().remove(node)
                    break
                else:
                    raise _Unsupported(f"contains {_REL_NAMES.get(rel.reltype, rel.reltype.rsplit('/', 1)[-1])}")
        return element

    def _image_part(self, source_part: Any) -> ImagePart:
        """A destination copy of a source image part, one per distinct image (by SHA-1) per deck."""
        blob = source_part.blob
        digest = hashlib.sha1(blob).hexdigest()
        if digest not in self._images:
            package = self.prs.part.package
            self._images[digest] = ImagePart(
                package.next_image_partname(source_part.partname.ext), source_part.content_type, package, blob
            )
        return self._images[digest]

    def _text_slide(self, title: str, body: str, footer: str | None, size: int | None = None) -> None:
        """A clean slide of text on the template's title-and-body layout (or text boxes when it has none)."""
        layout = _text_layout(self.prs)
        slide = self.prs.slides.add_slide(layout)
        title_shape = body_shape = None
        for placeholder in list(slide.placeholders):
            kind = placeholder.placeholder_format.type
            if kind in _TITLE_TYPES and title_shape is None:
                title_shape = placeholder
            elif kind in _BODY_TYPES and body_shape is None:
                body_shape = placeholder
            else:
                slide.shapes._spTree.remove(placeholder._element)
        width, height = self.prs.slide_width or Emu(9144000), self.prs.slide_height or Emu(6858000)
        margin = int(width * 0.05)
        if title_shape is None:
            title_shape = slide.shapes.add_textbox(margin, int(height * 0.04), width - 2 * margin, int(height * 0.14))
        if body_shape is None:
            body_shape = slide.shapes.add_textbox(margin, int(height * 0.2), width - 2 * margin, int(height * 0.68))
        title_shape.text_frame.text = title or "(untitled slide)"
        frame = body_shape.text_frame
        frame.word_wrap = True
        body = _clip(body)
        size = size or next(points for limit, points in BODY_SIZES if len(body) <= limit)
        lines = [line.strip() for line in body.splitlines() if line.strip()] or [""]
        frame.text = lines[0]
        for line in lines[1:]:
            frame.add_paragraph().text = line
        for paragraph in frame.paragraphs:
            for run in paragraph.runs:
                run.font.size = Pt(size)
        if footer:
            box = slide.shapes.add_textbox(margin, int(height * 0.92), width - 2 * margin, int(height * 0.06))
            box.text_frame.text = footer
            for run in box.text_frame.paragraphs[0].runs:
                run.font.size = Pt(10)
                run.font.italic = True

    def cover(self, title: str, query: str | None) -> None:
        layout = next((lay for lay in self.prs.slide_layouts
                       if any(p.placeholder_format.type == PP_PLACEHOLDER.CENTER_TITLE for p in lay.placeholders)), None)
        if layout is None:
            self._text_slide(title, f"Built from: {query}" if query else "", None)
            return
        slide = self.prs.slides.add_slide(layout)
        for placeholder in list(slide.placeholders):
            kind = placeholder.placeholder_format.type
            if kind == PP_PLACEHOLDER.CENTER_TITLE:
                placeholder.text_frame.text = title
            elif kind == PP_PLACEHOLDER.SUBTITLE and query:
                placeholder.text_frame.text = f"Built from: {query}"
            else:
                slide.shapes._spTree.remove(placeholder._element)

    def sources(self, slides: Sequence[Slide]) -> None:
        """The closing "Sources" slide(s): one line per slide with its deck, folder and slide number."""
        lines = [f"{i}. {_origin(s)}" for i, s in enumerate(slides, start=1)]
        for start in range(0, len(lines), SOURCES_PER_SLIDE):
            title = "Sources" if start == 0 else "Sources (continued)"
            self._text_slide(title, "\n".join(lines[start:start + SOURCES_PER_SLIDE]), None, size=14)

    def properties(self, title: str | None, query: str | None) -> None:
        """Core properties of the new deck, replacing the template's own (author, title, revision…)."""
        props = self.prs.core_properties
        now = datetime.now(UTC).replace(tzinfo=None)
        props.title = title or (f"Slides for: {query}" if query else "Assembled deck")
        props.subject = query or ""
        props.keywords = query or ""
        props.comments = f"Assembled by seek from the query: {query}" if query else "Assembled by seek"
        props.author = "seek"
        props.last_modified_by = "seek"
        props.category = ""
        props.created = now
        props.modified = now
        props.revision = 1


def _remove_all_slides(prs: PresentationType) -> None:
    """Empty a deck opened as a template, keeping its masters, layouts, theme and slide size."""
    while len(prs.slides):
        _remove_last_slide(prs)


def _remove_last_slide(prs: PresentationType) -> None:
    """Unlist the last slide and drop its relationship, so its part (and parts only it used) are not saved."""
    id_list = prs.slides._sldIdLst
    sld_id = id_list[-1]
    id_list.remove(sld_id)
    prs.part.drop_rel(sld_id.rId)


def _pin_inherited_position(element: Any, shape: Any) -> None:
    """Give a copied placeholder the position it inherited from its source layout, which the new layout may lack."""
    sp_pr = element.find(qn("p:spPr"))
    if sp_pr is None or sp_pr.find(qn("a:xfrm")) is not None:
        return
    if None in (shape.left, shape.top, shape.width, shape.height):
        return
    xfrm = sp_pr.get_or_add_xfrm()
    xfrm.x, xfrm.y, xfrm.cx, xfrm.cy = shape.left, shape.top, shape.width, shape.height


def _refit(element: Any, scale: float, dx: int, dy: int) -> None:
    """Scale and shift a copied shape's own transform (a group's children live in its coordinate space)."""
    for holder in (element.find(qn("p:spPr")), element.find(qn("p:grpSpPr"))):
        xfrm = holder.find(qn("a:xfrm")) if holder is not None else None
        if xfrm is not None:
            break
    else:
        xfrm = element.find(qn("p:xfrm"))  # graphic frames (tables) keep theirs outside spPr
    if xfrm is None:
        return
    off, ext = xfrm.find(qn("a:off")), xfrm.find(qn("a:ext"))
    if off is not None:
        off.set("x", str(int(int(off.get("x", "0")) * scale) + dx))
        off.set("y", str(int(int(off.get("y", "0")) * scale) + dy))
    if ext is not None:
        ext.set("cx", str(int(int(ext.get("cx", "0")) * scale)))
        ext.set("cy", str(int(int(ext.get("cy", "0")) * scale)))


def _text_layout(prs: PresentationType) -> SlideLayout:
    """The layout with a title and a body placeholder; else one with a title; else the emptiest."""
    def kinds(layout: SlideLayout) -> set[Any]:
        return {p.placeholder_format.type for p in layout.placeholders}

    layouts = list(prs.slide_layouts)
    for wanted in (lambda k: bool(k & _TITLE_TYPES) and bool(k & _BODY_TYPES), lambda k: bool(k & _TITLE_TYPES)):
        matches = [lay for lay in layouts if wanted(kinds(lay))]
        if matches:
            return min(matches, key=lambda lay: len(lay.placeholders))
    return _fewest_placeholders(prs)


def _fewest_placeholders(prs: PresentationType) -> SlideLayout:
    return min(prs.slide_layouts, key=lambda lay: len(lay.placeholders))


def _origin(slide: Slide) -> str:
    """Where a slide came from: deck, slide number and folder (or the master-sheet row)."""
    if slide.deck_id == MASTER_DECK_ID:
        return f"{MASTER_DECK_NAME} — row {slide.slide_id.removeprefix(VERIFIED_PREFIX)}"
    return f"{slide.deck_name or slide.deck_id} — slide {slide.slide_number} — {slide.folder}"


def _footer(slide: Slide) -> str:
    return f"Source: {_origin(slide)}"


def _clip(text: str) -> str:
    return text if len(text) <= TEXT_SLIDE_BODY_CHARS else text[:TEXT_SLIDE_BODY_CHARS].rstrip() + " …"
