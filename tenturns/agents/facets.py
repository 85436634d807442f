"""A facet index over the catalog's own fields, and the expected information gain of asking about one.

Facets (colour, material, size, brand, department, price band) are read from
each row's ``details`` first and its text second, as integer value ids per
product (-1 unknown) so a candidate set's value distribution is one
``np.bincount``. The clarification policy asks about the facet whose answer is
expected to tell the most about which candidate is the target: with candidate
probabilities p (the ranking's normalised scores), the entropy of the facet's
value distribution under p is the expected information gain of learning the
target's value (a noiseless answer's gain equals the answer's entropy).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from tenturns.catalog import Catalog, Product

COLOURS = ("black", "white", "blue", "red", "pink", "green", "brown", "gray", "grey", "purple", "yellow", "orange",
           "navy", "beige", "khaki", "silver", "gold")
MATERIALS = ("cotton", "polyester", "nylon", "leather", "wool", "spandex", "silk", "rayon", "denim", "linen",
             "acrylic", "cashmere", "suede", "rubber", "canvas", "fleece")
DEPARTMENTS = {"mens": "men", "men": "men", "womens": "women", "women": "women", "boys": "boys", "girls": "girls",
               "baby": "baby", "unisex": "unisex"}
PRICE_BANDS = (10.0, 20.0, 35.0, 60.0, 100.0)
"""Upper edges of the price bands, in dollars: roughly quintiles of clothing prices."""

FACETS = ("color", "material", "size", "brand", "department", "price_band")
ASK_FOR_FACET = {"color": "color", "material": "material", "size": "size", "brand": "brand",
                 "department": "style", "price_band": "budget"}
"""The shopper attribute whose answer reveals each facet (department answers to ``style``)."""

_WORD = re.compile(r"[a-z]+")
_PRICE = re.compile(r"\$\s*(\d+(?:\.\d+)?)")


def _first_word(text: str, words: tuple[str, ...]) -> str | None:
    vocabulary = set(words)
    for token in _WORD.findall(text.lower()):
        if token in vocabulary:
            return "gray" if token == "grey" else token
    return None


def _detail(product: Product, *keys: str) -> str | None:
    for key in keys:
        value = product.details.get(key)
        if value not in (None, "", []):
            return str(value).strip().lower()
    return None


def price_band(price: float | None) -> str | None:
    """The band a price falls in, as a label like ``20-35``; None without a price."""
    if price is None:
        return None
    lower = 0.0
    for edge in PRICE_BANDS:
        if price < edge:
            return f"{lower:g}-{edge:g}"
        lower = edge
    return f"{lower:g}+"


def department(text: str | None) -> str | None:
    if not text:
        return None
    for token in _WORD.findall(text.lower()):
        if token in DEPARTMENTS:
            return DEPARTMENTS[token]
    return None


def product_facets(product: Product) -> dict[str, str | None]:
    """The six facet values of one product (None where the row says nothing)."""
    text = f"{product.title} {' '.join(product.features[:3])}"
    return {
        "color": _first_word(_detail(product, "Color") or "", COLOURS) or _first_word(text, COLOURS),
        "material": _first_word(_detail(product, "Material", "Fabric Type") or "", MATERIALS)
        or _first_word(text, MATERIALS),
        "size": _detail(product, "Size"),
        "brand": _detail(product, "Brand", "Brand Name") or (product.store or "").strip().lower() or None,
        "department": department(_detail(product, "Department")) or department(product.title),
        "price_band": price_band(product.price),
    }


def query_facets(text: str, brands: set[str]) -> dict[str, str]:
    """Facet values a shopper's words pin down: colour, material, department, price band, a known brand."""
    found: dict[str, str] = {}
    lowered = text.lower()
    if colour := _first_word(lowered, COLOURS):
        found["color"] = colour
    if material := _first_word(lowered, MATERIALS):
        found["material"] = material
    if dept := department(lowered):
        found["department"] = dept
    if (price := _PRICE.search(lowered)) and (band := price_band(float(price.group(1)))):
        found["price_band"] = band
    for brand in sorted(brands, key=lambda b: (-len(b), b)):
        if len(brand) > 2 and re.search(rf"\b{re.escape(brand)}\b", lowered):
            found["brand"] = brand
            break
    return found


def entropy(probabilities: NDArray[np.float64]) -> float:
    """Shannon entropy in bits of a (not necessarily normalised) non-negative distribution."""
    total = float(probabilities.sum())
    if total <= 0:
        return 0.0
    p = probabilities[probabilities > 0] / total
    return float(-(p * np.log2(p)).sum())


@dataclass
class FacetIndex:
    """Integer value ids per facet per product (-1 unknown), with the value names."""

    catalog: Catalog
    values: dict[str, list[str]] = field(init=False)
    ids: dict[str, NDArray[np.int64]] = field(init=False)

    def __post_init__(self) -> None:
        self.values = {name: [] for name in FACETS}
        lookup: dict[str, dict[str, int]] = {name: {} for name in FACETS}
        columns: dict[str, list[int]] = {name: [] for name in FACETS}
        for product in self.catalog.products:
            for name, value in product_facets(product).items():
                if value is None:
                    columns[name].append(-1)
                    continue
                table = lookup[name]
                if value not in table:
                    table[value] = len(table)
                    self.values[name].append(value)
                columns[name].append(table[value])
        self.ids = {name: np.asarray(col, dtype=np.int64) for name, col in columns.items()}
        self._lookup = lookup

    def value_id(self, facet: str, value: str) -> int:
        return self._lookup[facet].get(value, -1)

    def brands(self, rows: NDArray[np.int64]) -> set[str]:
        ids = self.ids["brand"][rows]
        return {self.values["brand"][i] for i in np.unique(ids[ids >= 0]).tolist()}

    def agreement(self, rows: NDArray[np.int64], wanted: dict[str, str]) -> NDArray[np.float64]:
        """Per row: +1 for each wanted facet value it has, -1 for each it contradicts, 0 when unknown."""
        out = np.zeros(len(rows), dtype=np.float64)
        for facet, value in wanted.items():
            ids = self.ids[facet][rows]
            target = self.value_id(facet, value)
            known = ids >= 0
            out += np.where(known & (ids == target), 1.0, 0.0) - np.where(known & (ids != target), 1.0, 0.0)
        return out

    def information_gain(self, rows: NDArray[np.int64], weights: NDArray[np.float64]) -> dict[str, float]:
        """Expected information gain (bits) of learning each facet's value of the target, over weighted rows.

        Unknown values are one bucket, so a facet most candidates say nothing about gains little.
        """
        gains: dict[str, float] = {}
        for facet in FACETS:
            ids = self.ids[facet][rows] + 1
            mass = np.bincount(ids, weights=weights, minlength=1).astype(np.float64)
            gains[facet] = entropy(mass)
        return gains
