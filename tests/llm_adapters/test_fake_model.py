import pytest
from pydantic import BaseModel

from llm_adapters import FakeModel, LLMError


class Label(BaseModel):
    section: str


class TestFakeModel:
    def test_replays_replies_in_order_and_records_requests(self):
        model = FakeModel(["one", "two"])
        assert [model.complete("a"), model.complete("b", system="s")] == ["one", "two"]
        assert model.prompts == ["a", "b"] and model.requests[1].system == "s"

    def test_queued_exception_is_raised(self):
        model = FakeModel([LLMError("scripted failure")])
        with pytest.raises(LLMError, match="scripted failure"):
            model.complete("a")

    def test_running_out_of_replies_is_an_llm_error(self):
        model = FakeModel([])
        with pytest.raises(LLMError, match="no queued replies left"):
            model.complete_json("a", Label)

    def test_pydantic_reply_to_a_plain_call_is_its_json(self):
        assert FakeModel([Label(section="x")]).complete("a") == '{"section":"x"}'

    def test_is_not_offline_and_has_a_fake_id_and_no_cost_note(self):
        model = FakeModel(["x"], model="judge")
        model.complete("a")
        assert model.id == "fake:judge" and not model.is_offline
        assert model.usage.cost_usd == 0.0 and model.usage.note is None
