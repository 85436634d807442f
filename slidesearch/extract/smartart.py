"""SmartArt text, read from the diagram data part each SmartArt frame on a slide points to.

python-pptx exposes a SmartArt diagram as a bare graphic frame; its text lives in
``ppt/diagrams/dataN.xml`` (``dgm:pt`` points holding ``dgm:t`` text bodies), related to the
slide by the frame's ``dgm:relIds r:dm`` attribute.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

DIAGRAM_NS = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
DRAWING_NS = "http://schemas.openxmlformats.org/drawingml/2006/main"
RELS_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#: Point types that are connectors or layout scaffolding, never text a person typed.
_STRUCTURAL_POINTS = frozenset({"parTrans", "sibTrans", "pres"})


def diagram_data_texts(blob: bytes) -> list[str]:
    """The text of each content point of one diagram data part, in document order (empty points dropped)."""
    root = etree.fromstring(blob)
    texts: list[str] = []
    for point in root.iter(f"{{{DIAGRAM_NS}}}pt"):
        if point.get("type", "node") in _STRUCTURAL_POINTS:
            continue
        body = point.find(f"{{{DIAGRAM_NS}}}t")
        if body is None:
            continue
        paragraphs = ["".join(r.text or "" for r in p.iter(f"{{{DRAWING_NS}}}t")) for p in body.iter(f"{{{DRAWING_NS}}}p")]
        text = "\n".join(p.strip() for p in paragraphs if p.strip())
        if text:
            texts.append(text)
    return texts


def smartart_texts(slide: Any) -> list[str]:
    """The text of every SmartArt diagram on a python-pptx slide (grouped frames included)."""
    texts: list[str] = []
    for rel_ids in slide.shapes._spTree.iter(f"{{{DIAGRAM_NS}}}relIds"):
        data_rid = rel_ids.get(f"{{{RELS_NS}}}dm")
        if not data_rid or data_rid not in slide.part.rels:
            continue
        texts.extend(diagram_data_texts(slide.part.related_part(data_rid).blob))
    return texts
