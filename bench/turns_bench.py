"""Ten Turns benchmarks: sessions per second and index build time of each agent over the 50k catalog.

Each agent runs in its own child process (``python -m bench.turns_bench --agent
NAME ...``): agents share per-process caches (the phrase index, the loaded
catalog), so building two in one process would flatter the second. A child
loads the catalog (timed apart), builds the agent (its index build), then plays
the sessions through ``tenturns.evaluate.evaluate_agent``; the run time is the
evaluator's wall time less its own set-up. The baseline agent (the official
FTS5 BM25 one) is the named reference: the headline ratio is tenturns /
baseline sessions per second.

The catalog and sessions come from ``tenturns.datasets.resolve_dataset``
(``public-50k``; generated under ``SEEK_HOME/turns/`` on first use and reused).
``--quick`` plays a few public sessions on the 1,200-row ``public-sample``
catalog with ``SEEK_EMBEDDER=fast``, so the generic agent's dense route uses the
same embedder it picks by itself at 50k.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.plots import sessions_bars
from bench.slides_bench import own_peak_rss_mb

REPO_ROOT = Path(__file__).resolve().parent.parent

AGENTS: tuple[str, ...] = ("tenturns", "generic", "baseline")
BASELINE = "baseline"
DATASET = "public-50k"
QUICK_DATASET = "public-sample"
#: None plays every session of the dataset.
MAX_SESSIONS: int | None = None
QUICK_MAX_SESSIONS = 100
QUICK_ENV = {"SEEK_EMBEDDER": "fast"}
CHILD_TIMEOUT_S = 3_600


def _say(message: str) -> None:
    """Progress on stderr: building the 50k catalog and the agents takes minutes."""
    print(f"bench: turns: {message}", file=sys.stderr, flush=True)


def _cache_files() -> set[Path]:
    from core.settings import get_settings

    root = get_settings().cache_dir
    return {p for p in root.rglob("*") if p.is_file()} if root.is_dir() else set()


def agent_phase(agent: str, catalog_path: Path, sessions_path: Path, limit: int | None) -> dict[str, Any]:
    """Load the catalog, build ``agent`` and play the sessions; seconds for each part, sessions/s, peak memory."""
    from tenturns.agents import make_agent
    from tenturns.catalog import load_catalog
    from tenturns.evaluate import evaluate_agent, load_sessions
    from tenturns.simulator import MAX_TURNS

    started = time.perf_counter()
    catalog = load_catalog(catalog_path)
    catalog_load_s = time.perf_counter() - started

    before = _cache_files()
    started = time.perf_counter()
    built = make_agent(agent, catalog_path)
    build_s = time.perf_counter() - started
    # An agent that writes to the cache while building (the generic agent's product vectors) built cold.
    wrote_cache = bool(_cache_files() - before)

    sessions = load_sessions(sessions_path)
    if limit is not None:
        sessions = sessions[:limit]
    report = evaluate_agent(built, catalog_path, sessions)
    run_s = max(report.wall_seconds - report.build_seconds, 1e-9)
    turns = sum(r.first_hit_turn if r.first_hit_turn is not None else MAX_TURNS for r in report.per_session)
    return {
        "agent": agent,
        "products": len(catalog.products),
        "catalog_load_s": round(catalog_load_s, 3),
        "build_s": round(build_s, 3),
        "build_wrote_cache": wrote_cache,
        "run_s": round(run_s, 3),
        "sessions": report.n_sessions,
        "turns": turns,
        "sessions_per_s": round(report.n_sessions / run_s, 2),
        "turns_per_s": round(turns / run_s, 1),
        "build_share": round(build_s / (build_s + run_s), 3),
        "hr10": report.hr10,
        "technical_score": report.technical_score,
        "peak_rss_mb": round(own_peak_rss_mb(), 1),
    }


def _run_child(agent: str, catalog: Path, sessions: Path, limit: int | None, env: dict[str, str]) -> dict[str, Any]:
    """One agent in a fresh interpreter; its figures gain the 1-minute load average before and after."""
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="seek-bench-") as tmp:
        result = Path(tmp) / "result.json"
        cmd = [sys.executable, "-m", "bench.turns_bench", "--agent", agent, "--catalog", str(catalog),
               "--sessions", str(sessions), "--result", str(result)]
        if limit is not None:
            cmd += ["--limit", str(limit)]
        done = subprocess.run(cmd, cwd=REPO_ROOT, env={**os.environ, **env}, capture_output=True, text=True,
                              timeout=CHILD_TIMEOUT_S, check=False)
        if done.returncode != 0 or not result.is_file():
            tail = "\n".join(done.stderr.strip().splitlines()[-15:])
            raise RuntimeError(f"`{' '.join(cmd[1:])}` failed with exit code {done.returncode}:\n{tail}")
        figures = dict(json.loads(result.read_text()))
    figures["load_average"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    return figures


def resolve(name: str) -> tuple[Path, Path, dict[str, Any]]:
    """The dataset's catalog and sessions paths, and whether this call generated the catalog."""
    from tenturns.datasets import resolve_dataset

    started_wall = time.time()
    started = time.perf_counter()
    dataset = resolve_dataset(name)
    seconds = time.perf_counter() - started
    catalog, sessions = Path(dataset.catalog_path), Path(dataset.sessions_path)
    generated = catalog.stat().st_mtime >= started_wall - 1.0
    return catalog, sessions, {"dataset": name, "catalog": str(catalog), "sessions": str(sessions),
                               "resolve_s": round(seconds, 2), "catalog_cached": not generated}


def bench_turns(quick: bool = False, out_dir: Path | None = None) -> dict[str, Any]:
    """The Ten Turns section: per-agent build and run figures, the tenturns / baseline ratio, a plot, a headline."""
    dataset_name = QUICK_DATASET if quick else DATASET
    _say(f"dataset {dataset_name} (generated on first use) ...")
    catalog, sessions, dataset = resolve(dataset_name)
    limit = QUICK_MAX_SESSIONS if quick else MAX_SESSIONS
    env = QUICK_ENV if quick else {}
    agents: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    for agent in AGENTS:
        _say(f"{agent} agent on {dataset['dataset']} ...")
        try:
            agents[agent] = _run_child(agent, catalog, sessions, limit, env)
        except (RuntimeError, subprocess.TimeoutExpired) as exc:  # the other agents still run
            errors[agent] = f"{type(exc).__name__}: {exc}"
    if not agents:
        raise RuntimeError(f"no agent could be measured: {errors}")
    out: dict[str, Any] = {**dataset, "env": env, "agents": agents, "errors": errors}
    base = agents.get(BASELINE)
    if base:
        out["sessions_per_s_vs_baseline"] = {
            name: round(a["sessions_per_s"] / base["sessions_per_s"], 3) for name, a in agents.items() if name != BASELINE
        }
    names = list(agents)
    plots: list[str] = []
    if out_dir is not None:
        path = sessions_bars(names, [agents[n]["sessions_per_s"] for n in names], [agents[n]["build_s"] for n in names],
                             out_dir / "turns_agents.png",
                             title=f"Ten Turns agents on {dataset['dataset']} ({next(iter(agents.values()))['products']:,} products)")
        plots.append(path.name)
    out["plots"] = plots
    out["headline"] = _headline(out, agents)
    return out


def _headline(out: dict[str, Any], agents: dict[str, dict[str, Any]]) -> dict[str, str]:
    first = next(iter(agents.values()))
    head = {
        "dataset": f"{out['dataset']} ({first['products']:,} products, {first['sessions']} sessions per agent"
                   f"{'' if out['catalog_cached'] else ', catalog generated in this run in ' + str(out['resolve_s']) + ' s'})",
        "sessions/s (turns/s)": ", ".join(f"{n} {a['sessions_per_s']:.2f} ({a['turns_per_s']:.0f})" for n, a in agents.items()),
        "index build s (catalog load s)": ", ".join(
            f"{n} {a['build_s']:.2f}{' cold cache' if a['build_wrote_cache'] else ''} ({a['catalog_load_s']:.2f})"
            for n, a in agents.items()
        ),
        "build / run s (build share)": ", ".join(
            f"{n} {a['build_s']:.1f} / {a['run_s']:.1f} ({100 * a['build_share']:.0f}%)" for n, a in agents.items()
        ),
    }
    for name, ratio in out.get("sessions_per_s_vs_baseline", {}).items():
        head[f"{name} / {BASELINE} sessions/s"] = f"{ratio}x"
    for name, error in out["errors"].items():
        head[f"{name} not measured"] = error.splitlines()[0]
    if out["env"]:
        head["environment"] = ", ".join(f"{k}={v}" for k, v in out["env"].items())
    return head


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build one Ten Turns agent and play sessions with it.")
    parser.add_argument("--agent", required=True)
    parser.add_argument("--catalog", type=Path, required=True)
    parser.add_argument("--sessions", type=Path, required=True)
    parser.add_argument("--limit", type=int, help="Play only the first N sessions.")
    parser.add_argument("--result", type=Path, help="Write the figures here as JSON (default: print them).")
    args = parser.parse_args(argv)
    figures = agent_phase(args.agent, args.catalog, args.sessions, args.limit)
    if args.result:
        tmp = args.result.with_name(f".{args.result.name}.tmp")
        tmp.write_text(json.dumps(figures, indent=2))
        tmp.replace(args.result)
    else:
        print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
