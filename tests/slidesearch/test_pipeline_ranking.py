from dataclasses import replace

import numpy as np
import pytest

from core.embed import encoder_words
from core.fusion import ranks_of
from core.rarity import scaled_threshold
from core.text import ENGLISH_STOPWORDS
from slidesearch.config import SearchConfig
from slidesearch.library import Library, LibraryView
from slidesearch.model import Slide
from slidesearch.pipeline.query.names import GENERIC, DetectNames
from slidesearch.pipeline.rank.boost import BoostPass
from slidesearch.pipeline.rank.multipliers import (
    EntityFactor,
    Multipliers,
    Weights,
    folder_kinds,
    hold_below_primary,
    titled_by,
)
from slidesearch.pipeline.rank.prefilter import AllSlides, Prefilter
from slidesearch.pipeline.rank.primary import (
    DenseScores,
    Fusion,
    PrimaryPass,
    deck_context,
    fuse_angles,
    fuse_angles_by_angle,
    pool_dense_scores,
)
from slidesearch.pipeline.state import Candidate, SearchState, SectionChoice

CONFIG = SearchConfig()


def _state(view, query, **fields):
    return SearchState(query=(query,), angles=(query,), query_vectors=view.embed([query]), **fields)


def _dense(view, query, pool, **fields):
    """A state as 07 leaves it: the angle's (and expansion terms') cosines over ``pool``."""
    return DenseScores(view).run(_state(view, query, pool=np.asarray(pool, dtype=np.int64), **fields))


def _primary(view, config=CONFIG):
    return PrimaryPass(view, Fusion.from_config(config), config.deck_context)


class TestDetectNames:
    def test_rare_word_widens_with_its_literal_matches_in_scope(self, small_view, rows):
        detect = DetectNames(small_view, scaled_threshold(small_view.n))
        out = detect.run(_state(small_view, "blackrock case studies"))
        assert out.entity_terms == ("blackrock",) and out.entity_rows == set(rows("blackrock"))
        scoped = detect.run(_state(small_view, "blackrock case studies", universes=("EdTech",)))
        assert scoped.entity_rows == frozenset()

    def test_a_briefs_ordinary_rare_word_is_not_a_name(self, small_view, rows):
        threshold = scaled_threshold(small_view.n)
        common = encoder_words()
        word = next(w for w in sorted(common) if len(w) > 5 and 0 < small_view.rarity.df(w) <= threshold
                    and w not in GENERIC and w not in ENGLISH_STOPWORDS)
        brief = f"ideas about {word}"
        seed_rule = DetectNames(small_view, threshold).run(_state(small_view, brief))
        assert word in seed_rule.entity_terms
        briefs = DetectNames(small_view, threshold, brief=lambda angle: True).run(_state(small_view, brief))
        assert word not in briefs.entity_terms
        # an invented name still counts in a brief, and a factoid question keeps every rare word
        assert "blackrock" in DetectNames(small_view, threshold, brief=lambda a: True).run(
            _state(small_view, "blackrock case studies")).entity_terms
        question = DetectNames(small_view, threshold, brief=lambda angle: False).run(_state(small_view, brief))
        assert word in question.entity_terms
        # a profile / bio brief's words are names however it writes them
        profile = DetectNames(small_view, threshold, brief=lambda angle: True).run(_state(small_view, f"{word} profile"))
        assert word in profile.entity_terms


class TestPrefilter:
    def test_pool_is_search_types_in_scope_plus_entity_matches(self, small_view, small_slides, rows):
        state = _state(small_view, "q", sections=SectionChoice(("Case Studies",)), universes=("DAAIS",),
                       entity_rows=frozenset(rows("blackrock")))
        out = Prefilter(small_view).run(state)
        daais_case_studies = [s.slide_id for s in small_slides if s.section == "Case Studies" and s.universe == "DAAIS"]
        other_case_studies = [s.slide_id for s in small_slides if s.section == "Case Studies" and s.universe != "DAAIS"]
        assert daais_case_studies and other_case_studies
        assert out.pool.tolist() == sorted(rows(*daais_case_studies, "blackrock"))

    def test_empty_section_choice_falls_back_to_every_slide_in_scope(self, small_view, small_slides, rows):
        out = Prefilter(small_view).run(_state(small_view, "q", sections=SectionChoice(), universes=("S&R",)))
        assert out.pool.tolist() == sorted(rows(*(s.slide_id for s in small_slides if s.universe == "S&R")))
        assert out.notes

    def test_retrieval_pool_is_every_slide_in_scope_whatever_its_section(self, small_view, small_slides, rows):
        out = AllSlides(small_view).run(_state(small_view, "q", universes=("EdTech",)))
        assert out.pool.tolist() == sorted(rows(*(s.slide_id for s in small_slides if s.universe == "EdTech")))
        assert AllSlides(small_view).run(_state(small_view, "q")).pool.tolist() == list(range(small_view.n))


class TestDenseScores:
    def test_angle_and_term_columns_are_the_plain_cosines(self, small_view):
        pool = np.array([0, 5, 12, 30])
        out = _dense(small_view, "fraud", pool, expansion=("capital call", "churn"))
        vectors = np.asarray(small_view.vectors)
        assert np.allclose(out.angle_cosines[:, 0], vectors[pool] @ small_view.embed(["fraud"])[0], atol=1e-6)
        assert np.allclose(out.term_cosines, vectors[pool] @ small_view.embed(["capital call", "churn"]).T, atol=1e-6)

    def test_no_expansion_means_no_term_columns(self, small_view):
        assert _dense(small_view, "fraud", np.arange(4)).term_cosines is None


class TestPrimaryPass:
    def test_exact_dense_scores_match_a_plain_product(self, small_view):
        vectors = np.asarray(small_view.vectors)
        q = small_view.embed(["fraud"])
        for pool in (np.array([1, 3]), np.arange(small_view.n)):
            assert np.allclose(pool_dense_scores(vectors, pool, q)[:, 0], vectors[pool] @ q[0])

    def test_ranks_count_strictly_higher_scores(self):
        scores = np.array([0.1, 0.9, 0.5, 0.9])
        assert ranks_of(scores, np.array([0, 1, 2])).tolist() == [4.0, 1.0, 3.0]

    @pytest.mark.parametrize("fusion", ["blend", "rrf", "dense_rrf"])
    def test_every_fusion_ranks_the_obvious_match_first(self, small_view, rows, fusion):
        state = _dense(small_view, "capital call notice automation", np.arange(small_view.n))
        out = _primary(small_view, SearchConfig(primary_fusion=fusion)).run(state)
        assert out.primary[0].row == rows("capital-call")[0]
        assert all(c.primary > 0 and c.score == c.primary for c in out.primary)

    def test_each_candidate_carries_its_cosine_with_its_angle(self, small_view):
        state = _dense(small_view, "capital call notice automation", np.arange(small_view.n))
        out = _primary(small_view).run(state)
        vectors = np.asarray(small_view.vectors)
        q = small_view.embed(["capital call notice automation"])[0]
        assert out.primary
        for c in out.primary:
            assert c.cosine == pytest.approx(float(vectors[c.row] @ q), abs=1e-5)

    def test_a_slide_no_voter_retrieved_is_not_a_candidate(self):
        dense = np.array([[0.9], [0.1], [0.5]])
        bm25 = np.array([[0.0], [0.0], [2.0]])
        fused = fuse_angles(dense, bm25, np.zeros(0, dtype=np.int64), Fusion.from_config(SearchConfig(primary_depth=1)))
        assert set(fused) == {0, 2}

    def test_a_topical_brief_leans_on_the_dense_voter_and_a_question_keeps_the_plain_blend(self):
        # Slide 0 means the brief, slide 1 shares a chance word with it.
        dense = np.array([[0.9, 0.9], [0.5, 0.5]])
        bm25 = np.array([[0.0, 0.0], [3.0, 3.0]])
        fusion = Fusion.from_config(SearchConfig(brief_dense_share=0.9))
        as_brief = fuse_angles(dense[:, :1], bm25[:, :1], np.zeros(0, dtype=np.int64), fusion, [False])
        as_question = fuse_angles(dense[:, :1], bm25[:, :1], np.zeros(0, dtype=np.int64), fusion, [True])
        assert as_brief[0] > as_brief[1]
        assert as_question[0] == pytest.approx(as_question[1])
        assert fusion.weights(False) == pytest.approx((0.9, 0.1)) and fusion.weights(True) == (0.5, 0.5)

    @pytest.mark.parametrize("method", ["blend", "rrf"])
    def test_bm25_speaks_for_a_slide_the_encoder_cannot_read(self, method):
        # Slide 0: an English slide close in meaning, no shared word. Slide 1: a Chinese slide stating the brief's
        # rare words ("LSTM", "ARIMA"), its cosine silenced to the angle's lowest. Slide 2: a weak English match.
        dense = np.array([[0.6], [0.1], [0.4]])
        bm25 = np.array([[0.0], [6.0], [1.0]])
        none = np.zeros(0, dtype=np.int64)
        unreadable = np.array([False, True, False])
        held = Fusion.from_config(SearchConfig(primary_fusion=method, unreadable_lexical=0.0))
        lean = Fusion.from_config(SearchConfig(primary_fusion=method, unreadable_lexical=1.0))
        before, _ = fuse_angles_by_angle(dense, bm25, none, held, [False], unreadable)
        after, _ = fuse_angles_by_angle(dense, bm25, none, lean, [False], unreadable)
        if method == "blend":
            assert before[1] < before[0]  # a brief's BM25 tenth alone cannot lift it
        assert after[1] > before[1] and after[1] >= max(after[0], after[2])  # read by the voter that can read it
        assert after[0] == pytest.approx(before[0]) and after[2] == pytest.approx(before[2])  # readable: unchanged
        with pytest.raises(ValueError, match="unreadable_lexical"):
            Fusion("blend", 10, 0.5, 0.5, 60, unreadable_lexical=1.5)

    def test_a_question_about_a_topic_is_a_brief_and_a_factoid_question_is_not(self):
        fusion = Fusion.from_config(SearchConfig(brief_dense_share=0.9))
        assert not fusion.plain_blend("why junior engineers are quitting")
        assert fusion.plain_blend("who is Amara Novak") and fusion.plain_blend("why are engineers quitting?")

    def test_entity_rows_are_always_candidates(self):
        dense = np.array([[0.9], [0.1], [0.5]])
        fusion = Fusion.from_config(SearchConfig(primary_depth=1, primary_fusion="rrf"))
        assert 1 in fuse_angles(dense, np.zeros((3, 1)), np.array([1]), fusion)


class TestBoostPass:
    def test_boost_is_capped_and_zero_primary_slides_stay_below_every_primary_hit(self, small_view, rows):
        dash, cloud = rows("customer-dashboard", "cloud-workloads")
        cands = (Candidate(row=dash, section="Data & Analytics", primary=0.5, fusion=0.5, score=0.5),
                 Candidate(row=cloud, section="Capabilities & Overview", primary=0.1, fusion=0.1, score=0.1))
        state = _dense(small_view, "customer analytics", np.arange(small_view.n), primary=cands,
                       expansion=("fraud detection", "capital call", "student engagement"))
        boost = BoostPass(small_view, Fusion.from_config(CONFIG), CONFIG.boost_cap, CONFIG.zero_primary_share)
        out = boost.run(state)
        by_row = {c.row: c for c in out.boosted}
        for row in (dash, cloud):
            assert by_row[row].fusion <= by_row[row].primary * (1 + CONFIG.boost_cap) + 1e-12
        weakest = min(c.fusion for c in out.boosted if c.primary > 0)
        extra = [c for c in out.boosted if c.primary == 0]
        assert extra and all(c.fusion < weakest for c in extra)
        assert out.primary == cands

    def test_no_expansion_passes_the_primary_list_on(self, small_view, rows):
        cands = (Candidate(row=rows("blackrock")[0], primary=0.5, fusion=0.5, score=0.5),)
        state = _dense(small_view, "blackrock", np.arange(small_view.n), primary=cands)
        boost = BoostPass(small_view, Fusion.from_config(CONFIG), CONFIG.boost_cap, CONFIG.zero_primary_share)
        assert boost.run(state).boosted == cands


class TestMultipliers:
    def _weights(self, **config):
        return Weights.from_config(SearchConfig(**config))

    def test_every_factor_is_kept_and_multiplies_to_the_score(self, small_view, rows):
        dash, agenda = rows("customer-dashboard", "customer-agenda")
        cands = (Candidate(row=dash, section="Data & Analytics", primary=0.5, fusion=0.5),
                 Candidate(row=agenda, section="Other", primary=0.4, fusion=0.4))
        state = _state(small_view, "q", intents=("capability",), boosted=cands, entity_rows=frozenset({dash}))
        out = Multipliers(small_view, self._weights(folder_strength=1.0, type_strength=1.0)).run(state)
        card = next(c for c in out.scored if c.row == dash)
        assert (card.folder, card.type, card.entity) == (3.0, 1.3, SearchConfig().entity_boost)
        default = Multipliers(small_view, self._weights(folder_strength=1.0)).run(state)
        assert next(c for c in default.scored if c.row == dash).type == pytest.approx(1.3 ** SearchConfig().type_strength)
        assert card.score == pytest.approx(0.5 * card.folder * card.type * card.recency * card.entity * card.titled)
        low = next(c for c in out.scored if c.row == agenda)
        assert low.type == SearchConfig().low_content_weight
        assert out.boosted == cands

    @pytest.mark.parametrize(("title", "angle", "says"), [
        ("Pricing", "pricing", True),
        ("CONS OF SOFT DRINK", "cons of soft drink", True),
        ("What is FakeXrmEasy?", "what is fakexrmeasy", True),
        ("Pros of soft drink", "cons of soft drink", False),            # another word
        ("Pricing and payment terms for enterprise", "pricing", False),  # the title says much more
        ("Payment terms", "pricing", False),
        ("Pricing", "", False),
    ])
    def test_a_title_says_an_angle_when_it_holds_every_word_and_little_more(self, small_view, title, angle, says):
        assert titled_by(small_view.brief_terms(title), [small_view.brief_terms(angle)]) is says

    def test_a_slide_titled_by_the_brief_takes_the_title_factor_and_no_other_does(self, small_view, rows):
        r = rows("customer-dashboard", "customer-agenda")
        cands = tuple(Candidate(row=x, section="x", primary=0.5, fusion=0.5) for x in r)
        title = small_view.titles[r[0]]
        out = Multipliers(small_view, self._weights()).run(_state(small_view, title, boosted=cands))
        titled = {c.row: c.titled for c in out.scored}
        assert titled == {r[0]: SearchConfig().title_boost, r[1]: 1.0} and SearchConfig().title_boost > 1
        off = Multipliers(small_view, self._weights(title_boost=1.0)).run(_state(small_view, title, boosted=cands))
        assert {c.titled for c in off.scored} == {1.0}

    def test_folder_strength_zero_ignores_folders(self, small_view, rows):
        cands = (Candidate(row=rows("customer-dashboard")[0], section="Data & Analytics", primary=0.5, fusion=0.5),)
        out = Multipliers(small_view, self._weights()).run(_state(small_view, "q", intents=("capability",), boosted=cands))
        assert out.scored[0].folder == 1.0

    def test_recency_is_mild_and_newest_is_highest(self, small_view, rows):
        ids = ("team-anand", "fraud-draft-overview", "customer-dashboard", "cloud-workloads")  # 2020, 2022, 2024, none
        cands = tuple(Candidate(row=r, section="x", primary=1.0, fusion=1.0) for r in rows(*ids))
        out = Multipliers(small_view, self._weights()).run(_state(small_view, "q", boosted=cands))
        rec = {c.row: c.recency for c in out.scored}
        oldest, middle, newest, undated = rows(*ids)
        assert rec[newest] == pytest.approx(1.25) and rec[oldest] == pytest.approx(1.0)
        assert rec[middle] == pytest.approx(1.125) and rec[undated] == 1.0

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

    def test_a_case_study_folder_inside_collateral_gets_the_case_study_weight(self, small_view, rows):
        # cs-claims sits in /DAAIS/Sales/Collateral/Case Studies, fraud-v1-overview in /DAAIS/Sales/Collateral.
        cands = tuple(Candidate(row=r, section="x", primary=1.0, fusion=1.0)
                      for r in rows("cs-claims", "fraud-v1-overview"))
        state = _state(small_view, "q", intents=("case_study",), boosted=cands)
        out = Multipliers(small_view, self._weights(folder_strength=1.0)).run(state)
        folder = {c.row: c.folder for c in out.scored}
        assert [folder[r] for r in rows("cs-claims", "fraud-v1-overview")] == [3.0, 1.3]


def test_stages_return_new_states(small_view):
    state = _state(small_view, "blackrock", sections=SectionChoice(("Case Studies",)))
    before = replace(state)
    DetectNames(small_view, scaled_threshold(small_view.n)).run(state)
    Prefilter(small_view).run(state)
    assert state == before


class TestEntityFactor:
    def test_only_the_entity_factor_applies(self):
        cands = (Candidate(row=0, primary=0.5, fusion=0.5), Candidate(row=1, primary=0.4, fusion=0.4))
        out = EntityFactor(1.5).run(SearchState(query=("q",), angles=("q",), primary=cands, entity_rows=frozenset({1})))
        assert [(c.row, c.score) for c in out.scored] == [(1, pytest.approx(0.6)), (0, 0.5)]
        assert all(c.folder == c.type == c.recency == 1.0 for c in out.scored)


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
def decks() -> LibraryView:
    rows = [("a", "Fraud detection"), ("a", "Fraud rules"), ("a", "Fraud alerts"),
            ("b", "Fraud detection"), ("b", "Office map"), ("b", "Parking")]
    slides = [Slide(slide_id=f"s{i}", deck_id=deck, title=title, text=title) for i, (deck, title) in enumerate(rows)]
    return LibraryView(Library.from_slides(slides, embedder="fast"))


class TestDeckContext:
    def test_lift_is_the_weight_times_the_mean_of_the_deck_mates(self, decks):
        fused = {0: 1.0, 1: 0.8, 2: 0.6, 3: 1.0}
        lift = deck_context(decks.deck_codes, 0.2, np.arange(6), fused)
        assert lift[0] == pytest.approx(0.2 * (0.8 + 0.6) / 2)
        assert lift[3] == pytest.approx(0.0)  # its deck-mates have no primary score

    def test_a_slide_whose_deck_is_on_topic_outranks_an_isolated_equal_hit(self, decks):
        out = _primary(decks, SearchConfig(deck_context=0.2)).run(_dense(decks, "fraud detection", np.arange(6)))
        by_row = {c.row: c for c in out.primary}
        assert by_row[0].deck > by_row[3].deck >= 0
        assert by_row[0].primary - by_row[0].deck == pytest.approx(by_row[3].primary - by_row[3].deck, abs=1e-6)
        assert [c.row for c in out.primary].index(0) < [c.row for c in out.primary].index(3)

    def test_zero_weight_turns_it_off(self, decks):
        out = _primary(decks, SearchConfig(deck_context=0.0)).run(_dense(decks, "fraud detection", np.arange(6)))
        assert out.primary and all(c.deck == 0.0 for c in out.primary)
