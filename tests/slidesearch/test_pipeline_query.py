from dataclasses import replace

import numpy as np
import pytest

from core.lexical import BM25Index
from core.rarity import DocFreqTable
from llm_adapters import FakeModel, LLMError
from slidesearch.pipeline.answer.coverage import absent_in_scope, coverage_note, uncovered_terms
from slidesearch.pipeline.query.classify import CaseStudiesSafetyNet, ExclusionCarveOut, excluded_sections
from slidesearch.pipeline.query.expand import (
    WorldReply,
    cluster_terms,
    merge_terms,
    taxonomy_terms,
    world_terms,
)
from slidesearch.pipeline.query.names import (
    name_like_words,
    person_names,
    rare_phrases,
    rare_words,
    written_as_a_name,
)
from slidesearch.pipeline.query.normalise import EmptyQueryError, NormaliseAngles, split_angles
from slidesearch.pipeline.state import LLMStep, SearchState, SectionChoice
from slidesearch.sections import DEFAULT_SECTIONS, SECTIONS


class TestNormaliseAngles:
    def test_a_string_becomes_one_angle(self):
        assert split_angles("  customer   analytics ", 100, 8) == ("customer analytics",)

    def test_angles_are_deduplicated_case_insensitively(self):
        assert split_angles(["Fraud", "fraud", "KYC"], 100, 8) == ("Fraud", "KYC")

    def test_long_angle_is_cut_on_a_word_boundary(self):
        (angle,) = split_angles("word " * 100, 42, 8)
        assert len(angle) <= 42 and angle.endswith("word")

    def test_extra_angles_join_the_last_one(self):
        assert split_angles(["a1", "b2", "c3", "d4"], 100, 3) == ("a1", "b2", "c3 d4")

    @pytest.mark.parametrize("query", ["", " \t\n", ["", " "], "\u0000\u0001"])
    def test_nothing_searchable_is_an_empty_query_error(self, query):
        with pytest.raises(EmptyQueryError):
            split_angles(query, 100, 8)

    def test_non_string_angles_are_a_type_error(self):
        with pytest.raises(TypeError):
            split_angles(["ok", 3], 100, 8)  # type: ignore[list-item]

    def test_a_limit_that_changes_the_brief_is_said_in_a_note(self):
        merged = NormaliseAngles(1000, 8).run(SearchState(query=tuple(f"angle {i}" for i in range(10))))
        assert len(merged.angles) == 8 and "angles 8 to 10 were searched together" in merged.notes[0]
        cut = NormaliseAngles(100, 8).run(SearchState(query=("data " * 40 + "capital call",)))
        assert "capital" not in cut.angles[0] and "first 100 characters" in cut.notes[0]
        assert NormaliseAngles(100, 8).run(SearchState(query=("ok", "OK", "fine"))).notes == ()

    def test_stage_returns_a_new_state(self):
        state = SearchState(query=(" x  y ",))
        out = NormaliseAngles(100, 8).run(state)
        assert out.angles == ("x y",) and state.angles == () and state.query == (" x  y ",)


class TestExclusionCarveOut:
    @pytest.mark.parametrize("text", [
        "create a second deck without case studies and demoes... only retain the capability slides",
        "fraud detection, excluding case studies", "no case studies please", "skip the case studies",
        "not including case studies", "skipping case studies", "exclude case-studies",
        "customer analytics w/o case studies", "leaving out case studies", "don't include case studies",
        "do not include any case studies", "analytics minus the case studies", "don’t include case studies",
        "workforce analytics w/out case studies", "analytics but not case studies", "analytics, not case studies",
        "anything other than case studies", "analytics sans case studies",
    ])
    def test_case_study_exclusions(self, text):
        assert "Case Studies" in excluded_sections(text, DEFAULT_SECTIONS)

    @pytest.mark.parametrize(("text", "section"), [
        ("analytics without approach and methodology", "Approach & Methodology"),
        ("no dashboards", "Data & Analytics"),
        ("without capabilities", "Capabilities & Overview"),
        ("no team slides", "Team & Credentials"),
        ("excluding awards", "Credibility & Recognition"),
        ("without pricing", "Commercial & Contract Terms"),
        ("skip other slides", "Other"),
    ])
    def test_every_section_name_can_be_excluded(self, text, section):
        assert excluded_sections(text, DEFAULT_SECTIONS) == {section}

    def test_a_list_after_one_negation(self):
        assert excluded_sections("without case studies or pricing", DEFAULT_SECTIONS) == {"Case Studies", "Commercial & Contract Terms"}

    @pytest.mark.parametrize("text", ["blackrock case studies", "capability gaps with no data migration", "dw/ops case studies",
                                      "case studies where no overview existed before"])
    def test_ordinary_queries_exclude_nothing(self, text):
        assert "Case Studies" not in excluded_sections(text, DEFAULT_SECTIONS)
        assert "Data & Analytics" not in excluded_sections(text, DEFAULT_SECTIONS)

    def test_excluded_section_leaves_both_lists_and_the_safety_net_stays_off(self):
        state = SearchState(query=("fraud without case studies",), angles=("fraud without case studies",),
                            classified=SectionChoice(SECTIONS[:4], SECTIONS[:2]))
        out = CaseStudiesSafetyNet(DEFAULT_SECTIONS).run(ExclusionCarveOut(DEFAULT_SECTIONS).run(state))
        assert "Case Studies" not in out.sections.search and "Case Studies" not in out.sections.answer
        assert out.excluded == {"Case Studies"}

    def test_safety_net_adds_case_studies_otherwise(self):
        state = SearchState(query=("team bios",), angles=("team bios",),
                            carved=SectionChoice(("Team & Credentials",), ("Team & Credentials",)))
        out = CaseStudiesSafetyNet(DEFAULT_SECTIONS).run(state)
        assert out.sections.search == ("Case Studies", "Team & Credentials") == out.sections.answer

    def test_excluding_everything_chosen_searches_the_rest(self):
        state = SearchState(query=("no case studies",), angles=("no case studies",),
                            classified=SectionChoice(("Case Studies",), ("Case Studies",)))
        out = ExclusionCarveOut(DEFAULT_SECTIONS).run(state)
        assert out.carved.search == tuple(s for s in SECTIONS if s != "Case Studies")


def _table() -> DocFreqTable:
    docs = ["capital call notice automation", "capital markets overview", "call centre analytics",
            "capital call reporting for funds"] + ["capital markets", "call centre", "reporting suite"] * 8 + ["blackrock data"]
    return DocFreqTable.build(docs, stopwords=frozenset({"and", "for"}))


class TestNameDetectors:
    def test_rare_word(self):
        assert rare_words("blackrock case studies", _table(), 3) == ["blackrock"]

    @pytest.mark.parametrize(("angle", "words", "names"), [
        # ordinary English words the encoder holds whole are not names, however rare in a small library
        ("why junior engineers are quitting the electricity producer", ["engineers", "electricity"], []),
        ("celebrity to front an electric car debut", ["front", "car"], []),
        # invented and foreign names are cut into word pieces
        ("initech case studies", ["initech"], ["initech"]),
        ("blackrock case studies", ["blackrock"], ["blackrock"]),
        ("modelo de churn telefonía prepaga", ["telefonía", "prepaga"], ["telefonía", "prepaga"]),
        # a capital past the first word marks a name; the first word's capital is grammar
        ("pitch for Drake beverages", ["drake"], ["drake"]),
        ("Inventory problems of a trading firm", ["inventory"], []),
    ])
    def test_name_like_words(self, angle, words, names):
        assert name_like_words(angle, words) == names

    def test_a_word_the_slides_write_as_a_name_is_a_name(self):
        # "shell case studies" typed in lower case: the library says "we worked with Shell", so Shell is a client
        slides = {"shell": ["We worked with Shell on a refinery study.", "Shell Energy Overview"],
                  "electricity": ["Electricity Consumption Forecast", "electricity demand grows each winter"]}

        def written(word):
            return written_as_a_name(word, slides[word])

        assert name_like_words("shell case studies", ["shell"], written) == ["shell"]
        assert name_like_words("why engineers quit the electricity producer", ["electricity"], written) == []

    @pytest.mark.parametrize(("word", "texts", "named"), [
        ("apple", ["for Apple in 2020", "Our client, Apple, asked"], True),
        ("shell", ["a shell script runs nightly", "with Shell"], True),       # as often a name as a word
        ("shell", ["a shell script", "the shell", "with Shell"], False),      # more often a word
        ("electricity", ["Electricity Consumption Forecast"], False),        # Title Case is no evidence
        ("electricity", ["Electricity demand grows."], False),               # nor a sentence's first word
        ("shell", [], False),
    ])
    def test_written_as_a_name(self, word, texts, named):
        assert written_as_a_name(word, texts) is named

    def test_rare_phrase_without_any_rare_word(self):
        table = _table()
        assert rare_words("capital call reporting", table, 3) == []
        assert "capital call" in rare_phrases("capital call reporting", table, 3)

    @pytest.mark.parametrize(("query", "names"), [
        ("Anand S profile", ["anand s"]),
        ("who is Naveen Gattu", ["naveen gattu"]),
        ("Profile of Anand", ["anand"]),
        ("resume for Priya Raman and Tom Lee", ["priya raman", "tom lee"]),
        ("Naveen Gattu", []),
        ("Capital call reporting", []),
        ("CV of Tom Lee", ["tom lee"]),
        ("who were Tom and Ann", ["tom", "ann"]),
        # "who is" asks about a person only when a name follows; otherwise it asks about a topic.
        ("who is winning India's election on social media", []),
    ])
    def test_person_names_only_on_profile_wording(self, query, names):
        assert person_names(query) == names


class TestExpansion:
    def test_cluster_fires_on_whole_words_only(self):
        clusters = {"cdp": ["customer data platform", "identity resolution"]}
        assert cluster_terms("CDP rollout", clusters) == ["customer data platform", "identity resolution"]
        assert cluster_terms("cdpx rollout", clusters) == []

    def test_taxonomy_keeps_terms_over_the_cutoff_best_first(self):
        vectors = np.array([[1, 0], [0.8, 0.6], [0, 1]], dtype=np.float32)
        assert taxonomy_terms(np.array([1, 0], dtype=np.float32), ["a", "b", "c"], vectors, 0.68, 300) == ["a", "b"]

    def test_merge_dedupes_caps_and_drops_the_angle_itself(self):
        terms = merge_terms(["fraud"], [["Fraud", "AML", "aml", *[f"t{i}" for i in range(20)]]], 10)
        assert terms[0] == "AML" and len(terms) == 10 and "Fraud" not in terms

    def test_merge_round_robins_over_angles(self):
        assert merge_terms(["a", "b"], [["a1", "a2", "a3"], ["b1"]], 3) == ["a1", "b1", "a2"]

    def test_world_terms_kept_only_over_the_cutoff(self):
        angle = np.array([1.0, 0.0], dtype=np.float32)

        def embed(texts):
            return np.array([[0.9, 0.436] if t == "close" else [0.3, 0.954] for t in texts], dtype=np.float32)

        model = FakeModel([WorldReply(terms=["close", "far"])])
        assert world_terms("q", angle, model, embed, 0.5) == (["close"], "llm")

    def test_world_terms_fall_back_to_none_on_failure(self):
        model = FakeModel([LLMError("down")])
        assert world_terms("q", np.ones(2, dtype=np.float32), model, lambda t: None, 0.5) == ([], "offline")


class TestCoverage:
    def test_absent_distinctive_word_is_named(self):
        table = DocFreqTable.build(["audience analytics for fans"])
        terms = uncovered_terms(("Fan360 audience analytics",), table)
        assert terms == ["fan360"]
        assert "fan360" in coverage_note(terms)

    def test_generic_and_request_words_are_not_reported(self):
        table = DocFreqTable.build(["fraud"])
        assert uncovered_terms(("show me fraud case studies without demos",), table) == ["demos"]

    def test_other_scripts_are_reported_as_absent(self):
        assert uncovered_terms(("データ分析",), DocFreqTable.build(["data"])) == ["データ分析"]

    def test_a_word_whose_stem_the_library_holds_is_covered_by_a_stemming_index(self):
        docs = ["document ai for a hospital network"]
        table = DocFreqTable.build(docs)
        stemmed = BM25Index.from_texts(docs, stemmer="english")
        assert uncovered_terms(("document ai for hospitals in sweden",), table, stemmed) == ["sweden"]
        assert uncovered_terms(("hospitals",), table, BM25Index.from_texts(docs)) == ["hospitals"]
        assert uncovered_terms(("hospitals",), table) == ["hospitals"]

    def test_words_held_only_outside_the_scope_are_named_for_it(self):
        docs = ["capital call notice automation", "learning analytics for universities"]
        lexical = BM25Index.from_texts(docs, stemmer="english")
        scope = np.array([False, True])
        assert absent_in_scope(["capital", "learning", "analytics"], lexical, scope) == ["capital"]
        note = coverage_note([], ["capital"], ["EdTech"])
        assert note.startswith('nothing in EdTech uses "capital" (other universes do)')
        assert coverage_note(["fan360"], ["capital"], ["EdTech"]).count("nothing in") == 2

    def test_no_note_when_everything_is_covered(self):
        assert coverage_note([]) is None


def test_stages_do_not_mutate_their_input():
    state = SearchState(query=("no case studies",), angles=("no case studies",),
                        classified=SectionChoice(SECTIONS, SECTIONS))
    before = replace(state)
    ExclusionCarveOut(DEFAULT_SECTIONS).run(state)
    assert state == before


class TestLLMStep:
    def test_the_wire_form_names_the_model_for_its_answers_and_joins_paths(self):
        assert LLMStep(("llm", "fail-open")).label("anthropic:m") == "anthropic:m+fail-open"
        assert LLMStep(("offline",)).label("anthropic:m") == "offline"

    def test_a_step_without_calls_was_not_needed_and_used_no_model(self):
        assert LLMStep().label("anthropic:m") == "not needed" and not LLMStep().used_model

    def test_only_the_offline_path_leaves_the_model_unused(self):
        assert not LLMStep(("offline",)).used_model
        assert LLMStep(("offline", "fail-open")).used_model and LLMStep(("llm",)).used_model
