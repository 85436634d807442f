"""Embedding the texts an index build lacks over a Ray cluster: ``seek slides index --ray ADDRESS``.

The driver (this process) asks the embedding cache which slide snippets and master documents it
lacks, keyed by text hash (``core.embed.CachedEmbedder``), so only what changed goes out. Those
texts fan out over a Ray Data actor pool (``map_batches`` with ``EmbedTexts``: each actor loads the
model once). Every batch's vectors go to one ``VectorSink`` actor pinned to the driver's node, which
writes them into the driver's cache with ``INSERT OR IGNORE`` keyed by text hash: a batch Ray
retries after losing a node stores nothing twice, and the actor first asks the sink which of its
keys are written already and embeds only the rest. The driver then runs the normal build
(``slidesearch.index.build_index``'s ``embed_missing`` hook), which finds every snippet in the
cache; the taxonomy terms it mines meanwhile go out the same way before it embeds them, in a
second, small fan-out.

Counted honestly: ``texts_started`` counts every text handed to an encoder, including a batch whose
node died before it could write (that work is done again on retry); ``texts_written`` counts the
rows the sink stored; ``duplicate_writes`` the rows it was sent for a key already stored (none when
retries skip what is written). A job that outlives ``timeout_s`` is an error: an actor pool that lost a
node can stall waiting for resources, so every job has a deadline.

Both fan-outs run in the process's one Ray session (``core.ray_tasks.connect``): disconnecting
between them and connecting again crashed the driver once in CI (SIGSEGV, ray-project/ray#31145).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from core.embed import (
    CachedEmbedder,
    Embedder,
    OnnxMiniLMEmbedder,
    insert_new_vectors,
    make_embedder,
    open_vector_cache,
)
from core.ray_tasks import connect
from core.settings import get_settings

DEFAULT_TIMEOUT_S = 1800.0
DEFAULT_BATCH = 64
DEFAULT_ACTORS = 2
ACTOR_THREADS = 1
"""Threads each actor's encoder uses: one actor per logical CPU it reserves, so actors never oversubscribe."""


class RayEmbedReport(BaseModel):
    """What one fan-out did: how many texts were missing, embedded, written, and where."""

    address: str
    texts: int
    missing: int
    texts_started: int
    texts_written: int
    duplicate_writes: int
    skipped_as_written: int
    batches: int
    written_by_node: dict[str, int]
    nodes: int
    seconds: float


def _actor_embedder(name: str) -> Embedder:
    """The embedder ``name`` on one thread: the ONNX MiniLM's thread count is its own option (same vectors)."""
    if name == "minilm":
        return OnnxMiniLMEmbedder(threads=ACTOR_THREADS)
    return make_embedder(name)


class VectorSink:
    """The one writer of the driver's embedding cache (a Ray actor on the driver's node); ignores keys it has."""

    def __init__(self, cache_path: str) -> None:
        self._db = open_vector_cache(Path(cache_path))
        self.started = 0
        self.written = 0
        self.duplicates = 0
        self.skipped = 0
        self.batches = 0
        self.by_node: dict[str, int] = {}

    def written_of(self, keys: Sequence[str]) -> list[str]:
        """Which of ``keys`` are stored already (a retried batch embeds only the others)."""
        found: list[str] = []
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            found.extend(k for (k,) in self._db.execute(f"SELECT key FROM vectors WHERE key IN ({marks})", chunk))
        self.skipped += len(found)
        return found

    def started_batch(self, texts: int) -> None:
        """Record that ``texts`` texts were handed to an encoder (counted even if their node dies next)."""
        self.started += texts

    def write(self, keys: Sequence[str], vectors: np.ndarray, node: str) -> int:
        """Store one batch's vectors; returns how many rows were new."""
        new = insert_new_vectors(self._db, [(k, np.asarray(v, dtype=np.float32).tobytes())
                                            for k, v in zip(keys, vectors, strict=True)])
        self.written += new
        self.duplicates += len(keys) - new
        self.batches += 1
        self.by_node[node] = self.by_node.get(node, 0) + new
        return new

    def counts(self) -> dict[str, Any]:
        return {"started": self.started, "written": self.written, "duplicates": self.duplicates,
                "skipped": self.skipped, "batches": self.batches, "by_node": dict(self.by_node)}


class EmbedTexts:
    """The actor-pool stage: loads the embedder once, then embeds each batch's unwritten texts and sends them to the sink."""

    def __init__(self, embedder: str, model: str, sink: Any) -> None:
        import ray

        self._model = _actor_embedder(embedder)
        if self._model.name != model:  # the cache keys hold the model name: another model's vectors must not land
            raise RuntimeError(f"embedder {embedder!r} is {self._model.name} on this node, {model} on the driver")
        self._sink = sink
        self._node = ray.get_runtime_context().get_node_id()

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        import ray

        keys = [str(k) for k in batch["key"]]
        texts = [str(t) for t in batch["text"]]
        done = set(ray.get(self._sink.written_of.remote(keys)))
        todo = [i for i, k in enumerate(keys) if k not in done]
        written = 0
        if todo:
            ray.get(self._sink.started_batch.remote(len(todo)))
            vectors = self._model.encode([texts[i] for i in todo])
            written = ray.get(self._sink.write.remote([keys[i] for i in todo], vectors, self._node))
        return {"key": np.asarray(keys, dtype=object), "written": np.full(len(keys), written, dtype=np.int64)}


class RayEmbedMissing:
    """The ``embed_missing`` hook of ``build_index``: fills the cache with the texts it lacks over a Ray cluster.

    ``address`` is the cluster's (``scripts/ray-cluster start`` prints it); ``embedder`` the settings
    name the build uses (default ``settings.embedder``, as ``build_index``); ``actors`` the size of
    the actor pool, each reserving one logical CPU; ``batch`` the texts per task. The figures of
    the calls so far, added up, are in ``report``.
    """

    def __init__(self, address: str, embedder: str | None = None, actors: int = DEFAULT_ACTORS,
                 batch: int = DEFAULT_BATCH, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        if actors < 1 or batch < 1 or timeout_s <= 0:
            raise ValueError("actors and batch must be at least 1 and timeout_s positive")
        self.address = address
        self.embedder = embedder or get_settings().embedder
        self.actors = actors
        self.batch = batch
        self.timeout_s = timeout_s
        self.report: RayEmbedReport | None = None

    def __call__(self, cache: CachedEmbedder, texts: list[str]) -> RayEmbedReport:
        """Fill ``cache`` with the texts of ``texts`` it lacks.

        ``report`` adds up the first call and every later call that found texts missing (the build
        asks again before each of its embedding calls; those that find everything cached add nothing).
        """
        report = self._fill(cache, texts)
        if self.report is None:
            self.report = report
        elif report.missing:
            self.report = _added(self.report, report)
        return report

    def _fill(self, cache: CachedEmbedder, texts: list[str]) -> RayEmbedReport:
        started = time.perf_counter()
        missing = cache.missing(texts)
        if not missing:
            return RayEmbedReport(address=self.address, texts=len(texts), missing=0, texts_started=0,
                                  texts_written=0, duplicate_writes=0, skipped_as_written=0, batches=0,
                                  written_by_node={}, nodes=0, seconds=round(time.perf_counter() - started, 2))
        counts, nodes = self._fan_out(connect(self.address), cache, missing)
        still = cache.missing([text for _, text in missing])
        if still:
            raise RuntimeError(f"the Ray job finished but {len(still)} of {len(missing)} texts were not written")
        return RayEmbedReport(
            address=self.address, texts=len(texts), missing=len(missing), texts_started=counts["started"],
            texts_written=counts["written"], duplicate_writes=counts["duplicates"],
            skipped_as_written=counts["skipped"], batches=counts["batches"], written_by_node=counts["by_node"],
            nodes=nodes, seconds=round(time.perf_counter() - started, 2))

    def _fan_out(self, ray: Any, cache: CachedEmbedder, missing: list[tuple[str, str]]) -> tuple[dict[str, Any], int]:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        here = ray.get_runtime_context().get_node_id()
        sink = ray.remote(num_cpus=0, max_restarts=0)(VectorSink).options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False),
        ).remote(str(cache.path))
        nodes = sum(1 for n in ray.nodes() if n["Alive"])
        dataset = ray.data.from_items([{"key": k, "text": t} for k, t in missing]).map_batches(
            EmbedTexts,
            fn_constructor_kwargs={"embedder": self.embedder, "model": cache.name, "sink": sink},
            batch_size=self.batch,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=self.actors),
            # Ray Data spreads the pool over the nodes (DataContext.scheduling_strategy is SPREAD by
            # default), restarts a lost actor and retries its batch.
            num_cpus=1,
        )
        run_with_deadline(lambda: sum(len(b["key"]) for b in dataset.iter_batches(batch_size=None)),
                          self.timeout_s, "the Ray embedding job")
        return ray.get(sink.counts.remote()), nodes


def _added(a: RayEmbedReport, b: RayEmbedReport) -> RayEmbedReport:
    """Two fan-outs' figures as one (the build's calls: the slides up front, then the taxonomy terms)."""
    by_node = dict(a.written_by_node)
    for node, n in b.written_by_node.items():
        by_node[node] = by_node.get(node, 0) + n
    return RayEmbedReport(
        address=a.address, texts=a.texts + b.texts, missing=a.missing + b.missing,
        texts_started=a.texts_started + b.texts_started, texts_written=a.texts_written + b.texts_written,
        duplicate_writes=a.duplicate_writes + b.duplicate_writes,
        skipped_as_written=a.skipped_as_written + b.skipped_as_written, batches=a.batches + b.batches,
        written_by_node=by_node, nodes=max(a.nodes, b.nodes), seconds=round(a.seconds + b.seconds, 2))


def run_with_deadline(job: Any, timeout_s: float, what: str) -> Any:
    """Run ``job()`` in a thread and return its result; a job still running after ``timeout_s`` is an error.

    The thread is a daemon: on timeout the process's exit (which ends its Ray session) ends it.
    """
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = job()
        except BaseException as exc:  # handed to the caller's thread below
            result["error"] = exc

    thread = threading.Thread(target=target, daemon=True, name="ray-job")
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        raise TimeoutError(f"{what} did not finish within {timeout_s:.0f} s")
    if "error" in result:
        raise result["error"]
    return result["value"]
