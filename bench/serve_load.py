"""Bounded load test of the HTTP API on loopback: throughput, p50/p99 latency and errors.

    python -m bench.serve_load --slides 20000 --requests 2000 --clients 8
    python -m bench.serve_load --index ~/.local/share/seek/slides/index --queries queries.jsonl

One engine is loaded once and served by uvicorn on a free 127.0.0.1 port in this
process, exactly as `seek slides serve --http` serves it; ``--clients`` threads,
each with its own keep-alive httpx client, send ``POST /search`` for the queries
in turn until ``--requests`` have been sent or ``--max-seconds`` has passed, so
the run always stops by itself. Without ``--index`` the library is generated
(`slidesearch.generator`, seed 0) at ``--slides`` and indexed in memory with
``--embedder``; its labelled queries are the load. Latency is measured at the
client (wall time of each request, queueing included); percentiles are nearest-rank.

Measured here (2 shared cores, load average 8-16 from other jobs, fast embedder, offline LLM):
122,623 slides, 2,000 requests, 8 clients: 3.32 requests/s, p50 2,209 ms, p99 5,824 ms, 0 errors;
10,000 slides, same load: 4.44 requests/s, p50 1,684 ms, p99 4,104 ms, 0 errors.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from slidesearch.engine import SlideSearch
from slidesearch.generator import generate_library
from slidesearch.ingest import read_master, read_slides_jsonl
from slidesearch.library import Library
from slidesearch.serve.http_api import create_app, serve_in_thread
from slidesearch.serve.service import SlideService
from slidesearch.serve.usage_log import UsageLog

#: Requests before timing starts: the first calls load the embedder and warm the caches.
WARMUP_REQUESTS = 8


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of an ascending sequence."""
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def _queries(path: Path) -> list[Any]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    queries = [row["query"] for row in rows if row.get("query")]
    if not queries:
        raise SystemExit(f"no queries with a 'query' field in {path}")
    return queries


def _library(args: argparse.Namespace, workdir: Path) -> tuple[Library, list[Any], dict[str, float]]:
    timings: dict[str, float] = {}
    if args.index:
        started = time.perf_counter()
        library = Library.open(args.index)
        timings["open_s"] = time.perf_counter() - started
        if not args.queries:
            raise SystemExit("--index needs --queries FILE (JSONL rows with a 'query' field)")
        return library, _queries(args.queries), timings
    started = time.perf_counter()
    generate_library(args.slides, args.seed, workdir)
    timings["generate_s"] = time.perf_counter() - started
    slides, _, errors = read_slides_jsonl(workdir / "slides.jsonl")
    master, _ = read_master(workdir / "master.jsonl")
    if errors:
        raise SystemExit(f"generated library has bad rows: {errors[:3]}")
    started = time.perf_counter()
    library = Library.from_slides(slides, master, embedder=args.embedder)
    timings["index_s"] = time.perf_counter() - started
    return library, _queries(args.queries or workdir / "queries.jsonl"), timings


def run_load(base: str, queries: Sequence[Any], requests: int, clients: int, max_seconds: float,
             token: str | None = None) -> dict[str, Any]:
    """Send ``requests`` searches from ``clients`` threads (stopping at ``max_seconds``); summarise them."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    lock = threading.Lock()
    next_index = 0
    latencies: list[float] = []
    errors: dict[str, int] = {}
    deadline = time.monotonic() + max_seconds

    def take() -> int | None:
        nonlocal next_index
        with lock:
            if next_index >= requests or time.monotonic() > deadline:
                return None
            next_index += 1
            return next_index - 1

    def client() -> None:
        with httpx.Client(base_url=base, headers=headers, timeout=120) as http:
            while (i := take()) is not None:
                started = time.perf_counter()
                try:
                    response = http.post("/search", json={"query": queries[i % len(queries)], "session_id": f"load-{i}"})
                    outcome = None if response.status_code == 200 else f"HTTP {response.status_code}"
                except httpx.HTTPError as exc:
                    outcome = type(exc).__name__
                elapsed = time.perf_counter() - started
                with lock:
                    if outcome is None:
                        latencies.append(elapsed)
                    else:
                        errors[outcome] = errors.get(outcome, 0) + 1

    with httpx.Client(base_url=base, headers=headers, timeout=300) as http:
        for i in range(WARMUP_REQUESTS):
            http.post("/search", json={"query": queries[i % len(queries)]})
    started = time.perf_counter()
    threads = [threading.Thread(target=client, name=f"load-client-{n}") for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    ordered = sorted(latencies)
    sent = len(latencies) + sum(errors.values())
    return {
        "requests_sent": sent,
        "requests_planned": requests,
        "stopped_by_time_limit": sent < requests,
        "clients": clients,
        "wall_s": round(wall, 2),
        "throughput_rps": round(len(latencies) / wall, 2) if wall else 0.0,
        "latency_ms": {
            "p50": round(percentile(ordered, 0.50) * 1000, 1) if ordered else None,
            "p99": round(percentile(ordered, 0.99) * 1000, 1) if ordered else None,
            "max": round(ordered[-1] * 1000, 1) if ordered else None,
        },
        "errors": sum(errors.values()),
        "errors_by_kind": errors,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, help="A saved index to serve instead of generating a library.")
    parser.add_argument("--queries", type=Path, help="JSONL with a 'query' field per row (default: the generated set).")
    parser.add_argument("--slides", type=int, default=20_000, help="Size of the generated library.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--embedder", default="fast", help="Embedder for the generated library (fast, minilm).")
    parser.add_argument("--requests", type=int, default=2_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4, help="Engine worker threads in the server.")
    parser.add_argument("--max-seconds", type=float, default=900.0, help="Stop sending after this long.")
    parser.add_argument("--out", type=Path, help="Also write the report here as JSON.")
    args = parser.parse_args(argv)
    # wordllama configures the root logger at INFO on import; one line per request would drown the report.
    logging.getLogger("httpx").setLevel(logging.WARNING)

    with tempfile.TemporaryDirectory(prefix="seek-serve-load-") as tmp:
        workdir = Path(tmp)
        library, queries, timings = _library(args, workdir)
        service = SlideService(SlideSearch(library), usage_log=UsageLog(workdir / "library.db"))
        with serve_in_thread(create_app(service, workers=args.workers)) as base:
            report = run_load(base, queries, args.requests, args.clients, args.max_seconds)
        logged = len(service.usage_log.records()) if service.usage_log else 0
    report = {
        "library_slides": library.n, "embedder": library.embedder_name, "distinct_queries": len(queries),
        "server_workers": args.workers, **{k: round(v, 2) for k, v in timings.items()}, **report,
        "searches_logged": logged,
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return report


if __name__ == "__main__":
    main()
