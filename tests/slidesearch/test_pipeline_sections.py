from dataclasses import replace

import numpy as np
import pytest

from llm_adapters import FakeModel, LLMError, OfflineModel
from slidesearch.config import SearchConfig
from slidesearch.library import LibraryView
from slidesearch.model import Slide, VerifiedCaseStudy
from slidesearch.pipeline.answer.master import MasterBlend
from slidesearch.pipeline.answer.quantified import DemandReply, QuantifiedGate, demanded_kinds, states_figure
from slidesearch.pipeline.answer.slot import EntitySlot
from slidesearch.pipeline.state import Candidate, LLMStep, SearchState

CS = "Case Studies"
CONFIG = SearchConfig()


def _state(query="q", **fields):
    return SearchState(query=(query,), angles=(query,), **fields)


class TestMasterBlend:
    def _run(self, vector_library, groups, sims=(0.9, 0.6, 0.2), universes=None, row_universes=None):
        master = [VerifiedCaseStudy(row_id=str(i), client="c", title=f"t{i}",
                                    universe=row_universes[i] if row_universes else None) for i in range(len(sims))]
        master_vectors = [[s, np.sqrt(1 - s * s)] for s in sims]
        slides = [Slide(slide_id=f"s{i}", deck_id=f"d{i}", folder=f"/{u}", title=f"slide {i}")
                  for i, u in enumerate(("DAAIS", "DAAIS", "EdTech"))]
        library = vector_library(slides, [[0.0, 1.0]] * 3, master, master_vectors)
        blend = MasterBlend(LibraryView(library), CONFIG.section_cap, CONFIG.master_min_similarity, CONFIG.master_decay)
        state = _state(grouped=groups, universes=universes, query_vectors=np.array([[1.0, 0.0]], dtype=np.float32))
        return blend.run(state)

    def test_verified_rows_sit_strictly_below_the_weakest_real_case_study(self, vector_library):
        real = (Candidate(row=0, section=CS, score=0.5), Candidate(row=1, section=CS, score=0.3))
        out = self._run(vector_library, {CS: real, "Other": (Candidate(row=2, section="Other", score=0.01),)})
        cards = out.blended[CS]
        assert cards[:2] == real
        verified = cards[2:]
        assert [c.master for c in verified] == [0, 1]  # cosine 0.2 is under the cutoff
        assert all(c.verified and c.score < 0.3 for c in verified)
        assert verified[0].score > verified[1].score
        assert verified[0].similarity == pytest.approx(0.9)

    def test_no_case_studies_heading_means_no_blend(self, vector_library):
        out = self._run(vector_library, {"Other": (Candidate(row=0, section="Other", score=1.0),)})
        assert list(out.blended) == ["Other"]

    def test_empty_case_studies_take_the_weakest_card_in_the_response_as_base(self, vector_library):
        out = self._run(vector_library, {CS: (), "Other": (Candidate(row=0, section="Other", score=0.4),)})
        assert out.blended[CS] and all(c.score < 0.4 for c in out.blended[CS])

    def test_a_scoped_search_blends_rows_of_its_universe_and_company_wide_ones_only(self, vector_library):
        real = (Candidate(row=0, section=CS, score=0.5),)
        out = self._run(vector_library, {CS: real}, universes=("DAAIS",), row_universes=("EdTech", "DAAIS", None),
                        sims=(0.9, 0.8, 0.7))
        assert [c.master for c in out.blended[CS][1:]] == [1, 2]


class TestQuantifiedGate:
    def test_demand_patterns(self):
        assert demanded_kinds("quantified ROI proof points... dollar savings, FTE reduction") == ("dollar", "fte")
        assert demanded_kinds("case studies with % improvement") == ("percent",)
        assert demanded_kinds("cost reduction case studies") == ()

    def test_row_patterns(self):
        assert states_figure("saved $4.5M a year", ("dollar",))
        assert states_figure("cut handling time by 23%", ("percent",))
        assert states_figure("released 40 FTEs", ("fte",))
        assert not states_figure("1.6ktCO2 emissions reduction by cloud migration", ("dollar", "percent", "fte"))

    @pytest.fixture
    def co2_claims(self, rows):
        """A case study stating only a CO2 figure, then one stating dollars and FTEs."""
        return rows("cs-emissions", "cs-claims")

    def _state(self, query, first, second):
        groups = {CS: (Candidate(row=first, section=CS, score=0.9), Candidate(row=second, section=CS, score=0.8)),
                  "Approach & Methodology": (Candidate(row=second, section="Approach & Methodology", score=0.7),)}
        return _state(query, blended=groups)

    def test_drops_the_co2_only_case_study_from_case_studies_only(self, small_view, co2_claims):
        gate = QuantifiedGate(small_view, OfflineModel())
        out = gate.run(self._state("ROI proof points: dollar savings, FTE", *co2_claims))
        claims = co2_claims[1]
        assert [c.row for c in out.quantified[CS]] == [claims]
        assert [c.row for c in out.quantified["Approach & Methodology"]] == [claims]
        assert out.quantified_demand == ("dollar", "fte")
        assert out.llm_steps["quantified"] == LLMStep(("offline",))

    def test_no_demand_is_a_no_op(self, small_view, co2_claims):
        state = self._state("cloud migration case studies", *co2_claims)
        out = QuantifiedGate(small_view, OfflineModel()).run(state)
        assert out.quantified == state.blended and out.quantified_demand == ()

    def test_llm_demand_is_used_and_failure_falls_back_to_the_pattern(self, small_view, rows, co2_claims):
        percent, dollars = rows("cs-retail", "cs-claims")  # "sales up 12%", "saved $2M and 30 FTEs"
        model = FakeModel([DemandReply(dollar=False, percent=True, fte=False)])
        out = QuantifiedGate(small_view, model).run(self._state("proof points", percent, dollars))
        assert [c.row for c in out.quantified[CS]] == [percent] and out.llm_steps["quantified"] == LLMStep(("llm",))
        failing = QuantifiedGate(small_view, FakeModel([LLMError("x")]))
        assert failing.run(self._state("dollar savings", *co2_claims)).llm_steps["quantified"] == LLMStep(("offline",))

    def test_gate_never_empties_the_response(self, small_view, co2_claims):
        state = _state("dollar savings", blended={CS: (Candidate(row=co2_claims[0], section=CS, score=1.0),)})
        out = QuantifiedGate(small_view, OfflineModel()).run(state)
        assert out.quantified[CS] and out.notes


class TestEntitySlot:
    def test_splices_the_best_literal_match_into_the_asked_section(self, small_view, rows):
        named, other = rows("blackrock", "acme-case")
        match = Candidate(row=named, section="Capabilities & Overview", score=0.2)
        capped = {CS: (Candidate(row=other, section=CS, score=0.9),), "Capabilities & Overview": (match,)}
        state = _state("blackrock case studies", capped=capped, entity_rows=frozenset({named}),
                       scored=(Candidate(row=other, section=CS, score=0.9), match))
        out = EntitySlot(small_view).run(state)
        assert [c.row for c in out.slotted[CS]] == [other, named]
        assert out.slotted[CS][1].guaranteed and out.slotted[CS][1].section == CS
        assert out.slotted["Capabilities & Overview"] == ()

    def test_no_splice_when_a_match_is_already_there(self, small_view, rows):
        (named,) = rows("blackrock")
        capped = {CS: (Candidate(row=named, section=CS, score=0.9),)}
        state = _state("blackrock case studies", capped=capped, entity_rows=frozenset({named}), scored=capped[CS])
        assert EntitySlot(small_view).run(state) == replace(state, slotted=capped)

    def test_no_splice_from_an_excluded_section(self, small_view, rows):
        named, other = rows("blackrock", "acme-case")
        match = Candidate(row=named, section=CS, score=0.2)
        state = _state("blackrock without case studies", excluded=frozenset({CS}),
                       capped={"Other": (Candidate(row=other, section="Other", score=0.9),)},
                       entity_rows=frozenset({named}), scored=(match,))
        assert EntitySlot(small_view).run(state) == replace(state, slotted=state.capped)

    def test_a_match_the_quantified_gate_would_refuse_is_not_spliced_into_case_studies(self, small_view, rows):
        named, claims = rows("blackrock", "cs-claims")  # the BlackRock slide states no dollar figure
        capped = {CS: (Candidate(row=claims, section=CS, score=0.9),)}
        state = _state("blackrock case studies with dollar savings", capped=capped, entity_rows=frozenset({named}),
                       quantified_demand=("dollar",),
                       scored=(*capped[CS], Candidate(row=named, section="Capabilities & Overview", score=0.2)))
        assert EntitySlot(small_view).run(state).slotted == capped
