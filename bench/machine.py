"""Machine facts recorded beside every benchmark figure (absolute times drift; ratios in one run hold)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path


def machine_info() -> dict[str, object]:
    try:
        import numpy as np
        from threadpoolctl import threadpool_info

        blas = [{k: pool.get(k) for k in ("internal_api", "version", "num_threads", "architecture")} for pool in threadpool_info()]
        numpy_version = np.__version__
    except ImportError:  # threadpoolctl comes with scikit-learn; the figures stand without it
        blas, numpy_version = [], "?"
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False,
            cwd=Path(__file__).resolve().parent.parent,
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "numpy": numpy_version,
        "blas": blas,
        "commit": commit or "unknown",
    }


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB (Linux reports KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
