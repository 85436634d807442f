from dataclasses import replace
from datetime import date

import numpy as np
import pytest
from slidesearch.pipeline.context import SearchContext

from llm_adapters import OfflineModel
from slidesearch.config import SearchConfig
from slidesearch.library import Library
from slidesearch.model import Slide
from slidesearch.pipeline.query.names import DetectNames
from slidesearch.pipeline.rank.boost import BoostPass
from slidesearch.pipeline.rank.multipliers import Multipliers, folder_kinds, hold_below_primary
from slidesearch.pipeline.rank.prefilter import Prefilter
from slidesearch.pipeline.rank.primary import (
    PrimaryPass,
    deck_context,
    fuse_angles,
    pool_dense_scores,
    ranks_of,
)
from slidesearch.pipeline.state import Candidate, SearchState

ROWS = [
    ("DAAIS", "/DAAIS/Sales/Collateral", "Customer analytics dashboard", "NPS and revenue per account", "dashboard"),
    ("DAAIS", "/DAAIS/Clients/Acme", "Fraud detection for a bank", "Cut fraud losses by 23%", "case_study"),
    ("DAAIS", "/DAAIS/Sales", "BlackRock partnership", "Data engineering for BlackRock", "content"),
    ("EdTech", "/EdTech/Sales", "Learning analytics", "Student engagement analytics", "content"),
    ("DAAIS", "/DAAIS/Sales/Team", "Leadership team", "Anand S, chief data scientist", "team"),
    ("DAAIS", "/DAAIS/Sales", "Agenda", "Agenda", "agenda"),
    ("S&R", "/S&R/Sales", "Capital call notice automation", "Automated capital call notices", "content"),
    ("DAAIS", "/DAAIS/Sales", "Cloud migration", "Moved 300 workloads to the cloud", "content"),
]


@pytest.fixture(scope="module")
def context() -> SearchContext:
    slides = [Slide(slide_id=f"s{i}", deck_id=f"d{i}", deck_name=f"Deck {i}.pptx", folder=folder, title=title,
                    text=text, content_type=ctype, universe=universe, deck_date=date(2020 + i % 5, 1, 1))
              for i, (universe, folder, title, text, ctype) in enumerate(ROWS)]
    return SearchContext(Library.from_slides(slides, embedder="fast"), SearchConfig(), OfflineModel())


def _state(context, query, **fields):
    return SearchState(angles=(query,), query_vectors=context.embed([query]), **fields)


class TestDetectNames:
    def test_rare_word_widens_with_its_literal_matches_in_scope(self, context):
        out = DetectNames(context).run(_state(context, "blackrock case studies"))
        assert out.entity_terms == ("blackrock",) and out.entity_rows == {2}
        scoped = DetectNames(context).run(_state(context, "blackrock case studies", universes=("EdTech",)))
        assert scoped.entity_rows == frozenset()


class TestPrefilter:
    def test_pool_is_search_types_in_scope_plus_entity_matches(self, context):
        state = _state(context, "q", search_types=("Case Studies",), universes=("DAAIS",), entity_rows=frozenset({2}))
        out = Prefilter(context).run(state)
        assert out.pool.tolist() == [1, 2]

    def test_empty_section_choice_falls_back_to_every_slide_in_scope(self, context):
        out = Prefilter(context).run(_state(context, "q", search_types=(), universes=("S&R",)))
        assert out.pool.tolist() == [6] and out.notes


class TestPrimaryPass:
    def test_exact_dense_scores_match_a_plain_product(self, context):
        vectors = np.asarray(context.library.vectors)
        q = context.embed(["fraud"])
        for pool in (np.array([1, 3]), np.arange(8)):
            assert np.allclose(pool_dense_scores(vectors, pool, q)[:, 0], vectors[pool] @ q[0])

    def test_ranks_count_strictly_higher_scores(self):
        scores = np.array([0.1, 0.9, 0.5, 0.9])
        assert ranks_of(scores, np.array([0, 1, 2])).tolist() == [4.0, 1.0, 3.0]

    @pytest.mark.parametrize("fusion", ["blend", "rrf", "dense_rrf"])
    def test_every_fusion_ranks_the_obvious_match_first(self, context, fusion):
        ctx = SearchContext(context.library, SearchConfig(primary_fusion=fusion), context.model)
        state = _state(ctx, "capital call notice automation", pool=np.arange(8))
        out = PrimaryPass(ctx).run(state)
        assert out.candidates[0].row == 6
        assert all(c.primary > 0 and c.score == c.primary for c in out.candidates)

    def test_each_candidate_carries_its_cosine_with_its_angle(self, context):
        state = _state(context, "capital call notice automation", pool=np.arange(8))
        out = PrimaryPass(context).run(state)
        vectors = np.asarray(context.library.vectors)
        q = context.embed(["capital call notice automation"])[0]
        for c in out.candidates:
            assert c.cosine == pytest.approx(float(vectors[c.row] @ q), abs=1e-5)

    def test_a_slide_no_voter_retrieved_is_not_a_candidate(self):
        dense = np.array([[0.9], [0.1], [0.5]])
        bm25 = np.array([[0.0], [0.0], [2.0]])
        fused = fuse_angles(dense, bm25, np.zeros(0, dtype=np.int64), SearchConfig(primary_depth=1))
        assert set(fused) == {0, 2}

    def test_entity_rows_are_always_candidates(self):
        dense = np.array([[0.9], [0.1], [0.5]])
        fused = fuse_angles(dense, np.zeros((3, 1)), np.array([1]), SearchConfig(primary_depth=1,
                            primary_fusion="rrf"))
        assert 1 in fused


class TestBoostPass:
    def test_boost_is_capped_and_zero_primary_slides_stay_below_every_primary_hit(self, context):
        cands = (Candidate(row=0, section="Data & Analytics", primary=0.5, fusion=0.5, score=0.5),
                 Candidate(row=7, section="Capabilities & Overview", primary=0.1, fusion=0.1, score=0.1))
        state = _state(context, "customer analytics", pool=np.arange(8), candidates=cands,
                       expansion=("fraud detection", "capital call", "student engagement"))
        out = BoostPass(context).run(state)
        by_row = {c.row: c for c in out.candidates}
        for row in (0, 7):
            assert by_row[row].fusion <= by_row[row].primary * 1.35 + 1e-12
        weakest = min(c.fusion for c in out.candidates if c.primary > 0)
        extra = [c for c in out.candidates if c.primary == 0]
        assert extra and all(c.fusion < weakest for c in extra)


class TestMultipliers:
    def test_every_factor_is_kept_and_multiplies_to_the_score(self, context):
        cands = (Candidate(row=0, section="Data & Analytics", primary=0.5, fusion=0.5),
                 Candidate(row=5, section="Other", primary=0.4, fusion=0.4))
        seeded = SearchContext(context.library, SearchConfig(folder_strength=1.0), context.model)
        out = Multipliers(seeded).run(_state(context, "q", intents=("capability",), candidates=cands,
                                             entity_rows=frozenset({0})))
        dash = next(c for c in out.candidates if c.row == 0)
        assert (dash.folder, dash.type, dash.entity) == (3.0, 1.3, 1.5)
        assert dash.score == pytest.approx(0.5 * dash.folder * dash.type * dash.recency * dash.entity)
        agenda = next(c for c in out.candidates if c.row == 5)
        assert agenda.type == SearchConfig().low_content_weight
        assert out.scored == out.candidates

    def test_folder_strength_zero_ignores_folders(self, context):
        cands = (Candidate(row=0, section="Data & Analytics", primary=0.5, fusion=0.5),)
        out = Multipliers(context).run(_state(context, "q", intents=("capability",), candidates=cands))
        assert out.candidates[0].folder == 1.0

    def test_recency_is_mild_and_newest_is_highest(self, context):
        cands = tuple(Candidate(row=r, section="x", primary=1.0, fusion=1.0) for r in range(5))
        out = Multipliers(context).run(_state(context, "q", candidates=cands))
        rec = {c.row: c.recency for c in out.candidates}
        assert rec[4] == pytest.approx(1.25) and rec[0] == pytest.approx(1.0)

    def test_boost_only_slides_are_held_below_the_weakest_primary_hit(self):
        cands = [Candidate(row=0, primary=0.1, score=0.1), Candidate(row=1, primary=0.0, score=0.5),
                 Candidate(row=2, primary=0.0, score=0.25)]
        held = hold_below_primary(cands)
        assert held[1].score < 0.1 and held[2].score < held[1].score and held[1].held_below_primary
        assert held[0] == cands[0]

    @pytest.mark.parametrize(("folder", "kinds"), [
        ("/DAAIS/Sales/Collateral/Technology Capabilities", {"collateral", "capability"}),
        ("/DAAIS/Sales/Collateral/Case Studies", {"collateral", "case_study"}),
        ("/DAAIS/Clients/Acme", {"client"}), ("/x/y", {"other"})])
    def test_folder_kinds_are_every_kind_the_path_names(self, folder, kinds):
        assert folder_kinds(folder) == kinds

    def test_a_case_study_folder_inside_collateral_gets_the_case_study_weight(self):
        slides = [Slide(slide_id="cs", deck_id="d1", folder="/DAAIS/Sales/Collateral/Case Studies", title="Acme",
                        text="Acme churn", content_type="content"),
                  Slide(slide_id="tc", deck_id="d2", folder="/DAAIS/Sales/Collateral/Technology Capabilities",
                        title="Churn", text="Churn models", content_type="content")]
        ctx = SearchContext(Library.from_slides(slides, embedder="fast"), SearchConfig(folder_strength=1.0),
                            OfflineModel())
        cands = tuple(Candidate(row=r, section="x", primary=1.0, fusion=1.0) for r in range(2))
        out = Multipliers(ctx).run(_state(ctx, "q", intents=("case_study",), candidates=cands))
        assert [c.folder for c in out.candidates] == [3.0, 1.3]


def test_stages_return_new_states(context):
    state = _state(context, "blackrock", search_types=("Case Studies",))
    before = replace(state)
    DetectNames(context).run(state)
    Prefilter(context).run(state)
    assert state == before


class TestEntityFactor:
    def test_only_the_entity_factor_applies(self):
        from slidesearch.pipeline.rank.multipliers import EntityFactor

        cands = (Candidate(row=0, primary=0.5, fusion=0.5), Candidate(row=1, primary=0.4, fusion=0.4))
        out = EntityFactor(1.5).run(SearchState(angles=("q",), candidates=cands, entity_rows=frozenset({1})))
        assert [(c.row, c.score) for c in out.candidates] == [(1, pytest.approx(0.6)), (0, 0.5)]
        assert all(c.folder == c.type == c.recency == 1.0 for c in out.candidates)


class TestCandidateEvolve:
    def test_matches_dataclasses_replace(self):
        cand = Candidate(row=3, section="Case Studies", primary=0.4, fusion=0.4, score=0.4, angle=1)
        evolved = cand.evolve(entity=1.5, score=0.6)
        assert evolved == replace(cand, entity=1.5, score=0.6)
        assert cand.score == 0.4 and evolved is not cand

    def test_unknown_field_is_an_error(self):
        with pytest.raises(TypeError, match="no field"):
            Candidate(row=1).evolve(scroe=2.0)


@pytest.fixture(scope="module")
def decks() -> SearchContext:
    rows = [("a", "Fraud detection"), ("a", "Fraud rules"), ("a", "Fraud alerts"),
            ("b", "Fraud detection"), ("b", "Office map"), ("b", "Parking")]
    slides = [Slide(slide_id=f"s{i}", deck_id=deck, title=title, text=title) for i, (deck, title) in enumerate(rows)]
    return SearchContext(Library.from_slides(slides, embedder="fast"), SearchConfig(deck_context=0.2), OfflineModel())


class TestDeckContext:
    def test_lift_is_the_weight_times_the_mean_of_the_deck_mates(self, decks):
        fused = {0: 1.0, 1: 0.8, 2: 0.6, 3: 1.0}
        lift = deck_context(decks, np.arange(6), fused)
        assert lift[0] == pytest.approx(0.2 * (0.8 + 0.6) / 2)
        assert lift[3] == pytest.approx(0.0)  # its deck-mates have no primary score

    def test_a_slide_whose_deck_is_on_topic_outranks_an_isolated_equal_hit(self, decks):
        out = PrimaryPass(decks).run(_state(decks, "fraud detection", pool=np.arange(6)))
        by_row = {c.row: c for c in out.candidates}
        assert by_row[0].deck > by_row[3].deck >= 0
        assert by_row[0].primary - by_row[0].deck == pytest.approx(by_row[3].primary - by_row[3].deck, abs=1e-6)
        assert [c.row for c in out.candidates].index(0) < [c.row for c in out.candidates].index(3)

    def test_zero_weight_turns_it_off(self, decks):
        ctx = SearchContext(decks.library, SearchConfig(deck_context=0.0), decks.model)
        out = PrimaryPass(ctx).run(_state(ctx, "fraud detection", pool=np.arange(6)))
        assert all(c.deck == 0.0 for c in out.candidates)
