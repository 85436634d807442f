"""Small timing helpers: repeated runs summarised as median / p95 / p99 in milliseconds."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np


def summarise_ms(samples_s: list[float]) -> dict[str, float]:
    arr = np.asarray(samples_s, dtype=np.float64) * 1000.0
    return {
        "n": int(arr.size),
        "median_ms": round(float(np.median(arr)), 3),
        "p95_ms": round(float(np.percentile(arr, 95)), 3),
        "p99_ms": round(float(np.percentile(arr, 99)), 3),
        "mean_ms": round(float(arr.mean()), 3),
    }


def time_calls(fn: Callable[[Any], object], inputs: list[Any], warmup: int = 2) -> dict[str, float]:
    """Call ``fn`` on each input once (after a few warm-up calls) and summarise the per-call times."""
    for item in inputs[:warmup]:
        fn(item)
    samples = []
    for item in inputs:
        started = time.perf_counter()
        fn(item)
        samples.append(time.perf_counter() - started)
    return summarise_ms(samples)


def time_once(fn: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result
