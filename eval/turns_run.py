"""Run one Ten Turns dataset through the environment's evaluator and gate its reproducibility.

The official metrics come straight from ``tenturns.evaluate.evaluate_agent``'s
report. The per-session primary score the agreement gate pairs on is the
session's share of TechnicalScore: 0.5·hit + 0.3·reciprocal rank +
0.2·(11 − hit turn)/10 with a miss at turn 11. TechnicalScore is linear in these
session terms (efficiency is computed from mean MTTC, and clamp is a no-op
for turns 1..11), so their mean is TechnicalScore before rounding.
"""

from __future__ import annotations

import time
import typing
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from core.settings import get_settings
from eval.config import TurnsConfig
from eval.dataset_types import TurnsDatasetInfo
from eval.gates import GateResult, reproducibility_gate
from eval.runs import DatasetResult, ItemResult, Usage

OFFICIAL_METRICS = ("hr10", "mrr", "mttc", "efficiency", "technical_score")
MISS_TURN = 11


def session_score(hit: bool, reciprocal_rank: float, hit_turn: int | None) -> float:
    """One session's contribution to TechnicalScore (see the module docstring)."""
    turn = hit_turn if hit and hit_turn is not None else MISS_TURN
    return 0.5 * float(hit) + 0.3 * reciprocal_rank + 0.2 * (MISS_TURN - turn) / 10


def agent_options_model(agent: str) -> type[BaseModel] | None:
    """The pydantic config model an agent's constructor takes as ``config`` (None for an agent without one)."""
    from tenturns.agents import agent_class

    hint = typing.get_type_hints(agent_class(agent).__init__).get("config")
    models = [t for t in typing.get_args(hint) or (hint,) if isinstance(t, type) and issubclass(t, BaseModel)]
    return models[0] if models else None


def agent_spec(config: TurnsConfig) -> Any:
    """The agent name, or with options a factory that validates them into the agent's own config model."""
    if not config.options:
        return config.agent
    from tenturns.agents import agent_class

    model = agent_options_model(config.agent)
    if model is None:
        raise ValueError(f"agent {config.agent!r} takes no options; got {sorted(config.options)}")
    cls: Any = agent_class(config.agent)
    options = model.model_validate(config.options)
    return lambda catalog_path: cls(catalog_path, config=options)


def turns_cost(prompt_tokens: int, completion_tokens: int) -> float:
    """Estimated USD of the agent's LLM reranker tokens at its model's list price (0 when off or unpriced).

    ``TECHJAM_PHASE6_MODE`` names the model, or ``1`` for ``SEEK_LLM``.
    """
    from llm_adapters import estimate_cost

    settings = get_settings()
    if not settings.phase6_enabled or not (prompt_tokens or completion_tokens):
        return 0.0
    mode = (settings.techjam_phase6_mode or "").strip()
    model_id = settings.llm if mode.lower() in {"1", "on", "true", "yes"} else mode
    return estimate_cost(model_id, prompt_tokens, completion_tokens) or 0.0


def official(report: Any) -> dict[str, float]:
    """The headline metrics of a TurnsReport, as the official evaluator prints them."""
    return {name: float(getattr(report, name)) for name in OFFICIAL_METRICS}


def play_whole_set(info: TurnsDatasetInfo, config: TurnsConfig) -> Any:
    """The ``TurnsReport`` of the configured agent over every session of ``info``, in this process."""
    from tenturns.evaluate import evaluate_agent

    return evaluate_agent(agent_spec(config), info.catalog_path, info.sessions_path)


def run_turns_dataset(
    info: TurnsDatasetInfo, config: TurnsConfig, stored_official: dict[str, float] | None = None,
    play: Callable[[TurnsDatasetInfo, TurnsConfig], Any] = play_whole_set,
) -> DatasetResult:
    """Evaluate the configured agent on ``info``; reproducibility against ``stored_official`` or a second run.

    ``play`` makes each ``TurnsReport`` (``eval.turns_sweep.ChunkedPlayer`` plays it in chunks, e.g. on Ray).
    """
    settings = get_settings()
    started = time.perf_counter()
    report = play(info, config)
    first = official(report)
    if config.reproducibility == "stored" and stored_official is not None:
        gate = reproducibility_gate(stored_official, first)
        gate = GateResult(name=gate.name, passed=gate.passed, offenders=gate.offenders,
                          detail=f"against the stored run: {gate.detail}")
    else:
        second = official(play(info, config))
        gate = reproducibility_gate(first, second)
        gate = GateResult(name=gate.name, passed=gate.passed, offenders=gate.offenders,
                          detail=f"two runs: {gate.detail}")
    items = [
        ItemResult(
            id=s.sample_id, score=session_score(s.hit, s.reciprocal_rank, s.first_hit_turn), group=s.scenario_type,
            n_results=int(s.hit), metrics={"hit": float(s.hit), "rr": s.reciprocal_rank,
                                           "hit_turn": float(s.first_hit_turn or MISS_TURN)},
        )
        for s in report.per_session
    ]
    per_group = {
        name: {"n": float(m.n_sessions), "hr10": m.hr10, "mrr": m.mrr, "mttc": float(m.mttc if m.mttc is not None else MISS_TURN)}
        for name, m in report.per_scenario.items()
    }
    return DatasetResult(
        name=info.name, suite="turns", mode="simulator", primary="session_score", sources=info.hashes,
        params={"agent": report.agent, "options": config.options, "n_sessions": report.n_sessions,
                "catalog_path": info.catalog_path, "sessions_path": info.sessions_path,
                "wall_seconds": report.wall_seconds},
        summary={**first, "n_sessions": float(report.n_sessions)}, per_group=per_group, items=items, gates=[gate],
        usage=Usage(prompt_tokens=report.prompt_tokens, completion_tokens=report.completion_tokens,
                    cost_usd=turns_cost(report.prompt_tokens, report.completion_tokens)),
        llm=f"phase6:{settings.techjam_phase6_mode}" if settings.phase6_enabled else "offline",
        judge="simulator", seconds=round(time.perf_counter() - started, 3),
    )
