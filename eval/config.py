"""Harness configurations as pydantic models, so a sweep is a list of configs.

An ``EvalConfig`` carries one ``SlidesConfig`` (the pipeline's own ``SearchConfig``,
every seed parameter settable, plus how the harness drives and judges it) and one
``TurnsConfig`` (the agent by name and its constructor options). A config file is
JSON (``--config FILE``); unknown keys are errors, so a typo cannot silently run
the defaults.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from slidesearch.config import LexicalConfig, SearchConfig


class SlidesConfig(BaseModel):
    """How the slides suite runs: the engine's SearchConfig and the harness's own knobs."""

    model_config = ConfigDict(extra="forbid")

    search: SearchConfig = Field(default_factory=SearchConfig)
    lexical: LexicalConfig = Field(
        default_factory=LexicalConfig,
        description="How each dataset's library builds BM25 (ignored for a stored index, e.g. a query log's).",
    )
    top_per_group: int = Field(default=15, ge=1, description="search_v2's top_per_group (seed: 15).")
    retrieve_k: int = Field(default=100, ge=10, description="Depth of retrieve() on the IR sets (Recall@100).")
    explain: bool = Field(default=True, description="Fetch every card's 'why this?' before judging (seed's loop).")
    judge: Literal["auto", "label", "llm"] = Field(
        default="auto", description="auto: the LLM judge when SEEK_JUDGE_LLM is not offline, else labels."
    )
    embedder: str | None = Field(default=None, description="Embedder name; None uses SEEK_EMBEDDER.")
    trace_query: str | None = Field(
        default=None, description="Query traced for the report's funnel; None traces the first query of each set."
    )
    max_queries: int | None = Field(default=None, ge=1, description="Run only the first N queries (smoke runs).")


class TurnsConfig(BaseModel):
    """How the turns suite runs: which agent, its options, and how reproducibility is checked."""

    model_config = ConfigDict(extra="forbid")

    agent: str = Field(default="tenturns", description="Registered agent name (baseline, generic, tenturns).")
    options: dict[str, Any] = Field(
        default_factory=dict, description="Fields of the agent's own config model (e.g. TenTurnsConfig); validated there."
    )
    reproducibility: Literal["rerun", "stored"] = Field(
        default="rerun",
        description="rerun: play every set twice; stored: compare with the latest stored run of the same "
        "agent, options, code and data (rerun when there is none).",
    )


class EvalConfig(BaseModel):
    """One harness configuration."""

    model_config = ConfigDict(extra="forbid")

    name: str = "default"
    slides: SlidesConfig = Field(default_factory=SlidesConfig)
    turns: TurnsConfig = Field(default_factory=TurnsConfig)

    def fingerprint(self) -> str:
        """A short hash of the config's content (names the configuration in logs and comparisons)."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:12]


def load_sweep(path: Path) -> list[EvalConfig]:
    """The configs in a JSON file: one object is a single config, a list is a sweep (one run each)."""
    data = _read_json(path)
    return [_validate(item, path) for item in (data if isinstance(data, list) else [data])]


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise FileNotFoundError(f"config file not found: {path}")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc


def _validate(data: Any, path: Path) -> EvalConfig:
    try:
        return EvalConfig.model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"{path}: invalid config: {exc}") from exc
