from datetime import date

import pytest
from pydantic import ValidationError

from slidesearch.model import (
    Slide,
    VerifiedCaseStudy,
    canonical_deck_id,
    decimal_year,
    deck_families,
    preview,
    section_for,
    snippet,
    universe_for,
)
from slidesearch.sections import SECTIONS


class TestSections:
    def test_there_are_eight_sections_in_the_contract_order(self):
        assert SECTIONS == (
            "Case Studies",
            "Approach & Methodology",
            "Data & Analytics",
            "Capabilities & Overview",
            "Team & Credentials",
            "Credibility & Recognition",
            "Commercial & Contract Terms",
            "Other",
        )

    @pytest.mark.parametrize(
        ("content_type", "section"),
        [
            ("case_study", "Case Studies"),
            ("framework", "Approach & Methodology"),
            ("table", "Data & Analytics"),
            ("dashboard", "Data & Analytics"),
            ("content", "Capabilities & Overview"),
            ("team", "Team & Credentials"),
            ("agenda", "Other"),
            ("something_new", "Capabilities & Overview"),
        ],
    )
    def test_content_type_maps_to_its_section(self, content_type, section):
        assert section_for(content_type, "Retail demand sensing", "Weekly forecasts per store") == section

    def test_award_title_is_carved_out_to_credibility(self):
        assert (
            section_for("content", "Named a Leader in the Everest Group PEAK Matrix", "")
            == "Credibility & Recognition"
        )
        assert section_for("content", "Why choose us", "Ten years of delivery") == "Credibility & Recognition"

    def test_payment_terms_are_carved_out_to_commercial(self):
        assert section_for("content", "Scope of Work", "Phase 1 discovery") == "Commercial & Contract Terms"
        assert section_for("table", "Milestones", "Payment terms: net 45 days from invoice") == (
            "Commercial & Contract Terms"
        )

    def test_case_studies_and_team_slides_keep_their_section_despite_award_words(self):
        assert section_for("case_study", "Award-winning fraud model for a bank", "") == "Case Studies"
        assert section_for("team", "Leadership recognised by Gartner", "") == "Team & Credentials"

    def test_a_passing_mention_of_an_analyst_in_the_body_is_not_a_carve_out(self):
        assert section_for("content", "Market sizing", "Gartner estimates the market at $4B") == (
            "Capabilities & Overview"
        )


class TestCanonicalDeckId:
    @pytest.mark.parametrize(
        "name",
        [
            "Retail Analytics V1.pptx",
            "Retail Analytics v2.pptx",
            "Retail Analytics vFinal.pptx",
            "Retail_Analytics_final.pptx",
            "Copy of Retail Analytics draft.pptx",
            "Retail-Analytics_20251012.pptx",
            "Retail Analytics (1).pptx",
            "Retail Analytics Oct 2025 v3 FINAL.pptx",
        ],
    )
    def test_versions_drafts_copies_and_dates_fold_into_one_deck(self, name):
        assert canonical_deck_id(name) == "retail analytics"

    def test_different_decks_stay_different(self):
        assert canonical_deck_id("Deck 1 V1.pptx") != canonical_deck_id("Deck 2 V1.pptx")

    def test_a_name_made_only_of_markers_keeps_its_words(self):
        assert canonical_deck_id("Final Draft.pptx") == "final draft"


class TestDeckFamilies:
    words_a = frozenset(["churn", "reduction", "telecom", "retention", "model", "results"])
    words_b = frozenset(["seed", "round", "pitch", "market", "size", "team", "ask"])

    def test_same_named_decks_in_different_folders_with_different_words_stay_apart(self):
        family = deck_families([("d1", "Case Study.pptx", "/Acme", self.words_a),
                                ("d2", "Case Study.pptx", "/Globex", self.words_b)])
        assert family["d1"] != family["d2"]

    def test_versions_in_one_folder_are_one_family(self):
        family = deck_families([("d1", "Proposal V1.pptx", "/Acme", self.words_a),
                                ("d2", "Proposal vFinal.pptx", "/Acme", self.words_b)])
        assert family["d1"] == family["d2"] == "proposal"

    def test_a_copy_moved_to_another_folder_joins_its_family_by_its_words(self):
        family = deck_families([("d1", "Churn Study V1.pptx", "/Drafts", self.words_a),
                                ("d2", "Copy of Churn Study.pptx", "/Final", self.words_a | {"appendix"})])
        assert family["d1"] == family["d2"]


class TestSnippetAndPreview:
    def test_snippet_is_600_and_preview_200_characters_with_whitespace_collapsed(self):
        text = "word   \n" * 400
        assert len(snippet(text)) == 600
        assert len(preview(text)) == 200
        assert "  " not in snippet(text)


class TestSlide:
    def test_derived_values(self):
        slide = Slide(
            slide_id="s1",
            deck_id="d1",
            deck_name="Fraud Analytics V2.pptx",
            folder="DAAIS\\Sales\\Collateral\\",
            title="Fraud detection",
            text="Real-time scoring of card transactions",
            content_type="Case_Study",
            deck_date=date(2025, 7, 2),
        )
        assert slide.folder == "/DAAIS/Sales/Collateral"
        assert slide.universe == "DAAIS"
        assert slide.content_type == "case_study"
        assert slide.section == "Case Studies"
        assert slide.canonical_deck_id == "fraud analytics"
        assert slide.snippet.startswith("Fraud detection Real-time scoring")

    # An AUROC table and a bar chart pasted as pictures, as OCR reads them (both seen on the real decks).
    PICTURED_TABLE = ("Model Accuracy Recall Precision Logistic regression 81% 52% 60% Decision tree 77% 41% 55% "
                      "Random forest 83% 56% 64% Gradient boosting 84% 57% 66% on the held-out test data")
    PICTURED_CHART = ("Top states by penetration rate in FY24 Goa Kerala Karnataka Maharashtra Delhi Bottom five "
                      "states by penetration rate Bihar Assam Jharkhand Punjab Odisha across two wheeler sales")

    @pytest.mark.parametrize(("field", "words", "section"), [
        ("picture_text", PICTURED_TABLE, "Data & Analytics"),         # six KPI figures or more: data
        ("picture_text", PICTURED_CHART, "Capabilities & Overview"),  # words, few figures: content
        ("chart_text", PICTURED_TABLE, "Data & Analytics"),
        ("smartart_text", PICTURED_CHART, "Capabilities & Overview"),
        ("picture_text", "Photo of our team at the offsite", "Other"),  # a few words: a picture, filed as one
        ("notes", PICTURED_CHART, "Other"),                            # notes are not what the slide shows
    ])
    def test_a_picture_slide_is_filed_by_the_words_its_pictures_show(self, field, words, section):
        slide = Slide(slide_id="s", deck_id="d", title="Model comparison", content_type="image", **{field: words})
        assert slide.section == section
        assert slide.content_type == "image"  # only the section moves: 08 still weighs it as a picture

    def test_only_picture_slides_are_refiled(self):
        slide = Slide(slide_id="s", deck_id="d", title="Thank you", content_type="closing",
                      picture_text=self.PICTURED_TABLE)
        assert slide.section == "Other"

    def test_title_already_at_the_start_of_the_text_is_not_repeated(self):
        slide = Slide(slide_id="s", deck_id="d", title="Agenda", text="Agenda\nIntro\nClose")
        assert slide.snippet == "Agenda Intro Close"

    def test_universe_aliases_fold_and_unknown_top_folder_becomes_universe(self):
        assert universe_for("/Sales & Research/Clients") == "S&R"
        assert universe_for("/edtech/x") == "EdTech"
        assert universe_for("/Marketing/x") == "Marketing"
        assert universe_for("/", "S&R") == "S&R"

    def test_unknown_fields_and_empty_ids_are_rejected(self):
        with pytest.raises(ValidationError):
            Slide(slide_id="", deck_id="d")
        with pytest.raises(ValidationError):
            Slide(slide_id="s", deck_id="d", colour="red")

    def test_decimal_year(self):
        assert decimal_year(date(2024, 1, 1)) == 2024.0
        assert 2025.49 < decimal_year(date(2025, 7, 2)) < 2025.51
        assert decimal_year(None) != decimal_year(None)  # NaN


class TestVerifiedCaseStudy:
    def test_numeric_row_id_becomes_text_and_document_holds_every_field(self):
        row = VerifiedCaseStudy(
            row_id=7, client="Acme Bank", use_case="Fraud", title="Cut fraud", summary="Saved $4M"
        )
        assert row.row_id == "7"
        assert all(part in row.document for part in ("Acme Bank", "Fraud", "Cut fraud", "Saved $4M"))
