import json
from datetime import date

import numpy as np
import pytest

from slidesearch.config import LexicalConfig
from slidesearch.library import (
    SCHEMA_VERSION,
    Library,
    LibraryError,
    UnknownUniverseError,
)
from slidesearch.library.mining import mine_clusters, mine_taxonomy, mine_terms
from slidesearch.model import Slide, VerifiedCaseStudy, slide_document, snippet
from slidesearch.sections import SECTIONS

TOPICS = [
    (
        "Fraud detection",
        ("transaction monitoring", "money laundering", "device fingerprinting", "mule accounts"),
    ),
    ("Customer churn", ("propensity scoring", "retention offers", "subscriber tenure", "save desk")),
    (
        "Demand forecasting",
        ("store replenishment", "inventory optimisation", "promotion lift", "safety stock"),
    ),
]


def _slides(n_per_topic: int = 12) -> list[Slide]:
    slides = []
    for t, (title, terms) in enumerate(TOPICS):
        for i in range(n_per_topic):
            slides.append(
                Slide(
                    slide_id=f"t{t}-s{i}",
                    deck_id=f"deck{t}-{i % 3}",
                    deck_name=f"Topic {t} V{i % 3 + 1}.pptx",
                    folder=f"/DAAIS/Clients/Client {t}",
                    slide_number=i + 1,
                    title=f"{title} programme {i}",
                    text=f"{terms[i % 4]} for large enterprises\n{terms[(i + 1) % 4]} at scale\n"
                    f"Delivered for region {i} with {10 + i}% uplift.",
                    content_type="case_study" if i % 4 == 0 else "content",
                    deck_date=date(2024, 1 + i % 12, 1),
                )
            )
    slides.append(
        Slide(
            slide_id="rare",
            deck_id="pe",
            deck_name="PE Ops.pptx",
            folder="/S&R/Proposals",
            title="Capital call notices",
            text="Automated capital call notice generation for a private equity fund administrator.",
        )
    )
    return slides


@pytest.fixture(scope="module")
def library() -> Library:
    master = [
        VerifiedCaseStudy(
            row_id="m1", client="Acme Bank", use_case="Fraud", title="Card fraud", summary="Cut losses 30%"
        )
    ]
    return Library.from_slides(_slides(), master, embedder="fast")


class TestFromSlides:
    def test_columns_line_up_with_the_slides(self, library):
        assert library.n == len(library.ids) == len(library.snippets) == len(library.sections) == 37
        row = library.id_to_row["rare"]
        assert library.titles[row] == "Capital call notices"
        assert library.universes[row] == "S&R"
        assert library.section_of(row) == "Capabilities & Overview"
        assert library.snippets[row].startswith("Capital call notices Automated capital call")
        assert len(library.previews[row]) <= 200
        assert library.canonical_decks[library.id_to_row["t0-s1"]] == "topic 0"
        assert SECTIONS[library.sections[library.id_to_row["t0-s0"]]] == "Case Studies"
        assert np.isnan(library.deck_years[row]) and 2024 <= library.deck_years[0] < 2025

    def test_vectors_are_unit_length_float32(self, library):
        assert library.vectors.dtype == np.float32
        assert np.allclose(np.linalg.norm(library.vectors, axis=1), 1.0, atol=1e-4)
        assert library.master_vectors.shape == (1, library.vectors.shape[1])

    def test_bm25_and_rarity_find_the_rare_phrase(self, library):
        rows, _ = library.bm25.top_k(library.bm25.analyse("capital calls"), 1)
        assert library.ids[rows[0]] == "rare"
        assert library.rarity.df("capital call") == 1
        assert library.rarity.df("fraud") == 12 and library.rarity.df("fraud detection") == 12

    def test_bm25_reads_the_whole_text_stemmed_by_default(self):
        tail = "Escrow reconciliation closes the quarter."
        long_slide = Slide(slide_id="long", deck_id="d", title="Quarter close", text="filler words " * 60 + tail)
        others = [Slide(slide_id=f"o{i}", deck_id="d", title=f"Other {i}", text="pricing notes") for i in range(3)]
        assert tail not in snippet(slide_document(long_slide.title, long_slide.text))
        full = Library.from_slides([long_slide, *others], embedder="fast")
        rows, _ = full.bm25.top_k(full.bm25.analyse("reconciled escrows"), 1)
        assert full.bm25.stemmer == "english" and full.ids[rows[0]] == "long"
        cut = Library.from_slides([long_slide, *others], embedder="fast",
                                  lexical=LexicalConfig(text="snippet", stemmer=None))
        assert cut.bm25.top_k(cut.bm25.analyse("escrow reconciliation"), 1)[0].size == 0

    def test_slide_round_trips_the_model(self, library):
        assert library.slide(library.id_to_row["t1-s2"]).title == "Customer churn programme 2"

    def test_duplicate_slide_ids_are_an_error(self):
        s = _slides()[0]
        with pytest.raises(ValueError, match="duplicate slide id"):
            Library.from_slides([s, s], embedder="fast")


class TestMineClusters:
    def test_co_occurring_distinctive_terms_form_a_cluster(self, library):
        topic_of = {term: t for t, (_, terms) in enumerate(TOPICS) for term in terms}
        assert library.clusters
        for key, terms in library.clusters.items():
            topics = {topic_of[x] for x in [key, *terms] if x in topic_of}
            assert len(topics) <= 1, (key, terms)
        assert set(library.clusters["fraud detection"]) <= set(TOPICS[0][1])
        assert set(library.clusters["demand forecasting"]) <= set(TOPICS[2][1])

    def test_terms_never_share_a_word_with_their_key(self, library):
        for key, terms in library.clusters.items():
            assert all(not set(key.split()) & set(t.split()) for t in terms)

    def test_unrelated_terms_do_not_cluster(self):
        docs = ["alpha beta"] * 5 + ["gamma delta"] * 5 + ["alpha gamma"] + ["beta delta"]
        _, terms = mine_terms(docs)
        clusters = mine_clusters(terms, ["alpha", "beta", "gamma", "delta"], min_lift=1.5, min_key_slides=1)
        assert "gamma" not in clusters.get("alpha", [])
        assert "beta" in clusters["alpha"]

    def test_a_fixed_phrase_split_in_two_is_not_a_cluster(self):
        docs = ["meera varkey cofounder"] * 6 + ["gamma delta"] * 6
        _, terms = mine_terms(docs)
        assert "varkey" not in mine_clusters(terms, ["meera", "varkey"], min_key_slides=1).get("meera", [])

    def test_body_only_terms_are_never_keys(self):
        docs = ["Overview\nalpha beta"] * 5 + ["Overview\ngamma delta"] * 5
        _, terms = mine_terms(docs)
        assert mine_clusters(terms, ["alpha", "beta", "gamma", "delta"], min_lift=1.5, min_key_slides=1) == {}


class TestMineTerms:
    def test_phrases_never_span_two_lines_and_skip_stopwords(self):
        rarity, _ = mine_terms(["Capital call reporting\nQ1 results", "Payment of the capital call"])
        assert rarity.df("capital call") == 2
        assert rarity.df("reporting q1") == 0
        assert rarity.df("payment capital call") == 1
        assert rarity.df("the") == 1 and rarity.n_docs == 2

    def test_taxonomy_keeps_recurring_distinctive_terms(self):
        docs = (
            ["demand sensing for stores"] * 4
            + ["one-off mention of zebrafish"]
            + [f"filler {i}" for i in range(5)]
        )
        rarity, terms = mine_terms(docs)
        taxonomy = mine_taxonomy(terms, rarity)
        assert "demand sensing" in taxonomy and "zebrafish" not in taxonomy and "for" not in taxonomy
        assert "sensing" not in taxonomy  # only ever part of "demand sensing"

    def test_fragments_straddling_two_terms_are_not_taxonomy(self):
        docs = [f"mule accounts {w}" for w in ("large", "small", "scale") for _ in range(3)]
        docs += [f"filler {i}" for i in range(20)]
        rarity, terms = mine_terms(docs)
        taxonomy = mine_taxonomy(terms, rarity)
        assert "mule accounts" in taxonomy and "accounts large" not in taxonomy


class TestSaveAndOpen:
    def test_round_trip_keeps_everything(self, library, tmp_path):
        library.save(tmp_path / "index")
        opened = Library.open(tmp_path / "index")
        assert opened.ids == library.ids and opened.snippets == library.snippets
        assert np.array_equal(opened.sections, library.sections)
        assert np.allclose(opened.vectors, library.vectors)
        assert isinstance(opened.vectors, np.memmap)
        assert opened.rarity.df("capital call") == 1 and opened.rarity.df("nowhere at all") == 0
        assert opened.rarity.is_rare("capital call", max_count=3)
        assert opened.clusters == library.clusters and opened.taxonomy == library.taxonomy
        assert opened.master == library.master and opened.embedder_name == "fast"
        assert opened.bm25.top_k(["capital"], 1)[0].tolist() == library.bm25.top_k(["capital"], 1)[0].tolist()
        assert opened.deck_dates == library.deck_dates

    def test_an_index_embedded_by_another_model_is_refused_not_mixed(self, library, tmp_path):
        library.save(tmp_path / "index")
        meta_path = tmp_path / "index" / "meta.json"
        meta = json.loads(meta_path.read_text())
        assert meta["embedder_model"] == library.embedder_model != ""
        meta_path.write_text(json.dumps({**meta, "embedder_model": "minilm-l6-v2-int8-t128-q1"}))
        opened = Library.open(tmp_path / "index")
        with pytest.raises(LibraryError, match="embedded with minilm-l6-v2-int8-t128-q1.*rebuild"):
            opened.embedder()
        meta_path.write_text(json.dumps(meta))
        assert Library.open(tmp_path / "index").embedder().name == library.embedder_model

    def test_missing_index_says_to_run_seek_slides_index(self, tmp_path):
        with pytest.raises(LibraryError, match="seek slides index"):
            Library.open(tmp_path / "nothing")

    def test_default_path_is_under_seek_home(self, tmp_path, monkeypatch):
        monkeypatch.setenv("SEEK_HOME", str(tmp_path))
        with pytest.raises(LibraryError, match=str(tmp_path / "slides" / "index")):
            Library.open()

    def test_schema_version_mismatch_asks_for_a_rebuild(self, library, tmp_path):
        library.save(tmp_path / "index")
        meta = json.loads((tmp_path / "index" / "meta.json").read_text())
        meta["schema_version"] = SCHEMA_VERSION + 1
        (tmp_path / "index" / "meta.json").write_text(json.dumps(meta))
        with pytest.raises(LibraryError, match="rebuild it: `seek slides index` builds SEEK_HOME/slides/index"):
            Library.open(tmp_path / "index")

    @pytest.mark.parametrize(("name", "damage"), [
        ("meta.json", "{not json"),
        ("meta.json", "[]"),
        ("mined.json", "[]"),
        ("mined.json", "{}"),
        ("columns/universes.txt", ""),
        ("columns/ids.txt", "only-one-id"),
    ])
    def test_a_damaged_file_is_a_clear_library_error(self, library, tmp_path, name, damage):
        library.save(tmp_path / "index")
        (tmp_path / "index" / name).write_text(damage)
        with pytest.raises(LibraryError, match="unreadable|schema version"):
            Library.open(tmp_path / "index")

    def test_the_hint_names_the_seek_home_that_holds_a_custom_index(self, library, tmp_path):
        library.save(tmp_path / "elsewhere" / "slides" / "index")
        (tmp_path / "elsewhere" / "slides" / "index" / "mined.json").write_text("[]")
        with pytest.raises(LibraryError, match=f"SEEK_HOME={tmp_path / 'elsewhere'} seek slides index"):
            Library.open(tmp_path / "elsewhere" / "slides" / "index")

    def test_saving_over_an_existing_directory_is_refused(self, library, tmp_path):
        (tmp_path / "index").mkdir()
        with pytest.raises(FileExistsError):
            library.save(tmp_path / "index")


class TestResolveUniverses:
    @staticmethod
    def _library(universes):
        library = Library()
        library.universes = list(universes)
        return library

    def test_names_match_case_insensitively_and_keep_the_library_spelling(self):
        library = self._library(["EdTech", "DAAIS", "EdTech"])
        assert library.resolve_universes(["edtech", " DAAIS ", "EDTECH"]) == ("EdTech", "DAAIS")
        assert library.resolve_universes("daais") == ("DAAIS",)

    def test_no_scope_is_none(self):
        library = self._library(["EdTech"])
        assert library.resolve_universes(None) is None
        assert library.resolve_universes(["", "  "]) is None
        assert library.resolve_universes([]) is None

    def test_a_name_with_two_spellings_scopes_to_both(self):
        assert self._library(["Marketing", "marketing", "Sales"]).resolve_universes(["MARKETING"]) == (
            "Marketing", "marketing")

    def test_an_unknown_name_is_an_error_naming_the_known_ones(self):
        with pytest.raises(UnknownUniverseError, match="unknown universe.*Nowhere.*the library has DAAIS, EdTech") as info:
            self._library(["EdTech", "DAAIS"]).resolve_universes(["EdTech", "Nowhere"])
        assert info.value.unknown == ["Nowhere"] and isinstance(info.value, ValueError)


class TestInScope:
    def test_slides_by_universe_verified_rows_by_their_own_or_everywhere(self):
        library = Library()
        library.universes, library.ids = ["EdTech", "DAAIS"], ["s0", "s1"]
        library.id_to_row = {"s0": 0, "s1": 1}
        library.master = [VerifiedCaseStudy(row_id="A", title="a", universe="DAAIS"),
                          VerifiedCaseStudy(row_id="B", title="b")]
        assert library.in_scope("s0", ["EdTech"]) and not library.in_scope("s1", ["EdTech"])
        assert library.in_scope("verified:A", ["DAAIS"]) and not library.in_scope("verified:A", ["EdTech"])
        assert library.in_scope("verified:B", ["EdTech"]) and library.in_scope("verified:B", None)
        assert not library.in_scope("ghost", None) and not library.in_scope("verified:Z", ["EdTech"])


def test_an_index_saved_before_verified_rows_had_a_universe_opens_them_as_company_wide(library, tmp_path):
    import sqlite3

    library.save(tmp_path / "index")
    db = sqlite3.connect(tmp_path / "index" / "library.sqlite")
    db.execute("ALTER TABLE master DROP COLUMN universe")
    db.commit()
    db.close()
    opened = Library.open(tmp_path / "index")
    assert opened.master and all(row.universe is None for row in opened.master)
