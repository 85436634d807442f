"""Soak: ingest and re-ingest a changing tree of decks while an HTTP server answers searches and ingests are killed.

    python -m bench.soak --rounds 12 --requests 300 --clients 4 --max-seconds 600
    seek bench run --only soak

Everything runs on 127.0.0.1 in a temporary SEEK_HOME, in child processes this module
starts and stops by PID: one ``seek slides serve --http`` (the server), and one
``seek slides ingest TREE`` per round. Before each round the tree changes (a deck added,
one rewritten, one deleted: seeded, so a run repeats). About half the ingests are sent
SIGKILL at a random moment (reading, writing the store or building the index). Meanwhile
``--clients`` threads send a bounded stream of ``POST /search`` (``--requests`` in all).

After every round the store is checked: every recorded source holds exactly the slides its
``sources`` row counts (a kill never leaves a half-written file). After every round that was
not killed, and at the end, the store and the index hold exactly the slides the tree holds:
none lost, none duplicated, none left from deleted decks. The figures: requests answered and
errors, latency, rounds and kills, and the counts of lost, duplicated, stale and half-written
slides (all of which should be 0).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from slidesearch.serve.http_api import free_port

REPO_ROOT = Path(__file__).resolve().parent.parent
UNIVERSES = ("DAAIS", "S&R", "EdTech")
WORDS = ("fraud", "churn", "pricing", "forecast", "supply", "retail", "bank", "cloud", "migration", "analytics",
         "telecom", "insurance", "claims", "demand", "inventory", "marketing", "attribution", "risk", "credit")
QUERIES = ("fraud detection for a bank", "churn model telecom", "pricing analytics retail", "demand forecast",
           "cloud migration case study", "insurance claims automation", "credit risk scoring")


class Tree:
    """The deck tree on disk (one JSONL file per deck) and the slide ids it should put in the library."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root = root
        self.rng = rng
        self.decks: dict[Path, list[str]] = {}
        self.serial = 0

    def _write(self, path: Path, version: int) -> None:
        deck = path.stem
        n = self.rng.randint(3, 12)
        ids = [f"{deck}_v{version}_s{k}" for k in range(n)]
        rows = []
        for k, slide_id in enumerate(ids):
            words = " ".join(self.rng.choice(WORDS) for _ in range(12))
            rows.append(json.dumps({"slide_id": slide_id, "deck_id": f"{deck}-v{version}", "deck_name": deck,
                                    "slide_number": k + 1, "title": f"{deck} {words[:30]}", "text": words}))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(rows) + "\n")
        self.decks[path] = ids

    def add(self) -> None:
        self.serial += 1
        universe = self.rng.choice(UNIVERSES)
        self._write(self.root / universe / f"deck{self.serial:04d}.jsonl", 0)

    def change(self) -> None:
        if self.decks:
            path = self.rng.choice(sorted(self.decks))
            self.serial += 1
            self._write(path, self.serial)

    def remove(self) -> None:
        if len(self.decks) > 2:
            path = self.rng.choice(sorted(self.decks))
            path.unlink()
            del self.decks[path]

    def expected(self) -> set[str]:
        return {slide_id for ids in self.decks.values() for slide_id in ids}


def _store_check(db: Path, expected: set[str] | None) -> dict[str, int]:
    """Lost, duplicated and stale slides against ``expected`` (None: only the half-written-source check)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        ids = [r[0] for r in conn.execute("SELECT slide_id FROM slides")]
        half = conn.execute(
            "SELECT COUNT(*) FROM sources s WHERE s.n_items != "
            "(SELECT COUNT(*) FROM slides WHERE source_key = s.source_key) + "
            "(SELECT COUNT(*) FROM master WHERE source_key = s.source_key)").fetchone()[0]
        orphans = conn.execute(
            "SELECT COUNT(*) FROM slides WHERE source_key NOT IN (SELECT source_key FROM sources)").fetchone()[0]
    out = {"half_written_sources": int(half), "orphan_slides": int(orphans),
           "duplicated": len(ids) - len(set(ids))}
    if expected is not None:
        out["lost"] = len(expected - set(ids))
        out["stale"] = len(set(ids) - expected)
    return out


def _index_check(home: Path, expected: set[str]) -> dict[str, int]:
    from slidesearch.library import Library

    ids = Library.open(home / "slides" / "index").ids
    return {"index_lost": len(expected - set(ids)), "index_stale": len(set(ids) - expected),
            "index_duplicated": len(ids) - len(set(ids))}


class Children:
    """The processes this soak started, stopped by their PID (never by name)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.started: list[subprocess.Popen[str]] = []

    def start(self, *args: str) -> subprocess.Popen[str]:
        child = subprocess.Popen([sys.executable, "-m", "cli.main", *args], cwd=REPO_ROOT, env=self.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.started.append(child)
        return child

    def stop_all(self) -> None:
        for child in self.started:
            if child.poll() is None:
                child.terminate()
                try:
                    child.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
            for stream in (child.stdout, child.stderr):
                if stream is not None:
                    stream.close()


def _searches(base: str, requests: int, clients: int, deadline: float, stop: threading.Event,
              pause: float) -> dict[str, Any]:
    """``requests`` searches from ``clients`` threads, until done, ``deadline`` or ``stop``; every outcome counted.

    Each client pauses ``pause`` seconds between its requests, so the stream spans the ingest rounds.
    """
    lock = threading.Lock()
    taken = [0]
    latencies: list[float] = []
    errors: dict[str, int] = {}

    def take() -> int | None:
        with lock:
            if taken[0] >= requests or time.monotonic() > deadline or stop.is_set():
                return None
            taken[0] += 1
            return taken[0] - 1

    def client() -> None:
        with httpx.Client(base_url=base, timeout=120) as http:
            while (i := take()) is not None:
                started = time.perf_counter()
                try:
                    response = http.post("/search", json={"query": QUERIES[i % len(QUERIES)]})
                    outcome = None if response.status_code == 200 and "groups" in response.json() else (
                        f"HTTP {response.status_code}")
                except (httpx.HTTPError, ValueError) as exc:
                    outcome = type(exc).__name__
                with lock:
                    if outcome is None:
                        latencies.append(time.perf_counter() - started)
                    else:
                        errors[outcome] = errors.get(outcome, 0) + 1
                stop.wait(pause)

    threads = [threading.Thread(target=client, name=f"soak-client-{n}") for n in range(clients)]
    result: dict[str, Any] = {"threads": threads, "latencies": latencies, "errors": errors, "taken": taken}
    for thread in threads:
        thread.start()
    return result


def _wait_for_health(base: str, server: subprocess.Popen[str], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode}: {server.stderr.read() if server.stderr else ''}")
        try:
            if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"the server did not answer /health within {seconds:.0f} s")


def soak(rounds: int = 12, requests: int = 300, clients: int = 4, max_seconds: float = 600.0, seed: int = 0,
         kill_share: float = 0.5, decks: int = 20, pause: float = 0.5,
         kill_window: tuple[float, float] = (0.3, 4.0)) -> dict[str, Any]:
    """Run the soak (bounded by ``max_seconds`` for the searches and the rounds); returns its figures.

    A killed ingest gets SIGKILL a uniform ``kill_window`` seconds after it starts (python start-up,
    reading, writing the store, or building the index).
    """
    started = time.perf_counter()
    rng = random.Random(seed)
    deadline = time.monotonic() + max_seconds
    with tempfile.TemporaryDirectory(prefix="seek-soak-") as scratch:
        home = Path(scratch) / "home"
        tree = Tree(Path(scratch) / "tree", rng)
        for _ in range(decks):
            tree.add()
        env = {**os.environ, "SEEK_HOME": str(home), "PYTHONPATH": str(REPO_ROOT), "SEEK_EMBEDDER": "fast",
               "SEEK_LLM": "offline", "COLUMNS": "200"}
        env.pop("SEEK_API_TOKEN", None)
        children = Children(env)
        figures: dict[str, Any] = {"rounds": rounds, "kills": 0, "ingest_failures": 0, "checks": 0}
        worst = {"lost": 0, "duplicated": 0, "stale": 0, "half_written_sources": 0, "orphan_slides": 0,
                 "index_lost": 0, "index_stale": 0, "index_duplicated": 0}
        stop = threading.Event()
        load: dict[str, Any] | None = None
        try:
            first = children.start("slides", "ingest", str(tree.root), "--embedder", "fast")
            first.wait(timeout=max(60.0, max_seconds))
            if first.returncode != 0:
                raise RuntimeError(f"the first ingest failed: {first.stderr.read() if first.stderr else ''}")
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            server = children.start("slides", "serve", "--http", "--host", "127.0.0.1", "--port", str(port))
            _wait_for_health(base, server, 120)
            load = _searches(base, requests, clients, deadline, stop, pause)
            db = home / "slides" / "library.db"
            for done_rounds in range(rounds):
                if time.monotonic() > deadline:
                    break
                for change in rng.sample([tree.add, tree.change, tree.remove], k=rng.randint(1, 3)):
                    change()
                child = children.start("slides", "ingest", str(tree.root), "--embedder", "fast")
                killed = rng.random() < kill_share
                if killed:
                    time.sleep(rng.uniform(*kill_window))
                    if child.poll() is None:
                        os.kill(child.pid, signal.SIGKILL)
                        figures["kills"] += 1
                child.wait(timeout=max(60.0, max_seconds))
                if not killed and child.returncode != 0:
                    figures["ingest_failures"] += 1
                exact = child.returncode == 0
                check = _store_check(db, tree.expected() if exact else None)
                if exact:
                    check.update(_index_check(home, tree.expected()))
                figures["checks"] += 1
                for key, value in check.items():
                    worst[key] = max(worst[key], value)
                figures["rounds_done"] = done_rounds + 1
            final = children.start("slides", "ingest", str(tree.root), "--embedder", "fast")
            final.wait(timeout=max(60.0, max_seconds))
            if final.returncode != 0:
                figures["ingest_failures"] += 1
            end = {**_store_check(db, tree.expected()), **_index_check(home, tree.expected())}
            for key, value in end.items():
                worst[key] = max(worst[key], value)
            figures["final_slides"] = len(tree.expected())
            for thread in load["threads"]:  # the stream is bounded: the clients stop by themselves
                thread.join(timeout=max(1.0, deadline - time.monotonic() + 130))
            stop.set()
            health = httpx.get(f"{base}/health", timeout=10).json()
            figures["server_index_after"] = health.get("index", {}).get("status")
        finally:
            stop.set()
            children.stop_all()
    latencies = sorted(load["latencies"]) if load else []
    answered = len(latencies)
    errors = dict(load["errors"]) if load else {}
    sent = load["taken"][0] if load else 0
    figures.update({
        "requests_sent": sent,
        "requests_answered": answered,
        "requests_without_answer": sent - answered - sum(errors.values()),
        "errors": errors,
        "clients": clients,
        "latency_ms": {"p50": round(latencies[len(latencies) // 2] * 1000, 1) if latencies else None,
                       "max": round(latencies[-1] * 1000, 1) if latencies else None},
        "worst": worst,
        "seconds": round(time.perf_counter() - started, 1),
    })
    return figures


def bench_soak(quick: bool = False) -> dict[str, Any]:
    """The `seek bench run --only soak` section: the soak at its default size (smaller when quick)."""
    figures = soak(rounds=6 if quick else 12, requests=120 if quick else 300, clients=4,
                   max_seconds=300 if quick else 600)
    lost = figures["worst"]["lost"] + figures["worst"]["index_lost"]
    duplicated = figures["worst"]["duplicated"] + figures["worst"]["index_duplicated"]
    return {**figures, "headline": {
        "soak": f"{figures['requests_answered']}/{figures['requests_sent']} searches answered by {figures['clients']} "
                f"clients, {sum(figures['errors'].values())} errors; {figures.get('rounds_done', 0)} ingest rounds, "
                f"{figures['kills']} SIGKILLed; {lost} lost, {duplicated} duplicated, "
                f"{figures['worst']['half_written_sources']} half-written sources "
                f"(p50 {figures['latency_ms']['p50']} ms, {figures['seconds']} s)"}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--max-seconds", type=float, default=600.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(json.dumps(soak(args.rounds, args.requests, args.clients, args.max_seconds, args.seed), indent=2))


if __name__ == "__main__":
    main()
