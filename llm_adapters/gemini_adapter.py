"""``gemini:<model>``: Gemini through the official ``google-genai`` SDK (Gemini API, not Vertex).

Requests go to ``{base}/v1beta/models/{model}:generateContent`` with the key in the
``x-goog-api-key`` header. Structured calls set ``response_mime_type`` to
``application/json`` and ``response_json_schema`` to the pydantic JSON Schema (the
field that accepts full JSON Schema, ``$defs`` included). The SDK is imported on first
use and built with ``HttpRetryOptions(attempts=1)``: retries are ours.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from llm_adapters.llm import (
    LLMError,
    ProviderReply,
    RetryableError,
    SdkModel,
    status_error,
)

KEY_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
BASE_URL_VAR = "SEEK_GEMINI_BASE_URL"
API_VERSION = "v1beta"


def _transport_errors() -> tuple[type[BaseException], ...]:
    """Connection and timeout errors of whichever HTTP library the SDK picked (httpx or httpx2)."""
    found: list[type[BaseException]] = []
    for name in ("httpx", "httpx2"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        found.append(module.TransportError)
    return tuple(found)


class GeminiModel(SdkModel):
    """Gemini via ``models.generate_content``; key from GEMINI_API_KEY or GOOGLE_API_KEY."""

    provider: ClassVar[str] = "gemini"

    key_vars: ClassVar[tuple[str, ...]] = KEY_VARS
    sdk_package: ClassVar[str] = "google-genai"

    def _make_client(self, key: str) -> Any:
        from google import genai
        from google.genai import types

        return genai.Client(
            api_key=key,
            vertexai=False,
            http_options=types.HttpOptions(
                base_url=os.environ.get(BASE_URL_VAR) or None,
                api_version=API_VERSION,
                timeout=int(self.options.timeout * 1000),
                retry_options=types.HttpRetryOptions(attempts=1),
            ),
        )

    def _send(self, prompt: str, system: str | None, schema: dict[str, Any] | None) -> ProviderReply:
        client = self._sdk_client()
        from google.genai import errors, types

        config = types.GenerateContentConfig(
            system_instruction=system or None,
            max_output_tokens=self.options.max_tokens,
            temperature=self.options.temperature,
            response_mime_type="application/json" if schema is not None else None,
            response_json_schema=schema,
        )
        try:
            response = client.models.generate_content(model=self.model, contents=prompt, config=config)
        except errors.APIError as exc:
            headers = getattr(exc.response, "headers", None)
            raise status_error(self.id, int(exc.code or 0), exc.message or exc, headers) from exc
        except _transport_errors() as exc:
            raise RetryableError(f"{self.id}: {type(exc).__name__}: {exc}") from exc
        except ValueError as exc:
            raise LLMError(f"{self.id}: unreadable response: {exc}") from exc
        meta = response.usage_metadata
        prompt_tokens = (meta.prompt_token_count or 0) if meta else 0
        # Thinking tokens are billed at the output rate, so they count as completion.
        completion_tokens = (
            ((meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0)) if meta else 0
        )
        return ProviderReply(_reply_text(response), prompt_tokens, completion_tokens)


def _reply_text(response: Any) -> str:
    """The text parts of the first candidate (``response.text`` warns when other parts exist)."""
    candidates = response.candidates or []
    if not candidates or candidates[0].content is None:
        return ""
    return "".join(part.text for part in candidates[0].content.parts or [] if part.text and not part.thought)
