"""Does the PostgreSQL library answer every query of a dataset as the local store does?

    python -m bench.pg_parity --datasets slidevqa cranfield cisi generated
    python -m bench.pg_parity --url postgresql://... --datasets slidevqa --limit 200

Each dataset's documents (the harness's own loaders, ``eval.datasets``) are written through both
stores' ``replace_source`` as one source and indexed: a local index, and a generation published
in PostgreSQL (``--url``, or a server started with scripts/postgres and stopped by its PID). Every
query (``--limit`` caps them) then runs through ``search_v2`` on the local engine and on the
replica engine (stages 06 and 07 in SQL over the published generation) and through ``retrieve``
(the harness's retrieval mode); the answers are compared with ``tests/answers.py``'s rule (same
cards, order, sections and text; numbers within 1e-6 relative). Prints per dataset how many queries
answered the same, and the first differences of any that did not.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from slidesearch.engine import SlideSearch
from slidesearch.index import build_index
from slidesearch.ingest import _decks_of
from slidesearch.store import LibraryStore, Store
from tests.answers import differences

ROOT = Path(__file__).resolve().parent.parent


def _fill(store: LibraryStore, dataset: Any, embedder: str, out: Path | None) -> None:
    store.replace_source(f"{dataset.name}.dataset", "dataset", dataset.name, dataset.docs,
                         _decks_of(list(dataset.docs)), dataset.master)
    build_index(store, out=out, embedder=embedder)


def compare(name: str, url: str, workdir: Path, embedder: str, limit: int | None) -> dict[str, Any]:
    """Build ``name`` in both stores and compare every query's answers; the counts and the first differences."""
    from eval.datasets import load_slides_dataset
    from slidesearch.pg_library import PublishedLibrary, SqlPool
    from slidesearch.pg_store import PostgresStore

    dataset = load_slides_dataset(name)
    if not dataset.docs:
        return {"dataset": name, "skipped": "no documents to ingest (a library built from files elsewhere)"}
    local = Store(workdir / f"{name}.db")
    _fill(local, dataset, embedder, workdir / f"{name}-index")
    local.close()
    shared = PostgresStore(url)
    _fill(shared, dataset, embedder, None)
    shared.close()
    published = PublishedLibrary(url)
    live = published.live()
    assert live is not None
    replica = SlideSearch(published.load(live[0]), pool_queries=SqlPool(url, live[0]))
    published.close()
    local_engine = SlideSearch.open(workdir / f"{name}-index")
    queries = dataset.queries[:limit] if limit else dataset.queries
    differing: list[dict[str, Any]] = []
    shape_differs, largest = 0, 0.0
    for query in queries:
        text = query.text if isinstance(query.text, str) else " | ".join(query.text)
        expected = [local_engine.search_v2(query.text, universes=query.universes).model_dump(),
                    [list(hit) for hit in local_engine.retrieve(text)]]
        got = [replica.search_v2(query.text, universes=query.universes).model_dump(),
               [list(hit) for hit in replica.retrieve(text)]]
        found = differences(expected, got)
        if found:
            differing.append({"query": query.id, "differences": found[:3]})
        shape_differs += bool(differences(_shape(expected), _shape(got)))
        largest = max(largest, _largest_relative(expected, got))
    return {"dataset": name, "slides": len(dataset.docs), "queries": len(queries),
            "same": len(queries) - len(differing), "differing": len(differing), "shape_differs": shape_differs,
            "largest_relative_difference": largest, "first": differing[:3]}


def _shape(value: Any) -> Any:
    """``value`` with every number replaced by 0: what is left is the cards, their order, sections and text."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return 0
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_shape(v) for v in value]
    return value


def _largest_relative(a: Any, b: Any) -> float:
    """The largest relative difference between numbers at the same place in ``a`` and ``b`` (same shape)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return 0.0
    if isinstance(a, int | float) and isinstance(b, int | float):
        scale = max(abs(a), abs(b))
        return abs(a - b) / scale if scale > 1e-9 else 0.0
    if isinstance(a, dict) and isinstance(b, dict):
        return max((_largest_relative(a[k], b[k]) for k in a if k in b), default=0.0)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple) and len(a) == len(b):
        return max((_largest_relative(x, y) for x, y in zip(a, b, strict=True)), default=0.0)
    return 0.0


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["generated", "slidevqa", "cranfield", "cisi"])
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--limit", type=int, default=None, help="at most this many queries per dataset")
    parser.add_argument("--url", help="an existing PostgreSQL database (default: start one with scripts/postgres)")
    parser.add_argument("--home", type=Path, help="SEEK_HOME for the embedding cache and generated data "
                                                  "(default: a new temporary folder)")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="seek-pg-parity-"))
    os.environ["SEEK_HOME"] = str(args.home or workdir / "home")
    os.environ.pop("SEEK_STORE", None)
    script = [sys.executable, str(ROOT / "scripts" / "postgres")]
    server = None if args.url else Path(tempfile.mkdtemp(prefix="seek-pg-parity-server-"))
    results = []
    try:
        base = args.url or subprocess.run([*script, "start", str(server)], capture_output=True, text=True,
                                          check=True).stdout.strip().splitlines()[-1]
        for name in args.datasets:
            # One database per dataset: each is a library of its own.
            url = _database(base, f"parity_{name.replace('-', '_')}")
            results.append(compare(name, url, workdir, args.embedder, args.limit))
            print(json.dumps(results[-1]), flush=True)
    finally:
        if server is not None:
            subprocess.run([*script, "stop", str(server)], capture_output=True)
            shutil.rmtree(server, ignore_errors=True)
        shutil.rmtree(workdir, ignore_errors=True)
    return results


def _database(url: str, name: str) -> str:
    import psycopg

    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + f"/{name}"


if __name__ == "__main__":
    main()
