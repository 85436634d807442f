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
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from eval.config import SlidesConfig
from eval.datasets import load_slides_dataset
from eval.runs import DatasetResult
from eval.slides_run import SlidesChunk, assemble_slides_result, dataset_queries, measure_slides_chunk
from slidesearch.ray_index import connect

DEFAULT_TIMEOUT_S = 3600.0
DEFAULT_CHUNK = 200
"""Queries (slides) or sessions (turns) per task: a few seconds of work each, so a lost node costs little."""
TASK_RETRIES = 3
"""Retries of a task whose worker or node died (Ray's default is 3 as well; said here so it is a choice)."""

Item = TypeVar("Item")
Result = TypeVar("Result")


class RayMapper:
    """A ``Mapper`` whose items each run as one Ray task on the cluster at ``address`` (one logical CPU each)."""

    def __init__(self, address: str, timeout_s: float = DEFAULT_TIMEOUT_S, retries: int = TASK_RETRIES) -> None:
        if timeout_s <= 0 or retries < 0:
            raise ValueError("timeout_s must be positive and retries at least 0")
        self.address = address
        self.timeout_s = timeout_s
        self.retries = retries
        self.tasks = 0
        self._ray: Any = None

    def __call__(self, fn: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
        if self._ray is None:
            self._ray = connect(self.address)
        ray = self._ray
        remote = ray.remote(num_cpus=1, max_retries=self.retries, retry_exceptions=False)(fn)
        refs = [remote.remote(item) for item in items]
        self.tasks += len(refs)
        try:
            return list(ray.get(refs, timeout=self.timeout_s))
        except ray.exceptions.GetTimeoutError:
            for ref in refs:
                ray.cancel(ref, force=True)
            raise TimeoutError(f"{len(refs)} Ray tasks did not finish within {self.timeout_s:.0f} s") from None

    def close(self) -> None:
        """Disconnect from the cluster (the cluster keeps running)."""
        if self._ray is not None:
            self._ray.shutdown()
            self._ray = None


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
