"""Eval work on a Ray cluster: ``seek eval run --ray ADDRESS`` and ``seek turns sweep --ray ADDRESS``.

``RayMapper`` runs one retryable Ray task per item (a (config, dataset, chunk of sessions) of
``eval.turns_sweep``, or a (config, dataset, chunk of queries) of a slides dataset) and hands the
results back in order; the driver
assembles them into the same run record, folder and figures as a local run. A task whose worker
or node dies is retried (``max_retries``); an error raised by the code itself is not (it would
fail again), and reaches the caller as the original exception. Every job has a deadline.

The workers import seek from the driver's ``sys.path`` (Ray passes it to the job's workers), which
holds on one machine; across machines seek must be installed on every node (or shipped with
``runtime_env={"working_dir": ...}``).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from core.ray_tasks import RayMapper
from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.runs import DatasetResult
from eval.slides_run import SlidesChunk, assemble_slides_result, dataset_queries, measure_slides_chunk

DEFAULT_CHUNK = 200
"""Queries (slides) or sessions (turns) per task: a few seconds of work each, so a lost node costs little."""
SlidesTask = tuple[str, SlidesConfig, int, int, bool]
"""(dataset name, config, first query, end query, whether this chunk also runs the trace query)."""


def run_slides_chunk(task: SlidesTask) -> SlidesChunk:
    """One chunk of a slides dataset's queries, measured on a worker (the dataset's library is built there)."""
    name, config, start, stop, with_trace = task
    return measure_slides_chunk(load_slides_dataset(name), config, start, stop, with_trace=with_trace)


def ray_slides_runner(mapper: RayMapper, chunk: int = DEFAULT_CHUNK) -> Callable[[str, SlidesConfig], DatasetResult]:
    """``run_suite``'s ``slides_run`` on Ray: one task per ``chunk`` queries, assembled on the driver as a local run."""
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1, got {chunk}")

    def run(name: str, config: SlidesConfig) -> DatasetResult:
        started = time.perf_counter()
        dataset = load_slides_dataset(name)
        total = len(dataset_queries(dataset, config))
        bounds = [(start, min(start + chunk, total)) for start in range(0, total, chunk)] or [(0, 0)]
        tasks = [(name, config, start, stop, i == 0) for i, (start, stop) in enumerate(bounds)]
        return assemble_slides_result(dataset, config, mapper(run_slides_chunk, tasks), time.perf_counter() - started)

    return run
