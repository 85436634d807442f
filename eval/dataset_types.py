"""The types every dataset is loaded into, and the fingerprint of a source file.

The concrete datasets (``eval.generated``, ``eval.topical`` and the file loaders in
``eval.datasets``) build these; the registry (``eval.datasets``) imports the concrete
datasets, so the dependency runs one way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from core.files import file_sha256
from slidesearch.model import Slide, VerifiedCaseStudy


class DatasetMissing(FileNotFoundError):
    """A dataset's source file is absent; the message names the path looked for."""


ALIAS_RULE = "verified rows judged as their source slide, a slide's word-for-word copies as that slide (v2)"


class SourceFile(BaseModel):
    """A file a dataset was read from, fingerprinted so two runs can prove they used the same data."""

    path: str
    sha256: str
    bytes: int


class LabelledQuery(BaseModel):
    """A query with graded judgments (doc id -> gain > 0); empty qrels for an unlabelled log."""

    id: str
    text: str | list[str]
    qrels: dict[str, float] = Field(default_factory=dict)
    kind: str = ""
    universes: list[str] | None = None
    judged: list[str] | None = Field(default=None, description=(
        "Every doc a judge graded for this query, grade 0 included; None when only the graded list is known "
        "(then a doc outside ``qrels`` is 'not in the graded list', taken as gain 0)."))


class SlidesDataset(BaseModel):
    """A loaded slides-suite dataset.

    ``mode`` says how it runs: ``retrieve`` ranks ``docs`` with the retrieval stages
    alone (IR metrics); ``pipeline`` runs search_v2 + explain over the library
    at ``library_path`` (or ``docs``) and judges every card.
    """

    name: str
    mode: Literal["retrieve", "pipeline"]
    docs: list[Slide] = Field(default_factory=list)
    master: list[VerifiedCaseStudy] = Field(default_factory=list)
    queries: list[LabelledQuery]
    sources: list[SourceFile]
    params: dict[str, object] = Field(default_factory=dict)
    library_path: str | None = None
    gain: Literal["exponential", "linear"] = Field(default="exponential", description=(
        "How the product measure turns a grade into gain: 2^g - 1, or g itself."))
    aliases: dict[str, str] = Field(default_factory=dict, description=(
        "Card ids that stand for a labelled slide: a verified master-sheet row (``verified:<row_id>``) made "
        "from that slide, or a word-for-word copy of it (the generated set's deck versions), is judged as it, "
        "and in the IR metrics and the reference rankings counts as it (once). A verified card with no "
        "alias is left unjudged."))

    @property
    def labelled(self) -> bool:
        return any(q.qrels for q in self.queries)

    @property
    def hashes(self) -> dict[str, str]:
        """The source files' hashes, plus the judging rule when aliases change what a card is judged as
        (so two runs judged differently are never paired as like for like)."""
        hashes = {Path(s.path).name: s.sha256 for s in self.sources}
        if self.aliases:
            hashes["judging"] = ALIAS_RULE
        return hashes


_HASH_CACHE: dict[tuple[str, int, int], str] = {}


def source_file(path: Path) -> SourceFile:
    """Fingerprint ``path`` (sha256 cached per path, size and mtime within the process)."""
    if not path.is_file():
        raise DatasetMissing(f"dataset file not found: {path}")
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _HASH_CACHE:
        _HASH_CACHE[key] = file_sha256(path)
    return SourceFile(path=str(path), sha256=_HASH_CACHE[key], bytes=stat.st_size)


class TurnsDatasetInfo(BaseModel):
    """A turns-suite dataset: catalog and sessions files, fingerprinted."""

    name: str
    catalog_path: str
    sessions_path: str
    n_sessions: int
    sources: list[SourceFile]

    @property
    def hashes(self) -> dict[str, str]:
        return {Path(s.path).name: s.sha256 for s in self.sources}
