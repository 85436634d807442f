"""``seek eval run``: every requested dataset on one configuration, stored as one run record."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from core.settings import get_settings
from eval.config import EvalConfig, SlidesConfig, TurnsConfig
from eval.dataset_types import DatasetMissing, TurnsDatasetInfo
from eval.datasets import (
    dataset_suite,
    load_slides_dataset,
    load_turns_dataset,
    suite_datasets,
)
from eval.report import render_report
from eval.runs import (
    DatasetResult,
    RunRecord,
    git_version,
    list_runs,
    load_run,
    new_run_id,
    runs_dir,
    save_run,
)
from eval.slides_run import EngineFactory, default_engine, run_slides_dataset
from eval.turns_run import OFFICIAL_METRICS, play_whole_set, run_turns_dataset

Progress = Callable[[str], None]


def _stored_official(name: str, config: EvalConfig, code_version: str, sources: dict[str, str]) -> dict[str, float] | None:
    """Official metrics of the latest stored run of the same agent, options, code and data, if any."""
    for run_id in reversed(list_runs()):
        record = load_run(run_id)
        previous = record.datasets.get(name)
        if (
            previous is not None and previous.error is None and record.code_version == code_version
            and previous.sources == sources and record.config.get("turns") == config.turns.model_dump(mode="json")
        ):
            return {k: previous.summary[k] for k in OFFICIAL_METRICS}
    return None


def run_suite(
    suite: str,
    config: EvalConfig,
    datasets: Sequence[str] | None = None,
    log: str | None = None,
    progress: Progress | None = None,
    engine_factory: EngineFactory = default_engine,
    store: bool = True,
    slides_run: Callable[[str, SlidesConfig], DatasetResult] | None = None,
    turns_play: Callable[[TurnsDatasetInfo, TurnsConfig], Any] = play_whole_set,
) -> RunRecord:
    """Run ``datasets`` (default: every dataset of ``suite``), gate each, store the record under SEEK_HOME/runs.

    The run folder holds ``run.json``, ``config.json``, ``report.html`` and ``report.png``.
    ``slides_run(name, config)`` measures a slides dataset elsewhere (``eval.ray_runs``; default: here
    with ``engine_factory``); ``turns_play`` plays a turns set (``eval.turns_sweep.ChunkedPlayer`` in chunks).
    """
    names = list(datasets) if datasets else list(suite_datasets(suite))
    for name in names:
        dataset_suite(name)
    settings = get_settings()
    code_version, dirty = git_version()
    started = time.perf_counter()
    results: dict[str, DatasetResult] = {}
    for name in names:
        if progress:
            progress(name)
        kind = dataset_suite(name)
        try:
            if kind == "slides":
                results[name] = (slides_run(name, config.slides) if slides_run is not None
                                 else run_slides_dataset(load_slides_dataset(name), config.slides, engine_factory))
            else:
                info = load_turns_dataset(name)
                stored = (
                    _stored_official(name, config, code_version, info.hashes)
                    if config.turns.reproducibility == "stored" else None
                )
                results[name] = run_turns_dataset(info, config.turns, stored, play=turns_play)
        except (DatasetMissing, FileNotFoundError, ValueError) as exc:
            results[name] = DatasetResult(name=name, suite=kind, mode="error", primary="", sources={}, error=str(exc))
        except Exception as exc:  # noqa: BLE001 - one engine crash must not lose the other datasets' results
            results[name] = DatasetResult(name=name, suite=kind, mode="error", primary="", sources={},
                                          error=f"engine error: {type(exc).__name__}: {exc}")
    record = RunRecord(
        run_id=new_run_id(runs_dir()), created=datetime.now(UTC).isoformat(timespec="seconds"), suite=suite,
        code_version=code_version, code_dirty=dirty, config=config.model_dump(mode="json"),
        settings={"embedder": config.slides.embedder or settings.embedder, "llm": settings.llm,
                  "judge_llm": settings.judge_llm, "techjam_phase6_mode": str(settings.techjam_phase6_mode or "off")},
        datasets=results, seconds=round(time.perf_counter() - started, 3), log=log,
    )
    if store:
        # Every stored run carries its own page, so a run is readable without another command.
        render_report([record], save_run(record) / "report.html")
    return record
