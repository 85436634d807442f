import threading

import pytest
from pydantic import BaseModel, ValidationError

from llm_adapters import (
    FakeModel,
    LLMError,
    LLMOptions,
    LLMUnavailable,
    OfflineModel,
    ResponseCache,
    RetryableError,
    Usage,
)
from llm_adapters.llm import status_error


class Label(BaseModel):
    section: str


GOOD = '{"section": "Case Studies"}'


def fake(replies, **options):
    delays = []
    model = FakeModel(replies, options=LLMOptions(**options) if options else None, sleep=delays.append)
    return model, delays


class TestRetries:
    def test_transient_failures_then_success_back_off_exponentially(self):
        model, delays = fake([RetryableError("429"), RetryableError("503"), GOOD], backoff_base=0.5)
        assert model.complete_json("p", Label).section == "Case Studies"
        assert delays == [0.5, 1.0] and len(model.requests) == 3

    def test_backoff_is_capped(self):
        model, delays = fake(
            [RetryableError("x")] * 5 + [GOOD], max_retries=5, backoff_base=1.0, backoff_max=3.0
        )
        model.complete("p")
        assert delays == [1.0, 2.0, 3.0, 3.0, 3.0]

    def test_retry_after_hint_lengthens_the_wait_within_the_cap(self):
        model, delays = fake(
            [RetryableError("429", retry_after=2.0), RetryableError("429", retry_after=60.0), GOOD],
            backoff_base=0.1,
            backoff_max=5.0,
        )
        model.complete("p")
        assert delays == [2.0, 5.0]

    def test_exhausted_retries_raise_llm_error_after_max_retries_plus_one_attempts(self):
        model, _ = fake([RetryableError("500")] * 4, max_retries=3, backoff_base=0.0)
        with pytest.raises(LLMError, match="gave up after 4 attempts: 500"):
            model.complete("p")
        assert len(model.requests) == 4

    def test_non_transient_error_is_not_retried(self):
        model, delays = fake([LLMError("HTTP 401"), GOOD])
        with pytest.raises(LLMError, match="401"):
            model.complete("p")
        assert len(model.requests) == 1 and delays == []


class TestStatusError:
    @pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 529])
    def test_transient_statuses_are_retryable(self, status):
        assert isinstance(status_error("m", status, "x"), RetryableError)

    @pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
    def test_other_client_errors_are_final(self, status):
        error = status_error("anthropic:m", status, "bad\nthing")
        assert not isinstance(error, RetryableError)
        assert str(error) == f"anthropic:m: HTTP {status}: bad thing"

    def test_retry_after_header_is_read(self):
        assert status_error("m", 429, "x", {"retry-after": "1.5"}).retry_after == 1.5
        assert (
            status_error("m", 429, "x", {"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}).retry_after is None
        )


class TestStructuredOutput:
    def test_prose_wrapped_json_is_accepted_first_time(self):
        model, _ = fake(['Here:\n```json\n{"section": "Other"}\n```'])
        assert model.complete_json("p", Label) == Label(section="Other")

    def test_malformed_reply_is_retried_once_with_the_error_quoted(self):
        model, _ = fake(["no idea", GOOD])
        assert model.complete_json("p", Label).section == "Case Studies"
        retry_prompt = model.prompts[1]
        assert retry_prompt.startswith("p\n\n") and "no JSON value" in retry_prompt

    def test_schema_violation_twice_is_an_llm_error(self):
        model, _ = fake(['{"section": 3}', '{"other": "x"}'])
        with pytest.raises(LLMError, match="did not match Label after 2 attempts") as caught:
            model.complete_json("p", Label)
        assert isinstance(caught.value.__cause__, ValidationError)
        assert len(model.requests) == 2

    def test_a_pydantic_reply_is_sent_as_json(self):
        model, _ = fake([Label(section="Other")])
        assert model.complete_json("p", Label) == Label(section="Other")

    def test_system_prompt_carries_the_caller_text_then_the_schema(self):
        model, _ = fake([GOOD])
        model.complete_json("p", Label, system="You label slides.")
        request = model.requests[0]
        assert request.system.startswith("You label slides.\n\n") and '"section"' in request.system
        assert request.schema == Label.model_json_schema()

    def test_plain_completion_sends_no_schema_and_the_system_as_given(self):
        model, _ = fake(["text"])
        assert model.complete("p", system="s") == "text"
        assert model.requests[0].system == "s" and model.requests[0].schema is None


class TestUsage:
    def test_last_usage_is_per_call_and_usage_accumulates(self):
        model, _ = fake([GOOD, "x" * 40])
        model.complete_json("p" * 40, Label)
        first = model.last_usage
        model.complete("q")
        assert first.calls == 1 and model.last_usage.completion_tokens == 11
        assert model.usage.calls == 2
        assert model.usage.prompt_tokens == first.prompt_tokens + model.last_usage.prompt_tokens

    def test_a_failed_call_still_records_the_replies_it_was_billed_for(self):
        model, _ = fake(["bad", "worse"])
        with pytest.raises(LLMError):
            model.complete_json("p", Label)
        assert model.usage.calls == 2 and model.usage.completion_tokens > 0

    def test_transient_failures_bill_nothing(self):
        model, _ = fake([RetryableError("429"), GOOD])
        model.complete("p")
        assert model.usage.calls == 1

    def test_usages_add_and_name_unpriced_models(self):
        total = Usage(calls=1, prompt_tokens=10, cost_usd=0.5) + Usage(
            calls=2, completion_tokens=5, cache_hits=1, unpriced_models=("nvidia:x",)
        )
        assert total == Usage(
            calls=3,
            prompt_tokens=10,
            completion_tokens=5,
            cost_usd=0.5,
            cache_hits=1,
            unpriced_models=("nvidia:x",),
        )
        assert "nvidia:x" in total.note and Usage().note is None

    def test_concurrent_calls_lose_no_usage(self):
        model, _ = fake([GOOD] * 40)

        def call():
            for _ in range(10):
                model.complete("p")

        threads = [threading.Thread(target=call) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert model.usage.calls == 40


class TestCache:
    def test_identical_call_is_answered_from_the_cache_with_no_tokens(self, tmp_path):
        cache = ResponseCache.under(tmp_path)
        model = FakeModel([GOOD], cache=cache)
        assert model.complete_json("p", Label, system="s") == model.complete_json("p", Label, system="s")
        assert len(model.requests) == 1
        assert model.last_usage == Usage(cache_hits=1)
        assert model.usage.calls == 1 and model.usage.cache_hits == 1

    def test_cache_is_shared_across_model_instances_and_needs_no_reply(self, tmp_path):
        FakeModel([GOOD], cache=ResponseCache.under(tmp_path)).complete_json("p", Label)
        again = FakeModel([], cache=ResponseCache.under(tmp_path))
        assert again.complete_json("p", Label).section == "Case Studies" and again.requests == []

    def test_a_different_system_prompt_or_schema_misses(self, tmp_path):
        class Other(BaseModel):
            section: str
            note: str = ""

        model = FakeModel([GOOD, GOOD, GOOD], cache=ResponseCache.under(tmp_path))
        model.complete_json("p", Label, system="a")
        model.complete_json("p", Label, system="b")
        model.complete_json("p", Other, system="a")
        assert len(model.requests) == 3

    def test_failures_are_not_cached(self, tmp_path):
        model = FakeModel(["bad", "bad", GOOD], cache=ResponseCache.under(tmp_path))
        with pytest.raises(LLMError):
            model.complete_json("p", Label)
        assert model.complete_json("p", Label).section == "Case Studies"

    def test_plain_and_structured_calls_are_cached_apart(self, tmp_path):
        model = FakeModel(["plain", GOOD], cache=ResponseCache.under(tmp_path))
        assert model.complete("p") == "plain"
        assert model.complete_json("p", Label).section == "Case Studies"
        assert model.complete("p") == "plain" and len(model.requests) == 2


class TestOfflineModel:
    def test_every_call_raises_llm_unavailable_and_costs_nothing(self):
        model = OfflineModel()
        with pytest.raises(LLMUnavailable, match="offline"):
            model.complete_json("p", Label)
        with pytest.raises(LLMUnavailable):
            model.complete("p")
        assert model.is_offline and model.usage == Usage()

    def test_engines_fallback_pattern_runs_the_fallback(self):
        try:
            label = OfflineModel().complete_json("p", Label)
        except LLMError:
            label = Label(section="Other")
        assert label.section == "Other"


class TestLLMOptions:
    def test_unknown_option_is_rejected(self):
        with pytest.raises(ValidationError):
            LLMOptions(timout=5)

    @pytest.mark.parametrize(
        "bad", [{"timeout": 0}, {"max_retries": -1}, {"max_tokens": 0}, {"temperature": 3}]
    )
    def test_out_of_range_values_are_rejected(self, bad):
        with pytest.raises(ValidationError):
            LLMOptions(**bad)
