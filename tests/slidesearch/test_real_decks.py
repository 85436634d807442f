"""Issue #17's "Why" cases on a small Drive-like tree of real .pptx decks the test writes with python-pptx.

The decks go through the real ingest path (``ingest_path`` into a ``Store``) and the library is
built from the store, as a rep's library would be. Cases this branch does not fix yet are
strict xfails naming what is missing, so they turn into failures the day they start passing.
"""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import pytest
from pptx import Presentation
from pptx.util import Inches

from slidesearch.engine import SlideSearch
from slidesearch.ingest import ingest_path
from slidesearch.library import Library, LibraryView
from slidesearch.store import Store
from tests.visual_decks import plain_png

TITLE_ONLY, TITLE_AND_BODY, TITLE_ONLY_LAYOUT, BLANK_LAYOUT = 0, 1, 5, 6


def _deck(path: Path, slides: list[tuple[str, list[str]] | tuple[str, list[str], list[tuple[str, str]]]],
          created: dt.datetime | None = None) -> None:
    """A deck of (title, body lines[, table rows]) slides: the first on the title layout, the rest title + body."""
    prs = Presentation()
    if created is not None:
        prs.core_properties.created = created
    for i, spec in enumerate(slides):
        title, lines = spec[0], spec[1]
        table = spec[2] if len(spec) > 2 else None
        if i == 0:
            slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
            slide.shapes.title.text = title
            slide.placeholders[1].text_frame.text = "\n".join(lines)
            continue
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY_LAYOUT if table else TITLE_AND_BODY])
        slide.shapes.title.text = title
        if table:
            grid = slide.shapes.add_table(len(table), 2, Inches(1), Inches(2), Inches(7), Inches(3)).table
            for r, (a, b) in enumerate(table):
                grid.cell(r, 0).text, grid.cell(r, 1).text = a, b
        elif lines:
            frame = slide.placeholders[1].text_frame
            frame.text = lines[0]
            for line in lines[1:]:
                frame.add_paragraph().text = line
        if title == "Results":
            slide.notes_slide.notes_text_frame.text = "Speaker: the zebrafish pilot is confidential, mention only if asked"
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


def _write_drive(root: Path) -> None:
    _deck(root / "Clients/Acme Telecom/Customer Analytics Case Study.pptx", [
        ("Customer Analytics Case Study", ["Acme Telecom", "March 2025"]),
        ("Agenda", ["The challenge", "What we built", "Results", "Next steps"]),
        ("The challenge", ["Acme Telecom was losing prepaid subscribers faster than it could win them",
                           "Retention offers went to every customer, at a cost the business could not sustain"]),
        ("What we built", ["A churn propensity model scoring every subscriber weekly",
                           "Targeted retention offers for the customers most likely to leave"]),
        ("Results", ["Reduced churn 18% in six months", "$2.4M a year in retained revenue",
                     "Retention spend cut by a third"]),
        ("Thank you", ["jane.doe@example.com"]),
    ])
    _deck(root / "Clients/Globex/Case Study.pptx", [
        ("Globex warehouse automation", ["Globex Logistics", "2024"]),
        ("Robotic picking", ["Autonomous picking robots in three warehouses",
                             "Order throughput up 40% with the same floor space"]),
        ("Conveyor retrofit", ["Legacy conveyors retrofitted with sensors", "Downtime halved in a year"]),
        ("Thank you", ["ops@example.com"]),
    ])
    _deck(root / "Clients/Initech/Case Study.pptx", [
        ("Initech payroll migration", ["Initech", "2023"]),
        ("Payroll on the cloud", ["Payroll for 12,000 employees moved to a cloud platform",
                                  "Month-end close three days faster"]),
        ("Controls", ["Segregation of duties enforced in the new workflow", "Audit findings down to zero"]),
        ("Questions?", []),
    ])
    for version, extra, month in (("V1", "Draft scope to be agreed", 1),
                                  ("vFinal", "Scope agreed with the steering committee", 3)):
        _deck(root / f"Proposals/Globex/Globex Analytics Proposal {version}.pptx", [
            ("Globex Analytics Proposal", ["Prepared for Globex Logistics", version]),
            ("Our approach", ["Discovery workshops with the operations team", "A demand forecasting pilot", extra]),
            ("Pricing", [], [("Item", "Fee"), ("Discovery", "$40,000"), ("Pilot", "$120,000"),
                             ("Support", "$8,000 per month")]),
            ("Payment terms", ["Invoices monthly in arrears", "Net 30 payment terms"]),
        ], created=dt.datetime(2025, month, 1))
    _deck(root / "Company/Leadership Team.pptx", [
        ("About us", ["Who we are"]),
        ("Leadership team", ["Jane Doe, CEO: 20 years in telecom analytics", "John Roe, CTO: former head of data at a bank",
                             "Ana Lima, VP Delivery: led 40 analytics programmes"]),
        ("Our offices", ["London, New York and São Paulo"]),
        ("Contact us", ["hello@example.com"]),
    ])
    # The verified master sheet a sales team keeps beside its decks (read by the same ingest).
    (root / "master.csv").write_text(
        "id,client,use case,title,summary\n"
        "M1,Acme Telecom,Customer analytics,Customer analytics for Acme Telecom,"
        "Churn propensity model for prepaid subscribers: churn reduced 18% and $2.4M a year retained\n",
        encoding="utf-8")
    _deck(root / "Japan/需要予測.pptx", [
        ("需要予測", ["小売業向けの需要予測モデル"]),
        ("需要予測の概要", ["店舗ごとの売上を機械学習で予測し、在庫を最適化します"]),
        ("導入効果", ["欠品率を30%削減", "在庫コストを15%削減"]),
        ("お問い合わせ", ["info@example.jp"]),
    ])


@pytest.fixture(scope="module", params=["minilm+mpnet", "minilm"])
def drive(request, tmp_path_factory) -> tuple[SlideSearch, dict[str, str]]:
    """The drive read by the default encoder pair and by MiniLM alone: every case holds for both."""
    root = tmp_path_factory.mktemp("drive")
    _write_drive(root / "Drive")
    store = Store(root / "library.db")
    try:
        report = ingest_path(root / "Drive", store)
        assert not report.failures
        assert report.master_rows_written == 1
        slides, master = list(store.iter_slides()), store.master_rows()
    finally:
        store.close()
    engine = SlideSearch(Library.from_slides(slides, master=master, embedder=request.param), llm="offline")
    by_title = {}
    for s in slides:
        by_title[f"{s.deck_name}#{s.title}"] = s.slide_id
    return engine, by_title


def _cards(engine: SlideSearch, query: str):
    return sorted(engine.search_v2(query).cards(), key=lambda c: -c.score)


class TestDeckVersions:
    def test_same_named_case_studies_of_two_clients_are_two_decks(self, drive):
        engine, ids = drive
        lib = engine.library
        globex = lib.canonical_decks[lib.id_to_row[ids["Case Study.pptx#Robotic picking"]]]
        initech = lib.canonical_decks[lib.id_to_row[ids["Case Study.pptx#Payroll on the cloud"]]]
        assert globex != initech

    def test_a_proposals_v1_and_vfinal_are_one_family(self, drive):
        engine, ids = drive
        lib = engine.library
        v1 = lib.canonical_decks[lib.id_to_row[ids["Globex Analytics Proposal V1.pptx#Pricing"]]]
        final = lib.canonical_decks[lib.id_to_row[ids["Globex Analytics Proposal vFinal.pptx#Pricing"]]]
        assert v1 == final

    def test_a_family_shows_its_newest_members_slide_and_names_the_other_versions(self, drive):
        engine, _ = drive
        pricing = [c for c in _cards(engine, "pricing") if c.title == "Pricing"]
        assert len(pricing) == 1
        assert pricing[0].deck_name == "Globex Analytics Proposal vFinal.pptx"
        assert pricing[0].versions == ["Globex Analytics Proposal V1.pptx"]


class TestRoles:
    def test_covers_agendas_and_closings_are_recognised(self, drive):
        engine, ids = drive
        roles = LibraryView(engine.library).roles
        row = engine.library.id_to_row
        assert roles[row[ids["Customer Analytics Case Study.pptx#Customer Analytics Case Study"]]] == "cover"
        assert roles[row[ids["Customer Analytics Case Study.pptx#Agenda"]]] == "agenda"
        assert roles[row[ids["Customer Analytics Case Study.pptx#Thank you"]]] == "closing"
        assert roles[row[ids["Customer Analytics Case Study.pptx#Results"]]] == ""

    def test_customer_analytics_case_study_shows_the_case_not_its_cover(self, drive):
        engine, ids = drive
        cards = _cards(engine, "customer analytics case study")
        cover = ids["Customer Analytics Case Study.pptx#Customer Analytics Case Study"]
        assert len(cards) > 1 and cards[0].id != cover
        acme = [c for c in cards if c.deck_name == "Customer Analytics Case Study.pptx"]
        assert acme and all(LibraryView(engine.library).roles[engine.library.id_to_row[c.id]] == "" for c in acme)
        assert all(c.section == "Case Studies" for c in acme)

    def test_customer_analytics_case_study_shows_the_results_slide(self, drive):
        engine, ids = drive
        shown = [c.id for c in _cards(engine, "customer analytics case study")]
        assert ids["Customer Analytics Case Study.pptx#Results"] in shown

    def test_customer_analytics_case_study_shows_the_verified_master_sheet_row(self, drive):
        # The floor once cut the row with the results slide (one card was left: the cover); rows now join
        # Case Studies after the floor (13), below every real slide, and the results slide stays beside them.
        engine, ids = drive
        cards = _cards(engine, "customer analytics case study")
        verified = [c for c in cards if c.verified]
        assert verified and verified[0].section == "Case Studies" and verified[0].client == "Acme Telecom"
        assert ids["Customer Analytics Case Study.pptx#Results"] in [c.id for c in cards]
        assert cards.index(verified[0]) > max(i for i, c in enumerate(cards) if c.section == "Case Studies"
                                              and not c.verified)

    def test_a_cover_is_never_the_named_entitys_guaranteed_slot(self, drive):
        engine, _ = drive
        roles = LibraryView(engine.library).roles
        for query in ("churn reduction case study", "globex case study", "acme telecom"):
            for card in _cards(engine, query):
                if card.guaranteed:
                    assert roles[engine.library.id_to_row[card.id]] == "", (query, card.title)

    def test_a_badged_card_names_the_query_term_it_holds(self, drive):
        # Through the real engine: every card the slot placed or the entity factor lifted quotes a 06b term it holds.
        # "churn pricing": the slot places "What we built" for the rare word "churn", which is no name.
        engine, _ = drive
        badged, slotted = 0, 0
        for query in ("churn pricing", "acme telecom pricing", "churn reduction case study", "acme telecom", "Initech"):
            response = engine.search_v2(query)
            by_id = {e.slide_id: e.explanation for e in engine.explain_response(response)}
            for card in response.cards():
                if card.guaranteed or card.factors.entity > 1:
                    badged, slotted = badged + 1, slotted + card.guaranteed
                    (why,) = [s for s in by_id[card.id].split(". ") if "specific term" in s]
                    assert any(f'"{t}"' in why for t in response.entity_terms), (query, why)
                    assert "name" not in why
        assert badged and slotted

    def test_a_name_only_a_cover_holds_is_said_not_hidden(self, drive):
        # Initech is named on its case study's cover alone: no card may be badged for it, and the note says where it is.
        response = drive[0].search_v2("Initech case studies")
        assert not any(c.guaranteed for c in response.cards())
        assert any('"initech"' in n and 'cover slide "Initech payroll migration"' in n for n in response.notes)
        # When a card shown does name it, nothing is said.
        assert not any("appears only on" in n for n in drive[0].search_v2("Initech").notes)

    def test_a_cover_outscoring_every_content_slide_still_leaves_an_answer(self, drive):
        # With 08's role cut off, the covers naming a client outscore the content slides; the floor once measured
        # every slide against them and 13 shows no cover, so the brief showed nothing at all.
        from slidesearch.config import SearchConfig

        engine = SlideSearch(drive[0].library, SearchConfig(low_content_weight=1.0), llm="offline")
        for query in ("Initech case studies", "Globex Analytics Proposal", "Customer Analytics Case Study"):
            assert engine.search_v2(query).cards(), query

    def test_an_agenda_brief_gets_the_agenda(self, drive):
        engine, ids = drive
        shown = [c.id for c in _cards(engine, "agenda slide")]
        assert ids["Customer Analytics Case Study.pptx#Agenda"] in shown[:3]


class TestKindsOfSlide:
    def test_a_brief_for_proof_with_numbers_leads_with_a_slide_stating_results(self, drive, request):
        if request.node.callspec.params["drive"] == "minilm+mpnet":
            # A known loss of the encoder pair (2026-12-04, logged): the brief's words match no slide (every cosine
            # under 0.07), so the blend's min-max orders noise, and the pair's noise puts the case study's challenge
            # over its results slide; the 1.25 results lift does not close it, and a stronger lift (1.5 / 2.0) or
            # kind weight (1.4 / 1.6) loses realdecks-tune. strict: the day it passes, this mark must go.
            request.applymarker(pytest.mark.xfail(strict=True, reason="the pair leads with 'The challenge'"))
        engine, _ = drive
        view = LibraryView(engine.library)
        top = _cards(engine, "proof points with numbers")[0]
        assert view.states_results[engine.library.id_to_row[top.id]], top.title

    def test_a_team_brief_shows_the_team_slide_first(self, drive):
        engine, ids = drive
        assert _cards(engine, "team slides")[0].id == ids["Leadership Team.pptx#Leadership team"]


SECTION_HEADER_LAYOUT = 2


def _layout_deck(path: Path) -> None:
    """A deck whose cover (title layout) and part openers (section-header layout) carry more words than wording
    and position alone would let a cover or divider have, and one content slide on the title layout."""
    prs = Presentation()
    cover = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    cover.shapes.title.text = "Demand Forecasting Programme"
    cover.placeholders[1].text_frame.text = ("Prepared for Globex Logistics by the analytics practice, "
                                             "London office, March 2025")
    for title, lines in (("The challenge", ["Stock-outs in 40% of stores every peak season",
                                            "Forecasts made by hand in spreadsheets"]),
                         ("Our approach", ["How we ran discovery with the operations team"]),
                         ("Forecast model", ["Gradient-boosted model per store and product",
                                             "Retrained weekly on point-of-sale data"]),
                         ("Results", ["Stock-outs down 30% in the first season"])):
        layout = SECTION_HEADER_LAYOUT if title == "Our approach" else TITLE_AND_BODY
        slide = prs.slides.add_slide(prs.slide_layouts[layout])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = "\n".join(lines)
    reused = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    reused.shapes.title.text = "Lessons learned"
    reused.placeholders[1].text_frame.text = " ".join(
        ["Forecasts are only used when planners trust them, so every forecast shows its error band"] * 3)
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


def _ingested(root: Path) -> list:
    """The slides of the decks under ``root / "Decks"``, through the real ingest path into a store."""
    store = Store(root / "library.db")
    try:
        assert not ingest_path(root / "Decks", store).failures
        return list(store.iter_slides())
    finally:
        store.close()


@pytest.fixture(scope="module")
def roles(tmp_path_factory) -> dict[str, str]:
    """Each slide's role (by title) in the ingested layout deck."""
    root = tmp_path_factory.mktemp("layouts")
    _layout_deck(root / "Decks/Demand Forecasting.pptx")
    slides = _ingested(root)
    view = LibraryView(Library.from_slides(slides, embedder="fast"))
    return {s.title: view.roles[i] for i, s in enumerate(slides)}


class TestLayoutRoles:
    def test_a_title_layout_slide_opening_the_deck_is_its_cover(self, roles):
        assert roles["Demand Forecasting Programme"] == "cover"

    def test_a_section_header_layout_slide_is_a_divider(self, roles):
        assert roles["Our approach"] == "divider"

    def test_content_slides_and_a_title_layout_reused_for_content_are_not_roles(self, roles):
        assert roles["The challenge"] == roles["Results"] == roles["Lessons learned"] == ""


def _text_box_cover_deck(path: Path) -> None:
    """A student deck: its cover is three text boxes on a blank layout (title, subtitle, the presenters with their
    numbers and school: 30 words), then four content slides."""
    prs = Presentation()
    cover = prs.slides.add_slide(prs.slide_layouts[BLANK_LAYOUT])
    for top, text in ((0.5, "Customer Segmentation"), (2.0, "Wonderful Wines of the World"),
                      (3.5, "Catarina Moreira n 20201034\nLuisa Barral n 20201045\nMaria Madalena Valerio n 20200657\n"
                            "Yu Song n 20200572\nNOVA Information Management School, Business Cases with Data Science")):
        cover.shapes.add_textbox(Inches(1), Inches(top), Inches(8), Inches(1)).text_frame.text = text
    for title, body in (("Clustering", "K-means on recency, frequency and spend gave four customer clusters"),
                        ("Cluster profiles", "Young frequent buyers, loyal collectors, occasional gifters, bargain hunters"),
                        ("Marketing suggestions", "A loyalty tier for collectors and bundles for occasional gifters"),
                        ("Next steps", "Test the bundles in two regions before the national roll-out")):
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_AND_BODY])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = body
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


def test_a_cover_of_text_boxes_naming_its_presenters_is_a_cover(tmp_path):
    # realdecks q08: such a cover ("diagram" by its three text boxes, 30 words) was the brief's first card.
    _text_box_cover_deck(tmp_path / "Decks/Wine Segmentation.pptx")
    slides = _ingested(tmp_path)
    library = Library.from_slides(slides, embedder="fast")
    roles = {s.slide_number: role for s, role in zip(slides, LibraryView(library).roles, strict=True)}
    assert roles[1] == "cover" and not any(roles[n] for n in (2, 3, 4, 5))
    cards = SlideSearch(library, llm="offline").search_v2("wine customer segmentation and marketing").cards()
    assert cards and cards[0].title != "Customer Segmentation"


def test_a_french_decks_contents_and_closing_slides_are_roles_not_answers(tmp_path):
    # realdecks: "Sommaire" (the exomos pitch's contents, listing every section) led the answer to its own
    # "Comment ça marche ?"; "SUMÁRIO", "Muchas Gracias" and "سپاس از حسن توجه شما" were read as content too.
    _deck(tmp_path / "Decks/Exomos pitch.pptx", [
        ("Exomos", ["Réduire les débris spatiaux", "Pitch 2024"]),
        ("Sommaire", ["Le problème", "La solution", "Comment ça marche ?", "Business model"]),
        ("Le problème", ["Des débris trop nombreux en orbite autour de la Terre",
                         "Risques de collision pour les satellites en activité"]),
        ("La solution", ["Un dispositif qui harponne ou prend en filet les débris"]),
        ("Comment ça marche ?", ["Élévation d'une plateforme via un ballon d'hélium",
                                 "Lancement du système de capture", "Déviation des débris vers la Terre"]),
        ("Merci pour votre attention", ["contact@exomos.example"]),
    ])
    _deck(tmp_path / "Decks/Relatório.pptx", [
        ("Relatório anual", ["Equipe de dados", "2023"]),
        ("SUMÁRIO", ["Introdução", "Resultados", "Conclusão"]),
        ("Resultados", ["Vendas cresceram 12% no ano", "Custos caíram 5% com a automação"]),
        ("Conclusão", ["A automação pagou-se em oito meses"]),
        ("Muchas Gracias", []),
    ])
    slides = _ingested(tmp_path)
    library = Library.from_slides(slides, embedder="fast")
    roles = {s.title: role for s, role in zip(slides, LibraryView(library).roles, strict=True)}
    assert roles["Sommaire"] == roles["SUMÁRIO"] == "agenda"
    types = {s.title: s.content_type for s in slides}
    assert types["Sommaire"] == types["SUMÁRIO"] == "agenda"  # one rule for the role and the section
    assert types["Comment ça marche ?"] != "agenda"
    assert roles["Merci pour votre attention"] == roles["Muchas Gracias"] == "closing"
    assert roles["Comment ça marche ?"] == roles["Resultados"] == ""
    cards = _cards(SlideSearch(library, llm="offline"), "comment ça marche")
    assert cards and cards[0].title == "Comment ça marche ?"


def _chart_picture_deck(path: Path) -> None:
    """An EDA deck whose slides hold their words in a title of several lines over a chart pasted as a picture."""
    prs = Presentation()
    cover = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
    cover.shapes.title.text = "Lending Club Case Study"
    cover.placeholders[1].text_frame.text = "Exploratory data analysis"
    for factor, kind in (("Interest rate", "Univariate"), ("Purpose", "Multivariate"), ("Term", "Bivariate"),
                         ("Debt to income ratio", "Bivariate")):
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY_LAYOUT])
        slide.shapes.title.text = f"Driving Factor of loan default:\v{factor}\v\vEDA Type:\v{kind} Analysis\vGraph Type: Bar chart"
        slide.shapes.add_picture(io.BytesIO(plain_png((30, 90, 200))), Inches(1), Inches(2), Inches(6))
    closing = prs.slides.add_slide(prs.slide_layouts[TITLE_AND_BODY])
    closing.shapes.title.text = "Thank you"
    path.parent.mkdir(parents=True, exist_ok=True)
    prs.save(str(path))


def test_a_title_of_several_lines_over_a_pasted_chart_is_no_section_divider(tmp_path):
    # realdecks q03 "loan default risk factors": six such "Driving Factor" slides (graded 3) were read as section
    # dividers. They stay typed as pictures (Other): counting the title's lines as words there too was measured
    # and not taken (docs/EXPERIMENT_LOG.md, 2026-12-03).
    _chart_picture_deck(tmp_path / "Decks/Lending Club Case Study.pptx")
    slides = _ingested(tmp_path)
    roles = LibraryView(Library.from_slides(slides, embedder="fast")).roles
    factors = [i for i, s in enumerate(slides) if s.title.startswith("Driving Factor")]
    assert len(factors) == 4
    assert all(roles[i] == "" for i in factors)
    assert roles[0] == "cover" and roles[-1] == "closing"


class TestSections:
    def test_a_pricing_table_is_filed_under_commercial_terms(self, drive):
        engine, ids = drive
        lib = engine.library
        assert lib.section_of(lib.id_to_row[ids["Globex Analytics Proposal vFinal.pptx#Pricing"]]).startswith("Commercial")

    def test_the_results_slide_of_a_case_study_deck_is_a_case_study(self, drive):
        engine, ids = drive
        lib = engine.library
        assert lib.section_of(lib.id_to_row[ids["Customer Analytics Case Study.pptx#Results"]]) == "Case Studies"
        assert lib.section_of(lib.id_to_row[ids["Leadership Team.pptx#Leadership team"]]) == "Team & Credentials"

    def test_pricing_shows_the_slide_titled_pricing(self, drive):
        engine, _ = drive
        assert "Pricing" in [c.title for c in _cards(engine, "pricing")]

    def test_why_this_never_calls_a_card_that_states_the_word_a_match_by_meaning_only(self, drive):
        engine, _ = drive
        cards = _cards(engine, "pricing")
        explained = {e.slide_id: e.explanation for e in engine.explain("pricing", [c.id for c in cards])}
        pricing = next(c for c in cards if c.title == "Pricing")
        assert "by meaning only" not in explained[pricing.id]
        for card in cards:
            if "pric" in f"{card.title} {card.preview}".lower():
                assert "by meaning only" not in explained[card.id], card.title

    def test_a_multi_part_brief_files_the_leadership_slide_under_team_whichever_angle_found_it(self, drive):
        engine, ids = drive
        response = engine.search_v2(["pricing and payment terms", "leadership team"])
        leadership = ids["Leadership Team.pptx#Leadership team"]
        assert [s for s, cards in response.groups.items() if any(c.id == leadership for c in cards)] == [
            "Team & Credentials"]
        assert all(c.section == c.own_section for c in response.cards() if not c.guaranteed)
        pricing = ids["Globex Analytics Proposal vFinal.pptx#Pricing"]
        assert any(c.id == pricing for c in response.groups.get("Commercial & Contract Terms", []))


class TestLanguages:
    def test_a_vague_english_brief_is_not_answered_by_a_slide_the_encoder_cannot_read(self, drive):
        engine, _ = drive
        cards = _cards(engine, "capability slides")
        assert all(c.deck_name != "需要予測.pptx" for c in cards)

    def test_the_japanese_deck_is_marked_unreadable_for_the_english_encoder(self, drive):
        engine, ids = drive
        unreadable = LibraryView(engine.library).unreadable
        assert unreadable[engine.library.id_to_row[ids["需要予測.pptx#導入効果"]]]
        assert not unreadable[engine.library.id_to_row[ids["Customer Analytics Case Study.pptx#Results"]]]


class TestCoverageNote:
    def test_a_dollar_figure_covers_dollar(self, drive):
        engine, _ = drive
        response = engine.search_v2("churn reduction worth dollars")
        assert "dollar" not in (response.coverage_note or "")

    def test_a_japanese_title_covers_its_own_words(self, drive):
        engine, _ = drive
        response = engine.search_v2("需要予測")
        assert "需要予測" not in (response.coverage_note or "")
        # BM25 now reads the title as character pairs, so the Japanese deck answers (its cover is a role slide).
        assert response.cards() and all(c.deck_name == "需要予測.pptx" for c in response.cards())

    def test_a_word_no_slide_holds_is_still_named(self, drive):
        engine, _ = drive
        assert "zeppelin" in (engine.search_v2("zeppelin dollars").coverage_note or "")


class TestPreview:
    def test_speaker_notes_are_searched_but_never_previewed(self, drive):
        engine, ids = drive
        cards = _cards(engine, "zebrafish pilot")
        results = [c for c in cards if c.id == ids["Customer Analytics Case Study.pptx#Results"]]
        assert results and "zebrafish" not in results[0].preview.lower()

    def test_the_preview_is_the_passage_that_matched_with_its_words_marked(self, drive):
        engine, ids = drive
        card = next(c for c in _cards(engine, "churn reduction results")
                    if c.id == ids["Customer Analytics Case Study.pptx#Results"])
        assert card.preview.startswith("Reduced churn 18%")
        assert "churn" in card.marks


def test_a_brief_naming_a_slide_by_its_title_shows_that_slide_first(tmp_path):
    # realdecks, known-item reading: "CONS OF SOFT DRINK" showed its deck-mates "PROS OF SOFT DRINK" and "ENERGY
    # DRINK VS SOFT DRINK" (lifted by 07b's expansion) and not the slide titled so; 45 of 309 titles were missed.
    _deck(tmp_path / "Decks/Crescent Pure marketing.pptx", [
        ("Crescent Pure", ["Marketing management project", "2024"]),
        ("Pros of soft drink", ["Refreshing taste loved by every age group", "Sold in every store at a low price",
                                "Sugar gives a quick burst of energy", "Strong brands and loyal drinkers"]),
        ("Cons of soft drink", ["High sugar content linked to obesity", "Empty calories with no nutrition",
                                "Acids that cause tooth decay"]),
        ("Energy drink vs soft drink", ["Energy drinks add caffeine and taurine to the soft drink formula",
                                        "Soft drinks sell on taste, energy drinks on performance",
                                        "Both face pressure over sugar content"]),
        ("Pros of sports drink", ["Electrolytes replace what sweat takes away", "Hydration during exercise"]),
        ("Cons of sports drink", ["Sugar and calories most people do not need"]),
        ("Thank you", ["team@crescent.example"]),
    ])
    slides = _ingested(tmp_path)
    library = Library.from_slides(slides, embedder="fast")
    engine = SlideSearch(library, llm="offline")
    cards = _cards(engine, "cons of soft drink")
    assert cards and cards[0].title == "Cons of soft drink"
    assert cards[0].factors.titled > 1 and all(c.factors.titled == 1 for c in cards[1:])
    explained = engine.explain("cons of soft drink", [cards[0].id])[0].explanation
    assert "its title says what the query asks for" in explained


def test_a_list_of_sources_is_back_matter_not_an_answer(tmp_path):
    # realdecks: a proposal's "References" slide (the reports it read, graded 1 at most) took one of its deck's two
    # places in "apartment hunting for newcomers in Germany's capital" and "real estate recommendation system"
    # over grade-3 slides; three tuning briefs went 0.62-0.64 -> 0.93-0.96 once such a slide was back matter.
    _deck(tmp_path / "Decks/Real estate recommender proposal.pptx", [
        ("Recommendation System: Real Estate Berlin", ["Karina Condeixa", "January 2023"]),
        ("Why is a real estate recommender system needed?", ["High rental prices for newcomers to Berlin",
                                                             "High demand and few flats on the market"]),
        ("Does real estate deliver what these customers need?", ["Newcomers to Berlin need a flat fast",
                                                                 "Demography of the city's new residents"]),
        ("Potential solution", ["MY NEW HOME: a recommendation system that matches flats to newcomers"]),
        ("References", ["Berlin among Europe's priciest cities for renting after rent cap abolished, 2021",
                        "Berlin Real Estate Report 2023, Guthmann 2023",
                        "Recommender Systems in the Real Estate Market: A Survey",
                        "https://www.statista.com/berlin-rents"]),
    ])
    slides = _ingested(tmp_path)
    engine = SlideSearch(Library.from_slides(slides, embedder="fast"), llm="offline")
    references = next(s.slide_id for s in slides if s.title == "References")
    assert engine.view.roles[engine.library.ids.index(references)] == "appendix"
    for brief in ("real estate recommendation system Berlin", "apartment hunting for newcomers in Berlin"):
        shown = [c.id for c in _cards(engine, brief)]
        assert shown and references not in shown, brief
    assert references in [c.id for c in _cards(engine, "the references slide of the Berlin proposal")]


def test_an_agenda_brief_shows_every_decks_agenda_whatever_its_words(tmp_path):
    # realdecks "agenda slide" showed 7 of 16 agendas: "TABLE OF CONTENTS" and "SUMÁRIO" never met the voters' top
    # for the brief's two words, and where they did, the deck's conclusion took both of its places.
    decks = {
        "Churn capstone.pptx": ("Table of contents", ["Introduction", "Data", "Model", "Results", "Conclusion"]),
        "Análise de vendas.pptx": ("SUMÁRIO", ["Apresentação do problema", "Fontes de dados", "Abordagem"]),
        "Pitch.pptx": ("Agenda", ["Problem", "Solution", "Market", "Team"]),
    }
    for name, (title, lines) in decks.items():
        stem = name.removesuffix(".pptx")
        _deck(tmp_path / "Decks" / name, [
            (stem, ["Final presentation", "2024"]), (title, lines),
            ("Problem statement", ["Churn is on every board agenda this year", "Support tickets double in winter"]),
            ("Exploratory data analysis", ["Sales by region and month", "Returns peak after promotions"]),
            ("Conclusion", ["The model finds most leavers early",
                            "Next steps: put a retention offer on the agenda of each segment review"]),
        ])
    slides = _ingested(tmp_path)
    engine = SlideSearch(Library.from_slides(slides, embedder="minilm"), llm="offline")
    agendas = {s.slide_id for s in slides if s.title in {"Table of contents", "SUMÁRIO", "Agenda"}}
    assert {engine.view.roles[engine.library.ids.index(a)] for a in agendas} == {"agenda"}
    shown = [c.id for c in _cards(engine, "agenda slide")]
    assert agendas <= set(shown), shown
