from llm_stub import KEY, Label, Vendor, WireContract

from llm_adapters.anthropic_adapter import AnthropicModel


def _ok(text, prompt_tokens, completion_tokens):
    return {
        "id": "msg_01XYZ",
        "type": "message",
        "role": "assistant",
        "model": "claude-haiku-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt_tokens, "output_tokens": completion_tokens},
    }


def _error(status, message):
    kind = {429: "rate_limit_error", 500: "api_error", 400: "invalid_request_error"}.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def _user_text(request):
    [message] = request.body["messages"]
    assert message["role"] == "user"
    content = message["content"]
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


def _schema(request):
    config = request.body.get("output_config")
    if config is None:
        return None
    assert config["format"]["type"] == "json_schema"
    return config["format"]["schema"]


def _auth_ok(headers):
    # SDK 1.x sent the key as x-api-key; 2.x sends it as a bearer token. The API takes both.
    key_sent = headers.get("x-api-key") == KEY or headers.get("authorization") == f"Bearer {KEY}"
    return key_sent and "anthropic-version" in headers


ANTHROPIC = Vendor(
    model_id="anthropic:claude-haiku-4-5",
    key_var="ANTHROPIC_API_KEY",
    base_url_var="SEEK_ANTHROPIC_BASE_URL",
    url_suffix="",
    path="/v1/messages",
    ok=_ok,
    error=_error,
    auth_ok=_auth_ok,
    sent_model=lambda request: request.body["model"],
    sent_prompt=_user_text,
    sent_system=lambda request: request.body.get("system"),
    sent_schema=_schema,
    model_class=AnthropicModel,
)


class TestAnthropicWire(WireContract):
    vendor = ANTHROPIC

    def test_request_carries_max_tokens_and_a_closed_schema_but_no_temperature(self, stub):
        stub.queue(200, _ok('{"section": "Other", "confidence": 0.1}', 1, 1))
        self.model().complete_json("p", Label)
        body = stub.requests[0].body
        assert body["max_tokens"] == 1024 and "temperature" not in body
        # transform_schema closes objects, which structured outputs require.
        assert _schema(stub.requests[0])["additionalProperties"] is False
