"""A real two-node Ray cluster on loopback for the integration tests (``scripts/ray-cluster``), stopped by PID.

Missing Ray, or a cluster that will not start, skips the test saying why; under CI (``CI`` set) it fails.
The tests drive the cluster through subprocesses started by ``scripts/ray-cluster run``, which puts them
in the cluster's network namespace with its token and ``XDG_RUNTIME_DIR`` set (so ``import ray``'s
``RuntimeDirWarning`` never reaches pytest's warnings-as-errors); this process never imports Ray.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "ray-cluster"
START_TIMEOUT_S = 180


def _unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


class RayCluster:
    """A started cluster: its record folder and address, and how to run a command against it."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.address = (directory / "address").read_text().strip()

    def command(self, args: Sequence[str]) -> list[str]:
        """``args`` wrapped to run inside the cluster's namespace with its token."""
        return [sys.executable, str(SCRIPT), "run", str(self.directory), "--", *args]

    def seek(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """``seek ARGS`` (this checkout's CLI, this Python) run against the cluster; fails the test on a timeout."""
        return subprocess.run(self.command([sys.executable, "-m", "cli.main", *args]), cwd=ROOT, env=_child_env(),
                              capture_output=True, text=True, timeout=timeout)

    def seek_background(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(self.command([sys.executable, "-m", "cli.main", *args]), cwd=ROOT, env=_child_env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def kill_worker(self) -> None:
        subprocess.run([sys.executable, str(SCRIPT), "kill-worker", str(self.directory)], check=True, timeout=60)

    def pids(self) -> dict[str, list[int]]:
        out = subprocess.run([sys.executable, str(SCRIPT), "pids", str(self.directory)], check=True,
                             capture_output=True, text=True, timeout=60).stdout
        return {role: list(pids) for role, pids in json.loads(out).items()}


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


@contextmanager
def running_cluster(directory: Path) -> Iterator[RayCluster]:
    """Start the two-node cluster in ``directory``, yield it, and stop every one of its processes by PID."""
    if importlib.util.find_spec("ray") is None:
        _unavailable("Ray is not installed: pip install 'seek[scale]'")
    started = subprocess.run([sys.executable, str(SCRIPT), "start", str(directory)], capture_output=True, text=True,
                             timeout=START_TIMEOUT_S)
    try:
        if started.returncode != 0:
            _unavailable(f"the two-node Ray cluster did not start: {started.stderr[-1500:]}")
        yield RayCluster(directory)
    finally:
        subprocess.run([sys.executable, str(SCRIPT), "stop", str(directory)], timeout=120)
