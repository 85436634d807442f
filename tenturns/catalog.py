"""The product catalog: rows in the Amazon Reviews 2023 metadata schema, shelf labels and the shelf index.

A catalog is a JSONL (or JSONL.gz) file, one product per line. Bad rows (invalid
JSON, not an object, no ``parent_asin``, a repeated ``parent_asin``) are skipped
and reported in ``Catalog.errors`` with their line numbers, never silently.
The shelf label is the TechJam generator's coarse category
(``shared/specs/tenturns.md``, "Shelf label").
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from core.files import file_sha256

_SHELF_DROPPED = {"clothing", "clothing shoes & jewelry", "clothing, shoes & jewelry"}
FALLBACK_SHELF = "clothing item"


def _as_text_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(item) for item in value if item is not None]
    return [str(value)]


class Product(BaseModel):
    """One catalog row. ``price_text`` keeps the raw price as the official simulator prints it."""

    model_config = ConfigDict(frozen=True)

    parent_asin: str
    title: str = ""
    features: list[str] = []
    description: list[str] = []
    price: float | None = None
    price_text: str | None = None
    categories: list[str] = []
    details: dict[str, Any] = {}
    average_rating: float | None = None
    rating_number: int | None = None
    store: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _coerce_raw_row(cls, row: Any) -> Any:
        """Accept a raw metadata row as the official tools read it: lists of anything, odd prices, nulls."""
        if not isinstance(row, dict):
            return row
        data = dict(row)
        if data.get("parent_asin") is not None:
            data["parent_asin"] = str(data["parent_asin"]).strip()
        data["title"] = "" if data.get("title") is None else str(data["title"])
        for name in ("features", "description", "categories"):
            data[name] = _as_text_list(data.get(name))
        details = data.get("details")
        data["details"] = {str(k): v for k, v in details.items()} if isinstance(details, dict) else {}
        raw_price = data.get("price")
        if "price_text" not in data:
            # The official intent card prints any price that is not None or "" with str().
            data["price_text"] = None if raw_price in (None, "") else str(raw_price)
        data["price"] = _as_float(raw_price)
        data["average_rating"] = _as_float(data.get("average_rating"))
        rating_number = _as_float(data.get("rating_number"))
        data["rating_number"] = None if rating_number is None else int(rating_number)
        store = data.get("store")
        data["store"] = None if store is None else str(store)
        return data


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value).replace(",", "").replace("$", "").strip())
    except ValueError:
        return None


def shelf_label(categories: list[str]) -> str:
    """The coarse category: split entries on commas, drop the constant Clothing prefix, join the last two.

    ``"Clothing, Shoes & Jewelry"`` splits into ``Clothing`` (dropped) and ``Shoes & Jewelry``
    (kept) — the official generator's quirk, kept on purpose.
    """
    parts: list[str] = []
    for value in categories:
        for part in str(value).split(","):
            part = part.strip()
            if part and part.lower() not in _SHELF_DROPPED:
                parts.append(part)
    return " ".join(parts[-2:]) if parts else FALLBACK_SHELF


def searchable_text(p: Product) -> str:
    """Title, features, details as ``"key value"``, description, categories, store, joined by spaces."""
    parts: list[str] = []
    if p.title:
        parts.append(p.title)
    parts.extend(p.features)
    parts.extend(f"{key} {value}" for key, value in p.details.items())
    parts.extend(p.description)
    parts.extend(p.categories)
    if p.store is not None:
        parts.append(p.store)
    return " ".join(parts).strip()


@dataclass
class Catalog:
    """Products in file order with an id index and the shelf index."""

    products: list[Product]
    path: Path | None = None
    sha256: str = ""
    errors: list[str] = field(default_factory=list)
    index_of: dict[str, int] = field(init=False)
    shelf_of: list[str] = field(init=False)
    shelves: dict[str, list[int]] = field(init=False)

    def __post_init__(self) -> None:
        self.index_of = {p.parent_asin: row for row, p in enumerate(self.products)}
        self.shelf_of = [shelf_label(p.categories) for p in self.products]
        self.shelves = {}
        for row, shelf in enumerate(self.shelf_of):
            self.shelves.setdefault(shelf, []).append(row)

    def __len__(self) -> int:
        return len(self.products)

    def get(self, parent_asin: str) -> Product | None:
        row = self.index_of.get(parent_asin)
        return None if row is None else self.products[row]


def open_text(path: Path) -> Iterator[str]:
    """Lines of a text file, transparently gunzipped when the file is gzip (by magic bytes)."""
    with path.open("rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    with opener(path, "rt", encoding="utf-8") as handle:
        yield from handle


def raw_catalog_rows(lines: Iterable[str]) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """(line number, JSON object) of every row with a ``parent_asin``, plus one error per bad row (``line N: why``)."""
    rows: list[tuple[int, dict[str, Any]]] = []
    errors: list[str] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {number}: invalid JSON ({exc.msg})")
            continue
        if not isinstance(row, dict):
            errors.append(f"line {number}: not a JSON object")
            continue
        if not str(row.get("parent_asin") or "").strip():
            errors.append(f"line {number}: missing parent_asin")
            continue
        rows.append((number, row))
    return rows, errors


def parse_catalog_lines(lines: Iterable[str]) -> tuple[list[Product], list[str]]:
    """Products from JSONL lines plus one error string per bad row (``line N: why``)."""
    raw, errors = raw_catalog_rows(lines)
    products: list[Product] = []
    seen: set[str] = set()
    for number, row in raw:
        try:
            product = Product.model_validate(row)
        except ValidationError as exc:
            errors.append(f"line {number}: {exc.errors()[0]['msg']}")
            continue
        if product.parent_asin in seen:
            errors.append(f"line {number}: repeated parent_asin {product.parent_asin} (kept the first)")
            continue
        seen.add(product.parent_asin)
        products.append(product)
    errors.sort(key=lambda e: int(e.split(":", 1)[0].removeprefix("line ")))
    return products, errors


_CACHE: dict[tuple[str, int, int], Catalog] = {}
_CACHE_SIZE = 4


def load_catalog(path: str | Path) -> Catalog:
    """Load a JSONL or JSONL.gz catalog, cached per (path, mtime, size) inside the process."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise FileNotFoundError(f"catalog not found: {path}")
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    products, errors = parse_catalog_lines(open_text(path))
    if not products:
        raise ValueError(f"catalog {path} has no valid rows" + (f" ({errors[0]})" if errors else ""))
    catalog = Catalog(products=products, path=path, sha256=file_sha256(path), errors=errors)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = catalog
    return catalog
