"""Synthetic session sets: targets drawn uniformly from a catalog, the official scenario mix.

A set of ``n`` sessions keeps the public set's mix (80 buying, 80 browsing, 30
intent_override, 10 boundary per 200; largest-remainder rounding for other
``n``); each target is drawn uniformly without replacement from the catalog,
each user profile is resampled whole from the public sessions (so tags, rating
style and summary stay consistent, as in the public rows), and the difficulty
bucket from the public sessions of the same scenario. Every row records the seed
and the catalog's sha256 under ``source``, a field the official evaluator ignores.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tenturns.catalog import load_catalog
from tenturns.catalog_gen import write_rows
from tenturns.simulator import SCENARIOS

OFFICIAL_MIX = {"buying": 80, "browsing": 80, "intent_override": 30, "boundary": 10}
"""The public set's scenario counts per 200 sessions."""


def scenario_counts(n: int) -> dict[str, int]:
    """The official mix scaled to ``n`` sessions by largest remainder (ties in the official order)."""
    total = sum(OFFICIAL_MIX.values())
    exact = {name: n * count / total for name, count in OFFICIAL_MIX.items()}
    counts = {name: int(value) for name, value in exact.items()}
    by_remainder = sorted(SCENARIOS, key=lambda name: -(exact[name] - counts[name]))
    for name in by_remainder[: n - sum(counts.values())]:
        counts[name] += 1
    return counts


def read_public_rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise FileNotFoundError(f"public sessions not found: {path}")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def draw_sessions(catalog_path: str | Path, n: int, seed: int, public_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``n`` session rows over the catalog, deterministic per (catalog, n, seed, public rows)."""
    catalog = load_catalog(catalog_path)
    if n < 1 or n > len(catalog):
        raise ValueError(f"n must be between 1 and the catalog size {len(catalog)}, got {n}")
    if not public_rows:
        raise ValueError("no public sessions to draw user profiles from")
    rng = random.Random(f"sessions\0{seed}")
    scenarios = [name for name, count in scenario_counts(n).items() for _ in range(count)]
    rng.shuffle(scenarios)
    targets = rng.sample(range(len(catalog)), n)
    difficulty: dict[str, list[str]] = {}
    for row in public_rows:
        difficulty.setdefault(row.get("scenario_type", ""), []).append(str(row.get("difficulty_bucket", "medium")))
    source = {"generator": "seek turns sessions draw", "seed": seed, "catalog": Path(catalog_path).name,
              "catalog_sha256": catalog.sha256}
    rows = []
    for index, (scenario, target) in enumerate(zip(scenarios, targets, strict=True), start=1):
        profile = rng.choice(public_rows)["user_profile"]
        rows.append({
            "sample_id": f"synthetic_{seed}_{index:04d}",
            "scenario_type": scenario,
            "difficulty_bucket": rng.choice(difficulty.get(scenario) or ["medium"]),
            "category_bucket": "clothing",
            "user_profile": json.loads(json.dumps(profile)),
            "ground_truth": {"parent_asin": catalog.products[target].parent_asin},
            "source": source,
        })
    return rows


def draw_sessions_file(catalog_path: str | Path, n: int, seed: int, out: Path, public_path: Path) -> str:
    """Draw and write a session set as JSONL (through a temporary file); returns its sha256."""
    return write_rows(draw_sessions(catalog_path, n, seed, read_public_rows(public_path)), out)
