"""Run every benchmark section, write one JSON of figures with machine info, PNG plots, and a markdown summary.

`nox -s bench` and `seek bench run` land here. Sections are independent; one that
fails is recorded with its error and the others still run, so a partial run is
visible rather than lost.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from bench.machine import machine_info, peak_rss_mb

REPO_ROOT = Path(__file__).resolve().parent.parent
SectionFn = Callable[[bool, Path], dict[str, object]]


def _core(quick: bool, out_dir: Path) -> dict[str, object]:
    from bench.core_bench import bench_core

    return bench_core(quick=quick)


def _slides(quick: bool, out_dir: Path) -> dict[str, object]:
    from bench.slides_bench import bench_slides

    return bench_slides(quick=quick, out_dir=out_dir)


def _turns(quick: bool, out_dir: Path) -> dict[str, object]:
    from bench.turns_bench import bench_turns

    return bench_turns(quick=quick, out_dir=out_dir)


def _cold_cli(quick: bool, out_dir: Path) -> dict[str, object]:
    from bench.cold_cli import bench_cold_cli

    return bench_cold_cli(quick=quick)


def _soak(quick: bool, out_dir: Path) -> dict[str, object]:
    from bench.soak import bench_soak

    return bench_soak(quick=quick)


SECTIONS: dict[str, SectionFn] = {"core": _core, "slides": _slides, "turns": _turns, "cold_cli": _cold_cli,
                                  "soak": _soak}


def run_benchmarks(out_dir: Path, quick: bool = False, only: list[str] | None = None,
                   progress: Callable[[str], None] = print) -> dict[str, object]:
    """Run the chosen sections (all by default) and write results.json, plots and a markdown summary."""
    unknown = set(only or []) - set(SECTIONS)
    if unknown:
        raise ValueError(f"unknown benchmark section(s) {sorted(unknown)}; choose from {', '.join(SECTIONS)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, object] = {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "quick": quick,
        "out_dir": str(out_dir),
        "machine": machine_info(),
        "sections": {},
    }
    sections: dict[str, object] = {}
    for name in only or list(SECTIONS):
        progress(f"bench: {name} ...")
        started = time.perf_counter()
        try:
            sections[name] = {"ok": True, **SECTIONS[name](quick, out_dir)}
        except Exception as exc:  # a failed section is reported, the rest still run
            sections[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        sections[name]["seconds"] = round(time.perf_counter() - started, 2)  # type: ignore[index]
        progress(f"bench: {name} done in {sections[name]['seconds']} s")  # type: ignore[index]
        # Written after every section, so a run stopped part-way keeps what it measured.
        _write_results(out_dir, {**results, "sections": sections, "complete": False})
    results["sections"] = sections
    results["complete"] = True
    results["peak_rss_mb"] = round(peak_rss_mb(), 1)
    _write_results(out_dir, results)
    return results


def _write_results(out_dir: Path, results: dict[str, object]) -> None:
    results_path = out_dir / "results.json"
    tmp = results_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=2, default=str))
    tmp.replace(results_path)


def markdown_summary(results: dict[str, object]) -> str:
    """A short markdown block of the headline figures, for docs/BENCHMARKS.md."""
    machine = results["machine"]
    lines = [
        f"## {results['started']} — commit {machine['commit']} ({'quick' if results['quick'] else 'full'}"  # type: ignore[index]
        f"{'' if results.get('complete', True) else ', stopped part-way'})",
        "",
        f"{machine['cpus']} CPUs, {machine['processor']}, Python {machine['python']};"  # type: ignore[index]
        f" peak RSS of the runner {results.get('peak_rss_mb', '?')} MiB (sections with children report their own).",
        "",
    ]
    for name, section in results["sections"].items():  # type: ignore[attr-defined]
        lines.append(f"### {name} ({section['seconds']} s)")
        if not section.get("ok"):
            lines.append(f"- failed: {section['error']}")
        for key, value in section.get("headline", {}).items():
            lines.append(f"- {key}: {value}")
        if section.get("plots"):
            lines.append(f"- plot files (in `{results.get('out_dir', '.')}`): {', '.join(section['plots'])}")
        lines.append("")
    return "\n".join(lines)


def append_summary(results: dict[str, object], path: Path = REPO_ROOT / "docs" / "BENCHMARKS.md") -> None:
    if not path.exists():
        path.write_text("# Benchmarks\n\nAppended by `seek bench run` / `nox -s bench`. Figures are from one run on this machine.\n\n")
    with path.open("a") as fh:
        fh.write(markdown_summary(results) + "\n")
