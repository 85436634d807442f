"""``FakeModel``: replays queued replies through the real retry, parsing, usage and cache logic.

For engine logic tests. Each call to the vendor pops the next reply: a string is the
reply text, a pydantic object is sent as its JSON, an exception is raised (queue a
``RetryableError`` to exercise retries, an ``LLMError`` to force the caller's fallback).
Every request is recorded so tests can assert on the prompts the engine built.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, NamedTuple

from pydantic import BaseModel

from llm_adapters.llm import LLM, LLMError, LLMOptions, ProviderReply
from llm_adapters.response_cache import ResponseCache

# Tests never wait: backoff delays are computed but zero.
_NO_WAIT = LLMOptions(backoff_base=0.0, backoff_max=0.0)


class FakeRequest(NamedTuple):
    """One request the fake received."""

    prompt: str
    system: str | None
    schema: dict[str, Any] | None


class FakeModel(LLM):
    """A model whose replies are queued in advance; ``requests`` records what it was sent."""

    provider: ClassVar[str] = "fake"

    def __init__(
        self,
        replies: Iterable[str | BaseModel | BaseException],
        *,
        model: str = "model",
        options: LLMOptions | None = None,
        cache: ResponseCache | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        super().__init__(
            model, options=options or _NO_WAIT, cache=cache, sleep=sleep or (lambda _seconds: None)
        )
        self.replies: deque[str | BaseModel | BaseException] = deque(replies)
        self.requests: list[FakeRequest] = []

    @property
    def prompts(self) -> list[str]:
        """The prompts sent so far, in order (retries included)."""
        return [request.prompt for request in self.requests]

    def _send(self, prompt: str, system: str | None, schema: dict[str, Any] | None) -> ProviderReply:
        self.requests.append(FakeRequest(prompt, system, schema))
        if not self.replies:
            raise LLMError(f"{self.id}: no queued replies left ({len(self.requests)} requests made)")
        reply = self.replies.popleft()
        if isinstance(reply, BaseException):
            raise reply
        text = reply.model_dump_json() if isinstance(reply, BaseModel) else reply
        # About four characters per token, the usual rule of thumb for English text.
        return ProviderReply(text, (len(prompt) + len(system or "")) // 4 + 1, len(text) // 4 + 1)

    def _priced(self) -> bool:
        return False
