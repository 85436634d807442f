"""A deterministic approximation of the frozen 50k TechJam catalog, grown from the real rows.

The real 50,000-row catalog is not available; about 1,200 of its rows are. This
generator keeps every real row verbatim and adds rows in the same schema drawn
from the real rows' own material: their category paths (plus truncations,
department variants and sub-shelves of them), title skeletons of real rows on
the same shelf or, mostly, in the same department group with the product noun
renamed, the group's title vocabulary, its features and descriptions, detail
keys of the template with values drawn from each key's real value distribution,
and prices, ratings and stores from the real distributions.

Shape (``shared/specs/tenturns.md``, "Catalogs and session sets"): about 1,100
shelves for 50k rows (scaled with the size) with log-normal sizes of median 8,
stretched above the median to fill the catalog and compressed past a knee so
that the largest shelves sit a little over 1,000; the shelves the real rows fall
on most get the largest sizes. Every real row gets near-twins on its shelf
(Poisson, mean 1) that differ in exactly one of colour, material, size, a
feature or a detail. Words and features only one real row has are never copied
verbatim into other rows (a real catalog 40 times larger does not repeat a
product's brand or model name in dozens of others). Rows are shuffled so that
catalog order carries no signal.

Realism is measured, not assumed: the BM25 baseline on the 200 public sessions
over the result should score near the official 0.10671 (HR@10 0.125, MRR
0.068, MTTC 9.81). Measured with generator version 4, seed 2026
(``seek turns eval --agent baseline --dataset public-50k``): HR@10 0.125, MRR
0.042399, MTTC 9.795, TechnicalScore 0.09932 — hit rate and time to hit match
the official figures, MRR is about 40% lower (hits land a few ranks lower).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import random
import re
import string
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from tenturns.catalog import open_text, raw_catalog_rows, shelf_label
from tenturns.simulator import COLOR_WORDS, MATERIALS

GENERATOR_VERSION = 4
"""Bumped whenever the generated rows change, so cached catalogs under SEEK_HOME are rebuilt."""
REFERENCE_SIZE = 50_000
REFERENCE_SHELVES = 1_100
"""The frozen catalog has about 1,100 shelves at 50,000 rows (seed write-up, "Shelf restriction")."""
DEPARTMENTS = ("Women", "Men", "Girls", "Boys", "Baby")
TWIN_CHANGES = ("color", "material", "size", "feature", "detail")
SIZES = ("X-Small", "Small", "Medium", "Large", "X-Large", "XX-Large", "3X-Large", "One Size")

_COLOR_RE = re.compile(r"\b(" + "|".join(COLOR_WORDS) + r")\b", re.I)
_MATERIAL_RE = re.compile(r"\b(" + "|".join(MATERIALS) + r")\b", re.I)
_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_DIGITS_RE = re.compile(r"\d+")
_SIZE_RE = re.compile(r"\b(" + "|".join(re.escape(s) for s in SIZES) + r")\b")


class GeneratorConfig(BaseModel):
    """Every knob of the generator, with the value the realism check was run at."""

    size: int = Field(REFERENCE_SIZE, ge=1)
    seed: int = 0
    shelves_per_50k: int = REFERENCE_SHELVES
    shelf_median: float = 8.0
    shelf_sigma: float = 1.7
    """Log-normal shelf sizes: median 8 and, over 1,100 shelves, a largest shelf past 1,000."""
    shelf_knee_per_50k: int = 1_000
    twins_mean: float = 1.0
    """Mean near-twins per real row (Amazon lists most apparel in several colours/sizes)."""
    word_swap: float = 0.3
    """Share of a template title's content words replaced by words from the shelf's title vocabulary."""
    feature_keep: float = 0.5
    group_templates: float = 10.0
    """Pseudo-count of department-group templates next to a shelf's own real rows."""


@dataclass
class Pool:
    """What a shelf's generated rows are drawn from.

    Templates (the title skeleton, detail keys, price) come from the shelf's own real rows;
    swapped title words, features and descriptions from the wider department group (real rows
    sharing the first three category levels), so that shelf-mates are different products rather
    than copies of the one real row a small shelf may have.
    """

    rows: list[dict[str, Any]]
    group: list[dict[str, Any]]
    rare: frozenset[str] = frozenset()
    rare_words: tuple[str, ...] = ()
    title_words: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    descriptions: list[list[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        # Each word counts once per row, so a swapped-in word is as common as it is across the group's titles.
        words = Counter(w for r in self.group for w in set(_WORD_RE.findall(r.get("title") or ""))
                        if w.lower() not in self.rare)
        self.title_words = sorted(words.elements())
        self.features = [str(f) for r in self.group for f in (r.get("features") or [])]
        self.descriptions = [list(r.get("description") or []) for r in self.group if r.get("description")]


def group_key(path: list[str]) -> tuple[str, ...]:
    return tuple(path[:3])


@dataclass
class Shelf:
    label: str
    path: list[str]
    pool: Pool
    size: int
    extension: str | None = None


@dataclass
class GenState:
    config: GeneratorConfig
    base: list[dict[str, Any]]
    rng: random.Random
    shelves: list[Shelf] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    used_ids: set[str] = field(default_factory=set)
    detail_values: dict[str, list[Any]] = field(default_factory=dict)
    stores: list[str] = field(default_factory=list)
    prices: list[float | None] = field(default_factory=list)
    ratings: list[tuple[Any, Any]] = field(default_factory=list)
    feature_rows: Counter[str] = field(default_factory=Counter)
    rare: frozenset[str] = frozenset()


def _real_paths(base: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    by_label: dict[str, list[dict[str, Any]]] = {}
    for row in base:
        by_label.setdefault(shelf_label([str(c) for c in row.get("categories") or []]), []).append(row)
    return by_label


def _candidate_paths(base: list[dict[str, Any]], real: set[str]) -> list[tuple[str, list[str], list[dict[str, Any]]]]:
    """New shelves from real paths: truncations (intermediate nodes) and department variants, in a stable order."""
    found: dict[str, tuple[list[str], list[dict[str, Any]]]] = {}
    leaf_departments: dict[str, set[str]] = {}
    for row in base:
        path = [str(c) for c in row.get("categories") or []]
        if len(path) > 2 and path[1] in DEPARTMENTS:
            leaf_departments.setdefault(path[-1], set()).add(path[1])
    for row in base:
        path = [str(c) for c in row.get("categories") or []]
        variants = [path[:n] for n in range(2, len(path))]
        # A department variant only for leaves the real rows already list under two departments or more.
        if len(path) > 2 and path[1] in DEPARTMENTS and len(leaf_departments.get(path[-1], ())) > 1:
            variants += [[path[0], d, *path[2:]] for d in DEPARTMENTS if d != path[1]]
        for variant in variants:
            label = shelf_label(variant)
            if label not in real:
                found.setdefault(label, (variant, []))[1].append(row)
    return [(label, path, rows) for label, (path, rows) in sorted(found.items())]


class PlanShelves:
    """Choose ~1,100 shelves per 50k rows and their sizes; the most observed real shelves get the largest."""

    def run(self, state: GenState) -> GenState:
        cfg, rng = state.config, state.rng
        by_label = _real_paths(state.base)
        groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        for row in state.base:
            groups.setdefault(group_key([str(c) for c in row.get("categories") or []]), []).append(row)

        rare_words = tuple(sorted(w for w in state.rare if w.isalpha()))

        def pool(rows: list[dict[str, Any]], path: list[str]) -> Pool:
            return Pool(rows, groups.get(group_key(path)) or rows, state.rare, rare_words)

        n_shelves = max(len(by_label), round(cfg.shelves_per_50k * cfg.size / REFERENCE_SIZE))
        extras = _candidate_paths(state.base, set(by_label))
        rng.shuffle(extras)
        extras = extras[: n_shelves - len(by_label)]
        extension_sources = sorted(by_label)
        attempts = 0
        while len(by_label) + len(extras) < n_shelves and attempts < 20 * n_shelves:
            attempts += 1
            label = rng.choice(extension_sources)
            word = _extension_word(Pool(by_label[label], by_label[label]), label, rng)
            path = [*[str(c) for c in by_label[label][0].get("categories") or []], word]
            new_label = shelf_label(path)
            if new_label not in by_label and all(new_label != e[0] for e in extras):
                extras.append((new_label, path, by_label[label]))
        shelves = []
        for label, rows in sorted(by_label.items()):
            path = [str(c) for c in rows[0].get("categories") or []]
            shelves.append(Shelf(label, path, pool(rows, path), len(rows)))
        for label, path, rows in extras:
            extension = path[-1] if len(path) > len(rows[0].get("categories") or []) else None
            shelves.append(Shelf(label, path, pool(rows, path), 0, extension))
        sizes = shelf_sizes(len(shelves), cfg, rng)
        # The shelves the real rows fall on most get the largest sizes (ties broken at random); the
        # shelves no real row falls on get the rest in random order.
        order = sorted(range(len(by_label)), key=lambda i: (-shelves[i].size, rng.random()))
        extra_order = list(range(len(by_label), len(shelves)))
        rng.shuffle(extra_order)
        for index, size in zip([*order, *extra_order], sizes, strict=True):
            shelves[index].size = max(size, shelves[index].size)
        state.shelves = shelves
        return state


def shelf_sizes(n: int, cfg: GeneratorConfig, rng: random.Random) -> list[int]:
    """``n`` log-normal shelf sizes, largest first, summing to about ``cfg.size`` with the median kept.

    Sizes above the median m are stretched as m·(s/m)^γ, γ found by bisection so that the total
    is ``cfg.size``; sizes past the knee are then compressed (to the fourth root of their excess
    ratio) so that, as in the frozen catalog, the largest shelves sit a little over 1,000 at 50k
    rows rather than running away. The knee scales with the size.
    """
    median = cfg.shelf_median
    sizes = sorted((math.exp(rng.gauss(math.log(median), cfg.shelf_sigma)) for _ in range(n)), reverse=True)
    knee = cfg.shelf_knee_per_50k * cfg.size / REFERENCE_SIZE

    def shaped(value: float, gamma: float) -> int:
        if value > median:
            value = median * (value / median) ** gamma
        return max(1, round(value if value <= knee else knee * (value / knee) ** 0.25))

    low, high = 0.1, 4.0
    for _ in range(60):
        gamma = (low + high) / 2
        if sum(shaped(s, gamma) for s in sizes) < cfg.size:
            low = gamma
        else:
            high = gamma
    return [shaped(s, high) for s in sizes]


def _extension_word(pool: Pool, label: str, rng: random.Random) -> str:
    label_words = {w.lower() for w in label.split()}
    words = [w for w in pool.title_words if w.lower() not in label_words] or ["Classic"]
    return rng.choice(words).capitalize()


class CollectDistributions:
    """The real value distributions the generated rows draw from."""

    def run(self, state: GenState) -> GenState:
        for row in state.base:
            for key, value in (row.get("details") or {}).items():
                if value not in (None, "", []):
                    state.detail_values.setdefault(key, []).append(value)
            if row.get("store"):
                state.stores.append(str(row["store"]))
            price = row.get("price")
            state.prices.append(price if isinstance(price, int | float) and not isinstance(price, bool) else None)
            state.ratings.append((row.get("average_rating"), row.get("rating_number")))
            state.feature_rows.update({str(f) for f in row.get("features") or []})
        word_rows: Counter[str] = Counter()
        for row in state.base:
            text = " ".join([str(row.get("title") or ""), *map(str, row.get("features") or []),
                             *map(str, row.get("description") or [])])
            word_rows.update({w.lower() for w in _WORD_RE.findall(text)})
        state.rare = frozenset(w for w, n in word_rows.items() if n == 1)
        state.used_ids = {str(r["parent_asin"]) for r in state.base}
        return state


def _new_id(state: GenState) -> str:
    alphabet = string.ascii_uppercase + string.digits
    while True:
        candidate = "B0" + "".join(state.rng.choice(alphabet) for _ in range(8))
        if candidate not in state.used_ids:
            state.used_ids.add(candidate)
            return candidate


def _replace_word(text: str, pattern: re.Pattern[str], new: str) -> str:
    def keep_case(match: re.Match[str]) -> str:
        old = match.group(0)
        return new.capitalize() if old[:1].isupper() else new.lower()

    return pattern.sub(keep_case, text)


def _swap_first(row: dict[str, Any], pattern: re.Pattern[str], choices: tuple[str, ...], rng: random.Random) -> bool:
    """Replace every occurrence of the row's first colour (or material) word with another one."""
    blob = " ".join([row.get("title") or "", *map(str, row.get("features") or [])])
    match = pattern.search(blob)
    if not match:
        return False
    old = match.group(1).lower()
    new = rng.choice([c for c in choices if c != old])
    word = re.compile(rf"\b{re.escape(old)}\b", re.I)
    row["title"] = _replace_word(row.get("title") or "", word, new)
    row["features"] = [_replace_word(str(f), word, new) for f in row.get("features") or []]
    row["description"] = [_replace_word(str(d), word, new) for d in row.get("description") or []]
    row["details"] = {k: _replace_word(v, word, new) if isinstance(v, str) else v
                      for k, v in (row.get("details") or {}).items()}
    return True


def _jitter_digits(text: str, rng: random.Random) -> str:
    return _DIGITS_RE.sub(lambda m: "".join(rng.choice(string.digits) for _ in m.group(0)), text)


def _redraw_identity(state: GenState, row: dict[str, Any], price_spread: float) -> None:
    rng = state.rng
    row["parent_asin"] = _new_id(state)
    rating, count = rng.choice(state.ratings)
    row["average_rating"] = rating
    row["rating_number"] = None if count is None else max(1, round(count * math.exp(rng.gauss(0.0, 1.0))))
    price = row.get("price")
    if isinstance(price, int | float) and not isinstance(price, bool):
        row["price"] = round(max(0.99, price * math.exp(rng.gauss(0.0, price_spread))), 2)
    details = dict(row.get("details") or {})
    if "Date First Available" in details and "Date First Available" in state.detail_values:
        details["Date First Available"] = rng.choice(state.detail_values["Date First Available"])
    for key in ("Item model number", "Part Number"):
        if isinstance(details.get(key), str):
            details[key] = _jitter_digits(details[key], rng)
    row["details"] = details


def near_twin(state: GenState, template: dict[str, Any], pool: Pool, change: str) -> dict[str, Any]:
    """A copy of ``template`` on its shelf differing in one thing: colour, material, size, a feature or a detail."""
    rng = state.rng
    row: dict[str, Any] = json.loads(json.dumps(template))
    _redraw_identity(state, row, price_spread=0.08)
    if change == "color" and not _swap_first(row, _COLOR_RE, COLOR_WORDS, rng):
        row["details"]["Color"] = rng.choice(COLOR_WORDS).capitalize()
    elif change == "material" and not _swap_first(row, _MATERIAL_RE, MATERIALS, rng):
        change = "feature"
    if change == "size":
        size = rng.choice(SIZES)
        row["title"] = _SIZE_RE.sub(size, row.get("title") or "")
        row["details"]["Size"] = size
    elif change == "feature" and pool.features:
        features = list(row.get("features") or [])
        slot = rng.randrange(len(features) + 1)
        features[slot:slot + 1] = [borrowed_text(state, pool, shelf_label(row.get("categories") or []))]
        row["features"] = features
    elif change == "detail":
        keys = [k for k in row["details"] if k in state.detail_values] or list(state.detail_values)[:1]
        key = rng.choice(keys)
        row["details"][key] = rng.choice(state.detail_values[key])
    return row


def borrowed_text(state: GenState, pool: Pool, label: str) -> str:
    """A feature from the department group for a generated row.

    Features several real rows share ("Imported", "Machine Wash", "100% Cotton") are reused as
    they are; a feature only one real row has is that product's own sentence, so it is reused
    only reworded (half its words swapped for group vocabulary) — copying it verbatim would plant
    the product's most distinctive phrase in dozens of distractors, which no real catalog does.
    """
    feature = state.rng.choice(pool.features)
    if state.feature_rows[feature] > 1:
        return feature
    return _swap_title_words(feature, pool, label, 0.5, state.rng)


def _noun(path: list[str]) -> str:
    """The product noun of a category path: the last word of its leaf (``Ankle & Bootie`` → ``Bootie``)."""
    words = shelf_label(path).split()
    return words[-1] if words else ""


def _rename_noun(title: str, template_path: list[str], shelf_path: list[str]) -> str:
    """Swap the template's product noun for the shelf's, keeping singular or plural as written.

    A title without the noun stays as it is: only about a third of real titles carry their
    shelf's noun verbatim (two thirds in singular or plural), and always adding it would give
    generated rows an edge no real row has.
    """
    old, new = _noun(template_path), _noun(shelf_path)
    if not old or not new or old.lower() == new.lower():
        return title
    old_stem = old[:-1] if old.lower().endswith("s") and len(old) > 3 else old
    new_stem = new[:-1] if new.lower().endswith("s") and len(new) > 3 else new
    pattern = re.compile(rf"\b{re.escape(old_stem)}(s?)\b", re.I)
    return pattern.sub(lambda m: new_stem + m.group(1), title)


@lru_cache(maxsize=1 << 16)
def _split_words(text: str) -> tuple[tuple[str, ...], tuple[str | None, ...]]:
    """``text`` cut into alternating pieces, with each word piece's lower-case form (None elsewhere)."""
    parts: list[str] = []
    lowered: list[str | None] = []
    position = 0
    for match in _WORD_RE.finditer(text):
        parts.append(text[position:match.start()])
        lowered.append(None)
        parts.append(match.group(0))
        lowered.append(match.group(0).lower())
        position = match.end()
    parts.append(text[position:])
    lowered.append(None)
    return tuple(parts), tuple(lowered)


def _pseudo_word(original: str, rare_words: tuple[str, ...], rng: random.Random) -> str:
    """The head of one real rare word joined to the tail of another, in the original's case style."""
    head = rare_words[int(rng.random() * len(rare_words))]
    tail = rare_words[int(rng.random() * len(rare_words))]
    word = head[: max(2, len(head) // 2)] + tail[len(tail) // 2:]
    if original.isupper():
        return word.upper()
    return word.capitalize() if original[:1].isupper() else word


def _swap_title_words(text: str, pool: Pool, label: str, share: float, rng: random.Random) -> str:
    """Replace the rare words and about ``share`` of the others with common words of the group.

    A word only one real row uses is that product's own (a brand, a model, a pattern name); a
    catalog 40 times larger does not repeat it in dozens of other products, so it is always
    replaced — by a new word spliced from two real rare words, as another product would carry
    its own brand-like name rather than more common words (which would match more queries than
    real distractors do). Never swaps in a shelf-label word or a repeat: real titles do not stack their
    keywords, and a generator that did would hand BM25 distractors an unrealistic edge.
    """
    if not pool.title_words:
        return text
    parts, lowered = _split_words(text)
    rare = pool.rare
    if share <= 0.0 and not any(word in rare for word in lowered if word is not None):
        return text
    used = {word for word in lowered if word is not None}
    banned = {w.lower() for w in label.split()}
    vocabulary, size = pool.title_words, len(pool.title_words)
    out = list(parts)
    for i, word in enumerate(lowered):
        if word is None or word in banned:
            continue
        if word in rare and pool.rare_words:
            out[i] = _pseudo_word(parts[i], pool.rare_words, rng)
            continue
        if share <= 0.0 or rng.random() >= share:
            continue
        for _ in range(5):
            candidate = vocabulary[int(rng.random() * size)]
            if candidate.lower() not in used and candidate.lower() not in banned:
                used.add(candidate.lower())
                out[i] = candidate
                break
    return "".join(out)


def generated_row(state: GenState, shelf: Shelf) -> dict[str, Any]:
    """A new product for ``shelf``: a real template recombined with its shelf's vocabulary and real values."""
    cfg, rng, pool = state.config, state.rng, shelf.pool
    # A shelf's own real rows are a few products; beyond them (a pseudo-count of ``group_templates``)
    # templates come from the department group with the product noun renamed to the shelf's, so a
    # large shelf with one real row is not three hundred copies of it.
    own = len(pool.rows) / (len(pool.rows) + cfg.group_templates)
    from_shelf = rng.random() < own
    template = rng.choice(pool.rows) if from_shelf else rng.choice(pool.group)
    row: dict[str, Any] = json.loads(json.dumps(template))
    _redraw_identity(state, row, price_spread=0.35)
    old_store = str(row.get("store") or "")
    new_store = rng.choice(state.stores) if state.stores else old_store
    title = row.get("title") or ""
    if old_store and title.lower().startswith(old_store.lower()):
        title = new_store + title[len(old_store):]
    if not from_shelf:
        title = _rename_noun(title, [str(c) for c in template.get("categories") or []], shelf.path)
    title = _swap_title_words(title, pool, shelf.label, cfg.word_swap, rng)
    if shelf.extension and shelf.extension.lower() not in title.lower():
        title = f"{title} {shelf.extension}"
    row["title"] = _jitter_digits(title, rng) if rng.random() < 0.3 else title
    row["store"] = new_store or None
    # Kept features lose their rare words too: a sibling product shares the phrasing, not the specifics.
    features = [_swap_title_words(f, pool, shelf.label, 0.0, rng) if rng.random() < cfg.feature_keep or not pool.features
                else borrowed_text(state, pool, shelf.label) for f in row.get("features") or []]
    row["features"] = list(dict.fromkeys(features))
    if template.get("description") and pool.descriptions and rng.random() < 0.5:
        row["description"] = [_swap_title_words(d, pool, shelf.label, 0.5, rng) for d in rng.choice(pool.descriptions)]
    details = dict(row.get("details") or {})
    for key in list(details):
        if key in ("Manufacturer", "Brand", "Brand Name"):
            details[key] = new_store
        elif key in state.detail_values and rng.random() < 0.5:
            details[key] = rng.choice(state.detail_values[key])
    row["details"] = details
    row["categories"] = list(shelf.path)
    if rng.random() < 0.6:
        _swap_first(row, _COLOR_RE, COLOR_WORDS, rng)
    if rng.random() < 0.2:
        _swap_first(row, _MATERIAL_RE, MATERIALS, rng)
    if template.get("price") is None or rng.random() < 0.05:
        row["price"] = rng.choice(state.prices)
    return row


class MakeNearTwins:
    """A few same-shelf variants of every real row (Poisson-like count with mean ``twins_mean``)."""

    def run(self, state: GenState) -> GenState:
        rng = state.rng
        by_label = {s.label: s for s in state.shelves}
        room = {s.label: s.size - len(s.pool.rows) for s in state.shelves}
        for template in state.base:
            shelf = by_label[shelf_label([str(c) for c in template.get("categories") or []])]
            count = min(_poisson(rng, state.config.twins_mean), max(0, room[shelf.label]))
            room[shelf.label] -= count
            for _ in range(count):
                twin = near_twin(state, template, shelf.pool, rng.choice(TWIN_CHANGES))
                twin["_shelf"] = shelf.label
                state.rows.append(twin)
        return state


def _poisson(rng: random.Random, mean: float) -> int:
    # Knuth's method; the means used here are small.
    limit, k, product = math.exp(-mean), 0, rng.random()
    while product > limit:
        k += 1
        product *= rng.random()
    return k


class FillShelves:
    """Generate rows until each shelf reaches its planned size."""

    def run(self, state: GenState) -> GenState:
        filled = Counter(r.pop("_shelf") for r in state.rows)
        real_labels = Counter(shelf_label([str(c) for c in r.get("categories") or []]) for r in state.base)
        for shelf in state.shelves:
            missing = shelf.size - filled[shelf.label] - real_labels[shelf.label]
            state.rows.extend(generated_row(state, shelf) for _ in range(max(0, missing)))
        return state


class TrimAndShuffle:
    """Exactly ``size`` rows (every real row kept), shuffled so that order carries no signal."""

    def run(self, state: GenState) -> GenState:
        rng = state.rng
        room = max(0, state.config.size - len(state.base))
        if len(state.rows) > room:
            state.rows = rng.sample(state.rows, room)
        rows = [*state.base, *state.rows]
        rng.shuffle(rows)
        state.rows = rows
        return state


STAGES = (CollectDistributions(), PlanShelves(), MakeNearTwins(), FillShelves(), TrimAndShuffle())


def build_catalog(base: list[dict[str, Any]], config: GeneratorConfig) -> list[dict[str, Any]]:
    """The approximate catalog rows for ``config`` (deterministic per seed and base rows)."""
    if not base:
        raise ValueError("the base catalog has no rows")
    state = GenState(config=config, base=[dict(r) for r in base], rng=random.Random(f"catalog\0{config.seed}"))
    for stage in STAGES:
        state = stage.run(state)
    return state.rows


def read_base_rows(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Raw rows of a real catalog file (bad rows reported with line numbers, as ``load_catalog`` does)."""
    rows, errors = raw_catalog_rows(open_text(path))
    return [row for _, row in rows], errors


def write_rows(rows: Iterable[dict[str, Any]], out: Path) -> str:
    """Write JSONL (gzip when ``out`` ends in .gz) through a temporary file; returns the sha256."""
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(out.name + f".tmp{os.getpid()}")
    payload = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode("utf-8")
    if out.name.endswith(".gz"):
        # No name and mtime=0 in the header keep the bytes, and so the sha256, identical across runs.
        with open(temporary, "wb") as raw, gzip.GzipFile(filename="", fileobj=raw, mode="wb", compresslevel=1, mtime=0) as gz:
            gz.write(payload)
    else:
        temporary.write_bytes(payload)
    temporary.replace(out)
    return hashlib.sha256(out.read_bytes()).hexdigest()


def build_catalog_file(base_path: Path, out: Path, config: GeneratorConfig) -> tuple[int, list[str], str]:
    """Build and write the approximate catalog; returns (rows, bad base rows, sha256)."""
    base, errors = read_base_rows(base_path)
    rows = build_catalog(base, config)
    return len(rows), errors, write_rows(rows, out)
