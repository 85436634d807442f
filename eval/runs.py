"""Run records: what one ``seek eval run`` measured, stored under ``SEEK_HOME/runs/<run_id>/``.

A run directory holds ``run.json`` (everything: config, code version, dataset
hashes, per-item results, timings, token usage, cost, the llm path) and
``config.json`` (the config alone, so a run can be repeated with
``--config``). Files are written to a temporary name and renamed, so a crash
never leaves half a record.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from core.settings import get_settings
from eval.gates import GateResult

_REPO_ROOT = Path(__file__).resolve().parent.parent


class Usage(BaseModel):
    """LLM usage summed over a dataset (all zero on the offline path)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
        )


class Card(BaseModel):
    """One judged result card of a pipeline run."""

    id: str
    section: str
    score: float
    verdict: str
    judge: str
    explanation: str = ""


class ItemResult(BaseModel):
    """One query's (or session's) outcome. ``score`` is the primary per-item value the gates pair on."""

    id: str
    query: str | list[str] = ""
    n_results: int = 0
    score: float | None
    metrics: dict[str, float] = Field(default_factory=dict)
    ranked: list[str] = Field(default_factory=list)
    cards: list[Card] = Field(default_factory=list)
    group: str = ""
    seconds: float = 0.0
    error: str | None = None


CARD_SHARES = ("correct_share", "not_wrong_share")
"""Per-item shares of a pipeline dataset's judged cards that ``DatasetResult.item_values`` can pair."""


class DatasetResult(BaseModel):
    """Everything a run measured on one dataset."""

    name: str
    suite: str
    mode: str
    primary: str
    sources: dict[str, str]
    params: dict[str, Any] = Field(default_factory=dict)
    summary: dict[str, float] = Field(default_factory=dict)
    verdicts: dict[str, int] = Field(default_factory=dict)
    wrong_by_section: dict[str, int] = Field(default_factory=dict)
    per_group: dict[str, dict[str, float]] = Field(default_factory=dict)
    gates: list[GateResult] = Field(default_factory=list)
    items: list[ItemResult] = Field(default_factory=list)
    trace: dict[str, Any] | None = None
    usage: Usage = Field(default_factory=Usage)
    llm: str = "offline"
    judge: str = ""
    seconds: float = 0.0
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(g.passed for g in self.gates)

    @property
    def item_scores(self) -> dict[str, float]:
        return {item.id: item.score for item in self.items if item.score is not None}

    def item_values(self, metric: str | None = None) -> dict[str, float]:
        """Per-item values to pair: the primary score (``None``), a per-item metric, or a card-verdict share.

        ``correct_share`` and ``not_wrong_share`` are read from each item's judged cards (an item
        without judged cards has none); both are higher-is-better, so the gate reads them like
        any score.
        """
        if metric is None:
            return self.item_scores
        if metric in CARD_SHARES:
            out = {}
            for item in self.items:
                judged = [c.verdict for c in item.cards if c.verdict in ("correct", "50-50", "wrong")]
                if judged:
                    hits = sum(v == "correct" for v in judged) if metric == "correct_share" else sum(
                        v != "wrong" for v in judged)
                    out[item.id] = hits / len(judged)
            return out
        return {item.id: item.metrics[metric] for item in self.items if metric in item.metrics}


class RunRecord(BaseModel):
    """One harness run over one or more datasets."""

    run_id: str
    created: str
    suite: str
    code_version: str
    code_dirty: bool
    config: dict[str, Any]
    settings: dict[str, str]
    datasets: dict[str, DatasetResult]
    seconds: float = 0.0
    log: str | None = None

    @property
    def passed(self) -> bool:
        return all(d.passed for d in self.datasets.values())

    @property
    def usage(self) -> Usage:
        total = Usage()
        for d in self.datasets.values():
            total = total.add(d.usage)
        return total


@functools.cache
def git_version(repo: Path = _REPO_ROOT) -> tuple[str, bool]:
    """The checked-out commit and whether the tree has uncommitted changes (``unknown`` outside git).

    Read once per process: a process runs the code it imported, so every run of a sweep
    records the same version even if the checkout moves meanwhile.
    """
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True)
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False
    return head.stdout.strip(), bool(status.stdout.strip())


def new_run_id(runs_dir: Path, now: datetime | None = None) -> str:
    """A sortable id ``YYYYmmdd-HHMMSS`` (UTC), suffixed when that second is already taken."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    run_id, n = stamp, 1
    while (runs_dir / run_id).exists():
        n += 1
        run_id = f"{stamp}-{n}"
    return run_id


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def runs_dir() -> Path:
    return get_settings().runs_dir


def save_run(record: RunRecord, directory: Path | None = None) -> Path:
    """Store ``record`` under ``directory`` (default ``SEEK_HOME/runs``); returns the run folder."""
    folder = (directory or runs_dir()) / record.run_id
    atomic_write(folder / "config.json", json.dumps(record.config, indent=2, default=str))
    atomic_write(folder / "run.json", record.model_dump_json(indent=1))
    return folder


def load_run(ref: str | Path, directory: Path | None = None) -> RunRecord:
    """Load a run by id (under ``SEEK_HOME/runs``), by folder, or by the path of its ``run.json``.

    ``latest`` names the most recent run.
    """
    base = directory or runs_dir()
    if str(ref) == "latest":
        ids = sorted(p.name for p in base.glob("*") if (p / "run.json").is_file()) if base.is_dir() else []
        if not ids:
            raise FileNotFoundError(f"no runs stored under {base}")
        ref = ids[-1]
    candidates = [Path(ref), Path(ref) / "run.json", base / str(ref) / "run.json"]
    for candidate in candidates:
        if candidate.is_file():
            return RunRecord.model_validate_json(candidate.read_text(encoding="utf-8"))
    raise FileNotFoundError(f"run {ref!r} not found (looked for {base / str(ref) / 'run.json'})")


def list_runs(directory: Path | None = None) -> list[str]:
    """Stored run ids, oldest first."""
    base = directory or runs_dir()
    return sorted(p.name for p in base.glob("*") if (p / "run.json").is_file()) if base.is_dir() else []
