"""PNG plots of the benchmark figures (matplotlib, headless Agg backend).

Each function takes plain lists of figures, writes one PNG atomically (temporary
file, then rename) and returns its path, so a section can name its plots in
results.json and in the markdown summary.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def _figure(width: float = 7.0, height: float = 4.5, ncols: int = 1) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(1, ncols, figsize=(width, height), dpi=110)


def _save(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.png")
    try:
        fig.tight_layout()
        fig.savefig(tmp, format="png")
    finally:
        plt.close(fig)
    tmp.replace(path)
    return path


def _size_axis(ax: Any, sizes: Sequence[int]) -> None:
    """A logarithmic x axis ticked at the measured sizes only, labelled 10k, 122.6k, 500k."""
    ax.set_xscale("log")
    ax.set_xticks(list(sizes))
    ax.set_xticklabels([f"{n / 1000:.1f}".rstrip("0").rstrip(".") + "k" if n >= 1000 else str(n) for n in sizes])
    ax.minorticks_off()
    ax.set_xlabel("slides in the library")


def _finish_size_plot(fig: Any, ax: Any, sizes: Sequence[int], ylabel: str, title: str, path: Path) -> Path:
    """Library size on x, a log y axis, grid and legend; then save."""
    _size_axis(ax, sizes)
    ax.set_yscale("log")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


def latency_vs_size(sizes: Sequence[int], series: Mapping[str, Mapping[str, Sequence[float]]], path: Path,
                    title: str = "SlideSearch query latency") -> Path:
    """Median per query against library size, one line per method, with a p95 band.

    ``series`` maps a method's label to ``{"median_ms": [...], "p95_ms": [...]}`` in ``sizes`` order.
    Both axes are logarithmic: sizes span 50x and the baselines sit orders of magnitude apart.
    """
    fig, ax = _figure()
    for label, figures in series.items():
        medians, p95 = list(figures["median_ms"]), list(figures["p95_ms"])
        (line,) = ax.plot(sizes, medians, marker="o", label=f"{label} (median)")
        ax.fill_between(sizes, medians, p95, color=line.get_color(), alpha=0.15)
        ax.plot(sizes, p95, linestyle=":", color=line.get_color(), label=f"{label} (p95)")
    return _finish_size_plot(fig, ax, sizes, "ms per query", title, path)


def indexing_loglog(sizes: Sequence[int], phases: Mapping[str, Sequence[float]], path: Path,
                    title: str = "SlideSearch indexing time by phase") -> Path:
    """Seconds per indexing phase against library size on log-log axes, with a linear-growth guide.

    The dashed guide has slope 1 through the first point of the slowest phase: a phase
    drawn parallel to it grows linearly; steeper means worse than linear.
    """
    fig, ax = _figure()
    for label, seconds in phases.items():
        ax.plot(sizes, list(seconds), marker="o", label=label)
    slowest = max(phases.values(), key=lambda s: s[0]) if phases else []
    if len(sizes) > 1 and slowest and slowest[0] > 0:
        ax.plot([sizes[0], sizes[-1]], [slowest[0], slowest[0] * sizes[-1] / sizes[0]], linestyle="--",
                color="grey", alpha=0.6, label="linear growth")
    return _finish_size_plot(fig, ax, sizes, "seconds", title, path)


def sessions_bars(agents: Sequence[str], sessions_per_second: Sequence[float], build_seconds: Sequence[float],
                  path: Path, title: str = "Ten Turns agents") -> Path:
    """Two bar panels per agent: sessions per second (left) and index build seconds (right)."""
    fig, (left, right) = _figure(9.0, 4.0, ncols=2)
    bars = left.bar(list(agents), list(sessions_per_second), color="tab:blue")
    left.bar_label(bars, fmt="%.1f", fontsize=8)
    left.set_ylabel("sessions / second")
    left.set_title("run")
    bars = right.bar(list(agents), list(build_seconds), color="tab:orange")
    right.bar_label(bars, fmt="%.1f", fontsize=8)
    right.set_ylabel("seconds")
    right.set_title("index build")
    fig.suptitle(title)
    return _save(fig, path)
