"""Choosing a model by id, and which providers can be used right now.

Ids: ``offline`` or ``<provider>:<model>`` with provider one of ``anthropic``, ``gemini``,
``nvidia``. ``get_model()`` with no id uses ``SEEK_LLM`` (default ``offline``). Building
a model never touches the network or needs a key: a missing key surfaces on the first
call as ``LLMUnavailable`` naming the variable, so the caller's fallback runs.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from core.settings import get_settings
from llm_adapters import anthropic_adapter, gemini_adapter, nvidia_adapter
from llm_adapters.llm import LLM, LLMOptions, OfflineModel
from llm_adapters.response_cache import ResponseCache

PROVIDERS: dict[str, Any] = {
    "anthropic": anthropic_adapter.AnthropicModel,
    "gemini": gemini_adapter.GeminiModel,
    "nvidia": nvidia_adapter.NvidiaModel,
}

_PROVIDER_DETAILS = {
    "anthropic": (
        anthropic_adapter.KEY_VARS,
        anthropic_adapter.BASE_URL_VAR,
        "anthropic",
        "https://api.anthropic.com",
    ),
    "gemini": (
        gemini_adapter.KEY_VARS,
        gemini_adapter.BASE_URL_VAR,
        "google.genai",
        "https://generativelanguage.googleapis.com",
    ),
    "nvidia": (
        nvidia_adapter.KEY_VARS,
        nvidia_adapter.BASE_URL_VAR,
        "openai",
        nvidia_adapter.DEFAULT_BASE_URL,
    ),
}


def get_model(
    model_id: str | None = None, *, options: LLMOptions | None = None, cache: ResponseCache | None = None
) -> LLM:
    """The model for ``model_id`` (default: ``settings.llm``).

    The response cache under ``SEEK_HOME/llm_cache`` is attached when
    ``settings.llm_cache`` is on (``SEEK_LLM_CACHE``, default on) unless ``cache`` is
    given. An id with an unknown provider or no model name is a ``ValueError`` listing
    the valid forms.
    """
    settings = get_settings()
    wanted = (model_id if model_id is not None else settings.llm).strip() or "offline"
    if wanted == "offline":
        return OfflineModel()
    provider, _, model = wanted.partition(":")
    if provider not in PROVIDERS or not model.strip():
        valid = ", ".join(["offline", *(f"{name}:<model>" for name in PROVIDERS)])
        raise ValueError(f"unknown LLM id {wanted!r}; use one of {valid}")
    if cache is None and settings.llm_cache:
        cache = ResponseCache.under(settings.home)
    model_class = PROVIDERS[provider]
    return model_class(model.strip(), options=options, cache=cache)  # type: ignore[no-any-return]


def provider_status() -> dict[str, dict[str, Any]]:
    """For ``seek doctor``: per provider, whether it is usable, why, and its key variable.

    Checks the key variables (never printing their values) and that the SDK is
    installed, without importing it. ``offline`` is always usable.
    """
    status: dict[str, dict[str, Any]] = {
        "offline": {"usable": True, "reason": "deterministic fallbacks; no key, no network", "key_var": ""}
    }
    for provider, (key_vars, base_var, sdk_module, default_url) in _PROVIDER_DETAILS.items():
        key_var = next((name for name in key_vars if os.environ.get(name, "").strip()), None)
        base_url = os.environ.get(base_var) or default_url
        if key_var is None:
            usable, reason = False, f"{' or '.join(key_vars)} not set"
        elif importlib.util.find_spec(sdk_module.split(".")[0]) is None:
            usable, reason = False, f"{sdk_module} SDK not installed"
        else:
            usable, reason = True, f"{key_var} set; base URL {base_url}"
        status[provider] = {"usable": usable, "reason": reason, "key_var": key_var or key_vars[0]}
    return status
