from types import SimpleNamespace

import numpy as np

from llm_adapters import FakeModel, LLMError, OfflineModel
from slidesearch.config import SearchConfig
from slidesearch.model import VerifiedCaseStudy
from slidesearch.pipeline.entity_slot import EntitySlot
from slidesearch.pipeline.master import MasterBlend
from slidesearch.pipeline.quantified import DemandReply, QuantifiedGate, demanded_kinds, states_figure
from slidesearch.pipeline.state import Candidate, LLMStep, SearchState
from slidesearch.sections import DEFAULT_SECTIONS

CS = "Case Studies"


def _library(texts, master=(), master_vectors=None):
    return SimpleNamespace(titles=[""] * len(texts), snippets=list(texts), master=list(master),
                           master_vectors=master_vectors if master_vectors is not None else np.zeros((0, 2)))


def _context(library, model=None, **config):
    return SimpleNamespace(library=library, config=SearchConfig(**config), model=model or OfflineModel(),
                           section_table=DEFAULT_SECTIONS)


class TestMasterBlend:
    def _run(self, groups, sims=(0.9, 0.6, 0.2)):
        master = [VerifiedCaseStudy(row_id=str(i), client="c", title=f"t{i}") for i in range(len(sims))]
        vectors = np.array([[s, np.sqrt(1 - s * s)] for s in sims], dtype=np.float32)
        ctx = _context(_library([], master, vectors))
        state = SearchState(angles=("q",), groups=groups, query_vectors=np.array([[1.0, 0.0]], dtype=np.float32))
        return MasterBlend(ctx).run(state)

    def test_verified_rows_sit_strictly_below_the_weakest_real_case_study(self):
        real = (Candidate(row=0, section=CS, score=0.5), Candidate(row=1, section=CS, score=0.3))
        out = self._run({CS: real, "Other": (Candidate(row=2, section="Other", score=0.01),)})
        cards = out.groups[CS]
        assert cards[:2] == real
        verified = cards[2:]
        assert [c.master for c in verified] == [0, 1]  # cosine 0.2 is under the cutoff
        assert all(c.verified and c.score < 0.3 for c in verified)
        assert verified[0].score > verified[1].score

    def test_no_case_studies_heading_means_no_blend(self):
        out = self._run({"Other": (Candidate(row=0, section="Other", score=1.0),)})
        assert list(out.groups) == ["Other"]

    def test_empty_case_studies_take_the_weakest_card_in_the_response_as_base(self):
        out = self._run({CS: (), "Other": (Candidate(row=0, section="Other", score=0.4),)})
        assert all(c.score < 0.4 for c in out.groups[CS])


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

    def _state(self, query):
        groups = {CS: (Candidate(row=0, section=CS, score=0.9), Candidate(row=1, section=CS, score=0.8)),
                  "Approach & Methodology": (Candidate(row=1, section="Approach & Methodology", score=0.7),)}
        return SearchState(angles=(query,), groups=groups)

    def _library(self):
        return _library(["1.6ktCO2 emissions reduction by cloud migration", "saved $2M and 30 FTEs"])

    def test_drops_the_co2_only_case_study_from_case_studies_only(self):
        out = QuantifiedGate(_context(self._library())).run(self._state("ROI proof points: dollar savings, FTE"))
        assert [c.row for c in out.groups[CS]] == [1]
        assert [c.row for c in out.groups["Approach & Methodology"]] == [1]
        assert out.quantified_demand == ("dollar", "fte")
        assert out.llm_steps["quantified"] == LLMStep(("offline",))

    def test_no_demand_is_a_no_op(self):
        state = self._state("cloud migration case studies")
        out = QuantifiedGate(_context(self._library())).run(state)
        assert out.groups == state.groups

    def test_llm_demand_is_used_and_failure_falls_back_to_the_pattern(self):
        model = FakeModel([DemandReply(dollar=False, percent=True, fte=False)])
        out = QuantifiedGate(_context(_library(["up 12%", "saved $2M"]), model)).run(self._state("proof points"))
        assert [c.row for c in out.groups[CS]] == [0] and out.llm_steps["quantified"] == LLMStep(("llm",))
        failing = QuantifiedGate(_context(self._library(), FakeModel([LLMError("x")])))
        assert failing.run(self._state("dollar savings")).llm_steps["quantified"] == LLMStep(("offline",))

    def test_gate_never_empties_the_response(self):
        state = SearchState(angles=("dollar savings",), groups={CS: (Candidate(row=0, section=CS, score=1.0),)})
        out = QuantifiedGate(_context(self._library())).run(state)
        assert out.groups[CS] and out.notes


class TestEntitySlot:
    def _ctx(self, texts=("blackrock overview", "x", "y")):
        return _context(_library(list(texts)))

    def test_splices_the_best_literal_match_into_the_asked_section(self):
        match = Candidate(row=0, section="Capabilities & Overview", score=0.2)
        groups = {CS: (Candidate(row=1, section=CS, score=0.9),), "Capabilities & Overview": (match,)}
        state = SearchState(angles=("blackrock case studies",), groups=groups, entity_rows=frozenset({0}),
                            scored=(Candidate(row=1, section=CS, score=0.9), match))
        out = EntitySlot(self._ctx()).run(state)
        assert [c.row for c in out.groups[CS]] == [1, 0]
        assert out.groups[CS][1].guaranteed and out.groups[CS][1].section == CS
        assert out.groups["Capabilities & Overview"] == ()

    def test_no_splice_when_a_match_is_already_there(self):
        groups = {CS: (Candidate(row=0, section=CS, score=0.9),)}
        state = SearchState(angles=("blackrock case studies",), groups=groups, entity_rows=frozenset({0}),
                            scored=groups[CS])
        assert EntitySlot(self._ctx()).run(state) == state

    def test_no_splice_from_an_excluded_section(self):
        match = Candidate(row=0, section=CS, score=0.2)
        state = SearchState(angles=("blackrock without case studies",), excluded=frozenset({CS}),
                            groups={"Other": (Candidate(row=1, section="Other", score=0.9),)},
                            entity_rows=frozenset({0}), scored=(match,))
        assert EntitySlot(self._ctx()).run(state) == state
