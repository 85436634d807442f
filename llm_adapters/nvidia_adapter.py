"""``nvidia:<model>``: NVIDIA's OpenAI-compatible chat completions endpoint via the ``openai`` SDK.

Model ids are NVIDIA's catalog names, e.g. ``nvidia:meta/llama-3.3-70b-instruct``.
Structured calls send ``response_format`` of type ``json_schema`` (the OpenAI form,
which NIM's structured generation documents alongside ``nvext.guided_json``). The SDK
is imported on first use and built with ``max_retries=0``: retries are ours.
"""

from __future__ import annotations

import os
import re
from typing import Any, ClassVar

from llm_adapters.llm import (
    LLMError,
    ProviderReply,
    RetryableError,
    SdkModel,
    status_error,
)

KEY_VARS = ("NVIDIA_API_KEY",)
BASE_URL_VAR = "SEEK_NVIDIA_BASE_URL"
DEFAULT_BASE_URL = "https://integrate.api.nvidia.com/v1"


class NvidiaModel(SdkModel):
    """An NVIDIA-hosted model via ``chat.completions.create``; key from NVIDIA_API_KEY."""

    provider: ClassVar[str] = "nvidia"

    key_vars: ClassVar[tuple[str, ...]] = KEY_VARS
    sdk_package: ClassVar[str] = "openai"

    def _make_client(self, key: str) -> Any:
        import openai

        return openai.OpenAI(
            api_key=key,
            base_url=os.environ.get(BASE_URL_VAR) or DEFAULT_BASE_URL,
            timeout=self.options.timeout,
            max_retries=0,
        )

    def _send(self, prompt: str, system: str | None, schema: dict[str, Any] | None) -> ProviderReply:
        client = self._sdk_client()
        import openai

        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": prompt})
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": self.options.max_tokens,
        }
        if self.options.temperature is not None:
            request["temperature"] = self.options.temperature
        if schema is not None:
            name = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title", "reply")))[:64]
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema},
            }
        try:
            completion = client.chat.completions.create(**request)
        except openai.APIStatusError as exc:
            raise status_error(self.id, exc.status_code, exc.message, exc.response.headers) from exc
        except openai.APIConnectionError as exc:
            raise RetryableError(f"{self.id}: {type(exc).__name__}: {exc}") from exc
        except openai.OpenAIError as exc:
            raise LLMError(f"{self.id}: {type(exc).__name__}: {exc}") from exc
        if not completion.choices:
            raise LLMError(f"{self.id}: the reply had no choices")
        text = completion.choices[0].message.content or ""
        usage = completion.usage
        return ProviderReply(
            text, usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0
        )
