"""#19 experiment: session time, throughput and vectors of the int8w and the fp32 ONNX files (300 SlideVQA slides).

Usage: python docs/experiments/2026-12-02/fp32_onnx_check.py [/tmp/fp32/model.onnx]  (needs the torch extra)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from core.embed import MiniLMEmbedder, OnnxMiniLMEmbedder


def main(fp32_file: Path) -> None:
    slides = json.loads(Path("../shared/data/slidevqa/slide_vqa_image_to_gpt_text.json").read_text())
    texts = [str(v)[:3000] for v in (list(slides.values()) if isinstance(slides, dict) else slides)[:300]]
    vectors = {}
    for label, path in (("int8w", None), ("fp32", fp32_file)):
        started = time.perf_counter()
        embedder = OnnxMiniLMEmbedder(model_path=path)
        session = time.perf_counter() - started
        started = time.perf_counter()
        vectors[label] = embedder.encode(texts)
        rate = len(texts) / (time.perf_counter() - started)
        started = time.perf_counter()
        embedder.encode(["pricing for analytics"])
        print(f"{label}: session {session:.3f} s, {rate:.1f} texts/s, one query {1000 * (time.perf_counter() - started):.1f} ms")
    reference = MiniLMEmbedder(quantize=False, max_tokens=128).encode(texts)
    for label, matrix in vectors.items():
        cosines = (matrix * reference).sum(axis=1)
        print(f"{label} vs sentence-transformers fp32: median cosine {np.median(cosines):.7f}, lowest {cosines.min():.7f}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/tmp/fp32/model.onnx"))
