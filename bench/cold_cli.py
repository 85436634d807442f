"""First contact: a fresh ``seek slides search`` process on a warm library, and what the install weighs.

- ``cold``: the time from starting ``python -m cli.main slides search QUERY`` to its first
  line of output (the response header, printed once the search is done) and to its exit,
  median over fresh processes, each a different labelled query of a generated library.
- ``phases``: one more fresh process that times its own stages (CLI imports, engine
  imports, library open, model load, first search), to say where the cold time goes.
- ``warm``: the same queries in one process after a warm-up (``SlideSearch.search_v2``):
  the in-process latency a server pays, beside the cold figure a CLI user pays.
- ``install``: the bytes on disk of seek's default install and of the ``torch`` extra,
  added up from the installed distributions' RECORD files over the dependency closure.

The library (generated, ingested and indexed with the default embedder through the CLI
itself) is kept under ``SEEK_HOME/bench/cold_cli/<n>`` and reused by later runs.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import time
import tomllib
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.timing import summarise_ms

REPO_ROOT = Path(__file__).resolve().parent.parent
SLIDES = 3_000
QUICK_SLIDES = 300
RUNS = 5
SEED = 0

_PHASES_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
import cli.main
t1 = time.perf_counter()
from slidesearch.engine import SlideSearch
t2 = time.perf_counter()
engine = SlideSearch.open(None)
t3 = time.perf_counter()
engine.library.embedder()
t4 = time.perf_counter()
engine.search_v2(sys.argv[1])
t5 = time.perf_counter()
print(json.dumps({"cli_imports": t1 - t0, "engine_imports": t2 - t1, "library_open": t3 - t2,
                  "model_load": t4 - t3, "first_search": t5 - t4,
                  "torch_imported": "torch" in sys.modules}))
"""


def _seek(args: list[str], home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "SEEK_HOME": str(home), "PYTHONPATH": str(REPO_ROOT), "COLUMNS": "120"}
    return subprocess.Popen([sys.executable, "-m", "cli.main", *args], cwd=REPO_ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _check(process: subprocess.Popen[str], what: str) -> str:
    out, err = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"{what} failed ({process.returncode}): {err.strip()[-500:]}")
    return out


def warm_library(home: Path, slides: int) -> Path:
    """A generated library of ``slides`` slides, ingested and indexed under ``home`` (reused when already there)."""
    source = home / "generated"
    if not (home / "slides" / "index").exists():
        _check(_seek(["slides", "generate", "--slides", str(slides), "--seed", str(SEED), "--out", str(source)], home),
               "generating the library")
        _check(_seek(["slides", "ingest", str(source)], home), "ingesting the library")
    else:
        stats = _seek(["slides", "stats", "--json"], home)
        stats.communicate()
        if stats.returncode != 0:  # an index of an older schema (or damaged): rebuild it from the store
            _check(_seek(["slides", "index"], home), "rebuilding the library's index")
    return source


def _queries(source: Path, n: int) -> list[str]:
    rows = [json.loads(line) for line in (source / "queries.jsonl").read_text().splitlines() if line.strip()]
    texts = [row["query"] if isinstance(row["query"], str) else " ".join(row["query"]) for row in rows]
    return texts[:n]


def cold_search(home: Path, query: str) -> dict[str, float]:
    """Seconds from starting a fresh ``seek slides search`` to its first output line and to its exit."""
    started = time.perf_counter()
    process = _seek(["slides", "search", query], home)
    assert process.stdout is not None
    first = process.stdout.readline()
    first_line_s = time.perf_counter() - started
    _check(process, f"searching {query!r}")
    if not first.strip():
        raise RuntimeError(f"searching {query!r} printed nothing")
    return {"first_line_s": first_line_s, "exit_s": time.perf_counter() - started}


def phases(home: Path, query: str) -> dict[str, Any]:
    """One fresh process's own stage times, in seconds."""
    env = {**os.environ, "SEEK_HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, "-c", _PHASES_SCRIPT, query], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the phases child failed: {done.stderr.strip()[-500:]}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()}


def warm_search_ms(home: Path, queries: list[str]) -> dict[str, float]:
    """In-process latency of the same queries, after one warm-up search (a child, so the runner stays light)."""
    script = ("import json, sys, time\nfrom pathlib import Path\nfrom slidesearch.engine import SlideSearch\n"
              "engine = SlideSearch.open(Path(sys.argv[1]))\nqueries = json.loads(sys.argv[2])\n"
              "engine.search_v2(queries[0])\nsamples = []\nfor q in queries:\n"
              "    t = time.perf_counter(); engine.search_v2(q); samples.append(time.perf_counter() - t)\n"
              "print(json.dumps(samples))\n")
    env = {**os.environ, "SEEK_HOME": str(home), "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, "-c", script, str(home / "slides" / "index"), json.dumps(queries)],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the warm child failed: {done.stderr.strip()[-500:]}")
    return summarise_ms(json.loads(done.stdout.strip().splitlines()[-1]))


def _requirement_name(requirement: str) -> tuple[str, str | None]:
    """A requirement's distribution name and the extra its marker asks for (None when unconditional)."""
    name = re.split(r"[\s\[<>=!~;(]", requirement, maxsplit=1)[0]
    extra = re.search(r"""extra\s*==\s*["']([^"']+)["']""", requirement)
    return name, extra.group(1) if extra else None


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def project_requirements(extras: tuple[str, ...] = ()) -> list[str]:
    """seek's own requirements as this checkout's pyproject.toml states them (plus the named extras)."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    optional = project.get("optional-dependencies", {})
    return list(project["dependencies"]) + [r for extra in extras for r in optional.get(extra, [])]


def dependency_closure(requirements: list[str]) -> set[str]:
    """The installed distributions that ``requirements`` pull in, through their metadata; normalised names."""
    seen: set[str] = set()
    pending = [_requirement_name(r)[0] for r in requirements]
    while pending:
        key = _normalise(pending.pop())
        if key in seen:
            continue
        try:
            dist = metadata.distribution(key)
        except metadata.PackageNotFoundError:
            continue  # a dependency for another platform or Python, not installed here
        seen.add(key)
        for requirement in dist.requires or []:
            dep, extra = _requirement_name(requirement)
            if extra is None and not re.search(r"""sys_platform\s*==\s*["'](win32|darwin)""", requirement):
                pending.append(dep)
    return seen


def installed_mb(names: set[str]) -> float:
    """MiB on disk of the given installed distributions' files (from their RECORD lists)."""
    total = 0
    for name in names:
        dist = metadata.distribution(name)
        for file in dist.files or []:
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                total += path.stat().st_size
    return round(total / 2**20, 1)


def install_sizes() -> dict[str, Any]:
    """Sizes of seek's default install and of what the torch extra adds, in this environment."""
    default = dependency_closure(project_requirements())
    with_torch = dependency_closure(project_requirements(("torch",)))
    return {
        "default_mb": installed_mb(default),
        "default_packages": len(default),
        "default_has_torch": "torch" in default,
        "torch_extra_adds_mb": installed_mb(with_torch - default),
        "with_torch_mb": installed_mb(with_torch),
    }


def bench_cold_cli(quick: bool = False, home: Path | None = None, runs: int = RUNS,
                   slides: int | None = None) -> dict[str, Any]:
    """Cold CLI time to first result (median of ``runs`` fresh processes) beside the warm latency, plus install size."""
    from core.settings import get_settings

    size = slides or (QUICK_SLIDES if quick else SLIDES)
    home = home or get_settings().home / "bench" / "cold_cli" / str(size)
    source = warm_library(home, size)
    queries = _queries(source, runs)
    load_before = os.getloadavg()[0]
    cold = [cold_search(home, q) for q in queries]
    first = statistics.median(c["first_line_s"] for c in cold)
    exits = statistics.median(c["exit_s"] for c in cold)
    stage = phases(home, queries[0])
    warm = warm_search_ms(home, queries)
    install = install_sizes()
    load = (round(load_before, 2), round(os.getloadavg()[0], 2))
    return {
        "slides": size,
        "load_average_1min": load,
        "queries": queries,
        "cold_runs": [{k: round(v, 3) for k, v in c.items()} for c in cold],
        "phases_s": stage,
        "warm": warm,
        "install": install,
        "headline": {
            "cold CLI search, first result (median of fresh processes)": f"{first:.2f} s over {len(cold)} runs "
                                                                         f"on {size:,} slides (exit {exits:.2f} s; "
                                                                         f"1-min load {load[0]}-{load[1]})",
            "in-process search latency (median)": f"{warm['median_ms']:.1f} ms",
            "where a cold search goes (s)": ", ".join(f"{k} {v}" for k, v in stage.items() if k != "torch_imported"),
            "install size": f"default {install['default_mb']:.0f} MiB ({install['default_packages']} packages"
                            f"{', with torch' if install['default_has_torch'] else ', no torch'}); "
                            f"the torch extra adds {install['torch_extra_adds_mb']:.0f} MiB",
        },
    }
