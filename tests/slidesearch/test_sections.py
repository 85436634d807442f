import re

import pytest

from slidesearch.engine import SlideSearch
from slidesearch.library import Library
from slidesearch.model import Slide
from slidesearch.sections import DEFAULT_SECTIONS, SECTIONS, CarveOut, Section, SectionTable
from slidesearch.stats import library_stats

SECURITY = "Security & Compliance"


def _with_security() -> SectionTable:
    """The default table with a ninth section before Other: the whole change adding a section takes."""
    security = Section(
        name=SECURITY,
        description="security and compliance: SOC 2, ISO 27001, GDPR, data protection, audits and access controls",
        ask=re.compile(r"\b(security|compliance|soc ?2|iso ?27001|gdpr)\b", re.I),
        exclusion=r"security(?: (?:and|&) compliance)?|compliance",
        content_types=("security",),
        carve_out=CarveOut(
            title=re.compile(r"\b(soc ?2|iso ?27001|penetration test)"),
            text=re.compile(r"\b(soc 2 type ii|iso 27001 certified)"),
            hints=("soc", "iso", "penetration"),
        ),
    )
    *others, last = DEFAULT_SECTIONS.sections
    return SectionTable((*others, security, last))


def _slides() -> list[Slide]:
    slides = []
    for deck in range(6):
        topic = ("claims", "fraud", "pricing", "retail", "churn", "supply")[deck]
        rows = [
            ("case_study", f"{topic.title()} case study", f"How a client cut {topic} losses with our models."),
            ("content", f"{topic.title()} capabilities", f"What we offer for {topic} analytics teams."),
            ("framework", f"{topic.title()} approach", f"Phases of a {topic} engagement from discovery to rollout."),
            ("chart", f"{topic.title()} dashboard", f"Weekly {topic} metrics by region."),
        ]
        if deck < 3:
            rows.append(("security", f"Security controls for {topic} data",
                         f"Encryption, access controls and audit logging for {topic} security and compliance."))
        slides += [Slide(slide_id=f"d{deck}-s{i}", deck_id=f"d{deck}", deck_name=f"{topic} deck {deck}.pptx",
                         slide_number=i + 1, title=title, text=text, content_type=kind)
                   for i, (kind, title, text) in enumerate(rows)]
    # A plain content slide whose title carries the carve-out's language.
    slides.append(Slide(slide_id="soc2", deck_id="d9", deck_name="trust centre.pptx", title="SOC 2 Type II attestation",
                        text="Independent audit of our security and compliance controls, renewed every year.",
                        content_type="content"))
    return slides


@pytest.fixture(scope="module")
def library() -> Library:
    return Library.from_slides(_slides(), embedder="fast", sections=_with_security())


class TestSectionTable:
    def test_lookups_are_derived_from_the_records_in_order(self):
        assert DEFAULT_SECTIONS.names == SECTIONS
        assert DEFAULT_SECTIONS.index == {name: i for i, name in enumerate(SECTIONS)}
        assert DEFAULT_SECTIONS.by_content_type["testimonial"] == DEFAULT_SECTIONS.case_studies == SECTIONS[0]
        assert DEFAULT_SECTIONS.section_for("no_such_type", "", "") == DEFAULT_SECTIONS.default

    def test_a_ninth_section_is_one_record(self):
        table = _with_security()
        assert len(table) == 9 and table.names[-2:] == (SECURITY, "Other")
        assert table.by_content_type["security"] == SECURITY
        assert table.section_for("content", "ISO 27001 certification", "") == SECURITY
        assert table.section_for("case_study", "SOC 2 audit for a bank", "") == table.case_studies
        assert table.asked("our SOC 2 attestation") == [SECURITY]

    def test_a_table_needs_one_default_and_one_case_studies_section_and_unique_names(self):
        *others, last = DEFAULT_SECTIONS.sections
        with pytest.raises(ValueError, match="default"):
            SectionTable(others[:3])
        with pytest.raises(ValueError, match="repeat"):
            SectionTable((*others, last, last))
        with pytest.raises(ValueError, match="two sections"):
            SectionTable((*others, last, Section(name="More", description="", ask=re.compile("x"), exclusion="x",
                                                 content_types=("agenda",))))


class TestNinthSectionEndToEnd:
    def test_the_library_assigns_its_slides_by_type_and_by_carve_out(self, library):
        assert library.section_of(library.id_to_row["d0-s4"]) == SECURITY
        assert library.section_of(library.id_to_row["soc2"]) == SECURITY
        assert library.section_of(library.id_to_row["d0-s1"]) == "Capabilities & Overview"
        assert library_stats(library)["by_section"][SECURITY] == 4

    def test_a_search_asking_for_it_answers_under_its_heading(self, library):
        response = SlideSearch(library).search_v2("security and compliance controls")
        assert SECURITY in response.search_types and SECURITY in response.answer_sections
        cards = response.groups[SECURITY]
        assert cards and all(card.own_section == SECURITY for card in cards)
        assert "soc2" in {card.id for card in cards}

    def test_a_search_can_leave_it_out(self, library):
        response = SlideSearch(library).search_v2("claims analytics without security slides")
        assert response.excluded_sections == [SECURITY]
        assert SECURITY not in response.groups and response.total_matches > 0
