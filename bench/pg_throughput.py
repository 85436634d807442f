"""Search throughput over PostgreSQL: the local store, one replica and two replicas on one generated library.

    python -m bench.pg_throughput --slides 2000 --clients 4 --seconds 30
    python -m bench.pg_throughput --url postgresql://...   # a server of your own instead of scripts/postgres

The library is generated (seed 0), ingested into a local store and into PostgreSQL, and indexed
(local) and published (PostgreSQL) with ``--embedder``. Each configuration is real
`seek slides serve --http` processes on 127.0.0.1: the local index; one replica over PostgreSQL;
two replicas over PostgreSQL with the clients split between them. ``--clients`` threads send
``POST /search`` for the generated queries in turn for ``--seconds``; latency is measured at the
client (queueing included), percentiles nearest-rank. Prints the figures as JSON with each
configuration's throughput as a ratio of the local store's. Every server started is stopped by its PID.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from bench.serve_load import percentile
from slidesearch.generator import generate_library
from slidesearch.index import build_index
from slidesearch.ingest import ingest_path
from slidesearch.serve.http_api import free_port
from slidesearch.store import Store

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"
WARMUP_REQUESTS = 8


class Server:
    """One `seek slides serve --http` process (local index, or a replica when ``store`` is a URL)."""

    def __init__(self, home: Path, store: str | None) -> None:
        self.port = free_port()
        home.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "SEEK_HOME": str(home), "SEEK_API_TOKEN": TOKEN, "SEEK_USAGE_LOG": "false",
               "PYTHONPATH": str(ROOT)}
        env.pop("SEEK_STORE", None)
        if store is not None:
            env["SEEK_STORE"] = store
        self.log = home / f"serve-{self.port}.log"
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "cli.main", "slides", "serve", "--http", "--port", str(self.port)],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"

    def wait_ready(self, seconds: float = 180.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.base}/health", timeout=5).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise SystemExit(f"the server did not answer in {seconds:.0f}s")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)


def load(bases: Sequence[str], queries: Sequence[Any], clients: int, seconds: float) -> dict[str, Any]:
    """``clients`` threads (client i on ``bases[i % len(bases)]``) searching for ``seconds``; the summary."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    for base in bases:
        with httpx.Client(base_url=base, headers=headers, timeout=300) as http:
            for i in range(WARMUP_REQUESTS):
                http.post("/search", json={"query": queries[i % len(queries)]}).raise_for_status()
    lock = threading.Lock()
    latencies: list[float] = []
    errors = 0
    deadline = time.monotonic() + seconds

    def client(n: int) -> None:
        nonlocal errors
        with httpx.Client(base_url=bases[n % len(bases)], headers=headers, timeout=120) as http:
            i = n
            while time.monotonic() < deadline:
                started = time.perf_counter()
                try:
                    ok = http.post("/search", json={"query": queries[i % len(queries)]}).status_code == 200
                except httpx.HTTPError:
                    ok = False
                elapsed = time.perf_counter() - started
                with lock:
                    if ok:
                        latencies.append(elapsed)
                    else:
                        errors += 1
                i += clients

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    ordered = sorted(latencies)
    return {"servers": len(bases), "clients": clients, "requests": len(latencies), "errors": errors,
            "wall_s": round(wall, 2), "queries_per_s": round(len(latencies) / wall, 2),
            "p50_ms": round(percentile(ordered, 0.5) * 1000, 1) if ordered else None,
            "p95_ms": round(percentile(ordered, 0.95) * 1000, 1) if ordered else None}


def _start_postgres(workdir: Path) -> tuple[str, Path]:
    root = Path(tempfile.mkdtemp(prefix="seek-pg-bench-"))
    started = subprocess.run([sys.executable, str(ROOT / "scripts" / "postgres"), "start", str(root)],
                             capture_output=True, text=True, check=True)
    return started.stdout.strip().splitlines()[-1], root


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slides", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--embedder", default="fast")
    parser.add_argument("--url", help="an existing PostgreSQL library database (default: start one)")
    args = parser.parse_args(argv)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    workdir = Path(tempfile.mkdtemp(prefix="seek-pg-throughput-"))
    own_server: Path | None = None
    url = args.url
    if url is None:
        url, own_server = _start_postgres(workdir)
    servers: list[Server] = []
    try:
        os.environ["SEEK_HOME"] = str(workdir / "local")
        os.environ.pop("SEEK_STORE", None)
        generate_library(args.slides, 0, workdir / "gen")
        queries = [json.loads(line)["query"] for line in (workdir / "gen" / "queries.jsonl").read_text().splitlines()]
        local = Store(workdir / "local" / "slides" / "library.db")
        ingest_path(workdir / "gen", local)
        build_index(local, embedder=args.embedder)
        local.close()
        from slidesearch.pg_store import PostgresStore

        shared = PostgresStore(url)
        ingest_path(workdir / "gen", shared)
        build_index(shared, embedder=args.embedder)
        shared.close()

        results: dict[str, Any] = {"slides": args.slides, "embedder": args.embedder, "cpus": os.cpu_count(),
                                   "load_average": os.getloadavg()[0]}
        local_server = Server(workdir / "local", None)
        servers.append(local_server)
        local_server.wait_ready()
        results["local"] = load([local_server.base], queries, args.clients, args.seconds)
        local_server.stop()
        replicas = [Server(workdir / f"replica{i}", url) for i in range(2)]
        servers.extend(replicas)
        for replica in replicas:
            replica.wait_ready()
        results["postgres_1_replica"] = load([replicas[0].base], queries, args.clients, args.seconds)
        results["postgres_2_replicas"] = load([r.base for r in replicas], queries, args.clients, args.seconds)
        base = results["local"]["queries_per_s"] or 1.0
        for name in ("postgres_1_replica", "postgres_2_replicas"):
            results[name]["throughput_vs_local"] = round(results[name]["queries_per_s"] / base, 2)
    finally:
        for server in servers:
            server.stop()
        if own_server is not None:
            subprocess.run([sys.executable, str(ROOT / "scripts" / "postgres"), "stop", str(own_server)],
                           capture_output=True)
            shutil.rmtree(own_server, ignore_errors=True)
        shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
