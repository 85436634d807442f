"""Estimated cost of a call from a per-model price table.

Prices are USD per million tokens (input, output) at the vendors' standard tier for
prompts under 200k tokens, as published on their pricing pages in 2026:

- Anthropic, platform.claude.com model pages: Haiku 4.5 $1/$5, Sonnet 4.5 and 4.6
  $3/$15, Opus 4.5–4.8 and Opus 5 $5/$25, Sonnet 5 and 5.5 $2/$10, Opus 5.5 $4/$20.
- Google, ai.google.dev/gemini-api/docs/pricing: Gemini 2.5 Pro $1.25/$10, 2.5 Flash
  $0.30/$2.50, 2.5 Flash-Lite $0.10/$0.40 (thinking tokens bill as output).
- NVIDIA's hosted API catalog (integrate.api.nvidia.com) bills in credits, not per
  token in USD, so ``nvidia:*`` models have no price here: their tokens are counted
  and the cost is reported as unknown rather than guessed.

An unknown model is never an error: its cost counts as 0 and the usage record names it
so a report can say the total is incomplete.
"""

from __future__ import annotations

from typing import NamedTuple


class Price(NamedTuple):
    """USD per million input (prompt) and output (completion) tokens."""

    input_per_mtok: float
    output_per_mtok: float


PRICES: dict[str, Price] = {
    "anthropic:claude-haiku-4-5": Price(1.0, 5.0),
    "anthropic:claude-sonnet-4-5": Price(3.0, 15.0),
    "anthropic:claude-sonnet-4-6": Price(3.0, 15.0),
    "anthropic:claude-opus-4-5": Price(5.0, 25.0),
    "anthropic:claude-opus-4-6": Price(5.0, 25.0),
    "anthropic:claude-sonnet-5": Price(2.0, 10.0),
    "anthropic:claude-sonnet-5-5": Price(2.0, 10.0),
    "anthropic:claude-opus-5": Price(5.0, 25.0),
    "anthropic:claude-opus-5-5": Price(4.0, 20.0),
    "gemini:gemini-2.5-pro": Price(1.25, 10.0),
    "gemini:gemini-2.5-flash": Price(0.30, 2.50),
    "gemini:gemini-2.5-flash-lite": Price(0.10, 0.40),
}

# Snapshot ids (claude-haiku-4-5-20251001) and "-latest"/"-001" suffixes price like their alias.
_SUFFIXES = ("-latest", "-001", "-002")


def price_for(model_id: str) -> Price | None:
    """The price of ``model_id`` (``vendor:model``), or None when it is not in the table."""
    if model_id in PRICES:
        return PRICES[model_id]
    base = model_id
    for suffix in _SUFFIXES:
        base = base.removesuffix(suffix)
    head, _, tail = base.rpartition("-")
    if tail.isdigit() and len(tail) == 8:
        base = head
    return PRICES.get(base)


def estimate_cost(model_id: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for one call, or None when the model has no price."""
    price = price_for(model_id)
    if price is None:
        return None
    return (prompt_tokens * price.input_per_mtok + completion_tokens * price.output_per_mtok) / 1_000_000
