from llm_stub import KEY, Label, Vendor, WireContract

from llm_adapters.nvidia_adapter import DEFAULT_BASE_URL, NvidiaModel

MODEL = "meta/llama-3.3-70b-instruct"


def _ok(text, prompt_tokens, completion_tokens):
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1764400000,
        "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _error(status, message):
    return {"error": {"message": message, "type": "error", "code": status}}


def _messages(request, role):
    return [m["content"] for m in request.body["messages"] if m["role"] == role]


def _system(request):
    found = _messages(request, "system")
    return found[0] if found else None


def _schema(request):
    response_format = request.body.get("response_format")
    if response_format is None:
        return None
    assert response_format["type"] == "json_schema" and response_format["json_schema"]["name"]
    return response_format["json_schema"]["schema"]


NVIDIA = Vendor(
    model_id=f"nvidia:{MODEL}",
    key_var="NVIDIA_API_KEY",
    base_url_var="SEEK_NVIDIA_BASE_URL",
    url_suffix="/v1",
    path="/v1/chat/completions",
    ok=_ok,
    error=_error,
    auth_ok=lambda headers: headers.get("authorization") == f"Bearer {KEY}",
    sent_model=lambda request: request.body["model"],
    sent_prompt=lambda request: _messages(request, "user")[0],
    sent_system=_system,
    sent_schema=_schema,
    model_class=NvidiaModel,
)


class TestNvidiaWire(WireContract):
    vendor = NVIDIA

    def test_request_carries_limits_and_orders_system_before_user(self, stub):
        stub.queue(200, _ok('{"section": "Other", "confidence": 0.1}', 1, 1))
        self.model().complete_json("p", Label, system="sys")
        body = stub.requests[0].body
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert body["max_tokens"] == 1024 and body["temperature"] == 0.0

    def test_default_base_url_is_nvidias_endpoint(self):
        assert DEFAULT_BASE_URL == "https://integrate.api.nvidia.com/v1"
