"""The state one request carries through the stages, and the card each candidate becomes.

Stages never mutate a state: each returns ``dataclasses.replace(state, ...)``, so a test
can run one stage on a hand-built state and compare before with after. A candidate
keeps every factor of its score (spec step 08) so the explainer and the eval reports
read them instead of recomputing.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal, Protocol

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Candidate:
    """One ranked item: a slide (``row`` >= 0) or a verified master-sheet row (``master`` >= 0).

    ``score`` = ``fusion`` x ``folder`` x ``type`` x ``recency`` x ``entity``, except that a
    slide without a primary score is held just below the weakest slide with one
    (``held_below_primary``), and verified rows get a score below the weakest real case
    study (``verified``). ``angle`` is the angle that contributed most to the primary score
    (-1 for a slide found only by expansion). ``cosine`` is the slide's cosine with that angle
    (with its best angle for an expansion-only slide): the semantic part of the 12 floor.
    """

    row: int = -1
    master: int = -1
    section: str = ""
    primary: float = 0.0
    boost: float = 0.0
    fusion: float = 0.0
    folder: float = 1.0
    type: float = 1.0
    recency: float = 1.0
    entity: float = 1.0
    score: float = 0.0
    held_below_primary: bool = False
    verified: bool = False
    guaranteed: bool = False
    similarity: float = 0.0
    angle: int = -1
    cosine: float = 0.0
    deck: float = 0.0

    def with_score(self, score: float) -> Candidate:
        return self.evolve(score=float(score))

    def evolve(self, **changes: object) -> Candidate:
        """``dataclasses.replace`` for the hot loops: a copy with ``changes``, without re-running ``__init__``.

        A request copies about a thousand candidates; ``replace`` (which rebuilds the field list and
        calls ``__init__`` each time) cost several ms of a query at 122,623 slides. Unknown names are
        an error, as with ``replace``.
        """
        unknown = changes.keys() - _CANDIDATE_FIELDS
        if unknown:
            raise TypeError(f"Candidate has no field(s) {', '.join(sorted(unknown))}")
        new = object.__new__(Candidate)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new


_CANDIDATE_FIELDS = frozenset(f.name for f in fields(Candidate))


LLMPath = Literal["llm", "offline", "fail-open"]
"""How one call of an LLM step went: the model answered (``llm``); no model was available or the call failed and
the step's deterministic path ran (``offline``); the call failed and the step failed open (``fail-open``, 04)."""


@dataclass(frozen=True)
class LLMStep:
    """The paths one LLM step took for a request, once each in order of first use (a step calls once per angle).

    No path: the step needed no call (05 expands without the LLM when a curated cluster fires for every angle).
    """

    paths: tuple[LLMPath, ...] = ()

    @property
    def used_model(self) -> bool:
        """Whether the model answered or was tried and failed (anything but the offline path)."""
        return any(path != "offline" for path in self.paths)

    def label(self, model_id: str) -> str:
        """The response's wire form: paths joined by "+", the model's id for ``llm``, "not needed" for none."""
        return "+".join(model_id if path == "llm" else path for path in self.paths) or "not needed"


@dataclass(frozen=True)
class StageCount:
    """How many candidates went into a stage and came out (the seed's "how much gets filtered out")."""

    stage: str
    candidates_in: int
    candidates_out: int
    ms: float


@dataclass(frozen=True)
class SearchState:
    """Everything decided so far for one request."""

    angles: tuple[str, ...]
    universes: tuple[str, ...] | None = None
    top_per_group: int = 15
    intents: tuple[str, ...] = ()
    search_types: tuple[str, ...] = ()
    answer_sections: tuple[str, ...] = ()
    excluded: frozenset[str] = frozenset()
    client: str | None = None
    use_case: str | None = None
    expansion: tuple[str, ...] = ()
    entity_terms: tuple[str, ...] = ()
    entity_rows: frozenset[int] = frozenset()
    pool: NDArray[np.int64] | None = None
    query_vectors: NDArray[np.float32] | None = None
    term_scores: NDArray[np.float32] | None = None
    candidates: tuple[Candidate, ...] = ()
    scored: tuple[Candidate, ...] = ()
    groups: dict[str, tuple[Candidate, ...]] | None = None
    quantified_demand: tuple[str, ...] = ()
    uncovered_terms: tuple[str, ...] = ()
    coverage_note: str | None = None
    llm_steps: dict[str, LLMStep] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def size(self, library_size: int) -> int:
        """Candidates alive at this point: cards once grouped, else candidates, else the pool, else the library."""
        if self.groups is not None:
            return sum(len(cards) for cards in self.groups.values())
        if self.candidates:
            return len(self.candidates)
        if self.pool is not None:
            return int(self.pool.size)
        return library_size

    def with_llm_step(self, name: str, step: LLMStep) -> dict[str, LLMStep]:
        return {**self.llm_steps, name: step}


class Stage(Protocol):
    """A pipeline stage: named after its spec step, configured in its constructor."""

    name: str

    def run(self, state: SearchState) -> SearchState: ...
