"""Embedder speed and quality on SlideVQA: load time, slides/s, dense-only MRR@10 per variant.

Run: ``python -m bench.embedders`` (add ``--help`` for the options). Every variant
embeds the same slide texts and the 1,640 questions; MRR@10 is the reciprocal rank
of the first evidence slide among the 10 nearest slides by cosine (0 when none is
in the top 10). Speed is slides embedded per second of wall time, tokenisation
included, after one warm-up batch; CPU ms/slide (process CPU time over all threads)
is the figure least moved by other work on a shared machine, and the 1-minute
load average is printed beside each row: compare variants within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from core.embed import Embedder, MiniLMEmbedder, OnnxMiniLMEmbedder, StaticEmbedder
from core.settings import get_settings


@dataclass(frozen=True)
class Variant:
    name: str
    quantize: bool | None  # None: the static WordLlama model
    max_tokens: int
    onnx: bool = False  # the int8-weight ONNX file on ONNX Runtime (the default ``minilm``)


VARIANTS = {
    "minilm-full": Variant("minilm-full", False, 256),
    "fp32-128": Variant("fp32-128", False, 128),
    "int8-256": Variant("int8-256", True, 256),
    "int8-128": Variant("int8-128", True, 128),
    "onnx-128": Variant("onnx-128", True, 128, onnx=True),
    "int8-96": Variant("int8-96", True, 96),
    "int8-64": Variant("int8-64", True, 64),
    "fast": Variant("fast", None, 0),
}


def load_slidevqa(data_dir: Path) -> tuple[list[str], list[str], list[str], list[set[int]]]:
    """Slide ids, slide texts, questions and each question's evidence rows."""
    root = data_dir / "slidevqa"
    slides: dict[str, str] = json.loads((root / "slide_vqa_image_to_gpt_text.json").read_text())
    rows = json.loads((root / "slide_vqa_question_answer_docid_list.json").read_text())
    ids = list(slides)
    row_of = {sid: i for i, sid in enumerate(ids)}
    questions = [r["question"] for r in rows]
    evidence = [{row_of[d] for d in r["docid"]} for r in rows]
    return ids, [slides[s] for s in ids], questions, evidence


def mrr_at_10(slide_vectors: NDArray[np.float32], query_vectors: NDArray[np.float32], evidence: Sequence[set[int]]) -> float:
    sims = query_vectors @ slide_vectors.T
    top = np.argsort(-sims, axis=1, kind="stable")[:, :10]
    total = 0.0
    for ranked_rows, relevant in zip(top.tolist(), evidence, strict=True):
        for rank, row in enumerate(ranked_rows, start=1):
            if row in relevant:
                total += 1.0 / rank
                break
    return total / len(evidence)


def build(variant: Variant, threads: int) -> Embedder:
    if variant.quantize is None:
        return StaticEmbedder()
    if variant.onnx:
        return OnnxMiniLMEmbedder(max_tokens=variant.max_tokens, threads=threads)
    return MiniLMEmbedder(quantize=variant.quantize, max_tokens=variant.max_tokens, threads=threads)


def measure(variant: Variant, texts: list[str], questions: list[str], evidence: list[set[int]],
            threads: int, batch_size: int, repeat: int = 1) -> dict[str, float | str | int | None]:
    """Load time, speed over ``texts`` (the fastest of ``repeat`` passes, so that bursts of other
    work on the machine count less) and, when ``questions`` are given, MRR@10 over ``texts``."""
    started = time.perf_counter()
    embedder = build(variant, threads)
    load_s = time.perf_counter() - started
    embedder.encode(texts[:batch_size], batch_size=batch_size)  # warm-up: first calls pay one-off allocation
    best_wall, best_cpu = float("inf"), float("inf")
    for _ in range(repeat):
        started, cpu_started = time.perf_counter(), time.process_time()
        slide_vectors = embedder.encode(texts, batch_size=batch_size)
        best_wall = min(best_wall, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - cpu_started)
    slides_per_s = len(texts) / best_wall
    cpu_ms_per_slide = 1000 * best_cpu / len(texts)
    mrr10 = None
    if questions:
        query_vectors = embedder.encode(questions, batch_size=batch_size)
        mrr10 = round(mrr_at_10(slide_vectors, query_vectors, evidence), 4)
    return {
        "variant": variant.name, "batch": batch_size, "slides": len(texts), "load_s": round(load_s, 1),
        "slides_per_s": round(slides_per_s, 1), "cpu_ms_per_slide": round(cpu_ms_per_slide, 2), "mrr10": mrr10,
    }


def _measure_in_fresh_process(name: str, batch_size: int, threads: int, limit: int | None,
                              repeat: int) -> dict[str, object]:
    """One variant in its own interpreter, so its load time includes importing torch and reading weights."""
    cmd = [sys.executable, "-m", "bench.embedders", "--one", name, "--batch-sizes", str(batch_size),
           "--threads", str(threads), "--repeat", str(repeat)]
    if limit:
        cmd += ["--limit", str(limit)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parent.parent)
    row: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--variants", default="minilm-full,fp32-128,int8-256,int8-128,int8-96,int8-64,fast",
                        help=f"comma-separated, from {', '.join(VARIANTS)}")
    parser.add_argument("--batch-sizes", default="32", help="comma-separated batch sizes, each measured per variant")
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads")
    parser.add_argument("--limit", type=int, help="time only the first N slides and skip MRR (a short speed check)")
    parser.add_argument("--repeat", type=int, default=1, help="time the slides this many times and keep the fastest")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one variant here, print one JSON row
    args = parser.parse_args(argv)
    names = [args.one] if args.one else args.variants.split(",")
    unknown = [v for v in names if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(VARIANTS)}")
    batch_sizes = [int(b) for b in args.batch_sizes.split(",")]
    if args.one:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        _, texts, questions, evidence = load_slidevqa(get_settings().data_dir)
        if args.limit:
            texts, questions, evidence = texts[: args.limit], [], []
        row = measure(VARIANTS[args.one], texts, questions, evidence, args.threads, batch_sizes[0], args.repeat)
        row["load_avg_1m"] = round(os.getloadavg()[0], 2)
        print(json.dumps(row))
        return 0
    rows = []
    for name in names:
        for batch_size in batch_sizes:
            rows.append(_measure_in_fresh_process(name, batch_size, args.threads, args.limit, args.repeat))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    scope = f"first {args.limit} slides, no MRR" if args.limit else "1,284 slides, 1,640 questions"
    print(f"SlideVQA ({scope}); torch threads={args.threads}; best of {args.repeat} timed pass(es); "
          "each row a fresh process")
    print("| variant | batch | load s | slides/s | CPU ms/slide | MRR@10 | load avg (1 min) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        mrr = "-" if r["mrr10"] is None else r["mrr10"]
        print(f"| {r['variant']} | {r['batch']} | {r['load_s']} | {r['slides_per_s']} | {r['cpu_ms_per_slide']} "
              f"| {mrr} | {r['load_avg_1m']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
