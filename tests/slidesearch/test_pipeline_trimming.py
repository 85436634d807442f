from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from slidesearch.library import LibraryView
from slidesearch.model import Slide
from slidesearch.pipeline.answer.caps import Caps
from slidesearch.pipeline.answer.group import GroupSections
from slidesearch.pipeline.answer.order import OrderSections
from slidesearch.pipeline.answer.slot import EntitySlot
from slidesearch.pipeline.state import Candidate, SearchState, SectionChoice
from slidesearch.pipeline.trim.deckcap import GlobalDeckCap
from slidesearch.pipeline.trim.dedup import ExactDedup, NearDuplicateDedup
from slidesearch.pipeline.trim.floor import RelevanceFloor
from slidesearch.sections import DEFAULT_SECTIONS

#: Three versions of one canonical deck ("fraud analytics"), then slides of seven other decks.
DECK_IDS = ("fraud-v1-overview", "fraud-final-overview", "fraud-draft-overview", "blackrock", "acme-case",
            "team-anand", "cloud-workloads", "capital-call", "learning-analytics", "awards-gartner")


@pytest.fixture(scope="module")
def r(small_library, rows) -> list[int]:
    """Library rows by position in DECK_IDS: r[0..2] share a canonical deck, every other one is its own deck."""
    found = rows(*DECK_IDS)
    decks = [small_library.canonical_decks[row] for row in found]
    assert len(set(decks[:3])) == 1 and len(set(decks)) == len(decks) - 2
    return found


def _state(angles=("q",), **fields):
    return SearchState(query=tuple(angles), angles=tuple(angles), **fields)


def _cands(scores, section="Case Studies"):
    return tuple(Candidate(row=i, section=section, score=s, fusion=s, primary=s) for i, s in enumerate(scores))


class TestExactDedup:
    def test_lower_scored_copy_with_the_same_normalised_text_is_dropped(self, small_view, rows):
        copy, original, other = rows("fraud-v1-overview", "fraud-final-overview", "blackrock")
        assert small_view.snippets[copy] != small_view.snippets[original]  # equal only once normalised
        cands = tuple(Candidate(row=row, section="x", score=s) for row, s in ((copy, 0.5), (original, 0.9), (other, 0.1)))
        out = ExactDedup(small_view).run(_state(scored=cands))
        assert [c.row for c in out.unique] == [original, other]
        assert out.unique[0].versions == ("Fraud Analytics v1.pptx",)

    def test_the_newest_version_shows_a_copy_even_when_an_older_one_scores_higher(self, small_view, rows):
        copy, original = rows("fraud-v1-overview", "fraud-final-overview")  # v1 is 2021, vFinal 2023
        cands = (Candidate(row=copy, section="x", score=0.9), Candidate(row=original, section="x", score=0.5))
        out = ExactDedup(small_view).run(_state(scored=cands))
        assert [(c.row, c.versions) for c in out.unique] == [(original, ("Fraud Analytics v1.pptx",))]


class TestNearDuplicateDedup:
    def test_a_chain_of_near_copies_collapses_to_its_best(self, vector_library):
        # A~B and B~C at >= 0.90 while A~C is below: a greedy walk would keep A and C.
        angles = (0.0, 0.4, 0.8, np.pi / 2)
        vectors = np.array([[np.cos(t), np.sin(t)] for t in angles], dtype=np.float32)
        assert float(vectors[0] @ vectors[2]) < 0.9 <= float(vectors[0] @ vectors[1])
        slides = [Slide(slide_id=name, deck_id=name, title=name, text=f"slide {name}") for name in "abcd"]
        view = LibraryView(vector_library(slides, vectors))
        out = NearDuplicateDedup(view, 0.9).run(_state(unique=_cands([0.9, 0.8, 0.7, 0.1])))
        assert [c.row for c in out.distinct] == [0, 3]

    def test_a_reworded_copy_in_another_version_of_the_deck_is_dropped(self, small_view, rows):
        final, first, other = rows("fraud-final-alerts", "fraud-v1-alerts", "customer-dashboard")
        cands = tuple(Candidate(row=row, section="x", score=s) for row, s in ((final, 0.9), (first, 0.8), (other, 0.7)))
        out = NearDuplicateDedup(small_view, 0.9).run(_state(unique=cands))
        assert [c.row for c in out.distinct] == [final, other]
        assert out.distinct[0].versions == ("Fraud Analytics v1.pptx",) and out.distinct[1].versions == ()


class TestGlobalDeckCap:
    def test_a_canonical_deck_appears_at_most_twice_in_the_whole_response(self, small_view, r):
        cands = (Candidate(row=r[0], section="Case Studies", score=0.9), Candidate(row=r[1], section="Other", score=0.8),
                 Candidate(row=r[2], section="Data & Analytics", score=0.7), Candidate(row=r[3], section="Other", score=0.1))
        out = GlobalDeckCap(small_view.canonical_decks, 2).run(_state(distinct=cands))
        assert [c.row for c in out.deck_capped] == [r[0], r[1], r[3]]

    def _three_of_one_deck(self, small_view, r, angle):
        results = np.zeros(small_view.n, dtype=bool)
        results[r[2]] = True
        cands = (Candidate(row=r[0], section="Case Studies", score=0.9), Candidate(row=r[1], section="Other", score=0.8),
                 Candidate(row=r[2], section="Case Studies", score=0.5), Candidate(row=r[3], section="Other", score=0.1))
        out = GlobalDeckCap(small_view.canonical_decks, 2, results).run(_state((angle,), distinct=cands))
        return [c.row for c in out.deck_capped]

    def test_a_results_brief_gives_the_decks_last_place_to_its_results_slide(self, small_view, r):
        assert self._three_of_one_deck(small_view, r, "fraud analytics case study") == [r[0], r[2], r[3]]

    def test_a_brief_that_wants_no_results_keeps_the_best_scored_slides(self, small_view, r):
        assert self._three_of_one_deck(small_view, r, "fraud analytics") == [r[0], r[1], r[3]]

    def test_results_flags_must_cover_the_library(self, small_view):
        with pytest.raises(ValueError, match="results flags"):
            GlobalDeckCap(small_view.canonical_decks, 2, np.zeros(3, dtype=bool))
        with pytest.raises(ValueError, match="roles"):
            GlobalDeckCap(small_view.canonical_decks, 2, roles=["agenda"])

    def _agenda_third(self, small_view, r, angle):
        roles = [""] * small_view.n
        roles[r[2]] = "agenda"
        cands = (Candidate(row=r[0], section="Other", score=0.9), Candidate(row=r[1], section="Other", score=0.8),
                 Candidate(row=r[2], section="Other", score=0.05), Candidate(row=r[3], section="Other", score=0.1))
        out = GlobalDeckCap(small_view.canonical_decks, 2, roles=roles).run(_state((angle,), distinct=cands))
        return [c.row for c in out.deck_capped]

    def test_a_brief_asking_for_a_role_keeps_a_place_for_the_decks_slide_of_that_role(self, small_view, r):
        # realdecks "agenda slide": a deck's conclusion and problem statement outscored its "Table of contents" on
        # the brief's two words and took both of the deck's places.
        assert self._agenda_third(small_view, r, "agenda slide") == [r[0], r[3], r[2]]  # in score order
        assert self._agenda_third(small_view, r, "fraud analytics") == [r[0], r[1], r[3]]


class TestRelevanceFloor:
    def test_drops_everything_below_the_share_of_the_best(self):
        out = RelevanceFloor(0.15).run(_state(deck_capped=_cands([1.0, 0.2, 0.149, 0.15])))
        assert [c.score for c in out.floored] == [1.0, 0.2, 0.15]

    def test_a_slide_that_took_a_decks_place_is_measured_by_that_place(self):
        replaced = Candidate(row=1, section="x", score=0.8)
        results = Candidate(row=2, section="x", score=0.5)
        cands = (Candidate(row=0, section="x", score=1.0), results, results.evolve(row=3, took_place_of=replaced))
        assert [c.row for c in RelevanceFloor(0.68).run(_state(deck_capped=cands)).floored] == [0, 3]

    def test_each_angle_is_floored_against_its_own_best(self):
        cands = (Candidate(row=0, section="x", score=1.0, angle=0), Candidate(row=1, section="x", score=0.3, angle=1),
                 Candidate(row=2, section="x", score=0.2, angle=1), Candidate(row=3, section="x", score=0.1, angle=0))
        state = _state(("a", "b"), deck_capped=cands)
        assert [c.row for c in RelevanceFloor(0.5).run(state).floored] == [0, 1, 2]

    def test_entity_free_floor_keeps_the_answer_under_one_named_slide(self):
        # A named slide's x1.5 ranks it first; measured against its lifted score the others were cut.
        cands = (Candidate(row=0, section="x", score=1.5, entity=1.5), Candidate(row=1, section="x", score=0.8),
                 Candidate(row=2, section="x", score=0.5))
        state = _state(deck_capped=cands)
        assert [c.row for c in RelevanceFloor(0.65).run(state).floored] == [0]
        assert [c.row for c in RelevanceFloor(0.65, entity_free=True).run(state).floored] == [0, 1]

    def test_a_slide_of_the_role_the_brief_asks_for_is_kept_by_its_kind(self):
        # "agenda slide": every agenda is an answer, however far its few words fall below the best one's.
        view = SimpleNamespace(roles=["agenda", "", "agenda", "cover"])
        cands = _cands([1.0, 0.9, 0.3, 0.2])
        floored = RelevanceFloor(0.66, view=view).run(_state(("agenda slide",), deck_capped=cands)).floored
        assert [c.row for c in floored] == [0, 1, 2]
        other = RelevanceFloor(0.66, view=view).run(_state(("pricing slide",), deck_capped=cands)).floored
        assert [c.row for c in other] == [0, 1]

    def test_a_cover_the_brief_did_not_ask_for_does_not_set_the_bar(self):
        # A cover naming the client outscored every content slide: measured against it, only covers were kept,
        # and 13 / 14b show no cover, so the brief got no card at all (realdecks q43 with the role cut off).
        view = SimpleNamespace(roles=["cover", "", "", "closing"])
        cands = _cands([1.5, 0.9, 0.7, 0.2])
        assert [c.row for c in RelevanceFloor(0.66).run(_state(deck_capped=cands)).floored] == [0]  # no view: as before
        assert [c.row for c in RelevanceFloor(0.66, view=view).run(_state(deck_capped=cands)).floored] == [0, 1, 2]
        # Only role slides: the best of them is still kept (never empty).
        only = RelevanceFloor(0.66, view=SimpleNamespace(roles=["cover", "closing"])).run(
            _state(deck_capped=_cands([1.0, 0.1])))
        assert [c.row for c in only.floored] == [0]

    def test_never_empties_a_nonempty_list(self):
        out = RelevanceFloor(0.99).run(_state(deck_capped=_cands([1e-9])))
        assert len(out.floored) == 1

    def test_rejects_a_share_outside_zero_to_one(self):
        with pytest.raises(ValueError):
            RelevanceFloor(1.0)
        with pytest.raises(ValueError):
            RelevanceFloor(0.5, cosine_share=1.0)

    def test_cosine_share_drops_a_high_scoring_slide_far_from_the_query(self):
        cands = (Candidate(row=0, section="x", score=1.0, cosine=0.60, angle=0),
                 Candidate(row=1, section="x", score=0.9, cosine=0.30, angle=0),
                 Candidate(row=2, section="x", score=0.8, cosine=0.50, angle=0))
        state = _state(deck_capped=cands)
        assert [c.row for c in RelevanceFloor(0.5, cosine_share=0.8).run(state).floored] == [0, 2]
        assert [c.row for c in RelevanceFloor(0.5).run(state).floored] == [0, 1, 2]

    def test_a_slide_holding_a_literal_entity_term_is_exempt_from_the_cosine_share(self):
        cands = (Candidate(row=0, section="x", score=1.0, cosine=0.60, angle=0),
                 Candidate(row=1, section="x", score=0.9, cosine=0.10, angle=0))
        state = _state(deck_capped=cands, entity_rows=frozenset({1}))
        assert [c.row for c in RelevanceFloor(0.5, cosine_share=0.8).run(state).floored] == [0, 1]

    def test_the_best_scoring_slide_survives_a_cosine_share_it_misses(self):
        cands = (Candidate(row=0, section="x", score=1.0, cosine=0.20, angle=0),
                 Candidate(row=1, section="x", score=0.1, cosine=0.60, angle=0))
        state = _state(deck_capped=cands)
        assert [c.row for c in RelevanceFloor(0.5, cosine_share=0.8).run(state).floored] == [0]

    def test_without_a_cosine_share_a_negative_cosine_costs_nothing(self):
        cands = (Candidate(row=0, section="x", score=1.0, cosine=0.5, angle=0),
                 Candidate(row=1, section="x", score=0.9, cosine=-0.05, angle=0))
        state = _state(deck_capped=cands)
        assert [c.row for c in RelevanceFloor(0.5).run(state).floored] == [0, 1]

    def test_cosine_share_is_per_angle(self):
        cands = (Candidate(row=0, section="x", score=1.0, cosine=0.70, angle=0),
                 Candidate(row=1, section="x", score=0.9, cosine=0.35, angle=1),
                 Candidate(row=2, section="x", score=0.9, cosine=0.30, angle=1))
        state = _state(("a", "b"), deck_capped=cands)
        assert [c.row for c in RelevanceFloor(0.5, cosine_share=0.8).run(state).floored] == [0, 1, 2]


class TestGroupSections:
    def _group(self, view, angles, answer_sections, cands, named=()):
        state = _state(angles, sections=SectionChoice(answer=tuple(answer_sections)), floored=cands,
                       entity_rows=frozenset(named))
        return GroupSections(view.section_table, view.canonical_decks, 2).run(state)

    def test_only_answer_sections_get_headings_with_two_slides_per_deck(self, small_view, r):
        cands = (*(Candidate(row=r[i], section="Case Studies", score=s) for i, s in enumerate([0.9, 0.8, 0.7, 0.6])),
                 Candidate(row=r[4], section="Other", score=0.95))
        out = self._group(small_view, ("q",), ("Case Studies",), cands)
        assert list(out.grouped) == ["Case Studies"]
        assert [c.row for c in out.grouped["Case Studies"]] == [r[0], r[1], r[3]]

    def test_when_no_candidate_is_in_an_answer_section_their_own_sections_are_shown(self, small_view, r):
        out = self._group(small_view, ("q",), ("Case Studies",), (Candidate(row=r[0], section="Other", score=1.0),))
        assert [c.row for c in out.grouped["Other"]] == [r[0]]
        assert out.notes

    def test_a_named_cover_does_not_wait_for_a_slot_it_cannot_have(self, small_view, r):
        # 14b never places a role slide: when the only named candidate is a cover, the candidates' own sections
        # are headed as for any brief, instead of leaving the answer empty for a slot that never comes.
        cands = (Candidate(row=r[0], section="Other", score=1.0), Candidate(row=r[4], section="Other", score=0.5))
        state = _state(("q",), sections=SectionChoice(answer=("Case Studies",)), floored=cands,
                       entity_rows=frozenset({r[0]}))
        roles = [""] * small_view.n
        plain = GroupSections(small_view.section_table, small_view.canonical_decks, 2,
                              view=SimpleNamespace(roles=roles)).run(state)
        assert not any(plain.grouped.values())  # a named content slide: 14b will place it
        roles[r[0]] = "cover"
        covered = GroupSections(small_view.section_table, small_view.canonical_decks, 2,
                                view=SimpleNamespace(roles=roles)).run(state)
        assert [c.row for c in covered.grouped["Other"]] == [r[0], r[4]]

    def test_a_section_holding_one_of_the_best_cards_gets_a_heading(self, small_view, r):
        cands = (Candidate(row=r[3], section="Case Studies", score=0.8),
                 Candidate(row=r[4], section="Capabilities & Overview", score=0.95),
                 Candidate(row=r[5], section="Team & Credentials", score=0.5))
        state = _state(("q",), sections=SectionChoice(answer=("Case Studies",)), floored=cands)
        opened = GroupSections(small_view.section_table, small_view.canonical_decks, 2, open_rank=2).run(state)
        assert {s: [c.row for c in cards] for s, cards in opened.grouped.items()} == {
            "Case Studies": [r[3]], "Capabilities & Overview": [r[4]]}  # Team's card is not among the best 2
        off = GroupSections(small_view.section_table, small_view.canonical_decks, 2).run(state)
        assert list(off.grouped) == ["Case Studies"]

    def test_a_carved_out_section_is_never_opened(self, small_view, r):
        cands = (Candidate(row=r[3], section="Case Studies", score=0.8),
                 Candidate(row=r[4], section="Capabilities & Overview", score=0.95))
        state = _state(("q",), sections=SectionChoice(answer=("Case Studies",)), floored=cands,
                       excluded=frozenset({"Capabilities & Overview"}))
        out = GroupSections(small_view.section_table, small_view.canonical_decks, 2, open_rank=5).run(state)
        assert list(out.grouped) == ["Case Studies"]

    @pytest.mark.parametrize("section", ["Other", "Team & Credentials"])
    def test_only_a_topical_section_is_opened(self, small_view, r, section):
        # A thank-you slide naming the person asked about must not lead "Chloe Desrosiers bio" under Other.
        assert section not in small_view.section_table.topical
        cands = (Candidate(row=r[3], section="Case Studies", score=0.8), Candidate(row=r[4], section=section, score=0.95))
        state = _state(("q",), sections=SectionChoice(answer=("Case Studies",)), floored=cands)
        out = GroupSections(small_view.section_table, small_view.canonical_decks, 2, open_rank=5).run(state)
        assert list(out.grouped) == ["Case Studies"]

    def test_each_angle_of_a_brief_opens_a_heading_for_its_own_best_cards(self, small_view, r):
        # "Tomas Oyelaran profile; commercial terms and pricing summary": the bios outscore every pricing
        # slide, so the answer's best two are both the profile's; the second angle's best still gets its heading.
        cands = (Candidate(row=r[3], section="Team & Credentials", score=1.2, angle=0),
                 Candidate(row=r[4], section="Team & Credentials", score=1.1, angle=0),
                 Candidate(row=r[5], section="Capabilities & Overview", score=0.7, angle=1),
                 Candidate(row=r[6], section="Commercial & Contract Terms", score=0.6, angle=1))
        state = _state(("Tomas Oyelaran profile", "commercial terms and pricing summary"),
                       sections=SectionChoice(answer=("Team & Credentials", "Commercial & Contract Terms")),
                       floored=cands)
        out = GroupSections(small_view.section_table, small_view.canonical_decks, 2, open_rank=1).run(state)
        assert "Capabilities & Overview" in out.grouped and [c.row for c in out.grouped["Capabilities & Overview"]] == [r[5]]
        one_angle = _state(("q",), sections=state.sections, floored=cands)
        out = GroupSections(small_view.section_table, small_view.canonical_decks, 2, open_rank=1).run(one_angle)
        assert "Capabilities & Overview" not in out.grouped

    def test_a_negative_heading_rank_is_refused(self, small_view):
        with pytest.raises(ValueError, match="heading rank"):
            GroupSections(small_view.section_table, small_view.canonical_decks, 2, open_rank=-1)

    def _grouped_then_slotted(self, view, r, angles, answer_sections, cands, named):
        """13 then 14b, with 13's groups handed to 14b as they are (no verified blend, gate or caps between)."""
        cands = tuple(c.evolve(row=r[c.row]) for c in cands)
        grouped = self._group(view, angles, answer_sections, cands, [r[n] for n in named])
        out = EntitySlot(view).run(replace(grouped, scored=cands, capped=grouped.grouped))
        back = {row: n for n, row in enumerate(r)}
        return {s: [back[c.row] for c in cards] for s, cards in out.slotted.items() if cards}, out.notes

    def test_an_angle_with_no_headed_slide_gets_its_own_sections_holding_only_its_slides(self, small_view, r):
        cands = (Candidate(row=3, section="Team & Credentials", score=0.9, angle=0),
                 Candidate(row=4, section="Capabilities & Overview", score=0.8, angle=0),
                 Candidate(row=5, section="Capabilities & Overview", score=0.7, angle=1))
        groups, notes = self._grouped_then_slotted(small_view, r, ("our team", "pricing"), ("Team & Credentials",),
                                                   cands, ())
        assert groups == {"Capabilities & Overview": [5], "Team & Credentials": [3]}
        assert any('"pricing"' in note and '"our team"' not in note for note in notes)

    def test_no_extra_heading_when_every_angle_has_a_headed_slide(self, small_view, r):
        cands = (Candidate(row=3, section="Team & Credentials", score=0.9, angle=0),
                 Candidate(row=4, section="Capabilities & Overview", score=0.8, angle=1),
                 Candidate(row=5, section="Team & Credentials", score=0.7, angle=1))
        groups, notes = self._grouped_then_slotted(small_view, r, ("a", "b"), ("Team & Credentials",), cands, ())
        assert list(groups) == ["Team & Credentials"] and not notes

    def test_an_angle_of_named_slides_only_is_left_to_the_guaranteed_slot(self, small_view, r):
        cands = (Candidate(row=3, section="Team & Credentials", score=0.9, angle=0),
                 Candidate(row=5, section="Other", score=0.7, angle=1))
        groups, notes = self._grouped_then_slotted(small_view, r, ("a", "acme"), ("Team & Credentials",), cands, {5})
        assert groups == {"Team & Credentials": [3, 5]} and not notes

    def test_an_angle_is_not_left_to_the_slot_when_a_headed_slide_already_holds_a_name(self, small_view, r):
        # 14b does nothing when the top section holds a named slide, so the second angle needs its own heading.
        cands = (Candidate(row=1, section="Case Studies", score=0.9, angle=0),
                 Candidate(row=2, section="Capabilities & Overview", score=0.6, angle=1))
        groups, notes = self._grouped_then_slotted(small_view, r, ("acme case studies", "pricing"), ("Case Studies",),
                                                   cands, {1, 2})
        assert groups == {"Case Studies": [1], "Capabilities & Overview": [2]} and '"pricing"' in notes[-1]

    def test_an_angle_with_a_named_and_an_unnamed_slide_is_shown(self, small_view, r):
        cands = (Candidate(row=1, section="Case Studies", score=0.9, angle=0),
                 Candidate(row=2, section="Commercial & Contract Terms", score=0.6, angle=1),
                 Candidate(row=3, section="Capabilities & Overview", score=0.5, angle=1))
        groups, _ = self._grouped_then_slotted(small_view, r, ("acme case studies", "blackrock pricing"),
                                               ("Case Studies",), cands, {1, 2})
        assert groups == {"Case Studies": [1], "Capabilities & Overview": [3], "Commercial & Contract Terms": [2]}

    def test_the_guaranteed_slot_goes_under_a_chosen_heading_not_one_opened_for_another_angle(self, small_view, r):
        cands = (Candidate(row=1, section="Other", score=0.9, angle=0),
                 Candidate(row=2, section="Capabilities & Overview", score=0.6, angle=1))
        groups, _ = self._grouped_then_slotted(small_view, r, ("blackrock", "data platform"),
                                               ("Team & Credentials", "Case Studies"), cands, {1})
        assert groups == {"Case Studies": [1], "Capabilities & Overview": [2]}


class TestCaps:
    def test_section_cap_then_global_cap_keeps_the_globally_best(self):
        groups = {"Case Studies": _cands([0.9 - i * 0.01 for i in range(20)]),
                  "Other": _cands([0.5 - i * 0.01 for i in range(20)], "Other")}
        out = Caps(15, 20).run(_state(quantified=groups))
        assert len(out.capped["Case Studies"]) == 15 and len(out.capped["Other"]) == 5
        assert min(c.score for c in out.capped["Case Studies"]) > max(c.score for c in out.capped["Other"])

    def test_each_angle_keeps_its_best_cards_up_to_the_angle_cap(self):
        first = tuple(c.evolve(angle=0) for c in _cands([0.9 - i * 0.01 for i in range(12)]))
        second = tuple(c.evolve(angle=1, row=100 + c.row) for c in _cands([0.3, 0.2, 0.1], "Other"))
        out = Caps(15, 50, angle_cap=10).run(_state(("a", "b"), quantified={"Case Studies": first, "Other": second}))
        assert [c.score for c in out.capped["Case Studies"]] == [c.score for c in first[:10]]
        assert out.capped["Other"] == second

    def test_case_studies_the_gate_dropped_free_no_room_for_another_section(self):
        # Spec 13: the quantified gate leaves the other sections untouched, so the caps are measured on the
        # ungated answer; measured on the gated one, the three dropped case studies let three "Other" cards in.
        cases = _cands([0.9, 0.8, 0.7, 0.6])
        other = tuple(c.evolve(row=100 + c.row) for c in _cands([0.5, 0.4, 0.3, 0.2], "Other"))
        blended = {"Case Studies": cases, "Other": other}
        gated = {"Case Studies": cases[:1], "Other": other}
        out = Caps(15, 5).run(_state(blended=blended, quantified=gated))
        assert out.capped == {"Case Studies": cases[:1], "Other": other[:1]}
        measured_on_gated = Caps(15, 5).run(_state(quantified=gated))
        assert measured_on_gated.capped["Other"] == other

    def test_top_per_group_below_the_cap_wins(self):
        out = Caps(15, 50).run(_state(top_per_group=2, quantified={"Other": _cands([3, 2, 1])}))
        assert len(out.capped["Other"]) == 2

    def test_top_per_group_above_the_cap_is_held_at_the_cap(self):
        out = Caps(15, 50).run(_state(top_per_group=99, quantified={"Other": _cands([1] * 30)}))
        assert len(out.capped["Other"]) == 15
        assert out.notes == ("a section shows at most 15 cards; 99 per section were asked for",)

    def test_no_cap_note_when_nothing_was_cut_by_it(self):
        out = Caps(15, 50).run(_state(top_per_group=99, quantified={"Other": _cands([1] * 5)}))
        assert len(out.capped["Other"]) == 5 and out.notes == ()


class TestOrderSections:
    def test_sections_by_best_score_and_empty_ones_last(self):
        groups = {"Case Studies": _cands([0.2]), "Other": (), "Data & Analytics": _cands([0.1, 0.9])}
        out = OrderSections(DEFAULT_SECTIONS).run(_state(slotted=groups))
        assert list(out.groups) == ["Data & Analytics", "Case Studies", "Other"]
        assert [c.score for c in out.groups["Data & Analytics"]] == [0.9, 0.1]
