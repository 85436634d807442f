"""A real .pptx written by python-pptx holding what text frames miss: a picture of text, SmartArt, a chart,
and a slide of text boxes only (no title placeholder). Shared by the extraction, thumbnail and page tests.

The SmartArt is built by hand as python-pptx cannot write one: a graphic frame whose
``dgm:relIds`` points at a diagram data part (``dgm:pt`` points with ``dgm:t`` text), the
same parts PowerPoint writes (layout, style and colour parts omitted: readers of the text
need only the data part).
"""

from __future__ import annotations

import io
from pathlib import Path

from lxml import etree
from PIL import Image, ImageDraw, ImageFont
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.opc.package import Part
from pptx.opc.packuri import PackURI
from pptx.util import Inches, Pt

PICTURE_WORDS = "QUARTERLY PLATYPUS REVENUE"
SMARTART_WORDS = ("Discover armadillo", "Design", "Deliver pangolin")
CHART_TITLE = "Churn by region"
CHART_AXIS = "Customers lost"
CHART_SERIES = "Wombat segment"
TEXTBOX_TITLE = "Our okapi delivery model"

_DGM = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def plain_png(color: tuple[int, int, int]) -> bytes:
    """A small PNG of one colour (a picture with nothing to read), as bytes."""
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), color).save(buffer, format="PNG")
    return buffer.getvalue()


def text_picture(path: Path, words: str = PICTURE_WORDS, size: int = 80) -> Path:
    """A PNG with ``words`` (one line per line of it) in large black letters, as a screenshot or poster would hold them."""
    lines = words.count("\n") + 1
    image = Image.new("RGB", (1800, 200 + int(lines * size * 1.4)), "white")
    font = ImageFont.truetype(_FONT, size) if Path(_FONT).exists() else ImageFont.load_default(size)
    ImageDraw.Draw(image).multiline_text((40, 100), words, fill="black", font=font, spacing=int(size * 0.4))
    image.save(path)
    return path


def _diagram_data(texts: tuple[str, ...]) -> bytes:
    points = "".join(
        f'<dgm:pt modelId="{{00000000-0000-0000-0000-00000000000{i + 1}}}"><dgm:prSet/><dgm:spPr/>'
        f'<dgm:t><a:bodyPr/><a:lstStyle/><a:p><a:r><a:rPr lang="en-US"/><a:t>{t}</a:t></a:r></a:p></dgm:t></dgm:pt>'
        for i, t in enumerate(texts)
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        f'<dgm:dataModel xmlns:dgm="{_DGM}" xmlns:a="{_A}"><dgm:ptLst>'
        f'<dgm:pt modelId="{{00000000-0000-0000-0000-000000000000}}" type="doc"><dgm:prSet/><dgm:spPr/>'
        f'<dgm:t><a:bodyPr/><a:lstStyle/><a:p><a:endParaRPr lang="en-US"/></a:p></dgm:t></dgm:pt>'
        f'{points}</dgm:ptLst><dgm:cxnLst/><dgm:bg/><dgm:whole/></dgm:dataModel>'
    ).encode()


def add_smartart(slide, texts: tuple[str, ...] = SMARTART_WORDS) -> None:
    """Put a SmartArt frame holding ``texts`` on ``slide`` (its data part related to the slide)."""
    part = Part(PackURI("/ppt/diagrams/data1.xml"),
                "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml",
                slide.part.package, _diagram_data(texts))
    rid = slide.part.relate_to(part, RT.DIAGRAM_DATA)
    frame = etree.fromstring(
        f'<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="{_A}" '
        f'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        f'<p:nvGraphicFramePr><p:cNvPr id="90" name="Diagram 1"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>'
        f'<p:xfrm><a:off x="914400" y="1828800"/><a:ext cx="7315200" cy="3657600"/></p:xfrm>'
        f'<a:graphic><a:graphicData uri="{_DGM}"><dgm:relIds xmlns:dgm="{_DGM}" r:dm="{rid}" r:lo="" r:qs="" r:cs=""/>'
        f'</a:graphicData></a:graphic></p:graphicFrame>'
    )
    slide.shapes._spTree.append(frame)


def write_visual_deck(path: Path) -> Path:
    """Four slides: a picture of text, SmartArt, a chart, text boxes only (heading larger than the body)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    prs = Presentation()
    picture = prs.slides.add_slide(prs.slide_layouts[5])
    picture.shapes.title.text = "Screenshot of the dashboard"
    picture.shapes.add_picture(str(text_picture(path.with_suffix(".png"))), Inches(0.5), Inches(2), Inches(9))

    smart = prs.slides.add_slide(prs.slide_layouts[5])
    smart.shapes.title.text = "How we work"
    add_smartart(smart)

    chart_slide = prs.slides.add_slide(prs.slide_layouts[5])
    chart_slide.shapes.title.text = "Retention"
    data = CategoryChartData()
    data.categories = ["North", "South"]
    data.add_series(CHART_SERIES, (12, 30))
    chart = chart_slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(8), Inches(4),
                                         data).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = CHART_TITLE
    chart.value_axis.has_title = True
    chart.value_axis.axis_title.text_frame.text = CHART_AXIS

    boxes = prs.slides.add_slide(prs.slide_layouts[6])
    body = boxes.shapes.add_textbox(Inches(1), Inches(1), Inches(8), Inches(3))
    body.text_frame.text = "We staff a small team that ships every two weeks."
    body.text_frame.paragraphs[0].runs[0].font.size = Pt(16)
    head = boxes.shapes.add_textbox(Inches(1), Inches(4), Inches(8), Inches(1))  # below the body, yet larger
    head.text_frame.text = TEXTBOX_TITLE
    head.text_frame.paragraphs[0].runs[0].font.size = Pt(36)
    footer = boxes.shapes.add_textbox(Inches(1), Inches(7), Inches(8), Inches(0.4))
    footer.text_frame.text = "Confidential footer in huge type"
    footer.text_frame.paragraphs[0].runs[0].font.size = Pt(60)
    prs.save(str(path))
    path.with_suffix(".png").unlink()
    return path
