import numpy as np
import pytest

from llm_adapters import FakeModel, LLMError, OfflineModel
from slidesearch.pipeline.query.classify import (
    Classification,
    ClassifyReply,
    classify_llm,
    classify_offline,
    keyword_intents,
    merge,
    validate_reply,
)
from slidesearch.sections import DEFAULT_SECTIONS, SECTIONS


def _vectors(nearest: str) -> tuple[np.ndarray, np.ndarray]:
    """Section vectors on the axes, and an angle vector pointing at ``nearest``."""
    sections = np.eye(len(SECTIONS), dtype=np.float32)
    return sections[SECTIONS.index(nearest)], sections


def _offline():
    return Classification(intents=["capability"], search_types=["Other"], answer_sections=["Other"], paths=("offline",))


class TestKeywordIntents:
    def test_default_intent_is_capability(self):
        assert keyword_intents("customer analytics") == ["capability"]

    def test_explicit_signals_in_order_of_appearance(self):
        assert keyword_intents("fraud detection case studies and our approach") == ["case_study", "approach"]

    def test_demo_signal(self):
        assert keyword_intents("a demo of the claims dashboard") == ["demo"]


class TestOfflineClassifier:
    def test_topical_query_searches_and_shows_the_topical_sections(self):
        angle, sections = _vectors("Data & Analytics")
        result = classify_offline("customer analytics", angle, sections, DEFAULT_SECTIONS)
        for s in ("Case Studies", "Approach & Methodology", "Data & Analytics", "Capabilities & Overview"):
            assert s in result.search_types and s in result.answer_sections
        assert "Team & Credentials" not in result.search_types

    def test_explicit_ask_decides_the_headings(self):
        angle, sections = _vectors("Capabilities & Overview")
        result = classify_offline("Anand S profile", angle, sections, DEFAULT_SECTIONS)
        assert result.answer_sections == ["Team & Credentials"]
        assert "Team & Credentials" in result.search_types

    def test_answer_sections_are_inside_search_types(self):
        angle, sections = _vectors("Other")
        result = classify_offline("pricing and payment terms for the rollout", angle, sections,
                                  DEFAULT_SECTIONS)
        assert set(result.answer_sections) <= set(result.search_types)
        assert "Commercial & Contract Terms" in result.answer_sections

    @pytest.mark.parametrize(("text", "section"), [
        ("blackrock case studies", "Case Studies"),
        ("who is Naveen Gattu", "Team & Credentials"),
        ("gartner recognition", "Credibility & Recognition"),
        ("claims dashboards", "Data & Analytics"),
        ("implementation roadmap", "Approach & Methodology"),
    ])
    def test_asked_sections(self, text, section):
        assert section in DEFAULT_SECTIONS.asked(text)


class TestLLMClassifier:
    def test_reply_is_used_and_the_model_named(self):
        reply = ClassifyReply(intents=["case_study"], search_types=["Case Studies", "Data & Analytics"],
                              answer_sections=["Case Studies"], client="Acme", use_case="fraud")
        result = classify_llm("fraud case studies", FakeModel([reply]), _offline, DEFAULT_SECTIONS)
        assert result.search_types == ["Case Studies", "Data & Analytics"]
        assert result.answer_sections == ["Case Studies"]
        assert result.client == "Acme"
        assert result.paths == ("llm",)

    def test_llm_failure_fails_open_to_all_eight(self):
        result = classify_llm("fraud case studies", FakeModel([LLMError("boom")]), _offline, DEFAULT_SECTIONS)
        assert result.search_types == list(SECTIONS) == result.answer_sections
        assert result.intents == ["case_study"]
        assert result.paths == ("fail-open",)

    def test_offline_model_runs_the_offline_classifier(self):
        assert classify_llm("anything", OfflineModel(), _offline, DEFAULT_SECTIONS).paths == ("offline",)

    def test_unknown_names_are_dropped_and_answer_forced_into_search(self):
        reply = ClassifyReply(intents=["nonsense"], search_types=["Bogus"], answer_sections=["Team & Credentials"])
        result = validate_reply(reply, "team bios", "llm", DEFAULT_SECTIONS)
        assert result.search_types == ["Team & Credentials"]
        assert result.intents == ["capability"]

    def test_empty_reply_fails_open(self):
        reply = ClassifyReply(intents=[], search_types=[], answer_sections=[])
        assert validate_reply(reply, "x", "llm", DEFAULT_SECTIONS).search_types == list(SECTIONS)


class TestMerge:
    def test_intents_and_sections_are_unioned_over_angles(self):
        a = Classification(intents=["case_study"], search_types=["Case Studies"], answer_sections=["Case Studies"])
        b = Classification(intents=["approach"], search_types=["Approach & Methodology", "Case Studies"],
                           answer_sections=["Approach & Methodology"], client="Acme")
        merged = merge([a.model_copy(update={"paths": ("llm",)}), b.model_copy(update={"paths": ("fail-open",)})],
                       DEFAULT_SECTIONS)
        assert merged.intents == ["case_study", "approach"]
        assert merged.search_types == ["Case Studies", "Approach & Methodology"]
        assert merged.answer_sections == ["Case Studies", "Approach & Methodology"]
        assert merged.client == "Acme"
        assert merged.paths == ("llm", "fail-open")
