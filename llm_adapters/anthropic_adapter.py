"""``anthropic:<model>``: Claude through the official ``anthropic`` SDK's Messages API.

Structured calls send ``output_config.format`` (``json_schema``, the schema passed
through ``anthropic.transform_schema``, which rewrites it into the subset the API
accepts). The SDK is imported on first use (importing it costs about 2 s) and built
with ``max_retries=0``: retries are ours (see ``llm_adapters.llm``).

``options.temperature`` is not sent: the Messages API of anthropic SDK 2.x has no
sampling parameters (``create`` rejects ``temperature``).
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

from llm_adapters.llm import (
    LLM,
    LLMError,
    LLMUnavailable,
    ProviderReply,
    RetryableError,
    api_key_from_env,
    status_error,
)

KEY_VARS = ("ANTHROPIC_API_KEY",)
BASE_URL_VAR = "SEEK_ANTHROPIC_BASE_URL"


class AnthropicModel(LLM):
    """Claude via ``messages.create``; key from ANTHROPIC_API_KEY, base URL from SEEK_ANTHROPIC_BASE_URL."""

    provider: ClassVar[str] = "anthropic"

    def __init__(self, model: str, **kwargs: Any) -> None:
        super().__init__(model, **kwargs)
        self._client: Any = None

    def _sdk_client(self) -> Any:
        if self._client is None:
            key = api_key_from_env(self.id, KEY_VARS)
            try:
                import anthropic
            except ImportError as exc:
                raise LLMUnavailable(
                    f"{self.id}: the anthropic SDK is not installed (pip install anthropic)"
                ) from exc
            self._client = anthropic.Anthropic(
                api_key=key,
                base_url=os.environ.get(BASE_URL_VAR) or None,
                timeout=self.options.timeout,
                max_retries=0,
            )
        return self._client

    def _send(self, prompt: str, system: str | None, schema: dict[str, Any] | None) -> ProviderReply:
        client = self._sdk_client()
        import anthropic

        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.options.max_tokens,
            "messages": [{"role": "user", "content": prompt}],
        }
        if system:
            request["system"] = system
        if schema is not None:
            request["output_config"] = {
                "format": {"type": "json_schema", "schema": anthropic.transform_schema(schema)}
            }
        try:
            message = client.messages.create(**request)
        except anthropic.APIStatusError as exc:
            raise status_error(self.id, exc.status_code, exc.message, exc.response.headers) from exc
        except anthropic.APIConnectionError as exc:
            raise RetryableError(f"{self.id}: {type(exc).__name__}: {exc}") from exc
        except anthropic.AnthropicError as exc:
            raise LLMError(f"{self.id}: {type(exc).__name__}: {exc}") from exc
        text = "".join(block.text for block in message.content if block.type == "text")
        return ProviderReply(text, message.usage.input_tokens, message.usage.output_tokens)
