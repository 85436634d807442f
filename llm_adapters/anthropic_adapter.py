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
    LLMError,
    ProviderReply,
    RetryableError,
    SdkModel,
    status_error,
)

KEY_VARS = ("ANTHROPIC_API_KEY",)
BASE_URL_VAR = "SEEK_ANTHROPIC_BASE_URL"


class AnthropicModel(SdkModel):
    """Claude via ``messages.create``; key from ANTHROPIC_API_KEY, base URL from SEEK_ANTHROPIC_BASE_URL."""

    provider: ClassVar[str] = "anthropic"

    key_vars: ClassVar[tuple[str, ...]] = KEY_VARS
    sdk_package: ClassVar[str] = "anthropic"

    def _make_client(self, key: str) -> Any:
        import anthropic

        return anthropic.Anthropic(
            api_key=key,
            base_url=os.environ.get(BASE_URL_VAR) or None,
            timeout=self.options.timeout,
            max_retries=0,
        )

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
