import pytest

from eval.judges import UNJUDGED, JudgeBatch, JudgeCard, JudgeVerdict, LabelJudge, LLMJudge, judge_prompt
from llm_adapters import FakeModel, get_model


def _cards(n):
    return [JudgeCard(id=f"s{i}", section="Case Studies", title=f"t{i}", snippet="x" * 600, explanation=f"why {i}")
            for i in range(n)]


class TestLabelJudge:
    def test_graded_mapping(self):
        judge = LabelJudge()
        qrels = {"a": 3.0, "b": 2.0, "c": 1.0}
        assert [judge.verdict(s, qrels) for s in ("a", "b", "c", "zz")] == ["correct", "correct", "50-50", "wrong"]

    def test_binary_collection_judged_slide_is_correct(self):
        assert LabelJudge().verdict("a", {"a": 1.0, "b": 1.0}) == "correct"
        assert LabelJudge().verdict("z", {"a": 1.0}) == "wrong"

    def test_thresholds_are_validated(self):
        with pytest.raises(ValueError):
            LabelJudge(correct_min=1.0, partial_min=2.0)


class TestLLMJudge:
    def test_batched_verdicts_in_order_with_full_snippet(self):
        reply = JudgeBatch(verdicts=[JudgeVerdict(verdict=v) for v in ("correct", "wrong", "50-50")])
        model = FakeModel([reply])
        out = LLMJudge(model).judge("customer analytics", _cards(3), {})
        assert [v for v, _ in out] == ["correct", "wrong", "50-50"]
        assert all(j == f"llm:{model.id}" for _, j in out)
        assert len(model.requests) == 1
        assert "x" * 600 in model.prompts[0] and "why 2" in model.prompts[0]

    def test_batches_are_cut_at_batch_size(self):
        replies = [JudgeBatch(verdicts=[JudgeVerdict(verdict="correct")] * 2), JudgeBatch(verdicts=[JudgeVerdict(verdict="wrong")])]
        model = FakeModel(replies)
        out = LLMJudge(model, batch_size=2).judge("q", _cards(3), {})
        assert [v for v, _ in out] == ["correct", "correct", "wrong"] and len(model.requests) == 2

    def test_length_mismatch_falls_back_for_the_whole_batch(self):
        model = FakeModel([JudgeBatch(verdicts=[JudgeVerdict(verdict="correct")] * 2)])
        out = LLMJudge(model, fallback=LabelJudge()).judge("q", _cards(3), {"s0": 1.0})
        assert out == [("correct", "label"), ("wrong", "label"), ("wrong", "label")]

    def test_offline_without_labels_marks_unjudged(self):
        out = LLMJudge(get_model("offline"), fallback=LabelJudge()).judge("q", _cards(2), {})
        assert out == [(UNJUDGED, UNJUDGED)] * 2


def test_prompt_joins_angles_and_numbers_cards():
    prompt = judge_prompt(["fraud detection", "compliance"], _cards(2))
    assert "fraud detection | compliance" in prompt and "[2]" in prompt


def test_repeated_judgement_is_served_from_the_llm_cache(tmp_path):
    from llm_adapters import ResponseCache

    reply = JudgeBatch(verdicts=[JudgeVerdict(verdict="correct"), JudgeVerdict(verdict="wrong")])
    model = FakeModel([reply], cache=ResponseCache.under(tmp_path))
    judge = LLMJudge(model)
    first = judge.judge("q", _cards(2), {})
    assert judge.judge("q", _cards(2), {}) == first and len(model.requests) == 1
