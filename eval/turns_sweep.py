"""Ten Turns played in chunks of sessions, and sweeps over agent configs: ``seek turns sweep --config GRID``.

A session is played on its own (the agent is reset for it and the shopper is drawn from it), so a
set can be cut into chunks, each chunk played by its own agent (locally or as one Ray task, see
``eval.ray_runs``), and the per-session results put back in order: ``assemble_report`` then computes
HR@10, MRR, MTTC and TechnicalScore with ``tenturns.evaluate``'s own functions, so the figures equal
one ``evaluate_agent`` over the whole set (a test keeps checking).

A GRID file (JSON or TOML) names the agent and, under ``options``, a list of values for each option
of its config model (``TenTurnsConfig`` for ``tenturns``); every combination is one config::

    agent = "tenturns"
    datasets = ["public-sample"]
    [options]
    sharpness = [2.0, 4.0]
    widths = [[1, 2, 10], [1, 3, 10]]
"""

from __future__ import annotations

import itertools
import json
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.files import file_sha256
from eval.config import TurnsConfig
from eval.dataset_types import TurnsDatasetInfo
from eval.turns_run import agent_options_model

DEFAULT_CHUNK = 200
"""Sessions per task: big enough that building the agent (seconds) is a small share of a task."""

Item = TypeVar("Item")
Result = TypeVar("Result")
Mapper = Callable[[Callable[[Item], Result], Sequence[Item]], list[Result]]
"""Runs a function over items and returns the results in order: ``local_map`` here, ``eval.ray_runs.RayMapper`` on Ray."""


def local_map(fn: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
    """One item after another in this process."""
    return [fn(item) for item in items]


class ChunkTask(BaseModel):
    """One (config, dataset, chunk of sessions) to play: sessions ``start`` up to ``stop`` of the set."""

    config: TurnsConfig
    dataset: str
    catalog_path: str
    sessions_path: str
    start: int
    stop: int


class ChunkResult(BaseModel):
    """What playing one chunk returned: the per-session results in order, tokens, and provenance."""

    task: ChunkTask
    agent: str
    per_session: list[Any]
    prompt_tokens: int
    completion_tokens: int
    wall_seconds: float
    build_seconds: float
    catalog_sha256: str
    catalog_skipped: int
    catalog_errors: list[str]


def chunk_tasks(config: TurnsConfig, info: TurnsDatasetInfo, chunk: int = DEFAULT_CHUNK) -> list[ChunkTask]:
    """The set cut into chunks of ``chunk`` sessions, in order."""
    if chunk < 1:
        raise ValueError("chunk must be at least 1 session")
    return [ChunkTask(config=config, dataset=info.name, catalog_path=info.catalog_path,
                      sessions_path=info.sessions_path, start=start, stop=min(start + chunk, info.n_sessions))
            for start in range(0, info.n_sessions, chunk)]


def play_chunk(task: ChunkTask) -> ChunkResult:
    """Play one chunk's sessions with a fresh agent of the task's config."""
    from eval.turns_run import agent_spec
    from tenturns.evaluate import evaluate_agent, load_sessions

    rows = load_sessions(task.sessions_path)[task.start : task.stop]
    report = evaluate_agent(agent_spec(task.config), task.catalog_path, rows)
    return ChunkResult(task=task, agent=report.agent, per_session=list(report.per_session),
                       prompt_tokens=report.prompt_tokens, completion_tokens=report.completion_tokens,
                       wall_seconds=report.wall_seconds, build_seconds=report.build_seconds,
                       catalog_sha256=report.catalog_sha256, catalog_skipped=report.catalog_skipped,
                       catalog_errors=report.catalog_errors)


def assemble_report(chunks: Sequence[ChunkResult]) -> Any:
    """One ``TurnsReport`` from a set's chunks, its metrics computed as ``evaluate_agent`` computes them.

    ``wall_seconds`` is the chunks' summed playing time (not the elapsed time, which depends on how
    many ran at once); ``build_seconds`` the longest agent build.
    """
    from tenturns.evaluate import TurnsReport, headline_metrics

    if not chunks:
        raise ValueError("no chunks to assemble")
    ordered = sorted(chunks, key=lambda c: c.task.start)
    results = [r for c in ordered for r in c.per_session]
    first = ordered[0]
    return TurnsReport(
        agent=first.agent, **headline_metrics(results), per_session=results, prompt_tokens=sum(c.prompt_tokens for c in ordered),
        completion_tokens=sum(c.completion_tokens for c in ordered), n_sessions=len(results),
        wall_seconds=round(sum(c.wall_seconds for c in ordered), 3),
        build_seconds=max(c.build_seconds for c in ordered), catalog_path=first.task.catalog_path,
        catalog_sha256=first.catalog_sha256, catalog_skipped=first.catalog_skipped,
        catalog_errors=first.catalog_errors, sessions_path=first.task.sessions_path,
        sessions_sha256=file_sha256(Path(first.task.sessions_path)),
    )


class ChunkedPlayer:
    """Plays a whole set as chunk tasks through ``mapper`` (``run_turns_dataset``'s ``play``)."""

    def __init__(self, mapper: Mapper = local_map, chunk: int = DEFAULT_CHUNK) -> None:
        if chunk < 1:
            raise ValueError("chunk must be at least 1 session")
        self.mapper = mapper
        self.chunk = chunk

    def __call__(self, info: TurnsDatasetInfo, config: TurnsConfig) -> Any:
        return assemble_report(self.mapper(play_chunk, chunk_tasks(config, info, self.chunk)))


class SweepGrid(BaseModel):
    """A GRID file: the agent, the datasets (optional), and a list of values per agent option."""

    model_config = ConfigDict(extra="forbid")

    agent: str = "tenturns"
    datasets: list[str] = Field(default_factory=list)
    options: dict[str, list[Any]] = Field(default_factory=dict)

    def configs(self) -> list[tuple[str, TurnsConfig]]:
        """Every combination of the option values, named ``option=value, ...`` (``defaults`` for none)."""
        model = agent_options_model(self.agent)
        if self.options and model is None:
            raise ValueError(f"agent {self.agent!r} takes no options; got {sorted(self.options)}")
        names = sorted(self.options)
        out = []
        for values in itertools.product(*(self.options[n] for n in names)):
            options = dict(zip(names, values, strict=True))
            if model is not None:
                try:
                    model.model_validate(options)
                except ValidationError as exc:
                    raise ValueError(f"invalid options {options}: {exc}") from exc
            label = ", ".join(f"{n}={json.dumps(v)}" for n, v in options.items()) or "defaults"
            out.append((label, TurnsConfig(agent=self.agent, options=options)))
        return out


def load_grid(path: Path) -> SweepGrid:
    """The grid in a ``.toml`` or ``.json`` file; unknown keys and empty value lists are errors."""
    if not path.is_file():
        raise FileNotFoundError(f"grid file not found: {path}")
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
        grid = SweepGrid.model_validate(data)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, ValidationError) as exc:
        raise ValueError(f"{path}: invalid grid: {exc}") from exc
    empty = [name for name, values in grid.options.items() if not values]
    if empty:
        raise ValueError(f"{path}: options with no values: {', '.join(empty)}")
    return grid


class SweepRow(BaseModel):
    """One config on one dataset: the official figures."""

    config: str
    dataset: str
    n_sessions: int
    technical_score: float
    hr10: float
    mrr: float
    mttc: float


def run_sweep(grid: SweepGrid, datasets: Sequence[TurnsDatasetInfo], mapper: Mapper = local_map,
              chunk: int = DEFAULT_CHUNK) -> list[SweepRow]:
    """Every config of ``grid`` on every dataset: all (config, dataset, chunk) tasks go to ``mapper`` at once."""
    configs = grid.configs()
    keyed = [(label, info, task) for label, config in configs for info in datasets
             for task in chunk_tasks(config, info, chunk)]
    results = mapper(play_chunk, [task for _, _, task in keyed])
    by_pair: dict[tuple[str, str], list[ChunkResult]] = {}
    for (label, info, _), result in zip(keyed, results, strict=True):
        by_pair.setdefault((label, info.name), []).append(result)
    rows = []
    for label, _ in configs:
        for info in datasets:
            report = assemble_report(by_pair[(label, info.name)])
            rows.append(SweepRow(config=label, dataset=info.name, n_sessions=report.n_sessions,
                                 technical_score=report.technical_score, hr10=report.hr10, mrr=report.mrr,
                                 mttc=report.mttc))
    return rows


def sweep_markdown(rows: Sequence[SweepRow]) -> str:
    """The sweep as a Markdown table, best TechnicalScore first within each dataset."""
    lines = ["| config | dataset | sessions | TechnicalScore | HR@10 | MRR | MTTC |", "|---|---|---:|---:|---:|---:|---:|"]
    for row in sorted(rows, key=lambda r: (r.dataset, -r.technical_score)):
        lines.append(f"| {row.config} | {row.dataset} | {row.n_sessions} | {row.technical_score:.6f} | "
                     f"{row.hr10:.6f} | {row.mrr:.6f} | {row.mttc:.6f} |")
    return "\n".join(lines) + "\n"
