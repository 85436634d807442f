"""A deterministic content-type tag for slides that arrive without one.

The original library tagged every slide (content, diagram, case_study, table,
framework, dashboard, team, ...). Ingested decks carry no tag, so one is
inferred from what python-pptx sees on the slide (tables, charts, pictures, how
many separate text boxes) and from its wording, by ordered rules: the first
rule that fires wins, so the order below is the precedence. The rules are
plain and explainable on purpose; the tag feeds the section (model.section_for),
which a rep sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text import tokenize


@dataclass(frozen=True)
class SlideShape:
    """What a slide is made of, as far as the classifier cares."""

    title: str = ""
    text: str = ""
    n_tables: int = 0
    n_charts: int = 0
    n_pictures: int = 0
    n_text_boxes: int = 0
    table_chars: int = 0
    layout: str = ""
    """The layout's kind (``extract.pptx.layout_kind``): "title", "section" or "" (JSONL rows and PDFs have none)."""


AGENDA_TITLE = re.compile(
    r"^\s*(agenda|contents|table of contents|today'?s (agenda|discussion)|outline|overview of today)\b"
    # The same slide in the other languages of a library, by its whole title: the word alone ("Sommaire",
    # "SUMÁRIO"), since some also open a content title ("Содержание понятия риска...": the content of a notion).
    r"|^\s*(sommaire|table des matières|sum[áa]rio|[íi]ndice|contenidos?|inhalt|inhaltsverzeichnis|tagesordnung|"
    r"ordine del giorno|содержание|оглавление|فهرست مطالب|目次|目录|目錄|목차)\s*[:.]?\s*$",
    re.IGNORECASE)
"""A contents slide by its title's first line, in English or (by the whole line) another language of the library;
shared by the content type and the slide role (``roles.slide_role``), so a French "Sommaire" is an agenda for both."""
_CLOSING = re.compile(
    r"^\s*(thank you|thanks|questions\??|q\s*&\s*a|contact us|next steps)\s*[!.]?\s*$", re.IGNORECASE
)
_TEAM_TITLE = re.compile(
    r"\b(team|leadership|our people|who we are|meet the|bios?|profiles?|founders?|co-founders?|"
    r"advisory board|key personnel|org(?:anisation|anization)? (?:chart|structure))\b",
    re.IGNORECASE,
)
_ROLE = re.compile(
    r"\b(ceo|cto|coo|cfo|chief [a-z]+ officer|co-?founder|founder|managing director|vice president|vp|"
    r"director|principal|partner|head of|lead data scientist|years of experience|phd|mba)\b",
    re.IGNORECASE,
)
_CASE_TITLE = re.compile(
    r"\b(case stud(?:y|ies)|success stor(?:y|ies)|client stor(?:y|ies)|customer stor(?:y|ies)|"
    r"how we helped|impact delivered)\b",
    re.IGNORECASE,
)
_CASE_PARTS = (
    re.compile(r"\b(challenge|problem|situation|business need|context)\b", re.IGNORECASE),
    re.compile(r"\b(solution|what we did|our approach|approach)\b", re.IGNORECASE),
    re.compile(r"\b(impact|results?|outcomes?|benefits?|value delivered)\b", re.IGNORECASE),
    re.compile(
        r"\b(the client|a leading|one of the (?:largest|top)|fortune \d+|global [a-z]+ (?:major|leader))\b",
        re.IGNORECASE,
    ),
)
_FRAMEWORK_TITLE = re.compile(
    r"\b(framework|operating model|maturity model|pillars|methodology|blueprint|playbook|reference architecture)\b",
    re.IGNORECASE,
)
_PROCESS_TITLE = re.compile(
    r"\b(process|roadmap|timeline|phases?|journey|workflow|steps|lifecycle)\b", re.IGNORECASE
)
_DASHBOARD = re.compile(r"\b(dashboard|kpis?|scorecard|tracker|metrics|visuali[sz]ation)\b", re.IGNORECASE)
_LAYOUT_BODY_WORDS = 20
"""A title or section-header layout holding more than this many words was reused for content (a real deck's
"Title Slide" layout with a 189-word body is not a cover)."""
_LAYOUT_TYPES = {"title": "title", "section": "section_header"}
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?\s*(?:%|x\b|k\b|m\b|mn\b|bn\b)|[$€£]\s*\d")
_KPI_FIGURES = 6
"""Figures with a unit (81%, $2.4M, 3x) that make a slide number-dense: a KPI slide, or a pictured table of them."""


def classify_content_type(shape: SlideShape) -> str:
    """The content-type tag of a slide, by the first rule that fires.

    Order: agenda and closing slides; a slide on a title or section-header layout with a short body and
    no table or chart (title, section_header: what its author made it); a table that holds most of the slide's text
    (table); charts (dashboard when there are two or more, or KPI wording); team and
    bio slides (a team title, or three or more role words); case studies (a case-study
    title, or at least three of challenge / solution / impact / client-description
    wording); frameworks; processes and three or more small boxes (diagram); number-dense KPI
    slides (dashboard); a title with almost no body (title); everything else (content).
    """
    title, text = shape.title.strip(), shape.text.strip()
    body_words = len(tokenize(text))
    if AGENDA_TITLE.search(title.splitlines()[0] if title else ""):
        return "agenda"
    if _CLOSING.search(title) and body_words < 30:
        return "closing"
    if (shape.layout in _LAYOUT_TYPES and body_words <= _LAYOUT_BODY_WORDS
            and not shape.n_tables and not shape.n_charts):
        return _LAYOUT_TYPES[shape.layout]
    if shape.n_tables and shape.table_chars >= 0.5 * max(len(text), 1):
        return "table"
    if shape.n_charts:
        return "dashboard" if shape.n_charts >= 2 or _DASHBOARD.search(title) else "chart"
    if _TEAM_TITLE.search(title) or len(_ROLE.findall(text)) >= 3:
        return "team"
    if _CASE_TITLE.search(title) or sum(bool(p.search(text)) for p in _CASE_PARTS) >= 3:
        return "case_study"
    if _FRAMEWORK_TITLE.search(title):
        return "framework"
    if _PROCESS_TITLE.search(title) or (shape.n_text_boxes >= 3 and body_words < 25 * shape.n_text_boxes):
        return "diagram"
    if _DASHBOARD.search(title) or len(_NUMBER.findall(text)) >= _KPI_FIGURES:
        return "dashboard"
    if shape.n_tables:
        return "table"
    if body_words < 8:
        return "image" if shape.n_pictures else "title"
    return "content"


PICTURED_WORDS = 20
"""A picture slide whose pictures, charts or SmartArt show this many words (OCR) is a chart, a table or a
screenshot pasted as a picture, not decoration: on the real decks "Model Comparison / Final Model (Test Data)"
(an AUROC table) and "Identify the top 5 states with the highest penetration rate..." (a bar chart) were filed
under Other by shape. 16 to 50 measured alike on the tuning decks; 8 and 12 took in screenshots of web pages
(docs/EXPERIMENT_LOG.md, 2026-12-02)."""


def filed_type(content_type: str, typed: str, pictured: str) -> str:
    """The content type a slide's section is read from: its own, except for a picture slide ("image") whose
    pictures show ``PICTURED_WORDS`` words or more (``pictured``: their OCR, chart and SmartArt words), which is
    filed by what it shows: "dashboard" (Data & Analytics) when its words (``typed`` and pictured) are
    number-dense as a KPI slide's, else "content".

    Only the section moves: the slide keeps its type, so 08 still weighs it as a picture (taking the cut off
    as well lost on the tuning decks: a screenshot's OCR is noisy evidence).
    """
    if content_type != "image" or len(tokenize(pictured)) < PICTURED_WORDS:
        return content_type
    return "dashboard" if len(_NUMBER.findall(f"{typed}\n{pictured}")) >= _KPI_FIGURES else "content"
