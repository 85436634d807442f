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
from core.text import normalise
from eval.dataset_types import LabelledQuery, SlidesDataset, source_file
from slidesearch.generator import generate_library
from slidesearch.ingest import read_master, read_slides_jsonl
from slidesearch.model import VERIFIED_PREFIX, Slide

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


def copy_aliases(slides: list[Slide]) -> dict[str, str]:
    """Each slide whose title and text repeat an earlier one's word for word (normalised) -> that slide's id.

    The generator copies slides into a deck's versions (V1, V2, vFinal) and reuses boilerplate
    across decks. A copy is the same answer: the engine folds copies into one card (09) naming the
    other versions, and a rep gains nothing from the second. Judged apart, the ideal held both
    copies, so an answer that deduplicated as the spec asks could never reach it (114 of the 138
    briefs had copies among their relevant slides), and the generator's grades could differ
    between identical slides (a rare phrase's anchor graded 3 in one deck, 2 in its version).
    """
    first: dict[tuple[str, str], str] = {}
    aliases: dict[str, str] = {}
    for slide in sorted(slides, key=lambda s: s.slide_id):
        key = (normalise(slide.title), normalise(slide.text))
        if key in first:
            aliases[slide.slide_id] = first[key]
        else:
            first[key] = slide.slide_id
    return aliases


def fold_copies(query: LabelledQuery, aliases: dict[str, str]) -> LabelledQuery:
    """``query`` with its grades on the slides its copies stand for, each at the best grade any copy has."""
    qrels: dict[str, float] = {}
    for doc, grade in query.qrels.items():
        key = aliases.get(doc, doc)
        qrels[key] = max(qrels.get(key, 0.0), grade)
    return query.model_copy(update={"qrels": qrels})


def load_generated(slides: int = GENERATED_SLIDES, seed: int = GENERATED_SEED) -> SlidesDataset:
    """Generate (first use) and load the labelled generated library: verified rows judged as their source slide,
    and a slide's word-for-word copies as one slide (``copy_aliases``)."""
    folder = generated_folder(slides, seed)
    library_slides, _, slide_errors = read_slides_jsonl(folder / "slides.jsonl")
    master, master_errors = read_master(folder / "master.jsonl")
    if slide_errors or master_errors:
        raise ValueError(f"generated library at {folder} has bad rows: {(slide_errors + master_errors)[:3]}")
    copies = copy_aliases(library_slides)
    verified = {row: copies.get(slide, slide) for row, slide in verified_sources(folder / "master.jsonl").items()}
    aliases = {**copies, **verified}
    return SlidesDataset(
        name="generated", mode="pipeline", docs=library_slides, master=master,
        queries=[fold_copies(q, aliases) for q in read_labelled_queries(folder / "queries.jsonl")], aliases=aliases,
        sources=[source_file(folder / name) for name in FILES], params={"slides": slides, "seed": seed},
    )
