"""SlideSearch: the pipeline of spec steps 03-17 as an ordered list of stages, plus retrieve and explain.

Read ``SlideSearch._stages`` top to bottom: it is the spec's numbered list. Each stage
is a small object with ``run(state) -> state`` (``slidesearch.pipeline``). The engine is
read-only after construction and safe to share between threads.

Input limits: an empty or whitespace query raises ``EmptyQueryError`` (a ValueError);
each angle is cut at ``SearchConfig.max_angle_chars`` (1,000 characters) on a word
boundary and at most ``max_angles`` (8) angles are kept separate. Text in any script is
accepted: words the library does not hold are named by the coverage note and the dense
voter still ranks by meaning. A universe the library does not hold raises
``UnknownUniverseError`` (a ValueError) naming the ones it has; names match case-insensitively.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from core.rarity import scaled_threshold
from slidesearch.config import SearchConfig
from slidesearch.explain import ExplainItem, explain_items
from slidesearch.library import Library, LibraryView, UnknownUniverseError
from slidesearch.passage import matched_passage
from slidesearch.pipeline.answer.caps import Caps
from slidesearch.pipeline.answer.coverage import CoverageCheck
from slidesearch.pipeline.answer.group import GroupSections
from slidesearch.pipeline.answer.master import MasterBlend
from slidesearch.pipeline.answer.order import OrderSections
from slidesearch.pipeline.answer.quantified import QuantifiedGate
from slidesearch.pipeline.answer.slot import EntitySlot
from slidesearch.pipeline.query.classify import CaseStudiesSafetyNet, Classify, ExclusionCarveOut
from slidesearch.pipeline.query.embed import EmbedAngles
from slidesearch.pipeline.query.expand import Expand, ExpansionLimits
from slidesearch.pipeline.query.names import DetectNames
from slidesearch.pipeline.query.normalise import EmptyQueryError, NormaliseAngles
from slidesearch.pipeline.rank.boost import BoostPass
from slidesearch.pipeline.rank.multipliers import EntityFactor, Multipliers, Weights
from slidesearch.pipeline.rank.prefilter import AllSlides, Prefilter
from slidesearch.pipeline.rank.primary import DenseScores, Fusion, PrimaryPass
from slidesearch.pipeline.rank.sql import PoolQueries, SqlDenseScores, SqlPrefilter
from slidesearch.pipeline.state import Candidate, SearchState, Stage, StageCount, alive
from slidesearch.pipeline.trim.deckcap import GlobalDeckCap
from slidesearch.pipeline.trim.dedup import ExactDedup, NearDuplicateDedup
from slidesearch.pipeline.trim.floor import RelevanceFloor
from slidesearch.response import Card, Explanation, ScoreFactors, SearchResponse, StageTrace

if TYPE_CHECKING:
    from llm_adapters import LanguageModel

__all__ = ["EmptyQueryError", "SearchConfig", "SlideSearch", "UnknownUniverseError"]


class SlideSearch:
    """Grouped, ranked, deduplicated search over a slide library (see the module docstring)."""

    def __init__(self, library: Library | None = None, config: SearchConfig | None = None,
                 llm: LanguageModel | str | None = None, pool_queries: PoolQueries | None = None) -> None:
        """``pool_queries``: a database holding this library's rows (a published generation) answers 06 and 07."""
        from llm_adapters import get_model

        self.library = library if library is not None else Library.open()
        self.config = cfg = config or SearchConfig()
        self.model: LanguageModel = get_model(llm) if llm is None or isinstance(llm, str) else llm
        model = self.model
        self.view = view = LibraryView(self.library)
        self.pool_queries = pool_queries
        prefilter, dense = ((SqlPrefilter(view, pool_queries), SqlDenseScores(view, pool_queries))
                            if pool_queries is not None else (Prefilter(view), DenseScores(view)))
        fusion = Fusion.from_config(cfg)
        rarity = scaled_threshold(view.n, reference_count=cfg.rarity_reference_count)
        brief = None if cfg.plain_words_in_briefs else (lambda angle: not fusion.plain_blend(angle))
        table = view.section_table
        self._stages: list[Stage] = [
            NormaliseAngles(cfg.max_angle_chars, cfg.max_angles),                   # 03
            EmbedAngles(view),                                                      # 03
            Classify(view, model),                                                  # 04
            ExclusionCarveOut(table),                                               # 04b
            CaseStudiesSafetyNet(table),                                            # 04
            Expand(view, ExpansionLimits.from_config(cfg), model),                  # 05
            DetectNames(view, rarity, brief),                                       # 06b (feeds 06)
            prefilter,                                                              # 06
            dense,                                                                  # 07
            PrimaryPass(view, fusion, cfg.deck_context),                            # 07a
            BoostPass(view, fusion, cfg.boost_cap, cfg.zero_primary_share),         # 07b
            Multipliers(view, Weights.from_config(cfg)),                            # 08
            ExactDedup(view),                                                       # 09
            NearDuplicateDedup(view, cfg.near_duplicate_threshold),                 # 10
            GlobalDeckCap(view.canonical_decks, cfg.global_deck_cap, view.states_results, view.role_array),  # 11
            RelevanceFloor(cfg.floor, cfg.floor_cosine, cfg.floor_entity_free, view),  # 12
            GroupSections(table, view.canonical_decks, cfg.section_deck_cap, cfg.heading_rank, view),  # 13
            MasterBlend(view, cfg.section_cap, cfg.master_min_similarity, cfg.master_decay),  # 13
            QuantifiedGate(view, model),                                            # 13
            Caps(cfg.section_cap, cfg.global_cap, cfg.angle_cap),                   # 14
            EntitySlot(view),                                                       # 14b
            OrderSections(table),                                                   # 15
            CoverageCheck(view),                                                    # 16
        ]
        self._retrieval_stages: list[Stage] = [
            NormaliseAngles(cfg.max_angle_chars, cfg.max_angles),
            DetectNames(view, rarity, brief),
            AllSlides(view),
            EmbedAngles(view),
            DenseScores(view),
            PrimaryPass(view, fusion, cfg.deck_context),
            EntityFactor(cfg.entity_boost),
        ]

    @classmethod
    def open(cls, path: Path | None = None, config: SearchConfig | None = None,
             llm: LanguageModel | str | None = None) -> SlideSearch:
        """An engine over the saved library at ``path`` (default ``SEEK_HOME/slides/index``)."""
        return cls(Library.open(path), config=config, llm=llm)

    def within(self, universes: Sequence[str]) -> SlideSearch:
        """An engine over ``Library.within(universes)`` with this one's config and model: a scoped server's engine.

        Every stage is built from the in-scope library alone, so no field of a response (coverage note,
        expansion terms, client, rare names) can draw on another universe's slides or master rows.
        """
        library = self.library.within(universes)
        # The scope's library numbers its rows afresh, so a database's rows no longer match: 06 and 07 run here.
        return self if library is self.library else SlideSearch(library, config=self.config, llm=self.model)

    @property
    def stage_names(self) -> list[str]:
        return [stage.name for stage in self._stages]

    # ------------------------------------------------------------------ running

    def _run(self, stages: Sequence[Stage], state: SearchState) -> tuple[SearchState, list[StageCount]]:
        counts: list[StageCount] = []
        size = self.library.n  # every slide is a candidate until the pool is drawn
        for stage in stages:
            start = time.perf_counter()
            state = stage.run(state)
            after = size if stage.output is None else alive(getattr(state, stage.output))
            counts.append(StageCount(stage.name, size, after, (time.perf_counter() - start) * 1000))
            size = after
        return state, counts

    def run_state(self, query: str | Sequence[str], universes: Sequence[str] | None = None,
                  top_per_group: int = 15) -> tuple[SearchState, list[StageCount]]:
        """The final state and per-stage counts (for tests, traces and the eval harness)."""
        if top_per_group < 1:
            raise ValueError(f"top_per_group must be at least 1, got {top_per_group}")
        angles = (query,) if isinstance(query, str) else tuple(query)
        state = SearchState(query=angles, universes=self.library.resolve_universes(universes), top_per_group=top_per_group)
        return self._run(self._stages, state)

    def search_v2(self, query: str | list[str], universes: list[str] | None = None, top_per_group: int = 15,
                  trace: bool = False) -> SearchResponse:
        """Spec steps 03-17 for one request; universe scope enforced here for every entry point."""
        if trace:  # load the query encoder first, so each stage's time is its own work on this query
            self.library.embedder()
        state, counts = self.run_state(query, universes, top_per_group)
        return self._response(state, counts if trace else None)

    def warm_up(self) -> None:
        """Load the query encoder and run one search, so a server's first request costs what the rest do."""
        self.library.embedder()
        self.search_v2("warm up")

    def retrieve(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """The retrieval stages alone (03, 06b, whole-library pool, 07a, 08's entity factor): the best ``k`` ids.

        No sections, dedup, caps or floor: this is what the harness scores on SlideVQA,
        Cranfield and CISI, where every document is a candidate answer.
        """
        state, _ = self._run(self._retrieval_stages, SearchState(query=(query,)))
        return [(self.library.ids[c.row], c.score) for c in state.scored[:k]]

    # ------------------------------------------------------------------ output

    def card(self, cand: Candidate, angles: Sequence[str] = ()) -> Card:
        """The response card of ``cand``; ``angles`` (the request's) name the angle it answers."""
        lib = self.library
        factors = ScoreFactors(
            primary=cand.primary, deck=cand.deck, boost=cand.boost, fusion=cand.fusion, folder=cand.folder, type=cand.type,
            recency=cand.recency, entity=cand.entity, titled=cand.titled, held_below_primary=cand.held_below_primary,
            similarity=cand.similarity if cand.verified else None,
        )
        if cand.master >= 0:
            row = lib.master[cand.master]
            return Card(
                id=row.card_id, title=row.title or f"{row.client}: {row.use_case}".strip(": "),
                deck_name="Verified case studies (master sheet)", section=cand.section, own_section=cand.section,
                score=cand.score, factors=factors, preview=row.summary[:200], verified=True,
                client=row.client or None, use_case=row.use_case or None, universe=row.universe,
                angle=angles[cand.angle] if 0 <= cand.angle < len(angles) else None,
            )
        r = cand.row
        asked = [angles[cand.angle]] if 0 <= cand.angle < len(angles) else list(angles)
        # The title is on the card already: the passage is read from the body, the opening kept when nothing matched.
        passage, marks = (matched_passage(lib.texts[r], asked, lib.bm25.analyse)
                          if lib.bm25 is not None and asked and lib.texts[r] else ("", []))
        if not marks:
            passage = lib.previews[r]
        return Card(
            id=lib.ids[r], title=lib.titles[r], deck_name=lib.deck_names[r], section=cand.section,
            own_section=lib.section_of(r), score=cand.score, factors=factors, preview=passage, marks=marks,
            guaranteed=cand.guaranteed, deck_id=lib.deck_ids[r], slide_number=int(lib.slide_numbers[r]),
            versions=list(cand.versions),
            folder=lib.folders[r], universe=lib.universes[r], source_format=lib.source_formats[r] or None,
            angle=angles[cand.angle] if 0 <= cand.angle < len(angles) else None,
        )

    def _response(self, state: SearchState, counts: list[StageCount] | None) -> SearchResponse:
        groups = {s: [self.card(c, state.angles) for c in cards] for s, cards in (state.groups or {}).items()}
        llm = self.model.id if any(step.used_model for step in state.llm_steps.values()) else "offline"
        return SearchResponse(
            query=" | ".join(state.angles), angles=list(state.angles),
            universes=list(state.universes) if state.universes else None, intents=list(state.intents),
            search_types=list(state.sections.search), answer_sections=list(state.sections.answer),
            excluded_sections=self.view.section_table.in_order(state.excluded), client=state.client,
            use_case=state.use_case, expanded_terms=list(state.expansion), entity_terms=list(state.entity_terms),
            quantified_demand=list(state.quantified_demand), groups=groups,
            total_matches=sum(len(v) for v in groups.values()), coverage_note=state.coverage_note,
            uncovered_terms=list(state.uncovered_terms), notes=list(state.notes), llm=llm,
            llm_steps={name: step.label(self.model.id) for name, step in state.llm_steps.items()},
            trace=[StageTrace(stage=c.stage, candidates_in=c.candidates_in, candidates_out=c.candidates_out,
                              ms=round(c.ms, 3)) for c in counts] if counts is not None else None,
        )

    # ------------------------------------------------------------------ explain

    def _snippet_for(self, card: Card) -> str:
        if card.verified:
            row = next((m for m in self.library.master if m.card_id == card.id), None)
            return row.document[:600] if row else card.preview
        return self.library.snippets[self.library.id_to_row[card.id]]

    def _fields_for(self, card: Card) -> dict[str, str]:
        """The slide's texts besides title and body (notes, SmartArt, charts, pictures), for "found in"."""
        row = self.library.id_to_row.get(card.id)
        if row is None:
            return {}
        return {name: texts[row] for name, texts in self.library.field_texts.items() if texts[row]}

    def explain_response(self, response: SearchResponse, ids: Sequence[str] | None = None) -> list[Explanation]:
        """Explanations for a response's cards (all, or those in ``ids``), ranked query and 600-char snippets."""
        cards = [c for c in response.cards() if ids is None or c.id in set(ids)]
        items = [ExplainItem(card=c, snippet=self._snippet_for(c), fields=self._fields_for(c)) for c in cards]
        return explain_items(response.query, items, self.model, response.expanded_terms, response.entity_terms)

    def explain(self, query: str | list[str], slide_ids: Sequence[str],
                universes: Sequence[str] | None = None) -> list[Explanation]:
        """"Why this?" for ``slide_ids`` under ``query``, in the order given.

        The query is run through the pipeline so each card carries the factors it was
        ranked with; an id the response does not show (a slide or a verified row) is
        explained from its own text with no score factors, and said not to be among the
        results. A single id may be given as a string; repeats are explained once. Pass the
        search's ``universes`` so the query is re-run in the scope the cards were found in. An
        unknown id is a ValueError naming it.
        """
        slide_ids = list(dict.fromkeys([slide_ids] if isinstance(slide_ids, str) else slide_ids))  # one id, or repeats
        verified = {m.card_id for m in self.library.master}
        unknown = [i for i in slide_ids if i not in self.library.id_to_row and i not in verified]
        if unknown:
            raise ValueError(f"unknown slide id(s): {', '.join(unknown)}")
        state, _ = self.run_state(query, universes)
        response = self._response(state, None)
        shown = {c.id: c for c in response.cards()}
        scored = {self.library.ids[c.row]: c for c in state.scored if c.row >= 0}
        cards: list[Card] = []
        for sid in slide_ids:
            if sid in shown:
                cards.append(shown[sid])
            elif sid in scored:
                cards.append(self.card(scored[sid], state.angles))
            elif sid in self.library.id_to_row:
                row = self.library.id_to_row[sid]
                cards.append(self.card(Candidate(row=row, section=self.library.section_of(row))))
            else:
                index = next((i for i, m in enumerate(self.library.master) if m.card_id == sid), None)
                if index is None:
                    raise ValueError(f"unknown verified row {sid}")
                cards.append(self.card(Candidate(master=index, section=self.view.section_table.case_studies,
                                                 verified=True)))
        items = [ExplainItem(card=c, snippet=self._snippet_for(c), shown=c.id in shown,
                             fields=self._fields_for(c)) for c in cards]
        return explain_items(response.query, items, self.model, response.expanded_terms, response.entity_terms)
