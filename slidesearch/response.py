"""The search response (spec step 17) and the explanation (18b) as pydantic models: the engine's edge."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ScoreFactors(BaseModel):
    """Every factor of a card's score (spec 08): score = fusion x folder x type x recency x entity x titled.

    ``fusion`` = ``primary`` + ``boost``; ``primary`` includes ``deck``, the lift from the
    deck-mates' own primary scores (07a deck context). ``held_below_primary`` marks a boost-only slide
    scaled to sit under the weakest slide that matched the brief's own words; a verified
    row's score is synthetic (placed below the weakest real case study) and its
    ``similarity`` is its cosine to the brief.
    """

    model_config = ConfigDict(extra="forbid")

    primary: float = 0.0
    deck: float = 0.0
    boost: float = 0.0
    fusion: float = 0.0
    folder: float = 1.0
    type: float = 1.0
    recency: float = 1.0
    entity: float = 1.0
    titled: float = 1.0
    held_below_primary: bool = False
    similarity: float | None = None


class Card(BaseModel):
    """One result card: a slide, or a verified master-sheet row (``verified``)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    title: str
    deck_name: str
    section: str
    score: float
    factors: ScoreFactors
    preview: str = Field(description="The passage that matched the brief (200 characters from its best line), else the slide's opening.")
    marks: list[str] = Field(default_factory=list, description="Words of the preview that match the brief, for the page to mark.")
    verified: bool = False
    guaranteed: bool = Field(default=False, description="Spliced in by the guaranteed entity slot (14b).")
    own_section: str = Field(description="The slide's own section (differs from section only for 14b).")
    angle: str | None = Field(default=None, description=(
        "The angle of the brief that contributed most to the card's primary score (for a verified row, the "
        "angle it is closest to); None for a slide found only through expansion terms, or (in explain) a card "
        "the request never scored."))
    deck_id: str | None = None
    versions: list[str] = Field(default_factory=list, description=(
        "Other versions of the card's deck (V1, draft, a dated copy) that hold this slide too; the card shows the newest."))
    slide_number: int | None = None
    folder: str | None = None
    universe: str | None = None
    client: str | None = None
    use_case: str | None = None
    source_format: str | None = Field(default=None, description="The deck file's format (pptx, pdf, ppt, odp, key).")
    thumbnail: str | None = Field(default=None, description=(
        "Where the slide's picture is served (GET, same token and scope as search; ?size=large for the big view); "
        "None when the slide has not been rendered."))


class StageTrace(BaseModel):
    """Candidates into and out of one stage."""

    stage: str
    candidates_in: int
    candidates_out: int
    ms: float


class SearchResponse(BaseModel):
    """Spec step 17, plus which LLM path ran and (when asked) the per-stage trace."""

    model_config = ConfigDict(extra="forbid")

    query: str
    angles: list[str]
    universes: list[str] | None = None
    intents: list[str]
    search_types: list[str]
    answer_sections: list[str]
    excluded_sections: list[str] = Field(default_factory=list)
    client: str | None = None
    use_case: str | None = None
    expanded_terms: list[str]
    entity_terms: list[str] = Field(default_factory=list)
    quantified_demand: list[str] = Field(default_factory=list)
    groups: dict[str, list[Card]] = Field(description="Sections in display order (spec 15); empty ones last.")
    master_sheet: list[Card] = Field(default_factory=list, description=(
        "Always empty: verified rows are inline in the case-studies section. Kept because spec step 17 lists it "
        "for backward compatibility with clients of the original service."))
    total_matches: int
    coverage_note: str | None = None
    uncovered_terms: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    llm: str = Field(description="The LLM path that ran: 'offline' or the model id, per step in llm_steps.")
    llm_steps: dict[str, str] = Field(default_factory=dict, description=(
        "Per LLM step (classify, expand, quantified) the path it took: the model id when it answered, 'offline', "
        "'fail-open', several joined by '+' (one call per angle), or 'not needed'."))
    trace: list[StageTrace] | None = None

    def cards(self) -> list[Card]:
        """Every card in display order."""
        return [card for cards in self.groups.values() for card in cards]


class Explanation(BaseModel):
    """A "why this?" for one card (spec 18b)."""

    model_config = ConfigDict(extra="forbid")

    slide_id: str
    explanation: str
    matched_terms: list[str] = Field(default_factory=list, description="Query words / phrases the slide contains.")
    llm: str = Field(description="'offline' for the deterministic explainer, else the model id.")
