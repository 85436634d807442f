"""The ``generated`` dataset: the slides library generator's labelled queries over its own library.

Generated once per (size, seed) under ``SEEK_HOME/eval/generated/n<size>-s<seed>/`` by
``slidesearch.generator.generate_library`` (the code behind ``seek slides generate``),
into a staging folder renamed into place, then reused; its three files are hashed
like any other source, so a run records exactly which library it measured.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from core.settings import get_settings
from eval.dataset_types import LabelledQuery, SlidesDataset, source_file
from slidesearch.generator import generate_library
from slidesearch.ingest import read_master, read_slides_jsonl
from slidesearch.model import VERIFIED_PREFIX

FILES = ("slides.jsonl", "master.jsonl", "queries.jsonl")
GENERATED_SLIDES = 5000
"""Big enough for every generator feature (versions, near-dup chains, rare names) to appear,
small enough that embedding it with MiniLM int8 (~75 slides/s on 2 cores) takes under 2 minutes once."""
GENERATED_SEED = 7


def generated_folder(slides: int = GENERATED_SLIDES, seed: int = GENERATED_SEED) -> Path:
    """Where the generated library of this size and seed lives (made on first use)."""
    folder = get_settings().home / "eval" / "generated" / f"n{slides}-s{seed}"
    if not all((folder / name).is_file() for name in FILES):
        staging = folder.with_name(f".{folder.name}.tmp")
        shutil.rmtree(staging, ignore_errors=True)
        generate_library(slides, seed, staging)
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)
    return folder


def read_labelled_queries(path: Path) -> list[LabelledQuery]:
    """The generator's ``queries.jsonl``: query_id, kind, query (text or angles), universes, relevance.

    Relevance grades are 1..3 (3 = what the query is after, 2 = clearly relevant, 1 = related),
    the scale ``LabelJudge`` maps to correct (>= 2) / 50-50 (1) / wrong.
    """
    queries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        row = json.loads(line)
        try:
            queries.append(LabelledQuery(
                id=str(row["query_id"]), text=row["query"], kind=row.get("kind", ""), universes=row.get("universes"),
                qrels={k: float(v) for k, v in row["relevance"].items() if float(v) > 0},
            ))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}:{number}: not a labelled query ({exc})") from exc
    return queries


def verified_sources(path: Path) -> dict[str, str]:
    """``verified:<row_id>`` -> the slide the generator made that master-sheet row from (``source_slide_id``).

    The generator curates its master sheet from the library's own case studies (the row holds
    that slide's title, client, challenge and impact), so the row answers exactly what its
    slide answers; judging it as that slide lets the label judge see the verified blend (13).
    """
    sources: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if row.get("row_id") and row.get("source_slide_id"):
                sources[f"{VERIFIED_PREFIX}{row['row_id']}"] = str(row["source_slide_id"])
    return sources


def load_generated(slides: int = GENERATED_SLIDES, seed: int = GENERATED_SEED) -> SlidesDataset:
    """Generate (first use) and load the labelled generated library, verified rows judged as their source slide."""
    folder = generated_folder(slides, seed)
    library_slides, _, slide_errors = read_slides_jsonl(folder / "slides.jsonl")
    master, master_errors = read_master(folder / "master.jsonl")
    if slide_errors or master_errors:
        raise ValueError(f"generated library at {folder} has bad rows: {(slide_errors + master_errors)[:3]}")
    return SlidesDataset(
        name="generated", mode="pipeline", docs=library_slides, master=master,
        queries=read_labelled_queries(folder / "queries.jsonl"), aliases=verified_sources(folder / "master.jsonl"),
        sources=[source_file(folder / name) for name in FILES], params={"slides": slides, "seed": seed},
    )
