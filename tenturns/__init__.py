"""Ten Turns: conversational product search, its shopper simulator and evaluator.

``make_agent(name, catalog_path)`` builds any agent by name; ``Agent`` is the
default agent's class (resolved lazily), constructible as ``Agent(catalog_path)``
like the official starter agent.
"""

from __future__ import annotations

from typing import Any

from tenturns.agents import AGENTS, DEFAULT_AGENT, make_agent

__all__ = ["AGENTS", "Agent", "make_agent"]


def __getattr__(name: str) -> Any:
    if name == "Agent":
        from tenturns.agents import agent_class

        return agent_class(DEFAULT_AGENT)
    raise AttributeError(f"module 'tenturns' has no attribute {name!r}")
