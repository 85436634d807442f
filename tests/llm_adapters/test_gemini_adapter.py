from llm_stub import KEY, Label, Vendor, WireContract

from llm_adapters.gemini_adapter import GeminiModel

MODEL = "gemini-2.5-flash"


def _ok(text, prompt_tokens, completion_tokens):
    return {
        "candidates": [
            {"content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": completion_tokens,
            "totalTokenCount": prompt_tokens + completion_tokens,
        },
        "modelVersion": MODEL,
        "responseId": "resp-1",
    }


def _error(status, message):
    name = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 400: "INVALID_ARGUMENT"}.get(status, "UNKNOWN")
    return {"error": {"code": status, "message": message, "status": name}}


def _user_text(request):
    [content] = request.body["contents"]
    assert content["role"] == "user"
    return "".join(part["text"] for part in content["parts"])


def _system(request):
    instruction = request.body.get("systemInstruction")
    return None if instruction is None else "".join(part["text"] for part in instruction["parts"])


def _schema(request):
    config = request.body.get("generationConfig", {})
    if "responseJsonSchema" not in config:
        assert "responseMimeType" not in config
        return None
    assert config["responseMimeType"] == "application/json"
    return config["responseJsonSchema"]


GEMINI = Vendor(
    model_id=f"gemini:{MODEL}",
    key_var="GEMINI_API_KEY",
    base_url_var="SEEK_GEMINI_BASE_URL",
    url_suffix="",
    path=f"/v1beta/models/{MODEL}:generateContent",
    ok=_ok,
    error=_error,
    auth_ok=lambda headers: headers.get("x-goog-api-key") == KEY,
    sent_model=lambda request: request.path.split("/models/")[1].split(":")[0],
    sent_prompt=_user_text,
    sent_system=_system,
    sent_schema=_schema,
    model_class=GeminiModel,
)


class TestGeminiWire(WireContract):
    vendor = GEMINI

    def test_request_carries_generation_limits(self, stub):
        stub.queue(200, _ok('{"section": "Other", "confidence": 0.1}', 1, 1))
        self.model().complete_json("p", Label)
        config = stub.requests[0].body["generationConfig"]
        assert config["maxOutputTokens"] == 1024 and config["temperature"] == 0.0

    def test_thinking_tokens_count_as_completion(self, stub):
        reply = _ok('{"section": "Other", "confidence": 0.1}', 100, 10)
        reply["usageMetadata"]["thoughtsTokenCount"] = 40
        stub.queue(200, reply)
        model = self.model()
        model.complete_json("p", Label)
        assert model.last_usage.completion_tokens == 50

    def test_google_api_key_is_accepted_when_gemini_key_is_absent(self, stub, monkeypatch):
        monkeypatch.delenv("GEMINI_API_KEY")
        monkeypatch.setenv("GOOGLE_API_KEY", "other-key")
        stub.queue(200, _ok("hi", 1, 1))
        assert self.model().complete("p") == "hi"
        assert stub.requests[0].headers["x-goog-api-key"] == "other-key"
