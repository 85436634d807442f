"""Index-build embedding on one process vs a two-node Ray cluster on this machine, and a 10M-slide estimate.

Run inside the cluster's namespace (``scripts/ray-cluster`` prints the address)::

    scripts/ray-cluster start /tmp/seek-ray
    scripts/ray-cluster run /tmp/seek-ray -- python -m bench.ray_index --ray 127.0.0.1:26379 --embedder fast
    scripts/ray-cluster run /tmp/seek-ray -- python -m bench.ray_index --ray 127.0.0.1:26379 --embedder minilm --subset 4000
    scripts/ray-cluster stop /tmp/seek-ray

What is timed is the part ``seek slides index --ray`` fans out: the library's unique slide snippets and
master documents, all missing from a fresh cache. One process: the embedder as ``seek slides index``
runs it (model loaded first, not timed). Ray: ``RayEmbedMissing`` end to end (connecting, starting
the actor pool, each actor loading the model, embedding, writing every vector to the driver's cache).
The two nodes share this machine's 2 cores (and the machine is shared with other work), so the ratio
says what Ray's overhead costs here, not what a second machine would gain. ``--subset N`` embeds only
the first N unique texts (for MiniLM, whose full run takes tens of minutes) and scales per text.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.machine import machine_info

LIBRARY_SLIDES = 122_623
SEED = 8
PAPER_SLIDES = 10_000_000
PAPER_MACHINES = (1, 4, 16, 64)
PAPER_CORES = 16
"""Cores per machine in the paper estimate (a common cloud size; this machine has 2)."""


def library_texts(n: int, seed: int = SEED) -> list[str]:
    """The unique snippets and master documents of the generated library of ``n`` slides (made once, reused)."""
    from core.settings import get_settings
    from slidesearch.generator import generate_library
    from slidesearch.ingest import read_master, read_slides_jsonl

    folder = get_settings().home / "bench" / "ray" / f"n{n}-s{seed}"
    if not (folder / "slides.jsonl").is_file():
        generate_library(n, seed, folder)
    slides, _, _ = read_slides_jsonl(folder / "slides.jsonl")
    master, _ = read_master(folder / "master.jsonl")
    return list(dict.fromkeys([s.snippet for s in slides] + [m.document for m in master]))


def time_local(name: str, texts: list[str]) -> dict[str, Any]:
    from core.embed import make_embedder

    started = time.perf_counter()
    model = make_embedder(name)
    model.encode(["load the model before timing"])
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    vectors = np.vstack([model.encode(texts[i : i + 2048], batch_size=256) for i in range(0, len(texts), 2048)])
    seconds = time.perf_counter() - started
    return {"model_load_s": round(load_s, 2), "seconds": round(seconds, 2),
            "texts_per_s": round(len(texts) / seconds, 1), "vectors": vectors}


def time_ray(name: str, texts: list[str], address: str, actors: int, batch: int, timeout_s: float) -> dict[str, Any]:
    from core.embed import CachedEmbedder, make_embedder
    from slidesearch.ray_index import RayEmbedMissing

    with tempfile.TemporaryDirectory(prefix="seek-ray-bench-") as tmp:
        cache = CachedEmbedder(make_embedder(name), Path(tmp) / "cache.sqlite")
        fan_out = RayEmbedMissing(address, embedder=name, actors=actors, batch=batch, timeout_s=timeout_s)
        started = time.perf_counter()
        report = fan_out(cache, texts)
        seconds = time.perf_counter() - started
        vectors = cache.encode(texts)
        assert cache.misses == 0, "the Ray run left texts unwritten"
    return {"seconds": round(seconds, 2), "texts_per_s": round(len(texts) / seconds, 1),
            "report": report.model_dump(), "vectors": vectors}


def sink_write_ceiling(vectors: np.ndarray) -> float:
    """Rows per second the driver's one cache writer stores (the ceiling on any cluster's rate)."""
    from core.embed import insert_new_vectors, open_vector_cache

    rows = [(f"{i:040d}", v.tobytes()) for i, v in enumerate(vectors)]
    with tempfile.TemporaryDirectory(prefix="seek-sink-") as tmp:
        db = open_vector_cache(Path(tmp) / "cache.sqlite")
        started = time.perf_counter()
        for start in range(0, len(rows), 512):  # as the sink receives them: one transaction per batch
            insert_new_vectors(db, rows[start : start + 512])
        seconds = time.perf_counter() - started
        db.close()
    return len(rows) / seconds


def paper_estimate(per_core_texts_per_s: float, ceiling: float, startup_s: float) -> list[dict[str, float]]:
    """10M slides on N machines of ``PAPER_CORES`` cores, assuming per-core throughput scales linearly.

    The rate is capped by the driver's single cache writer (``ceiling`` rows/s); ``startup_s`` (connect,
    actor start, model loads) is paid once.
    """
    out = []
    for machines in PAPER_MACHINES:
        rate = min(per_core_texts_per_s * PAPER_CORES * machines, ceiling)
        out.append({"machines": machines, "cores": machines * PAPER_CORES, "texts_per_s": round(rate, 1),
                    "minutes": round((PAPER_SLIDES / rate + startup_s) / 60, 1),
                    "writer_bound": rate >= ceiling})
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ray", required=True, metavar="ADDRESS", help="The two-node cluster's address.")
    parser.add_argument("--slides", type=int, default=LIBRARY_SLIDES)
    parser.add_argument("--embedder", default="fast", help="fast (the bench default) or minilm.")
    parser.add_argument("--subset", type=int, default=None, help="Embed only the first N unique texts.")
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--batch", type=int, default=None, help="Texts per Ray task (default 1024 fast, 64 minilm).")
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--out", type=Path, default=None, help="Write the figures as JSON here.")
    args = parser.parse_args(argv)
    batch = args.batch or (1024 if args.embedder == "fast" else 64)

    texts = library_texts(args.slides)
    unique_all = len(texts)
    if args.subset:
        texts = texts[: args.subset]
    load_before = os.getloadavg()[0]
    local = time_local(args.embedder, texts)
    ray_run = time_ray(args.embedder, texts, args.ray, args.actors, batch, args.timeout)
    local_vectors = local.pop("vectors")
    same = bool(np.array_equal(local_vectors, ray_run.pop("vectors")))
    ceiling = sink_write_ceiling(local_vectors[:20_000])
    ratio = ray_run["seconds"] / local["seconds"]
    # Both nodes share the machine's 2 cores: the cluster's rate per core is its rate over 2.
    per_core = ray_run["texts_per_s"] / 2
    per_text_scale = unique_all / len(texts)
    figures = {
        "slides": args.slides, "unique_texts": unique_all, "timed_texts": len(texts), "embedder": args.embedder,
        "actors": args.actors, "batch": batch, "local": local, "ray": ray_run, "ray_over_local": round(ratio, 2),
        "vectors_identical": same, "full_library_local_s": round(local["seconds"] * per_text_scale, 1),
        "full_library_ray_s": round(ray_run["seconds"] * per_text_scale, 1),
        "sink_rows_per_s": round(ceiling, 1), "load_avg_1m_before": round(load_before, 2),
        "load_avg_1m_after": round(os.getloadavg()[0], 2),
        "paper_10m": paper_estimate(per_core, ceiling, startup_s=10.0),
        "machine": machine_info(),
    }
    print(f"{args.embedder}: {len(texts):,} of {unique_all:,} unique texts ({args.slides:,} slides)")
    print(f"  one process: {local['seconds']} s, {local['texts_per_s']:,} texts/s (model load {local['model_load_s']} s)")
    print(f"  two-node Ray ({args.actors} actors, batch {batch}; the nodes share 2 cores): {ray_run['seconds']} s, "
          f"{ray_run['texts_per_s']:,} texts/s; Ray / one process = {ratio:.2f}x; identical vectors: {same}")
    if args.subset:
        print(f"  scaled to all {unique_all:,} texts: one process {figures['full_library_local_s']} s, "
              f"Ray {figures['full_library_ray_s']} s")
    print(f"  driver cache writer: {ceiling:,.0f} rows/s; 1-min load {figures['load_avg_1m_before']} -> "
          f"{figures['load_avg_1m_after']}")
    for row in figures["paper_10m"]:
        print(f"  paper: 10M slides on {row['machines']} x {PAPER_CORES}-core machines: ~{row['minutes']} min"
              + (" (bound by the driver's cache writer)" if row["writer_bound"] else ""))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1))
    return figures


if __name__ == "__main__":
    main()
