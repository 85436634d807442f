"""SlideSearch benchmarks: query latency, peak memory, load time and indexing speed by library size.

For each size (10k, 50k, 122,623 — the original library — and 500k generated
slides) two child processes run, so that one size's memory never shows in
another's peak:

- ``build``: generate the library (``slidesearch.generator``), read it back as
  ingestion does, embed and build the index (``Library.from_slides``) and save
  it; slides/second per phase. Libraries are cached under
  ``SEEK_HOME/bench/slides/`` with the figures of the build that made them, and a
  later run reports those figures marked ``cached``.
- ``query``: open the index (load time), then time the generator's labelled
  queries (an evenly spaced subset keeping the mix of kinds), each method in its
  own back-to-back loop after a warm-up: the engine (``SlideSearch.search_v2``,
  offline LLM path, query embedding included — each query is timed the first
  time the engine sees it), brute-force numpy (embed the query, ``vectors @ q``,
  full argsort, top 10) and BM25 alone (``core.lexical`` over the whole
  library). The engine's own per-stage timings (``trace=True``) give the stage
  breakdown. The breakdown size is queried once more with numpy's BLAS held to
  one thread.

Document vectors use the ``fast`` (static WordLlama) embedder: the default MiniLM
int8 embeds about 75-100 slides/s on this machine, 20+ minutes for 122,623 slides.
Queries then embed with ``fast`` too (a library is queried with the embedder it
was built with). A third child measures what MiniLM would cost per query and its
corpus embedding rate, separately.

Run one phase by hand: ``python -m bench.slides_bench --phase query --size 10000``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from bench.machine import peak_rss_mb
from bench.plots import indexing_loglog, latency_vs_size
from bench.timing import summarise_ms

REPO_ROOT = Path(__file__).resolve().parent.parent

#: 122,623 is the size of the original library (slidesearch.generator.world.REFERENCE_SLIDES).
SIZES: tuple[int, ...] = (10_000, 50_000, 122_623, 500_000)
QUICK_SIZES: tuple[int, ...] = (1_000, 4_000)
#: The size whose per-stage breakdown is the headline (the largest size run when it is absent).
BREAKDOWN_SIZE = 122_623
SEED = 8
MAX_QUERIES = 60
QUICK_MAX_QUERIES = 25
DOC_EMBEDDER = "fast"
#: The settings default, measured per query in its own child (never used for the document vectors here).
DEFAULT_EMBEDDER = "minilm"
TOP_K = 10
#: Slides embedded to measure each embedder's corpus rate.
RATE_SAMPLE = 256
CHILD_TIMEOUT_S = 3_600
#: The breakdown size is queried a second time with numpy's BLAS held to one thread: on two cores
#: shared with other work, a second BLAS thread mostly waits to be scheduled.
ONE_THREAD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
#: Distinct from every labelled query, so no timed query is an embedding-cache hit.
WARMUP_QUERIES = ("bench warm-up: analytics overview", ["bench warm-up: team", "bench warm-up: pricing"])


# ---------------------------------------------------------------------- shared helpers


def cache_folder(n: int, seed: int = SEED) -> Path:
    """Where the generated library of ``n`` slides and its index live (reused across runs)."""
    from core.settings import get_settings

    return get_settings().home / "bench" / "slides" / f"n{n}-s{seed}-{DOC_EMBEDDER}"


def query_text(query: str | list[str]) -> str:
    """A multi-angle brief as one string, for the baselines that take a single query."""
    return query if isinstance(query, str) else " ".join(query)


def select_queries(rows: Sequence[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """``limit`` evenly spaced queries (all when fewer), so the generator's mix of kinds is kept."""
    unique: dict[str, dict[str, Any]] = {}
    for row in rows:
        unique.setdefault(json.dumps(row["query"]), row)
    pool = list(unique.values())
    if len(pool) <= limit:
        return pool
    return [pool[int(i * len(pool) / limit)] for i in range(limit)]


def read_queries(folder: Path) -> list[dict[str, Any]]:
    path = folder / "generated" / "queries.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=str))
    tmp.replace(path)


class StaleIndex(RuntimeError):
    """The cached index no longer opens with this seek (its layout changed): build it again."""


#: Exit code of a query child whose cached index is stale.
STALE_EXIT = 3


class TimedEmbedder:
    """Delegates to an embedder and adds up the wall time spent encoding (the build's embedding phase)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name: str = inner.name
        self.dim: int = inner.dim
        self.seconds = 0.0
        self.texts = 0

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> Any:
        started = time.perf_counter()
        out = self.inner.encode(texts, batch_size=batch_size)
        self.seconds += time.perf_counter() - started
        self.texts += len(texts)
        return out


def _each(fn: Any, items: Sequence[Any]) -> list[float]:
    """Seconds of one call of ``fn`` per item, back to back (each method gets its own warm loop)."""
    samples = []
    for item in items:
        started = time.perf_counter()
        fn(item)
        samples.append(time.perf_counter() - started)
    return samples


def own_peak_rss_mb() -> float:
    """Peak resident memory of this process image, in MiB.

    Linux keeps ``ru_maxrss`` across fork and exec, so a child started by a large
    parent reports at least the parent's size at the fork. The kernel's high-water
    mark of the current address space (``VmHWM`` in /proc/self/status) starts afresh
    at exec, so it is read first; ``ru_maxrss`` is the fallback elsewhere.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except (OSError, ValueError, IndexError):
        pass
    return peak_rss_mb()


def _say(message: str) -> None:
    """Progress on stderr: a full run spends many minutes inside this section."""
    print(f"bench: slides: {message}", file=sys.stderr, flush=True)


def _rate(count: int, seconds: float) -> float:
    return round(count / seconds, 1) if seconds > 0 else 0.0


# ---------------------------------------------------------------------- child phases


def build_phase(n: int, seed: int = SEED, rebuild: bool = False) -> dict[str, Any]:
    """Generate, ingest, embed, build and save an ``n``-slide library, or report the cached build's figures.

    A cached build from another index schema version or BM25 configuration, or any build when
    ``rebuild``, is made afresh.
    """
    from core.embed import make_embedder
    from slidesearch.config import LexicalConfig
    from slidesearch.generator import generate_library
    from slidesearch.ingest import read_master, read_slides_jsonl
    from slidesearch.library import SCHEMA_VERSION, Library

    lexical = LexicalConfig().model_dump()  # how the index's BM25 is built: a change of default rebuilds
    folder = cache_folder(n, seed)
    record = folder / "build.json"
    if not rebuild and record.is_file() and (folder / "index" / "meta.json").is_file():
        stored = json.loads(record.read_text())
        if stored.get("schema_version") == SCHEMA_VERSION and stored.get("lexical") == lexical:
            return {**stored, "cached": True}

    staging = folder.with_name(f".{folder.name}.building-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        started = time.perf_counter()
        generate_library(n, seed, staging / "generated")
        generate_s = time.perf_counter() - started

        started = time.perf_counter()
        slides, _, slide_errors = read_slides_jsonl(staging / "generated" / "slides.jsonl")
        master, master_errors = read_master(staging / "generated" / "master.jsonl")
        ingest_s = time.perf_counter() - started
        if slide_errors or master_errors:
            raise RuntimeError(f"generated library has bad rows: {(slide_errors + master_errors)[:3]}")

        started = time.perf_counter()
        embedder = TimedEmbedder(make_embedder(DOC_EMBEDDER))
        embedder.encode(["load the model before timing"])
        model_load_s = time.perf_counter() - started
        embedder.seconds, embedder.texts = 0.0, 0

        started = time.perf_counter()
        library = Library.from_slides(slides, master, embedder=embedder)
        from_slides_s = time.perf_counter() - started
        started = time.perf_counter()
        library.save(staging / "index")
        save_s = time.perf_counter() - started

        index_build_s = from_slides_s - embedder.seconds + save_s
        figures: dict[str, Any] = {
            "slides": library.n,
            "seed": seed,
            "schema_version": SCHEMA_VERSION,
            "lexical": lexical,
            "embedder": DOC_EMBEDDER,
            "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "generate_s": round(generate_s, 2),
            "generate_slides_per_s": _rate(n, generate_s),
            "ingest_s": round(ingest_s, 2),
            "ingest_slides_per_s": _rate(n, ingest_s),
            "embed_model_load_s": round(model_load_s, 2),
            "embed_s": round(embedder.seconds, 2),
            "embed_texts": embedder.texts,
            "embed_slides_per_s": _rate(n, embedder.seconds),
            "index_build_s": round(index_build_s, 2),
            "index_build_slides_per_s": _rate(n, index_build_s),
            "save_s": round(save_s, 2),
            "index_bytes": sum(p.stat().st_size for p in (staging / "index").rglob("*") if p.is_file()),
            "peak_rss_mb": round(own_peak_rss_mb(), 1),
        }
        _write_json(staging / "build.json", figures)
        shutil.rmtree(folder, ignore_errors=True)
        staging.rename(folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return {**figures, "cached": False}


def query_phase(n: int, seed: int = SEED, max_queries: int = MAX_QUERIES) -> dict[str, Any]:
    """Load time, then per-query latency of the engine and both baselines, stage timings and peak memory."""
    from slidesearch.engine import SlideSearch
    from slidesearch.library import Library, LibraryError

    folder = cache_folder(n, seed)
    started = time.perf_counter()
    try:
        library = Library.open(folder / "index")
    except LibraryError as exc:
        raise StaleIndex(str(exc)) from exc
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    engine = SlideSearch(library, llm="offline")
    engine_init_s = time.perf_counter() - started
    queries = select_queries(read_queries(folder), max_queries)

    started = time.perf_counter()
    for warm in WARMUP_QUERIES:
        engine.search_v2(warm)
    warmup_s = time.perf_counter() - started
    embedder = library.embedder()
    vectors = library.vectors
    bm25 = library.bm25
    if bm25 is None:
        raise RuntimeError(f"the index at {folder / 'index'} has no BM25 matrix")

    stage_ms: dict[str, list[float]] = {}
    llm_paths: set[str] = set()

    def engine_query(row: dict[str, Any]) -> None:
        response = engine.search_v2(row["query"], universes=row.get("universes"), trace=True)
        llm_paths.add(response.llm)
        for stage in response.trace or []:
            stage_ms.setdefault(stage.stage, []).append(stage.ms)

    def brute_force(text: str) -> None:
        scores = np.asarray(vectors @ embedder.encode([text])[0])
        np.argsort(-scores)[:TOP_K]

    texts = [query_text(row["query"]) for row in queries]
    warm = query_text(WARMUP_QUERIES[0])
    brute_force(warm)
    bm25.top_k(bm25.analyse(warm), TOP_K)
    engine_s = _each(engine_query, queries)
    brute_s = _each(brute_force, texts)
    bm25_s = _each(lambda text: bm25.top_k(bm25.analyse(text), TOP_K), texts)

    total_ms = sum(engine_s) * 1000.0
    stages = {
        name: {"median_ms": round(float(np.median(ms)), 3), "share": round(sum(ms) / total_ms, 4) if total_ms else 0.0}
        for name, ms in stage_ms.items()
    }
    outside = total_ms - sum(sum(ms) for ms in stage_ms.values())
    slowest = max(stages, key=lambda s: stages[s]["share"]) if stages else ""
    return {
        "slides": library.n,
        "queries": len(queries),
        "query_kinds": sorted({str(q.get("kind", "")) for q in queries}),
        "llm": sorted(llm_paths),
        "load_s": round(load_s, 3),
        "engine_init_s": round(engine_init_s, 3),
        "warmup_s": round(warmup_s, 3),
        "search_v2": summarise_ms(engine_s),
        "bruteforce_numpy": summarise_ms(brute_s),
        "bm25_only": summarise_ms(bm25_s),
        "stages": stages,
        "outside_stages_share": round(outside / total_ms, 4) if total_ms else 0.0,
        "slowest_stage": slowest,
        "slowest_stage_share": stages[slowest]["share"] if slowest else 0.0,
        "peak_rss_mb": round(own_peak_rss_mb(), 1),
    }


def embed_cost_phase(n: int, seed: int = SEED, max_queries: int = MAX_QUERIES,
                     embedder_name: str = DEFAULT_EMBEDDER) -> dict[str, Any]:
    """Per-query embedding time and corpus rate of ``embedder_name`` and of the document embedder."""
    from core.embed import make_embedder
    from slidesearch.model import slide_document, snippet

    folder = cache_folder(n, seed)
    texts = [query_text(q["query"]) for q in select_queries(read_queries(folder), max_queries)]
    with (folder / "generated" / "slides.jsonl").open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line, _ in zip(fh, range(RATE_SAMPLE), strict=False)]
    documents = [snippet(slide_document(r["title"], r["text"])) for r in rows]
    out: dict[str, Any] = {}
    for name in dict.fromkeys((embedder_name, DOC_EMBEDDER)):
        started = time.perf_counter()
        model = make_embedder(name)
        model.encode(["load the model before timing"])
        load_s = time.perf_counter() - started
        per_query = []
        for text in texts:
            started = time.perf_counter()
            model.encode([text])
            per_query.append(time.perf_counter() - started)
        started = time.perf_counter()
        model.encode(documents)
        corpus_s = time.perf_counter() - started
        out[name] = {
            "model": model.name,
            "load_s": round(load_s, 2),
            "per_query": summarise_ms(per_query),
            "corpus_slides_per_s": _rate(len(documents), corpus_s),
            "corpus_sample": len(documents),
        }
    return out


def _run_child(phase: str, n: int, seed: int, max_queries: int, embedder_name: str,
               rebuild: bool = False, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run one phase in a fresh interpreter and return its figures (its peak memory is its own).

    The figures gain the child's wall seconds and the 1-minute load average before and
    after it: on a shared machine a slow figure next to a high load reads differently.
    """
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="seek-bench-") as tmp:
        result = Path(tmp) / "result.json"
        cmd = [sys.executable, "-m", "bench.slides_bench", "--phase", phase, "--size", str(n), "--seed", str(seed),
               "--queries", str(max_queries), "--embedder", embedder_name, "--result", str(result)]
        if rebuild:
            cmd.append("--rebuild")
        done = subprocess.run(cmd, cwd=REPO_ROOT, env={**os.environ, **(env or {})}, capture_output=True, text=True,
                              timeout=CHILD_TIMEOUT_S, check=False)
        if done.returncode == STALE_EXIT:
            raise StaleIndex(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "stale index")
        if done.returncode != 0 or not result.is_file():
            tail = "\n".join(done.stderr.strip().splitlines()[-15:])
            raise RuntimeError(f"`{' '.join(cmd[1:])}` failed with exit code {done.returncode}:\n{tail}")
        figures = dict(json.loads(result.read_text()))
    figures["child_s"] = round(time.perf_counter() - started, 2)
    figures["load_average"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    return figures


# ---------------------------------------------------------------------- the section


def _fmt_stats(stats: dict[str, Any]) -> str:
    return f"{stats['median_ms']:.1f} / {stats['p95_ms']:.1f} / {stats['p99_ms']:.1f}"


def _ratio(a: float, b: float) -> float:
    return round(a / b, 2) if b > 0 else 0.0


def _size_figures(n: int, max_queries: int) -> dict[str, Any]:
    _say(f"{n:,} slides: generate and build (or reuse the cached build) ...")
    build = _run_child("build", n, SEED, max_queries, DEFAULT_EMBEDDER)
    _say(f"{n:,} slides: {max_queries} queries through search_v2 and both baselines ...")
    try:
        query = _run_child("query", n, SEED, max_queries, DEFAULT_EMBEDDER)
    except StaleIndex:
        build = _run_child("build", n, SEED, max_queries, DEFAULT_EMBEDDER, rebuild=True)
        query = _run_child("query", n, SEED, max_queries, DEFAULT_EMBEDDER)
    return {
        "build": build,
        **query,
        "median_vs_bruteforce": _ratio(query["search_v2"]["median_ms"], query["bruteforce_numpy"]["median_ms"]),
        "median_vs_bm25": _ratio(query["search_v2"]["median_ms"], query["bm25_only"]["median_ms"]),
    }


def bench_slides(quick: bool = False, out_dir: Path | None = None) -> dict[str, Any]:
    """The SlideSearch section: figures per size, the embedder cost, the stage breakdown, plots and a headline.

    A size whose child fails (or times out) is recorded under ``errors`` and the other sizes
    still run; the section fails only when no size could be measured.
    """
    max_queries = QUICK_MAX_QUERIES if quick else MAX_QUERIES
    per_size: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    for n in sorted(QUICK_SIZES if quick else SIZES):
        try:
            per_size[str(n)] = _size_figures(n, max_queries)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            errors[str(n)] = f"{type(exc).__name__}: {exc}"
            _say(f"{n:,} slides failed: {errors[str(n)].splitlines()[0]}")
    if not per_size:
        raise RuntimeError(f"no library size could be measured: {errors}")
    sizes = [int(n) for n in per_size]
    breakdown_n = BREAKDOWN_SIZE if BREAKDOWN_SIZE in sizes else sizes[-1]
    _say(f"{breakdown_n:,} slides again with BLAS on one thread ...")
    one_thread = _run_child("query", breakdown_n, SEED, max_queries, DEFAULT_EMBEDDER, env=ONE_THREAD_ENV)
    _say(f"per-query cost of the {DEFAULT_EMBEDDER} embedder ...")
    embed_cost = _run_child("embed-cost", sizes[0], SEED, max_queries, DEFAULT_EMBEDDER)
    plots = _plots(sizes, per_size, out_dir) if out_dir is not None else []
    out: dict[str, Any] = {
        "sizes": per_size,
        "errors": errors,
        "document_embedder": DOC_EMBEDDER,
        "embedder_cost": embed_cost,
        "breakdown_size": breakdown_n,
        "one_thread_blas": one_thread,
        "plots": plots,
        "notes": [
            "each method runs its queries back to back after one warm-up; the engine first",
            f"document and query vectors use the `{DOC_EMBEDDER}` embedder: the default `{DEFAULT_EMBEDDER}` embeds "
            f"{embed_cost[DEFAULT_EMBEDDER]['corpus_slides_per_s']} slides/s here (measured on "
            f"{embed_cost[DEFAULT_EMBEDDER]['corpus_sample']} slides), too slow to embed these libraries per run",
            "latency: one child process per size; each labelled query timed once per method",
            "a build marked cached reports the figures measured when that library was built",
        ],
    }
    out["headline"] = _headline(sizes, per_size, embed_cost, breakdown_n)
    default = per_size[str(breakdown_n)]
    out["headline"][f"query ms median / p95 at {breakdown_n:,} with BLAS on 1 thread vs the default threads"] = (
        f"search_v2 {one_thread['search_v2']['median_ms']:.1f} / {one_thread['search_v2']['p95_ms']:.1f} vs"
        f" {default['search_v2']['median_ms']:.1f} / {default['search_v2']['p95_ms']:.1f};"
        f" brute-force numpy {one_thread['bruteforce_numpy']['median_ms']:.1f} / {one_thread['bruteforce_numpy']['p95_ms']:.1f}"
        f" vs {default['bruteforce_numpy']['median_ms']:.1f} / {default['bruteforce_numpy']['p95_ms']:.1f}"
    )
    for n, error in errors.items():
        out["headline"][f"{int(n):,} slides not measured"] = error.splitlines()[0]
    return out


def _plots(sizes: list[int], per_size: dict[str, dict[str, Any]], out_dir: Path) -> list[str]:
    methods = {"search_v2 (engine)": "search_v2", "brute-force numpy": "bruteforce_numpy", "BM25 only": "bm25_only"}
    series = {
        label: {stat: [per_size[str(n)][key][stat] for n in sizes] for stat in ("median_ms", "p95_ms")}
        for label, key in methods.items()
    }
    latency = latency_vs_size(sizes, series, out_dir / "slides_latency.png")
    phases = {
        "generate": [per_size[str(n)]["build"]["generate_s"] for n in sizes],
        "ingest (read JSONL)": [per_size[str(n)]["build"]["ingest_s"] for n in sizes],
        f"embed ({DOC_EMBEDDER})": [per_size[str(n)]["build"]["embed_s"] for n in sizes],
        "index build + save": [per_size[str(n)]["build"]["index_build_s"] for n in sizes],
    }
    indexing = indexing_loglog(sizes, phases, out_dir / "slides_indexing.png")
    return [latency.name, indexing.name]


def _headline(sizes: list[int], per_size: dict[str, dict[str, Any]], embed_cost: dict[str, Any],
              breakdown_n: int) -> dict[str, str]:
    head: dict[str, str] = {}
    for n in sizes:
        f = per_size[str(n)]
        head[f"query ms median / p95 / p99 at {n:,} slides: search_v2 | brute-force numpy | BM25 only"] = (
            f"{_fmt_stats(f['search_v2'])} | {_fmt_stats(f['bruteforce_numpy'])} | {_fmt_stats(f['bm25_only'])}"
            f" (engine / brute force {f['median_vs_bruteforce']}x, engine / BM25 {f['median_vs_bm25']}x;"
            f" {f['queries']} queries)"
        )
    for n in sizes:
        f, b = per_size[str(n)], per_size[str(n)]["build"]
        head[f"index at {n:,}: load s, peak MiB query / build, slides/s generate / ingest / embed / build"] = (
            f"{f['load_s']:.2f} s, {f['peak_rss_mb']:.0f} / {b['peak_rss_mb']:.0f} MiB, "
            f"{b['generate_slides_per_s']:,.0f} / {b['ingest_slides_per_s']:,.0f} / {b['embed_slides_per_s']:,.0f}"
            f" / {b['index_build_slides_per_s']:,.0f}{' (cached build from ' + b['built_at'] + ')' if b['cached'] else ''}"
        )
    f = per_size[str(breakdown_n)]
    slowest = f["slowest_stage"]
    head[f"slowest stage of a query at {breakdown_n:,} slides"] = (
        f"{slowest}: {f['stages'][slowest]['median_ms']:.1f} ms median, {100 * f['slowest_stage_share']:.1f}% of"
        f" engine time (search_v2 median {f['search_v2']['median_ms']:.1f} ms)"
    )
    top = sorted(f["stages"].items(), key=lambda item: -item[1]["share"])[:5]
    head[f"largest shares of engine time at {breakdown_n:,} slides"] = ", ".join(
        f"{name} {100 * stage['share']:.1f}%" for name, stage in top
    ) + f"; outside the stages (response assembly) {100 * f['outside_stages_share']:.1f}%"
    head["1-minute load average during the query children"] = ", ".join(
        f"{n:,}: {per_size[str(n)]['load_average'][0]:.1f}" for n in sizes
    )
    default, fast = embed_cost[DEFAULT_EMBEDDER], embed_cost[DOC_EMBEDDER]
    largest = sizes[-1]
    head[f"query embedding ms median / p95: {DEFAULT_EMBEDDER} (default) vs {DOC_EMBEDDER} (used here)"] = (
        f"{default['per_query']['median_ms']:.2f} / {default['per_query']['p95_ms']:.2f} vs"
        f" {fast['per_query']['median_ms']:.2f} / {fast['per_query']['p95_ms']:.2f};"
        f" model load {default['load_s']} s vs {fast['load_s']} s"
    )
    head[f"corpus embedding slides/s: {DEFAULT_EMBEDDER} vs {DOC_EMBEDDER}"] = (
        f"{default['corpus_slides_per_s']} vs {fast['corpus_slides_per_s']} (on {default['corpus_sample']} slides);"
        f" at that rate {DEFAULT_EMBEDDER} would take"
        f" {largest / max(default['corpus_slides_per_s'], 1e-9) / 60:.0f} min for {largest:,} slides"
    )
    head["document embedder"] = f"{DOC_EMBEDDER} (static WordLlama) for every library size"
    return head


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="One SlideSearch benchmark phase for one library size.")
    parser.add_argument("--phase", choices=("build", "query", "embed-cost"), required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--queries", type=int, default=MAX_QUERIES)
    parser.add_argument("--embedder", default=DEFAULT_EMBEDDER, help="Embedder whose per-query cost embed-cost measures.")
    parser.add_argument("--rebuild", action="store_true", help="build: ignore a cached library.")
    parser.add_argument("--result", type=Path, help="Write the figures here as JSON (default: print them).")
    args = parser.parse_args(argv)
    if args.phase == "build":
        figures = build_phase(args.size, args.seed, args.rebuild)
    elif args.phase == "query":
        try:
            figures = query_phase(args.size, args.seed, args.queries)
        except StaleIndex as exc:
            print(f"stale index: {exc}", file=sys.stderr)
            return STALE_EXIT
    else:
        figures = embed_cost_phase(args.size, args.seed, args.queries, args.embedder)
    if args.result:
        _write_json(args.result, figures)
    else:
        print(json.dumps(figures, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
