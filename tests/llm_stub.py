"""A scripted HTTP stub on 127.0.0.1 and the vendor wire formats it speaks.

Each vendor test module drives the real SDK through ``StubServer`` via the adapter's
base-URL variable; ``WireContract`` holds the scenarios every vendor must pass.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import BaseModel

from llm_adapters import (
    LLMError,
    LLMOptions,
    LLMUnavailable,
    ResponseCache,
    batch_matches,
    estimate_cost,
    get_model,
)

KEY = "test-key-not-real"


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Scripted:
    status: int
    body: Any
    headers: dict[str, str]
    delay: float


class StubServer:
    """Answers queued responses in order and records every request it receives."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._script: deque[Scripted] = deque()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                stub.requests.append(
                    Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                step = (
                    stub._script.popleft()
                    if stub._script
                    else Scripted(599, {"error": "stub: nothing queued"}, {}, 0)
                )
                time.sleep(step.delay)
                payload = step.body if isinstance(step.body, bytes) else json.dumps(step.body).encode()
                try:
                    self.send_response(step.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for name, value in step.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and hung up, which is what the timeout test wants

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def queue(
        self, status: int, body: Any, headers: dict[str, str] | None = None, delay: float = 0.0
    ) -> None:
        self._script.append(Scripted(status, body, headers or {}, delay))

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any connection or DNS lookup beyond 127.0.0.1 fail loudly, and drop proxy settings."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    real_connect = socket.socket.connect
    real_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> Any:
        if isinstance(address, tuple) and address[0] not in ("127.0.0.1", "::1", "localhost"):
            raise AssertionError(f"test tried to reach the network: {address}")
        return real_connect(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in ("127.0.0.1", "::1", "localhost", None):
            raise AssertionError(f"test tried to resolve {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@dataclass(frozen=True)
class Vendor:
    """What a vendor's wire format looks like, for the shared scenarios."""

    model_id: str
    key_var: str
    base_url_var: str
    url_suffix: str  # appended to the stub URL to form the base URL the SDK expects
    path: str
    ok: Callable[[str, int, int], dict[str, Any]]
    error: Callable[[int, str], dict[str, Any]]
    auth_ok: Callable[[dict[str, str]], bool]
    sent_model: Callable[[Recorded], str]
    sent_prompt: Callable[[Recorded], str]
    sent_system: Callable[[Recorded], str | None]
    sent_schema: Callable[[Recorded], dict[str, Any] | None]
    model_class: type


class Label(BaseModel):
    section: str
    confidence: float


class Verdict(BaseModel):
    slide_id: str
    relevant: bool


class Verdicts(BaseModel):
    verdicts: list[Verdict]


FAST = LLMOptions(timeout=5.0, max_retries=2, backoff_base=0.0, backoff_max=0.0)
LABEL_JSON = '{"section": "Case Studies", "confidence": 0.9}'


def judge_batch(model: Any, slide_ids: list[str]) -> tuple[list[bool], str]:
    """A caller in the engines' style: one batched call, discarded whole unless it lines up."""
    try:
        reply = model.complete_json(f"Judge {', '.join(slide_ids)}", Verdicts)
    except LLMError:
        return [False] * len(slide_ids), "fallback"
    if not batch_matches(reply.verdicts, len(slide_ids)):
        return [False] * len(slide_ids), "fallback"
    return [v.relevant for v in reply.verdicts], model.id


class WireContract:
    """Scenarios every vendor adapter must pass through its real SDK against the stub."""

    vendor: Vendor

    @pytest.fixture
    def stub(self, monkeypatch: pytest.MonkeyPatch):
        loopback_only(monkeypatch)
        with StubServer() as server:
            monkeypatch.setenv(self.vendor.key_var, KEY)
            monkeypatch.setenv(self.vendor.base_url_var, server.url + self.vendor.url_suffix)
            yield server

    def model(self, options: LLMOptions = FAST, sleep: Callable[[float], None] | None = None) -> Any:
        name = self.vendor.model_id.partition(":")[2]
        return self.vendor.model_class(name, options=options, sleep=sleep or (lambda _s: None))

    def test_structured_call_sends_the_vendor_request_shape_and_returns_the_object(self, stub):
        stub.queue(200, self.vendor.ok(LABEL_JSON, 120, 30))
        result = self.model().complete_json("Classify: our work for Acme", Label, system="You label slides.")
        assert result == Label(section="Case Studies", confidence=0.9)
        [request] = stub.requests
        assert request.path == self.vendor.path
        assert self.vendor.auth_ok(request.headers)
        assert self.vendor.sent_model(request) == self.vendor.model_id.partition(":")[2]
        assert self.vendor.sent_prompt(request) == "Classify: our work for Acme"
        system = self.vendor.sent_system(request)
        assert system is not None and system.startswith("You label slides.") and "JSON Schema" in system
        schema = self.vendor.sent_schema(request)
        assert schema is not None and set(schema["properties"]) == {"section", "confidence"}

    def test_plain_completion_returns_the_text_and_sends_no_schema(self, stub):
        stub.queue(200, self.vendor.ok("Acme cut costs by 12%.", 40, 9))
        assert self.model().complete("Summarise") == "Acme cut costs by 12%."
        [request] = stub.requests
        assert self.vendor.sent_schema(request) is None
        assert self.vendor.sent_system(request) is None

    def test_rate_limit_then_success_retries_once(self, stub):
        delays: list[float] = []
        stub.queue(429, self.vendor.error(429, "slow down"))
        stub.queue(200, self.vendor.ok(LABEL_JSON, 10, 5))
        model = self.model(sleep=delays.append)
        assert model.complete_json("p", Label).section == "Case Studies"
        assert len(stub.requests) == 2
        assert delays == [0.0]
        assert model.usage.calls == 1

    def test_retry_after_header_sets_the_wait(self, stub):
        delays: list[float] = []
        stub.queue(429, self.vendor.error(429, "slow down"), headers={"retry-after": "0.25"})
        stub.queue(200, self.vendor.ok(LABEL_JSON, 10, 5))
        options = LLMOptions(max_retries=1, backoff_base=0.0, backoff_max=1.0)
        self.model(options, sleep=delays.append).complete_json("p", Label)
        assert delays == [0.25]

    def test_refused_connection_is_retried_then_reported(self, stub, monkeypatch):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            closed_port = probe.getsockname()[1]
        monkeypatch.setenv(
            self.vendor.base_url_var, f"http://127.0.0.1:{closed_port}{self.vendor.url_suffix}"
        )
        with pytest.raises(LLMError, match="gave up after 3 attempts"):
            self.model().complete("p")

    def test_server_errors_exhaust_the_retries_with_one_request_per_attempt(self, stub):
        for _ in range(3):
            stub.queue(500, self.vendor.error(500, "boom"))
        with pytest.raises(LLMError, match="gave up after 3 attempts"):
            self.model().complete_json("p", Label)
        # max_retries=2 gives exactly 3 requests: the SDK's own retries are off.
        assert len(stub.requests) == 3

    def test_client_error_fails_at_once_with_the_status(self, stub):
        stub.queue(400, self.vendor.error(400, "bad request field"))
        with pytest.raises(LLMError, match="HTTP 400") as caught:
            self.model().complete_json("p", Label)
        assert not isinstance(caught.value, LLMUnavailable)
        assert len(stub.requests) == 1

    def test_malformed_json_is_retried_once_then_reported(self, stub):
        stub.queue(200, self.vendor.ok("I think it is a case study.", 10, 5))
        stub.queue(200, self.vendor.ok('{"section": "Case Studies"}', 10, 5))
        model = self.model()
        with pytest.raises(LLMError, match="did not match Label after 2 attempts"):
            model.complete_json("p", Label)
        assert len(stub.requests) == 2
        assert "rejected" in self.vendor.sent_prompt(stub.requests[1])
        assert model.usage.calls == 2 and model.usage.prompt_tokens == 20

    def test_malformed_then_valid_reply_succeeds(self, stub):
        stub.queue(200, self.vendor.ok("{not json", 10, 5))
        stub.queue(200, self.vendor.ok("Here it is:\n```json\n" + LABEL_JSON + "\n```", 10, 5))
        assert self.model().complete_json("p", Label).confidence == 0.9

    def test_batch_with_an_entry_missing_falls_back_whole(self, stub):
        two = {"verdicts": [{"slide_id": "s1", "relevant": True}, {"slide_id": "s2", "relevant": True}]}
        stub.queue(200, self.vendor.ok(json.dumps(two), 50, 20))
        verdicts, path = judge_batch(self.model(), ["s1", "s2", "s3"])
        assert (verdicts, path) == ([False, False, False], "fallback")

    def test_complete_batch_is_used(self, stub):
        three = {"verdicts": [{"slide_id": f"s{i}", "relevant": i != 2} for i in (1, 2, 3)]}
        stub.queue(200, self.vendor.ok(json.dumps(three), 50, 20))
        model = self.model()
        assert judge_batch(model, ["s1", "s2", "s3"]) == ([True, False, True], model.id)

    def test_usage_and_cost_come_from_the_vendor_reply(self, stub):
        stub.queue(200, self.vendor.ok(LABEL_JSON, 1200, 300))
        model = self.model()
        model.complete_json("p", Label)
        assert (model.last_usage.prompt_tokens, model.last_usage.completion_tokens) == (1200, 300)
        expected = estimate_cost(self.vendor.model_id, 1200, 300)
        if expected is None:
            assert model.usage.cost_usd == 0.0 and model.usage.unpriced_models == (self.vendor.model_id,)
        else:
            assert model.usage.cost_usd == pytest.approx(expected) and expected > 0

    def test_second_identical_call_is_a_cache_hit_with_no_request(self, stub, tmp_path):
        stub.queue(200, self.vendor.ok(LABEL_JSON, 100, 20))
        model = get_model(self.vendor.model_id, options=FAST)
        assert isinstance(model.cache, ResponseCache)  # settings.llm_cache is on by default
        first = model.complete_json("p", Label, system="s")
        second = model.complete_json("p", Label, system="s")
        assert first == second and len(stub.requests) == 1
        assert model.last_usage.cache_hits == 1 and model.last_usage.prompt_tokens == 0
        assert (model.usage.calls, model.usage.prompt_tokens) == (1, 100)

    def test_timeout_is_retried_then_reported(self, stub):
        stub.queue(200, self.vendor.ok(LABEL_JSON, 1, 1), delay=1.0)
        stub.queue(200, self.vendor.ok(LABEL_JSON, 1, 1), delay=1.0)
        options = LLMOptions(timeout=0.2, max_retries=1, backoff_base=0.0)
        started = time.perf_counter()
        with pytest.raises(LLMError, match="gave up after 2 attempts"):
            self.model(options).complete_json("p", Label)
        assert len(stub.requests) == 2 and time.perf_counter() - started < 1.5

    def test_missing_key_is_a_one_line_error_naming_the_variable(self, stub, monkeypatch):
        monkeypatch.delenv(self.vendor.key_var)
        with pytest.raises(LLMUnavailable, match=self.vendor.key_var) as caught:
            self.model().complete_json("p", Label)
        assert "\n" not in str(caught.value)
        assert stub.requests == []
