"""nox sessions: tests, lint, typecheck, bench, demo. Each installs the project into its own venv."""

from __future__ import annotations

import nox

nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = True


def _install(session: nox.Session) -> None:
    session.install("-e", ".[dev]")


@nox.session
def lint(session: nox.Session) -> None:
    session.install("ruff>=0.5")
    session.run("ruff", "check", ".")


@nox.session
def tests(session: nox.Session) -> None:
    _install(session)
    session.run("pytest", *session.posargs)


@nox.session
def typecheck(session: nox.Session) -> None:
    _install(session)
    session.run("mypy", "core")


@nox.session
def bench(session: nox.Session) -> None:
    _install(session)
    session.run("seek", "bench", "run", *session.posargs)


@nox.session
def demo(session: nox.Session) -> None:
    _install(session)
    session.run("seek", "demo")
