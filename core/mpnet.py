"""all-mpnet-base-v2 in plain NumPy: the encoder's forward pass, so a search needs neither torch nor an export.

The weights are the model's own ``model.safetensors`` (fp32), read through a memory map; the tokenizer is its own
``tokenizer.json`` (``tokenizers``). The forward pass is MPNet's (Song et al. 2020; transformers'
``MPNetModel``): word + absolute position embeddings and a LayerNorm; 12 post-LayerNorm layers of 12-head
self-attention whose scores carry a T5-style bucketed relative position bias (32 buckets, distance 128, computed
once and shared by every layer) and a GELU feed-forward of 3072; then sentence-transformers' mean pooling and L2
norm. Texts of like length run together, padded to the batch's longest, with pads masked out of attention and
pooling, so a text's vector is the one it has alone (to float rounding). ``tests/core/test_mpnet.py`` checks the vectors against sentence-transformers' fp32 model.
"""

from __future__ import annotations

import json
import math
import mmap
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

HIDDEN, HEADS, LAYERS = 768, 12, 12
BUCKETS, MAX_DISTANCE = 32, 128
PAD_ID = 1
EPS = 1e-5
_DTYPES = {"F32": np.float32, "I64": np.int64}


def read_safetensors(path: Path) -> dict[str, NDArray[np.generic]]:
    """Every tensor of a ``.safetensors`` file as a read-only array over a memory map (no copy)."""
    with path.open("rb") as f:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    size = int.from_bytes(mapped[:8], "little")
    header = json.loads(mapped[8 : 8 + size])
    out: dict[str, NDArray[np.generic]] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info["dtype"] not in _DTYPES:
            raise ValueError(f"{path}: tensor {name} has dtype {info['dtype']}, which this reader does not take")
        start, end = info["data_offsets"]
        out[name] = np.frombuffer(mapped, dtype=_DTYPES[info["dtype"]], count=(end - start) // np.dtype(
            _DTYPES[info["dtype"]]).itemsize, offset=8 + size + start).reshape(info["shape"])
    return out


def relative_buckets(length: int) -> NDArray[np.int64]:
    """MPNet's bidirectional T5 bucket of every (query, key) offset of a ``length``-token text."""
    context = np.arange(length)[:, None]
    memory = np.arange(length)[None, :]
    n = -(memory - context)
    half = BUCKETS // 2
    ret = (n < 0).astype(np.int64) * half
    n = np.abs(n)
    exact = half // 2
    with np.errstate(divide="ignore"):
        large = exact + (np.log(np.maximum(n, 1) / exact) / math.log(MAX_DISTANCE / exact) * (half - exact)).astype(np.int64)
    large = np.minimum(large, half - 1)
    return ret + np.where(n < exact, n, large)


def _layer_norm(x: NDArray[np.float32], weight: NDArray[np.float32], bias: NDArray[np.float32]) -> NDArray[np.float32]:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(var + EPS) * weight + bias


def _gelu(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """The exact (erf) GELU, as transformers' ``gelu`` (SciPy's erf has a float32 loop)."""
    from scipy.special import erf

    return np.float32(0.5) * x * (np.float32(1.0) + erf(x * np.float32(1.0 / math.sqrt(2.0))))


class NumpyMpnet:
    """The forward pass of one MPNet encoder (the weights of a sentence-transformers all-mpnet-base-v2 folder)."""

    def __init__(self, model_dir: Path, max_tokens: int = 128) -> None:
        from tokenizers import Tokenizer

        w = read_safetensors(model_dir / "model.safetensors")
        self._word = w["embeddings.word_embeddings.weight"]
        self._position = w["embeddings.position_embeddings.weight"]
        self._emb_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self._bias_table = np.asarray(w["encoder.relative_attention_bias.weight"])
        # Weights stay as stored ([out, in], memory-mapped): ``x @ w.T`` hands BLAS a transposed view, no copy.
        self._layers = [
            tuple(w[f"encoder.layer.{i}.{name}"] for name in (
                "attention.attn.q.weight", "attention.attn.q.bias", "attention.attn.k.weight", "attention.attn.k.bias",
                "attention.attn.v.weight", "attention.attn.v.bias", "attention.attn.o.weight", "attention.attn.o.bias",
                "attention.LayerNorm.weight", "attention.LayerNorm.bias",
                "intermediate.dense.weight", "intermediate.dense.bias", "output.dense.weight", "output.dense.bias",
                "output.LayerNorm.weight", "output.LayerNorm.bias"))
            for i in range(LAYERS)
        ]
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._lock = threading.Lock()

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self._tokenizer.encode_batch(list(texts))]

    def hidden(self, batch: Sequence[Sequence[int]]) -> tuple[NDArray[np.float32], NDArray[np.bool_]]:
        """The last hidden states ``[texts, tokens, 768]`` of a batch padded to its longest text, and the mask of
        real tokens. A pad is never attended to and every real offset keeps its bucket, so a text's states are
        those it has alone (to float rounding)."""
        size, length = len(batch), max(len(ids) for ids in batch)
        ids = np.full((size, length), PAD_ID, dtype=np.int64)
        real = np.zeros((size, length), dtype=bool)
        for row, text in enumerate(batch):
            ids[row, : len(text)] = text
            real[row, : len(text)] = True
        # transformers' position ids: 2, 3, ... for real tokens, the padding index for pads.
        positions = np.where(real, np.cumsum(real, axis=1) + PAD_ID, PAD_ID)
        x = _layer_norm(self._word[ids] + self._position[positions], *self._emb_norm)
        bias = self._bias_table[relative_buckets(length)].transpose(2, 0, 1)[None]  # [1, heads, q, k]
        bias = bias + np.where(real, 0.0, -1e9).astype(np.float32)[:, None, None, :]
        d = HIDDEN // HEADS
        scale = np.float32(1.0 / math.sqrt(d))
        x = x.reshape(size * length, HIDDEN)  # 2-D for the linear layers: one BLAS call each, not one per text
        for qw, qb, kw, kb, vw, vb, ow, ob, n1w, n1b, iw, ib, fw, fb, n2w, n2b in self._layers:
            q, k, v = ((x @ wt.T + b).reshape(size, length, HEADS, d).transpose(0, 2, 1, 3)
                       for wt, b in ((qw, qb), (kw, kb), (vw, vb)))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(size * length, HIDDEN)
            x = _layer_norm(context @ ow.T + ob + x, n1w, n1b)
            x = _layer_norm(_gelu(x @ iw.T + ib) @ fw.T + fb + x, n2w, n2b)
        return x.reshape(size, length, HIDDEN).astype(np.float32), real

    def encode(self, texts: Sequence[str], batch_size: int = 8) -> NDArray[np.float32]:
        """Mean-pooled, L2-normalised sentence vectors; texts of like length are run together in batches."""
        out = np.zeros((len(texts), HIDDEN), dtype=np.float32)
        with self._lock:
            ids = self.token_ids(texts)
            order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                states, real = self.hidden([ids[i] for i in rows])
                pooled = (states * real[..., None]).sum(axis=1) / real.sum(axis=1, keepdims=True)
                norms = np.linalg.norm(pooled, axis=1, keepdims=True)
                out[rows] = pooled / np.where(norms == 0, 1.0, norms)
        return out
