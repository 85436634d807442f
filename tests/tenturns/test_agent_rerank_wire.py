"""The phase-6 reranker end to end: flag on, real vendor SDK, a local HTTP stub speaking each wire format."""

import json

import pytest
from llm_stub import StubServer, loopback_only

from tenturns.agents.phrase import TenTurnsAgent

pytestmark = pytest.mark.integration

ROWS = [
    {"parent_asin": f"S{i}", "title": f"Crew Socks model {i}", "features": [f"feature {i}"],
     "categories": ["Clothing, Shoes & Jewelry", "Men", "Socks"], "rating_number": 100 - i}
    for i in range(3)
]
REPLY = '{"order": [3, 2, 1]}'


def anthropic_body(text):
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": text}], "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 120, "output_tokens": 9}}


def gemini_body(text):
    return {"candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP",
                            "index": 0}],
            "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 9, "totalTokenCount": 129},
            "modelVersion": "gemini-2.5-flash", "responseId": "r1"}


def nvidia_body(text):
    return {"id": "c1", "object": "chat.completion", "created": 1764400000, "model": "meta/llama-3.3-70b-instruct",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 9, "total_tokens": 129}}


VENDORS = {
    "anthropic": ("anthropic:claude-haiku-4-5", "ANTHROPIC_API_KEY", "SEEK_ANTHROPIC_BASE_URL", "", anthropic_body),
    "gemini": ("gemini:gemini-2.5-flash", "GEMINI_API_KEY", "SEEK_GEMINI_BASE_URL", "", gemini_body),
    "nvidia": ("nvidia:meta/llama-3.3-70b-instruct", "NVIDIA_API_KEY", "SEEK_NVIDIA_BASE_URL", "/v1", nvidia_body),
}


@pytest.fixture
def catalog_path(tmp_path):
    path = tmp_path / "catalog.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


@pytest.fixture(params=sorted(VENDORS))
def vendor(request, monkeypatch):
    model_id, key_var, url_var, suffix, body = VENDORS[request.param]
    loopback_only(monkeypatch)
    with StubServer() as stub:
        monkeypatch.setenv(key_var, "test-key-not-real")
        monkeypatch.setenv(url_var, stub.url + suffix)
        monkeypatch.setenv("TECHJAM_PHASE6_MODE", model_id)
        monkeypatch.setenv("SEEK_LLM_CACHE", "false")
        yield stub, body, model_id


def last_turn(agent):
    agent.reset("s", {})
    return agent.respond("s", "I'm looking for Men Socks. A key requirement is: feature 0.", 10)


class TestRerankOverTheWire:
    def test_the_vendor_order_is_shown_and_its_tokens_reported(self, vendor, catalog_path):
        stub, body, model_id = vendor
        stub.queue(200, body(REPLY))
        agent = TenTurnsAgent(catalog_path)
        response = last_turn(agent)
        assert [r["parent_asin"] for r in response["recommendations"]] == ["S2", "S1", "S0"]
        assert response["usage"] == {"prompt_tokens": 120, "completion_tokens": 9}
        assert agent.traces("s")[-1]["llm"] == model_id
        assert "feature 0 -> verbatim" in json.dumps(stub.requests[0].body)

    def test_a_server_error_fails_open_to_the_deterministic_order(self, vendor, catalog_path):
        stub, _, _ = vendor
        for _ in range(3):
            stub.queue(400, {"error": {"message": "bad request", "type": "invalid_request_error"}})
        agent = TenTurnsAgent(catalog_path)
        response = last_turn(agent)
        assert [r["parent_asin"] for r in response["recommendations"]] == ["S0", "S1", "S2"]
        assert agent.traces("s")[-1]["llm"] == "fallback"
