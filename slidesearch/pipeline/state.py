"""The state one request carries through the stages, and the candidate each slide becomes.

Every field of ``SearchState`` has exactly one producer: the request (``query``,
``universes``, ``top_per_group``, set by the engine) or one stage, which declares it in its
``writes``; a stage declares the fields it reads in ``reads``. The candidate list is a
stream: each stage that refines it writes a field of its own (``primary`` -> ``boosted`` ->
``scored`` -> ``unique`` -> ``distinct`` -> ``deck_capped`` -> ``floored``; then
``grouped`` -> ``blended`` -> ``quantified`` -> ``capped`` -> ``slotted`` -> ``groups``), so
a test can run one stage on a hand-built state and see exactly what it decided.
``tests/slidesearch/test_pipeline_contract.py`` checks the declarations against the code.

Stages never mutate a state: each returns ``dataclasses.replace(state, ...)``. A candidate
keeps every factor of its score (spec step 08) so the explainer and the eval reports read
them instead of recomputing.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Literal, Protocol

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Candidate:
    """One ranked item: a slide (``row`` >= 0) or a verified master-sheet row (``master`` >= 0).

    ``score`` = ``fusion`` x ``folder`` x ``type`` x ``recency`` x ``entity`` x ``titled``, except that a
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
    titled: float = 1.0
    """08's lift for a slide whose title says the brief (``SearchConfig.title_boost``)."""
    score: float = 0.0
    held_below_primary: bool = False
    verified: bool = False
    guaranteed: bool = False
    similarity: float = 0.0
    angle: int = -1
    cosine: float = 0.0
    deck: float = 0.0
    versions: tuple[str, ...] = ()
    """Other versions of the slide's deck (same family) that hold this slide too, folded into it by 09 / 10."""
    took_place_of: Candidate | None = None
    """The deck's slide whose place at the deck cap (11) this one took (a results slide for a brief wanting
    results); the 12 floor measures it by that place, its own score stays the product of its factors."""

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


Cards = tuple[Candidate, ...]
Groups = dict[str, Cards]


@dataclass(frozen=True)
class SectionChoice:
    """Which sections a request searches (06's pool) and which get a heading in the answer (13)."""

    search: tuple[str, ...] = ()
    answer: tuple[str, ...] = ()


@dataclass(frozen=True)
class StageCount:
    """How many candidates went into a stage and came out (the seed's "how much gets filtered out")."""

    stage: str
    candidates_in: int
    candidates_out: int
    ms: float


@dataclass(frozen=True)
class SearchState:
    """Everything decided so far for one request; each field's producer is named beside it."""

    # the request (the engine)
    query: tuple[str, ...]
    universes: tuple[str, ...] | None = None
    top_per_group: int = 15
    # 03 normalise angles
    angles: tuple[str, ...] = ()
    angle_notes: tuple[str, ...] = ()
    # 03 embed angles
    query_vectors: NDArray[np.float32] | None = None
    # 04 classify
    intents: tuple[str, ...] = ()
    classified: SectionChoice = SectionChoice()
    client: str | None = None
    use_case: str | None = None
    classify_step: LLMStep | None = None
    # 04b exclusion carve-out
    excluded: frozenset[str] = frozenset()
    carved: SectionChoice = SectionChoice()
    # 04 case-studies safety net
    sections: SectionChoice = SectionChoice()
    # 05 expand
    expansion: tuple[str, ...] = ()
    expand_step: LLMStep | None = None
    # 06b detect names
    entity_terms: tuple[str, ...] = ()
    entity_rows: frozenset[int] = frozenset()
    # 06 prefilter (or the whole library, for retrieve)
    pool: NDArray[np.int64] | None = None
    pool_notes: tuple[str, ...] = ()
    # 07 dense scores: cosine of every pool slide with each angle, and with each expansion term
    angle_cosines: NDArray[np.float32] | None = None
    term_cosines: NDArray[np.float32] | None = None
    # the candidate stream: 07a, 07b, 08, 09, 10, 11, 12
    primary: Cards = ()
    boosted: Cards = ()
    scored: Cards = ()
    unique: Cards = ()
    distinct: Cards = ()
    deck_capped: Cards = ()
    floored: Cards = ()
    # the answer: 13 group, 13 verified blend, 13 quantified gate, 14 caps, 14b slot, 15 order
    grouped: Groups | None = None
    group_notes: tuple[str, ...] = ()
    blended: Groups | None = None
    quantified_demand: tuple[str, ...] = ()
    quantified_step: LLMStep | None = None
    quantified: Groups | None = None
    quantified_notes: tuple[str, ...] = ()
    capped: Groups | None = None
    cap_notes: tuple[str, ...] = ()
    slot_notes: tuple[str, ...] = ()
    slotted: Groups | None = None
    groups: Groups | None = None
    # 16 coverage check
    uncovered_terms: tuple[str, ...] = ()
    coverage_note: str | None = None

    @property
    def notes(self) -> tuple[str, ...]:
        """Every note a stage left, in pipeline order: a limit or fallback that changed the answer is said."""
        return (*self.angle_notes, *self.pool_notes, *self.group_notes, *self.quantified_notes, *self.cap_notes,
                *self.slot_notes)

    @property
    def llm_steps(self) -> dict[str, LLMStep]:
        """The paths each LLM-backed step that ran took, by step name, in pipeline order."""
        steps = {"classify": self.classify_step, "expand": self.expand_step, "quantified": self.quantified_step}
        return {name: step for name, step in steps.items() if step is not None}


_STATE_FIELDS = frozenset(f.name for f in fields(SearchState))


def alive(value: object) -> int:
    """How many candidates a stage's output holds: a pool's slides, a list's candidates, or grouped cards."""
    if value is None:
        return 0
    if isinstance(value, dict):
        return sum(len(cards) for cards in value.values())
    if isinstance(value, np.ndarray):
        return int(value.size)
    if isinstance(value, tuple):
        return len(value)
    raise TypeError(f"not a candidate field: {type(value).__name__}")


class Stage(Protocol):
    """A pipeline stage: named after its spec step, configured in its constructor.

    ``reads`` and ``writes`` name the ``SearchState`` fields it uses and produces;
    ``output`` is the field whose size the trace reports (None for stages before the pool).
    """

    name: str

    @property
    def reads(self) -> frozenset[str]: ...

    @property
    def writes(self) -> frozenset[str]: ...

    @property
    def output(self) -> str | None: ...

    def run(self, state: SearchState) -> SearchState: ...


class Bypass:
    """A stage left out (an ablation): its candidate output is ``source``'s value, passed on unchanged.

    It declares what it reads (``source``) and fills (the stage's ``output``), so an ablated list
    still has one producer per field; the stage's other outputs keep their defaults.
    """

    def __init__(self, stage: Stage, source: str) -> None:
        if stage.output is None:
            raise ValueError(f"{stage.name} has no candidate output to pass on")
        if source not in _STATE_FIELDS:
            raise ValueError(f"SearchState has no field {source!r}")
        self.name, self.output, self.source = f"{stage.name} (bypassed)", stage.output, source
        self.reads, self.writes = frozenset({source}), frozenset({stage.output})

    def run(self, state: SearchState) -> SearchState:
        return replace(state, **{self.output: getattr(state, self.source)})
