"""Agents by name, imported lazily so building one never loads the others."""

from __future__ import annotations

import importlib
from pathlib import Path

from tenturns.agents.base import BaseAgent

AGENTS = {
    "baseline": "tenturns.agents.baseline:BaselineAgent",
    "generic": "tenturns.agents.generic:GenericAgent",
    "tenturns": "tenturns.agents.phrase:TenTurnsAgent",
}
DEFAULT_AGENT = "tenturns"


def agent_class(name: str) -> type[BaseAgent]:
    """The class registered under ``name``; an unknown name is an error listing the valid ones."""
    try:
        target = AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; choose one of {', '.join(AGENTS)}") from None
    module_name, _, class_name = target.partition(":")
    cls: type[BaseAgent] = getattr(importlib.import_module(module_name), class_name)
    return cls


def make_agent(name: str, catalog_path: str | Path) -> BaseAgent:
    """Build the agent registered under ``name`` over the catalog at ``catalog_path``."""
    return agent_class(name)(catalog_path)


__all__ = ["AGENTS", "DEFAULT_AGENT", "BaseAgent", "agent_class", "make_agent"]
