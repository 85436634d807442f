"""Turning a model's text reply into a validated pydantic object.

Vendors' structured-output modes usually return bare JSON, but models reached through
gateways, older models and plain-text fallbacks wrap it in code fences or lead with a
sentence of prose. These helpers find the JSON wherever it sits and validate it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

SchemaT = TypeVar("SchemaT", bound=BaseModel)

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)


def json_candidates(text: str) -> Iterator[Any]:
    """Every JSON value the reply plausibly holds, most likely first.

    Order: the whole reply, then each fenced code block, then each object or array
    that starts at a ``{`` or ``[`` (decoded with ``json.JSONDecoder.raw_decode``, so
    trailing prose is ignored).
    """
    stripped = text.strip()
    try:
        whole = json.loads(stripped)
    except ValueError:
        pass
    else:
        yield whole
    for match in _FENCE.finditer(text):
        try:
            yield json.loads(match.group(1).strip())
        except ValueError:
            continue
    decoder = json.JSONDecoder()
    for start, char in enumerate(text):
        if char not in "{[":
            continue
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        yield value


def extract_json(text: str) -> Any:
    """The first JSON value found in ``text``; ``ValueError`` when there is none."""
    for value in json_candidates(text):
        return value
    raise ValueError(f"no JSON value in reply: {text[:120]!r}")


def parse_reply(text: str, schema: type[SchemaT]) -> SchemaT:
    """The first JSON value in ``text`` that validates against ``schema``.

    Raises ``ValueError`` (``pydantic.ValidationError`` is one) naming what went wrong
    with the best candidate, so a retry prompt and the final error can say why.
    """
    last_error: ValueError | None = None
    for value in json_candidates(text):
        try:
            return schema.model_validate(value)
        except ValidationError as exc:
            last_error = exc
    if last_error is not None:
        raise last_error
    raise ValueError(f"no JSON value in reply: {text[:120]!r}")


def schema_json(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema that is sent to the vendor and that keys the response cache.

    Generated once per model class (pydantic takes about a millisecond per call, and the
    offline classifier asks on every request); each caller gets its own copy to change.
    """
    return json.loads(_schema_text(schema))


@lru_cache(maxsize=64)
def _schema_text(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema())


def json_instruction(schema: dict[str, Any]) -> str:
    """The system-prompt sentence that asks for bare JSON matching ``schema``.

    Sent alongside each vendor's native structured-output option so a model or gateway
    that ignores the option still knows the expected shape.
    """
    return (
        "Reply with one JSON value that matches this JSON Schema, and nothing else "
        f"(no prose, no code fences):\n{json.dumps(schema, sort_keys=True)}"
    )


def batch_matches(items: object, expected: int) -> bool:
    """True when a batched reply has exactly one entry per input.

    Batched calls (explain, judge) send N inputs and must get N answers back in order;
    a reply with a missing or extra entry cannot be aligned, so the caller discards the
    whole batch and runs its fallback.
    """
    return isinstance(items, list | tuple) and len(items) == expected
