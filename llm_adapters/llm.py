"""The one LLM interface every engine step talks to, and the offline model.

An adapter implements one method, ``_send``: a single request to its vendor, no retries,
translating the SDK's failures into ``RetryableError`` (429, 5xx, timeouts, lost
connections) or ``LLMError`` (any other 4xx, a refusal). This base class owns everything
else so every vendor behaves the same:

- bounded retries with exponential backoff on ``RetryableError`` (the SDKs' own retries
  are switched off, so attempts never multiply);
- structured output: the reply is parsed and validated against the pydantic schema; a
  malformed or schema-violating reply is retried once with the error quoted, then
  reported as ``LLMError`` so the caller falls back;
- token usage per call (``last_usage``) and cumulative (``usage``) with estimated cost;
- the response cache, consulted before any network work (a hit needs no key and adds
  no tokens).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, Field

from llm_adapters.pricing import estimate_cost
from llm_adapters.response_cache import ResponseCache, cache_key
from llm_adapters.structured import SchemaT, json_instruction, parse_reply, schema_json


class LLMError(RuntimeError):
    """A call failed; the caller runs its deterministic fallback."""


class LLMUnavailable(LLMError):
    """No call was possible: the offline model, a missing key or a missing SDK."""


class RetryableError(LLMError):
    """A transient failure (429, 5xx, timeout, connection) worth another attempt.

    ``retry_after`` is the server's Retry-After hint in seconds, when it sent one.
    """

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Usage(BaseModel):
    """Tokens and estimated cost of one call or of every call a model has made.

    ``calls`` counts billed vendor replies (a retried malformed reply is billed too);
    ``cache_hits`` counts calls answered from the response cache, which add no tokens.
    ``unpriced_models`` names models with no entry in the price table, whose tokens
    are counted but not in ``cost_usd``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cache_hits: int = 0
    unpriced_models: tuple[str, ...] = ()

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            cache_hits=self.cache_hits + other.cache_hits,
            unpriced_models=tuple(sorted(set(self.unpriced_models) | set(other.unpriced_models))),
        )

    @property
    def note(self) -> str | None:
        """A one-line caveat for reports when the cost is incomplete."""
        if not self.unpriced_models:
            return None
        return f"cost excludes {', '.join(self.unpriced_models)} (no price in llm_adapters.pricing)"


class LanguageModel(Protocol):
    """What an engine step needs of a model: one structured completion, its id, and what it has spent.

    ``LLM`` and every adapter (and the offline model) satisfy it; it is the type an engine,
    a stage or a judge holds its model as. ``complete_json`` raises ``LLMError`` when no
    valid reply came back (``LLMUnavailable`` when no call was possible), and the caller
    runs its deterministic fallback.
    """

    @property
    def id(self) -> str:
        """The model id responses and reports name (``anthropic:claude-haiku-4-5``, ``offline``)."""
        ...

    @property
    def usage(self) -> Usage:
        """Tokens and estimated cost of every call made so far."""
        ...

    def complete_json(self, prompt: str, schema: type[SchemaT], *, system: str | None = None) -> SchemaT:
        """A validated ``schema`` instance for ``prompt``."""
        ...


class LLMOptions(BaseModel):
    """Per-model request options.

    Defaults: a 60 s timeout per request; 3 retries after the first attempt with
    backoff ``backoff_base * 2**attempt`` capped at ``backoff_max`` (0.5 s, 1 s, 2 s —
    the schedule the vendors' own SDKs use); temperature 0 for reproducible answers
    (None leaves the vendor default, for models that reject the parameter).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    timeout: float = Field(default=60.0, gt=0, description="Seconds per request.")
    max_retries: int = Field(
        default=3, ge=0, le=10, description="Retries after the first attempt on 429/5xx/connection errors."
    )
    max_tokens: int = Field(default=1024, gt=0, description="Completion token limit.")
    temperature: float | None = Field(
        default=0.0, ge=0, le=2, description="Sampling temperature; None = vendor default."
    )
    backoff_base: float = Field(default=0.5, ge=0, description="First backoff delay in seconds.")
    backoff_max: float = Field(default=8.0, ge=0, description="Longest backoff delay in seconds.")


class ProviderReply(NamedTuple):
    """One vendor reply: the text and the tokens it billed."""

    text: str
    prompt_tokens: int
    completion_tokens: int


class LLM:
    """Base class of every model: see the module docstring for what it owns."""

    provider: ClassVar[str] = ""
    is_offline: ClassVar[bool] = False

    def __init__(
        self,
        model: str,
        *,
        options: LLMOptions | None = None,
        cache: ResponseCache | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.id = f"{self.provider}:{model}" if self.provider else model
        self.options = options or LLMOptions()
        self.cache = cache
        self._sleep = sleep
        self._lock = threading.Lock()
        self.usage = Usage()
        self.last_usage = Usage()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id!r})"

    def _send(self, prompt: str, system: str | None, schema: dict[str, Any] | None) -> ProviderReply:
        """One request to the vendor; adapters override this."""
        raise NotImplementedError

    def complete(self, prompt: str, *, system: str | None = None) -> str:
        """Plain text completion. Raises ``LLMError`` (``LLMUnavailable`` offline or without a key)."""
        key = cache_key(self.id, system, prompt, None)
        cached = self._cached(key)
        if cached is not None:
            self._record(Usage(cache_hits=1))
            return cached
        spent: list[ProviderReply] = []
        try:
            reply = self._send_with_retries(prompt, system, None, spent)
        finally:
            self._record(self._usage_of(spent))
        self._store(key, reply.text)
        return reply.text

    def complete_json(self, prompt: str, schema: type[SchemaT], *, system: str | None = None) -> SchemaT:
        """A validated ``schema`` instance. Raises ``LLMError`` when no valid reply came back.

        A reply that is not JSON or fails validation is retried once with the error
        appended to the prompt (models usually fix their own slip when told what it was).
        """
        wanted = schema_json(schema)
        key = cache_key(self.id, system, prompt, wanted)
        cached = self._cached(key)
        if cached is not None:
            try:
                result = parse_reply(cached, schema)
            except ValueError:
                pass
            else:
                self._record(Usage(cache_hits=1))
                return result
        structured_system = (
            json_instruction(wanted) if system is None else f"{system}\n\n{json_instruction(wanted)}"
        )
        spent: list[ProviderReply] = []
        attempt_prompt = prompt
        try:
            for attempt in range(2):
                reply = self._send_with_retries(attempt_prompt, structured_system, wanted, spent)
                try:
                    result = parse_reply(reply.text, schema)
                except ValueError as exc:
                    if attempt == 1:
                        raise LLMError(
                            f"{self.id}: reply did not match {schema.__name__} after 2 attempts: {_one_line(exc)}"
                        ) from exc
                    attempt_prompt = (
                        f"{prompt}\n\nYour previous reply was rejected ({_one_line(exc)}). "
                        "Reply again with JSON that matches the schema exactly."
                    )
                    continue
                self._store(key, reply.text)
                return result
        finally:
            self._record(self._usage_of(spent))
        raise AssertionError("unreachable: the loop returns or raises")

    def _send_with_retries(
        self, prompt: str, system: str | None, schema: dict[str, Any] | None, spent: list[ProviderReply]
    ) -> ProviderReply:
        attempts = self.options.max_retries + 1
        for attempt in range(attempts):
            try:
                reply = self._send(prompt, system, schema)
            except RetryableError as exc:
                if attempt == attempts - 1:
                    raise LLMError(f"{self.id}: gave up after {attempts} attempts: {exc}") from exc
                self._sleep(self.backoff_delay(attempt, exc.retry_after))
                continue
            spent.append(reply)
            return reply
        raise AssertionError("unreachable: the loop returns or raises")

    def backoff_delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry ``attempt + 1``: exponential, capped, at least the server's hint."""
        delay: float = min(self.options.backoff_base * 2.0**attempt, self.options.backoff_max)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.options.backoff_max))
        return delay

    def _usage_of(self, replies: list[ProviderReply]) -> Usage:
        prompt_tokens = sum(r.prompt_tokens for r in replies)
        completion_tokens = sum(r.completion_tokens for r in replies)
        cost = estimate_cost(self.id, prompt_tokens, completion_tokens)
        return Usage(
            calls=len(replies),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost_usd=cost or 0.0,
            unpriced_models=(self.id,) if cost is None and replies and self._priced() else (),
        )

    def _priced(self) -> bool:
        """Whether a missing price is worth a note (test doubles cost nothing by design)."""
        return True

    def _record(self, call: Usage) -> None:
        with self._lock:
            self.last_usage = call
            self.usage = self.usage + call

    def _cached(self, key: str) -> str | None:
        return self.cache.get(key) if self.cache is not None else None

    def _store(self, key: str, text: str) -> None:
        if self.cache is not None:
            self.cache.put(key, self.id, text)


class OfflineModel(LLM):
    """The default model: makes no call, so every step runs its deterministic fallback."""

    is_offline: ClassVar[bool] = True

    def __init__(self) -> None:
        super().__init__("offline")

    def _send(self, prompt: str, system: str | None, schema: dict[str, Any] | None) -> ProviderReply:
        raise LLMUnavailable("offline: no LLM configured (set SEEK_LLM); the deterministic fallback runs")


class SdkModel(LLM):
    """A vendor adapter whose SDK client is built on first call: the SDK imports cost seconds, and a model
    that is never called (the offline default, a flag left off) should cost nothing and need no key."""

    key_vars: ClassVar[tuple[str, ...]] = ()
    sdk_package: ClassVar[str] = ""

    def __init__(self, model: str, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self._client: Any = None

    def _sdk_client(self) -> Any:
        if self._client is None:
            key = api_key_from_env(self.id, self.key_vars)
            try:
                self._client = self._make_client(key)
            except ImportError as exc:
                raise LLMUnavailable(
                    f"{self.id}: the {self.sdk_package} SDK is not installed (pip install {self.sdk_package})"
                ) from exc
        return self._client

    def _make_client(self, key: str) -> Any:
        """Import the vendor SDK and build its client with the SDK's own retries off (retries are ours)."""
        raise NotImplementedError


# The statuses the vendors document as transient: request timeout, conflict (lock
# contention), rate limit, and every 5xx (529 is Anthropic's "overloaded").
RETRYABLE_STATUS = frozenset({408, 409, 429})


def status_error(model_id: str, status: int, message: object, headers: Any = None) -> LLMError:
    """The error for an HTTP failure: ``RetryableError`` for transient statuses, else ``LLMError``."""
    text = f"{model_id}: HTTP {status}: {_one_line(message)}"
    if status in RETRYABLE_STATUS or status >= 500:
        return RetryableError(text, retry_after=_retry_after(headers))
    return LLMError(text)


def _retry_after(headers: Any) -> float | None:
    """Seconds from a ``Retry-After`` header given in seconds (the HTTP-date form is ignored)."""
    if headers is None:
        return None
    value = headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _one_line(message: object) -> str:
    return " ".join(str(message).split())[:300]


def api_key_from_env(model_id: str, names: tuple[str, ...]) -> str:
    """The first non-empty variable of ``names``; ``LLMUnavailable`` naming them otherwise."""
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    wanted = " or ".join(names)
    raise LLMUnavailable(f"{model_id}: set {wanted} to use this model (or SEEK_LLM=offline)")
