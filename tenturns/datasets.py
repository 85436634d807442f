"""Named Ten Turns datasets: a catalog and a session set each.

- ``public-sample``: the 200 public sessions over the ~1.2k real catalog rows.
- ``public-50k``: the same sessions over the 50k approximation built from those rows.
- ``synthetic-1/2/3``: 200 sessions each, drawn from the 50k approximation.

The real files come from ``SEEK_DATA_DIR/techjam``; the generated ones are built
deterministically on first use under ``SEEK_HOME/turns/`` with the fixed seeds
below, then reused. A missing source is a clear error naming its path.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from core.settings import get_settings
from tenturns.catalog_gen import GENERATOR_VERSION, GeneratorConfig, build_catalog_file
from tenturns.sessions import draw_sessions_file

CATALOG_SEED = 2026
"""The seed of the 50k approximation every named dataset uses."""
SYNTHETIC_SEEDS = {"synthetic-1": 1, "synthetic-2": 2, "synthetic-3": 3}
SYNTHETIC_SIZE = 200
DATASETS = ("public-sample", "public-50k", *SYNTHETIC_SEEDS)


class TurnsDataset(BaseModel):
    name: str
    catalog_path: Path
    sessions_path: Path


def _real_files() -> tuple[Path, Path]:
    folder = get_settings().data_dir / "techjam"
    catalog, sessions = folder / "catalog_sample.jsonl", folder / "public_set.jsonl"
    for path in (catalog, sessions):
        if not path.is_file():
            raise FileNotFoundError(f"TechJam data not found: {path} (set SEEK_DATA_DIR to the shared data folder)")
    return catalog, sessions


def approximate_catalog_path() -> Path:
    """The 50k approximation, built from the real rows on first use."""
    sample, _ = _real_files()
    out = get_settings().home / "turns" / f"catalog_50k_seed{CATALOG_SEED}_v{GENERATOR_VERSION}.jsonl.gz"
    if not out.is_file():
        build_catalog_file(sample, out, GeneratorConfig(size=50_000, seed=CATALOG_SEED))
    return out


def resolve_dataset(name: str) -> TurnsDataset:
    """The catalog and sessions of a named dataset, generating them on first use."""
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(DATASETS)}")
    sample, public = _real_files()
    if name == "public-sample":
        return TurnsDataset(name=name, catalog_path=sample, sessions_path=public)
    catalog = approximate_catalog_path()
    if name == "public-50k":
        return TurnsDataset(name=name, catalog_path=catalog, sessions_path=public)
    seed = SYNTHETIC_SEEDS[name]
    sessions = catalog.parent / f"{name}_seed{seed}_v{GENERATOR_VERSION}.jsonl"
    if not sessions.is_file():
        draw_sessions_file(catalog, SYNTHETIC_SIZE, seed, sessions, public)
    return TurnsDataset(name=name, catalog_path=catalog, sessions_path=sessions)
