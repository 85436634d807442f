import pytest

from slidesearch.roles import (
    CONTENT,
    asked_kinds,
    asked_roles,
    asks_for_results,
    asks_for_results_slides,
    deck_roles,
    slide_role,
    states_results,
)
from slidesearch.sections import DEFAULT_SECTIONS

SIX = 6  # slides in a deck long enough to open with a cover


class TestSlideRole:
    @pytest.mark.parametrize(("title", "text", "number", "role"), [
        ("Customer Analytics Case Study", "Acme Telecom | March 2025", 1, "cover"),
        ("Agenda", "Context\nWhat we did\nResults", 2, "agenda"),
        ("Table of contents", "1. Market 2. Plan", 2, "agenda"),
        ("Our Approach", "", 3, "divider"),
        ("Thank you", "jane@example.com | +1 555 0100", 6, "closing"),
        ("Questions?", "", 6, "closing"),
        ("Appendix: data dictionary", "Field | Type | Meaning " * 5, 5, "appendix"),
    ])
    def test_role_slides_are_recognised_by_wording_and_position(self, title, text, number, role):
        assert slide_role(title, text, number, 1, SIX) == role

    @pytest.mark.parametrize(("title", "text", "role"), [
        ("Sommaire", "Le problème\nLa solution\nBusiness model", "agenda"),
        ("SUMÁRIO", "Introdução\nResultados", "agenda"),
        ("Índice:", "", "agenda"),
        ("Inhaltsverzeichnis", "Markt\nPlan", "agenda"),
        ("Содержание", "Введение\nРезультаты", "agenda"),
        ("目次", "", "agenda"),
        ("Muchas Gracias", "", "closing"),
        ("Vielen Dank", "info@example.de", "closing"),
        ("سپاس از حسن توجه شما", "", "closing"),
        ("谢谢大家", "", "closing"),
        ("ありがとうございました", "", "closing"),
    ])
    def test_contents_and_closing_slides_are_recognised_in_other_languages(self, title, text, role):
        assert slide_role(title, text, 9, 1, 20) == role

    @pytest.mark.parametrize("title", [
        "Содержание понятия риска в страховании жизни:",  # "the content of the notion of risk": a content title
        "Índice de precios al consumidor",  # a price index
        "Dankzij betere data",  # Dutch "thanks to better data"
    ])
    def test_a_content_title_opening_with_such_a_word_stays_content(self, title):
        assert slide_role(title, "word " * 30, 4, 1, 20) == CONTENT

    @pytest.mark.parametrize(("title", "text"), [
        ("References", "https://github.com/slundberg/shap\nhttps://www.oreilly.com/ideas/interpretability"),
        ("References", "Berlin Real Estate Report 2023, Guthmann 2023\nStatista, 2021\nRecommender systems: a survey"),
        ("", "REFERENCES\nAndroidHive.com\nCustomerthink.com\nPlay Store"),
        ("Sources & Links", "PowerBI Dashboard\nCounty Income\nRental Costs\nSNAP Enrollees"),
        ("Bibliography", "Porter, M. Competitive Strategy. Free Press."),
        ("Works cited", "Kotler and Keller, Marketing Management"),
        ("Referências bibliográficas", "Silva, J. Estratégia de produto. São Paulo."),
        ("参考文献", "山田太郎 『需要予測』"),
    ])
    def test_a_list_of_sources_is_back_matter(self, title, text):
        # realdecks: a student deck's "References" (the reports it read, graded 1 at most) took a place of its
        # deck's two in "apartment hunting for newcomers in Germany's capital" over two grade-3 slides.
        assert slide_role(title, text, 9, 1, 12) == "appendix"

    @pytest.mark.parametrize(("title", "text"), [
        ("References", "Acme Bank\nGlobex Retail\nInitech Logistics\nWhat our clients say about us"),
        ("Client references", "Acme Bank: churn down 18%\nGlobex: $2.4M saved"),
        ("References/proof of our expertise", "Orange\nT-Mobile\nTelekom Srpske\nCosmote\nVivatel\nMtel"),
        ("Sources of revenue", "Subscriptions 60%\nServices 25%\nLicences 15% of the total"),
    ])
    def test_client_references_and_other_titles_stay_content(self, title, text):
        # In a sales deck "References" is the client list, a proof slide a case-study brief wants: only a body
        # that cites (URLs, domains, years, "et al.") makes such a title a list of sources.
        assert slide_role(title, text, 9, 1, 12) == CONTENT

    def test_a_picture_that_shows_words_under_a_title_saying_what_it_shows_is_content(self):
        # realdecks: 43 charts and screenshots pasted as pictures under a descriptive title ("Cutoff on Train Data
        # for Logistic Regression", "Results – Streamlit Frontend: Monitored Trade Visualizations") were dividers.
        chart = "Cutoff on Train Data for Logistic Regression"
        assert slide_role(chart, "", 7, 1, SIX + 6, "image", pictured="0.5 0.6 0.7 Sensitivity Specificity") == CONTENT
        assert slide_role(chart, "", 7, 1, SIX + 6, "image") == "divider"  # a photo: no words in the picture
        assert slide_role("Our approach", "", 7, 1, SIX + 6, "image", pictured="Step one Step two Step three") == \
            "divider"  # a divider's title says no more than where the deck is
        titles, texts, numbers = ["Churn model"] + [chart] * 5, [""] + ["text " * 20] * 5, list(range(1, 7))
        types = ["title", "image", "content", "content", "content", "content"]
        with_words = deck_roles(titles, texts[:1] + [""] + texts[2:], numbers, ["d"] * 6, types,
                                ["", "Sensitivity Specificity 0.7", "", "", "", ""])
        without = deck_roles(titles, texts[:1] + [""] + texts[2:], numbers, ["d"] * 6, types)
        assert (with_words[1], without[1]) == (CONTENT, "divider")

    def test_a_title_of_several_lines_over_a_pasted_chart_is_not_a_divider(self):
        # realdecks: six "Driving Factor" slides of a loan-default deck (graded 3) were cut as dividers: their
        # words sit in a title of several lines (vertical tabs in .pptx) over a chart pasted as a picture.
        title = "Driving Factor :\x0bPurpose\x0b\x0bEDA Type:\x0bMultivariate Analysis\x0bGraph Type:\x0bPivot Table, Bar chart"
        assert slide_role(title, "", 4, 1, SIX, "image") == CONTENT
        assert slide_role("Driving Factor :", "", 4, 1, SIX, "image") == "divider"

    def test_a_results_slide_says_something(self):
        text = "Reduced churn 18% in six months, worth $2.4M a year in retained revenue for the client."
        assert slide_role("Results", text, 4, 1, SIX) == CONTENT

    def test_a_first_slide_with_a_chart_or_a_long_body_is_not_a_cover(self):
        assert slide_role("Revenue by region", "EMEA 40% APAC 30%", 1, 1, SIX, "chart") == CONTENT
        assert slide_role("Overview", "word " * 45, 1, 1, SIX) == CONTENT

    def test_a_deck_opening_with_its_presenters_names_and_numbers_opens_with_a_cover(self):
        # 30 words: the names and student numbers of four presenters, the school and the term.
        body = ("Wonderful Wines of the World\nCatarina Moreira n 20201034\nLuisa Barral n 20201045\n"
                "Maria Madalena Valerio n 20200657\nYu Song n 20200572\n"
                "NOVA Information Management School Business Cases with Data Science (Spring 2020/2021)")
        assert slide_role("Customer Segmentation", body, 1, 1, SIX) == "cover"
        # Three text boxes make a "diagram", which is what a cover is made of; a drawn chart or table is not.
        assert slide_role("ENERGY DRINK", "MARKET ANALYSIS\nSQL Project\nVanshita Mathur", 1, 1, SIX, "diagram") == "cover"
        assert slide_role("Our process", "Discover\nDesign\nDeliver", 3, 1, SIX, "diagram") == CONTENT
        assert slide_role("Revenue", "EMEA APAC", 1, 1, SIX, "table") == CONTENT
        # A title phrase and the author's name set in a table for layout is a cover all the same.
        title = "Proposta de uma metodologia para concepção de novos produtos e MVP"
        assert slide_role(title, "Lucas Bibiano Knaak", 1, 1, SIX, "table") == "cover"
        assert slide_role(title, "Lucas Bibiano Knaak", 2, 1, SIX, "table") == CONTENT
        assert slide_role(title, "Fase 1 | Fase 2 | Fase 3\nPesquisa | Protótipo | Teste", 1, 1, SIX, "table") == CONTENT
        # A library holding slides 10-15 of a deck cannot tell its slide 10 opens it: the stricter 16 words hold.
        assert slide_role("Customer Segmentation", body, 10, 10, SIX) == CONTENT

    def test_a_short_handout_has_no_cover_or_dividers(self):
        assert slide_role("Customer dashboard", "NPS and churn", 1, 1, 2) == CONTENT
        assert slide_role("Pricing", "", 2, 1, 2) == CONTENT

    def test_closing_wording_over_a_long_body_is_content(self):
        assert slide_role("Next steps and contact", "word " * 60, 6, 1, SIX) == CONTENT

    def test_a_section_header_slide_is_a_divider_whatever_its_wording(self):
        body = "How we ran discovery with the client's operations team"
        assert slide_role("Our approach", body, 3, 1, SIX) == CONTENT
        assert slide_role("Our approach", body, 3, 1, SIX, "section_header") == "divider"

    def test_a_first_slide_of_the_title_type_is_a_cover_past_the_word_limit(self):
        body = ("Prepared for Acme Telecom by the analytics practice, London office, March 2025, confidential draft for "
                "the steering committee review, with the discovery findings, the pilot design, the measured results, "
                "the roll-out plan and the commercial terms the client asked us to set out in this document")
        assert slide_role("Customer Analytics", body, 1, 1, SIX) == CONTENT
        assert slide_role("Customer Analytics", body, 1, 1, SIX, "title") == "cover"

    def test_deck_roles_finds_each_decks_first_slide(self):
        roles = deck_roles(["Deck A", "Deck B", "Body"] + ["Body"] * 6, ["", "", "text " * 20] + ["text " * 20] * 6,
                           [3, 1, 4, 5, 6, 2, 3, 4, 5], ["a", "b", "a", "a", "a", "b", "b", "b", "b"],
                           ["content"] * 9)
        assert roles[:3] == ["cover", "cover", CONTENT]


class TestAskedRoles:
    def test_a_brief_that_names_a_kind_of_slide_asks_for_it(self):
        assert asked_roles(["agenda slide for a kickoff"]) == {"agenda"}
        assert asked_roles(["thank you slide", "appendix"]) == {"closing", "appendix"}
        assert asked_roles(["the references slide"]) == asked_roles(["bibliography"]) == {"appendix"}

    def test_a_topical_brief_asks_for_no_role(self):
        assert asked_roles(["customer analytics case study"]) == frozenset()
        assert asked_roles(["client references in banking"]) == frozenset()


class TestResults:
    @pytest.mark.parametrize(("title", "text"), [
        ("Results", "Reduced churn 18% in six months\n$2.4M a year in retained revenue"),
        ("Model performance", "Random forest: accuracy 0.91, recall 0.87"),
        ("What changed", "Order throughput up 40% with the same floor space"),
    ])
    def test_a_slide_stating_a_quantified_outcome_states_results(self, title, text):
        assert states_results(title, text)

    @pytest.mark.parametrize(("title", "text"), [
        ("Results", "The pilot is still running; we will report in the spring"),
        ("Pricing", "Discovery $40,000\nPilot $120,000"),
        ("Market size", "The market is worth $4bn and 12% of it is online"),
    ])
    def test_figures_without_an_outcome_or_an_outcome_without_figures_do_not(self, title, text):
        assert not states_results(title, text)

    def test_case_study_and_results_briefs_want_results(self):
        assert asks_for_results(["customer analytics case study"])
        assert asks_for_results(["results slide with model accuracy numbers"])
        assert not asks_for_results(["pricing", "our team"])


class TestKinds:
    @pytest.mark.parametrize(("brief", "section"), [
        ("a team slide", "Team & Credentials"),
        ("our methodology", "Approach & Methodology"),
        ("capability slides", "Capabilities & Overview"),
        ("the methodology slides for the retail pilot", "Approach & Methodology"),
    ])
    def test_a_brief_asking_for_a_kind_of_slide_names_its_section(self, brief, section):
        assert asked_kinds(brief, DEFAULT_SECTIONS) == [section]

    @pytest.mark.parametrize("brief", [
        "how people get their news online",
        "content marketing strategy frameworks",
        "slides on employee engagement drivers and recognition",
    ])
    def test_a_topical_brief_holding_a_sections_word_asks_for_no_kind(self, brief):
        assert asked_kinds(brief, DEFAULT_SECTIONS) == []

    def test_results_slides_are_asked_for_as_a_kind_not_by_a_clients_case_studies(self):
        assert asks_for_results_slides(["results slide with model accuracy numbers"])
        assert asks_for_results_slides(["case study results"])
        assert not asks_for_results_slides(["Lumcrest Retail case studies"])
