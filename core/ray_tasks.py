"""Retryable Ray tasks for the batch work of both engines (``--ray ADDRESS``); Ray is the optional ``[scale]`` extra.

``connect`` joins a running cluster quietly and hands the job this process's ``SEEK_*`` settings;
``RayMapper`` runs one retryable task per item and returns the results in order. A task whose worker
or node dies is retried (``max_retries``); an error raised by the code itself is not (it would fail
again) and reaches the caller as the original exception. Every job has a deadline. Ray is imported
only when a cluster is used.

A process has one Ray session: ``connect`` joins the cluster once and every later caller (the
deck readers, the index's embedding fan-outs, the thumbnail renderer of one ``seek slides ingest
--ray``) reuses it; Ray ends it when the process exits. Nothing here calls ``ray.shutdown()``:
connecting again in a process after it can crash the process (SIGSEGV), because background
threads, such as Ray Data's executor's, outlive the shutdown and reach the freed core worker
(ray-project/ray#31145). CI saw exactly that between an index build's two fan-outs.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

DEFAULT_TIMEOUT_S = 3600.0
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
        """Let go of the cluster: no more tasks from this mapper (the process's session stays; see the module)."""
        self._ray = None


_SESSION_LOCK = threading.Lock()
_session_address: str | None = None


def connect(address: str) -> Any:
    """``ray`` connected to the cluster at ``address`` (quietly: no progress bars, no log echo to the driver).

    The first call joins the cluster; later calls for the same address reuse that session (one per
    process, see the module), and a call for another address is an error. The job's workers get
    this process's ``SEEK_*`` variables, so they read the driver's settings (data directory, home,
    embedder), not those the cluster's nodes were started with.
    """
    global _session_address
    os.environ.setdefault("RAY_DATA_DISABLE_PROGRESS_BARS", "1")
    import ray

    with _SESSION_LOCK:
        if _session_address is not None and ray.is_initialized():
            if _session_address != address:
                raise RuntimeError(f"this process is connected to the Ray cluster at {_session_address}; "
                                   f"one process reaches one cluster, not also {address}")
            return ray
        seek_env = {name: value for name, value in os.environ.items() if name.startswith("SEEK_")}
        ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR, configure_logging=True,
                 runtime_env={"env_vars": seek_env})
        _session_address = address
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    return ray
