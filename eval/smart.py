"""Parser for SMART-format test collections (Cranfield, CISI): ``.I`` records cut into marker fields.

Layout from ``../shared/data/ir/README.md``: a record starts with ``.I <id>``;
each field starts with a marker line (``.T``, ``.A``, ``.B``, ``.W``, ``.X``,
``.K``, ``.C``) and runs to the next marker or record. A field that appears
twice in one record (CISI's repeated ``.A``, Cranfield's second ``.W``) is
joined with a newline. Cranfield's doc 240 has stray ``.A``/``.B`` lines inside
its abstract, so a field named in ``terminal`` swallows the rest of its record
and drops bare marker lines there instead of starting new fields.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

_RECORD = re.compile(r"^\.I\s+", re.MULTILINE)
_MARKER = re.compile(r"^\.([A-Z])\s*$")


class SmartRecord(BaseModel):
    """One ``.I`` record: its id as written and its fields by marker letter."""

    id: str
    fields: dict[str, str]


def parse_smart(text: str, terminal: frozenset[str] = frozenset()) -> list[SmartRecord]:
    """Every record in file order; raises ValueError on text before the first ``.I`` or a record without an id."""
    head, *chunks = _RECORD.split(text)
    if head.strip():
        raise ValueError(f"text before the first .I record: {head[:60]!r}")
    records = []
    for chunk in chunks:
        first, _, body = chunk.partition("\n")
        record_id = first.strip()
        if not record_id:
            raise ValueError(f"a .I record without an id near {chunk[:60]!r}")
        fields: dict[str, list[str]] = {}
        current: str | None = None
        for line in body.split("\n"):
            marker = _MARKER.match(line)
            if marker and current not in terminal:
                current = marker.group(1)
                fields.setdefault(current, [])
            elif marker:
                continue
            elif current is not None:
                fields[current].append(line)
        records.append(
            SmartRecord(id=record_id, fields={key: "\n".join(lines).strip() for key, lines in fields.items()})
        )
    return records
