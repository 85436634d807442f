"""Anthropic, Gemini, NVIDIA and offline behind one interface.

    from llm_adapters import get_model, LLMError
    model = get_model()                      # SEEK_LLM, default "offline"
    try:
        out = model.complete_json(prompt, Schema)
    except LLMError:
        out = deterministic_fallback(...)

See ``llm_adapters.llm`` for the interface and its robustness rules.
"""

from llm_adapters.fake_model import FakeModel, FakeRequest
from llm_adapters.llm import (
    LLM,
    LanguageModel,
    LLMError,
    LLMOptions,
    LLMUnavailable,
    OfflineModel,
    RetryableError,
    Usage,
)
from llm_adapters.pricing import PRICES, Price, estimate_cost, price_for
from llm_adapters.providers import PROVIDERS, get_model, provider_status
from llm_adapters.response_cache import CacheError, ResponseCache, cache_key
from llm_adapters.structured import batch_matches, extract_json, parse_reply

__all__ = [
    "LLM",
    "PRICES",
    "PROVIDERS",
    "CacheError",
    "FakeModel",
    "FakeRequest",
    "LanguageModel",
    "LLMError",
    "LLMOptions",
    "LLMUnavailable",
    "OfflineModel",
    "Price",
    "ResponseCache",
    "RetryableError",
    "Usage",
    "batch_matches",
    "cache_key",
    "estimate_cost",
    "extract_json",
    "get_model",
    "parse_reply",
    "price_for",
    "provider_status",
]
