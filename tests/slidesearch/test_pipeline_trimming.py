from types import SimpleNamespace

import numpy as np
import pytest

from slidesearch.config import SearchConfig
from slidesearch.pipeline.caps import Caps
from slidesearch.pipeline.deckcap import GlobalDeckCap
from slidesearch.pipeline.dedup import ExactDedup, NearDuplicateDedup
from slidesearch.pipeline.entity_slot import EntitySlot
from slidesearch.pipeline.floor import RelevanceFloor
from slidesearch.pipeline.order import OrderSections
from slidesearch.pipeline.sections import GroupSections
from slidesearch.pipeline.state import Candidate, SearchState
from slidesearch.sections import DEFAULT_SECTIONS


def _context(**library):
    return SimpleNamespace(library=SimpleNamespace(**library), config=SearchConfig(), section_table=DEFAULT_SECTIONS)


def _cands(scores, section="Case Studies"):
    return tuple(Candidate(row=i, section=section, score=s, fusion=s, primary=s) for i, s in enumerate(scores))


class TestExactDedup:
    def test_lower_scored_copy_with_the_same_normalised_text_is_dropped(self):
        ctx = _context(snippets=["Data & Analytics Partner", "data &  analytics partner ", "something else"])
        out = ExactDedup(ctx).run(SearchState(angles=("q",), candidates=_cands([0.5, 0.9, 0.1])))
        assert [c.row for c in out.candidates] == [1, 2]


class TestNearDuplicateDedup:
    def test_a_chain_of_near_copies_collapses_to_its_best(self):
        # A~B and B~C at >= 0.90 while A~C is below: a greedy walk would keep A and C.
        angles = (0.0, 0.4, 0.8, np.pi / 2)
        vectors = np.array([[np.cos(t), np.sin(t)] for t in angles], dtype=np.float32)
        assert float(vectors[0] @ vectors[2]) < 0.9 <= float(vectors[0] @ vectors[1])
        ctx = SimpleNamespace(library=SimpleNamespace(vectors=vectors), config=SearchConfig())
        out = NearDuplicateDedup(ctx).run(SearchState(angles=("q",), candidates=_cands([0.9, 0.8, 0.7, 0.1])))
        assert [c.row for c in out.candidates] == [0, 3]


class TestGlobalDeckCap:
    def test_a_canonical_deck_appears_at_most_twice_in_the_whole_response(self):
        ctx = _context(canonical_decks=["deck a", "deck a", "deck a", "deck b"])
        cands = (Candidate(row=0, section="Case Studies", score=0.9), Candidate(row=1, section="Other", score=0.8),
                 Candidate(row=2, section="Data & Analytics", score=0.7), Candidate(row=3, section="Other", score=0.1))
        out = GlobalDeckCap(ctx).run(SearchState(angles=("q",), candidates=cands))
        assert [c.row for c in out.candidates] == [0, 1, 3]


class TestRelevanceFloor:
    def test_drops_everything_below_the_share_of_the_best(self):
        out = RelevanceFloor(0.15).run(SearchState(angles=("q",), candidates=_cands([1.0, 0.2, 0.149, 0.15])))
        assert [c.score for c in out.candidates] == [1.0, 0.2, 0.15]

    def test_each_angle_is_floored_against_its_own_best(self):
        cands = (Candidate(row=0, section="x", score=1.0, angle=0), Candidate(row=1, section="x", score=0.3, angle=1),
                 Candidate(row=2, section="x", score=0.2, angle=1), Candidate(row=3, section="x", score=0.1, angle=0))
        state = SearchState(angles=("a", "b"), answer_sections=("x",), candidates=cands)
        assert [c.row for c in RelevanceFloor(0.5).run(state).candidates] == [0, 1, 2]

    def test_never_empties_a_nonempty_list(self):
        out = RelevanceFloor(0.99).run(SearchState(angles=("q",), candidates=_cands([1e-9])))
        assert len(out.candidates) == 1

    def test_rejects_a_share_outside_zero_to_one(self):
        with pytest.raises(ValueError):
            RelevanceFloor(1.0)
        with pytest.raises(ValueError):
            RelevanceFloor(0.5, cosine_share=1.0)

    def test_cosine_share_drops_a_high_scoring_slide_far_from_the_query(self):
        cands = (Candidate(row=0, section="x", score=1.0, cosine=0.60, angle=0),
                 Candidate(row=1, section="x", score=0.9, cosine=0.30, angle=0),
                 Candidate(row=2, section="x", score=0.8, cosine=0.50, angle=0))
        state = SearchState(angles=("q",), candidates=cands)
        assert [c.row for c in RelevanceFloor(0.5, cosine_share=0.8).run(state).candidates] == [0, 2]
        assert [c.row for c in RelevanceFloor(0.5).run(state).candidates] == [0, 1, 2]

    def test_a_slide_holding_a_literal_entity_term_is_exempt_from_the_cosine_share(self):
        cands = (Candidate(row=0, section="x", score=1.0, cosine=0.60, angle=0),
                 Candidate(row=1, section="x", score=0.9, cosine=0.10, angle=0))
        state = SearchState(angles=("q",), candidates=cands, entity_rows=frozenset({1}))
        assert [c.row for c in RelevanceFloor(0.5, cosine_share=0.8).run(state).candidates] == [0, 1]

    def test_the_best_scoring_slide_survives_a_cosine_share_it_misses(self):
        cands = (Candidate(row=0, section="x", score=1.0, cosine=0.20, angle=0),
                 Candidate(row=1, section="x", score=0.1, cosine=0.60, angle=0))
        state = SearchState(angles=("q",), candidates=cands)
        assert [c.row for c in RelevanceFloor(0.5, cosine_share=0.8).run(state).candidates] == [0]

    def test_without_a_cosine_share_a_negative_cosine_costs_nothing(self):
        cands = (Candidate(row=0, section="x", score=1.0, cosine=0.5, angle=0),
                 Candidate(row=1, section="x", score=0.9, cosine=-0.05, angle=0))
        state = SearchState(angles=("q",), candidates=cands)
        assert [c.row for c in RelevanceFloor(0.5).run(state).candidates] == [0, 1]

    def test_cosine_share_is_per_angle(self):
        cands = (Candidate(row=0, section="x", score=1.0, cosine=0.70, angle=0),
                 Candidate(row=1, section="x", score=0.9, cosine=0.35, angle=1),
                 Candidate(row=2, section="x", score=0.9, cosine=0.30, angle=1))
        state = SearchState(angles=("a", "b"), candidates=cands)
        assert [c.row for c in RelevanceFloor(0.5, cosine_share=0.8).run(state).candidates] == [0, 1, 2]


class TestGroupSections:
    def _ctx(self, n):
        return _context(canonical_decks=["deck"] * 3 + [f"d{i}" for i in range(3, n)])

    def test_only_answer_sections_get_headings_with_two_slides_per_deck(self):
        cands = _cands([0.9, 0.8, 0.7, 0.6]) + (Candidate(row=4, section="Other", score=0.95),)
        state = SearchState(angles=("q",), answer_sections=("Case Studies",), candidates=cands)
        out = GroupSections(self._ctx(5)).run(state)
        assert list(out.groups) == ["Case Studies"]
        assert [c.row for c in out.groups["Case Studies"]] == [0, 1, 3]

    def test_when_no_candidate_is_in_an_answer_section_their_own_sections_are_shown(self):
        state = SearchState(angles=("q",), answer_sections=("Case Studies",),
                            candidates=(Candidate(row=0, section="Other", score=1.0),))
        out = GroupSections(self._ctx(1)).run(state)
        assert [c.row for c in out.groups["Other"]] == [0]
        assert out.notes

    def test_an_angle_with_no_headed_slide_gets_its_own_sections_holding_only_its_slides(self):
        cands = (Candidate(row=3, section="Team & Credentials", score=0.9, angle=0),
                 Candidate(row=4, section="Capabilities & Overview", score=0.8, angle=0),
                 Candidate(row=5, section="Capabilities & Overview", score=0.7, angle=1))
        groups, notes = self._grouped_then_slotted(("our team", "pricing"), ("Team & Credentials",), cands, ())
        assert groups == {"Capabilities & Overview": [5], "Team & Credentials": [3]}
        assert any('"pricing"' in note and '"our team"' not in note for note in notes)

    def test_no_extra_heading_when_every_angle_has_a_headed_slide(self):
        cands = (Candidate(row=3, section="Team & Credentials", score=0.9, angle=0),
                 Candidate(row=4, section="Capabilities & Overview", score=0.8, angle=1),
                 Candidate(row=5, section="Team & Credentials", score=0.7, angle=1))
        groups, notes = self._grouped_then_slotted(("a", "b"), ("Team & Credentials",), cands, ())
        assert list(groups) == ["Team & Credentials"] and not notes

    def _grouped_then_slotted(self, angles, answer_sections, cands, named):
        state = SearchState(angles=angles, answer_sections=answer_sections, candidates=cands, scored=cands,
                            entity_rows=frozenset(named))
        out = EntitySlot(self._ctx(10)).run(GroupSections(self._ctx(10)).run(state))
        return {s: [c.row for c in cards] for s, cards in out.groups.items() if cards}, out.notes

    def test_an_angle_of_named_slides_only_is_left_to_the_guaranteed_slot(self):
        cands = (Candidate(row=3, section="Team & Credentials", score=0.9, angle=0),
                 Candidate(row=5, section="Other", score=0.7, angle=1))
        groups, notes = self._grouped_then_slotted(("a", "acme"), ("Team & Credentials",), cands, {5})
        assert groups == {"Team & Credentials": [3, 5]} and not notes

    def test_an_angle_is_not_left_to_the_slot_when_a_headed_slide_already_holds_a_name(self):
        # 14b does nothing when the top section holds a named slide, so the second angle needs its own heading.
        cands = (Candidate(row=1, section="Case Studies", score=0.9, angle=0),
                 Candidate(row=2, section="Capabilities & Overview", score=0.6, angle=1))
        groups, notes = self._grouped_then_slotted(("acme case studies", "pricing"), ("Case Studies",), cands, {1, 2})
        assert groups == {"Case Studies": [1], "Capabilities & Overview": [2]} and '"pricing"' in notes[-1]

    def test_an_angle_with_a_named_and_an_unnamed_slide_is_shown(self):
        cands = (Candidate(row=1, section="Case Studies", score=0.9, angle=0),
                 Candidate(row=2, section="Commercial & Contract Terms", score=0.6, angle=1),
                 Candidate(row=3, section="Capabilities & Overview", score=0.5, angle=1))
        groups, _ = self._grouped_then_slotted(("acme case studies", "blackrock pricing"), ("Case Studies",),
                                               cands, {1, 2})
        assert groups == {"Case Studies": [1], "Capabilities & Overview": [3], "Commercial & Contract Terms": [2]}

    def test_the_guaranteed_slot_goes_under_a_chosen_heading_not_one_opened_for_another_angle(self):
        cands = (Candidate(row=1, section="Other", score=0.9, angle=0),
                 Candidate(row=2, section="Capabilities & Overview", score=0.6, angle=1))
        groups, _ = self._grouped_then_slotted(("blackrock", "data platform"), ("Team & Credentials", "Case Studies"),
                                               cands, {1})
        assert groups == {"Case Studies": [1], "Capabilities & Overview": [2]}


class TestCaps:
    def test_section_cap_then_global_cap_keeps_the_globally_best(self):
        groups = {"Case Studies": _cands([0.9 - i * 0.01 for i in range(20)]),
                  "Other": _cands([0.5 - i * 0.01 for i in range(20)], "Other")}
        out = Caps(15, 20).run(SearchState(angles=("q",), groups=groups))
        assert len(out.groups["Case Studies"]) == 15 and len(out.groups["Other"]) == 5
        assert min(c.score for c in out.groups["Case Studies"]) > max(c.score for c in out.groups["Other"])

    def test_top_per_group_below_the_cap_wins(self):
        out = Caps(15, 50).run(SearchState(angles=("q",), top_per_group=2, groups={"Other": _cands([3, 2, 1])}))
        assert len(out.groups["Other"]) == 2

    def test_top_per_group_above_the_cap_is_held_at_the_cap(self):
        out = Caps(15, 50).run(SearchState(angles=("q",), top_per_group=99, groups={"Other": _cands([1] * 30)}))
        assert len(out.groups["Other"]) == 15
        assert out.notes == ("a section shows at most 15 cards; 99 per section were asked for",)

    def test_no_cap_note_when_nothing_was_cut_by_it(self):
        out = Caps(15, 50).run(SearchState(angles=("q",), top_per_group=99, groups={"Other": _cands([1] * 5)}))
        assert len(out.groups["Other"]) == 5 and out.notes == ()


class TestOrderSections:
    def test_sections_by_best_score_and_empty_ones_last(self):
        groups = {"Case Studies": _cands([0.2]), "Other": (), "Data & Analytics": _cands([0.1, 0.9])}
        out = OrderSections(DEFAULT_SECTIONS).run(SearchState(angles=("q",), groups=groups))
        assert list(out.groups) == ["Data & Analytics", "Case Studies", "Other"]
        assert [c.score for c in out.groups["Data & Analytics"]] == [0.9, 0.1]
