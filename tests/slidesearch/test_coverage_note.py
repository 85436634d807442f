"""Stage 16 never names a word that a card of the answer states (issue #17: "$2.4M" beside "nothing uses 'dollar'")."""

from __future__ import annotations

from slidesearch.pipeline.answer.coverage import CoverageCheck, stated_in
from slidesearch.pipeline.state import Candidate, SearchState


def _master_index(view, row_id: str) -> int:
    return next(i for i, m in enumerate(view.master) if m.row_id == row_id)


class TestShownCardsCoverTheirWords:
    def test_a_word_only_a_verified_row_states_is_named_when_the_row_is_not_shown(self, small_view):
        state = CoverageCheck(small_view).run(SearchState(query="globex claims", angles=("globex claims",), groups={}))
        assert "globex" in (state.coverage_note or "")  # no slide holds it: the library-wide check names it

    def test_the_same_word_is_not_named_beside_the_verified_row_that_states_it(self, small_view):
        row = Candidate(master=_master_index(small_view, "M2"), section="Case Studies", verified=True)
        state = CoverageCheck(small_view).run(SearchState(query="globex claims", angles=("globex claims",),
                                                          groups={"Case Studies": (row,)}))
        assert "globex" not in (state.coverage_note or "")
        assert "globex" not in state.uncovered_terms


class TestStatedIn:
    def test_whole_words_stems_and_symbols(self):
        assert stated_in("churn", "reduced churn 18%", None)
        assert not stated_in("art", "a fresh start", None)
        assert stated_in("dollar", "worth $2.4m a year", None)
        assert stated_in("percent", "churn down 18%", None)

    def test_a_word_of_an_unspaced_script_is_stated_anywhere_in_the_text(self):
        assert stated_in("需要予測", "小売の需要予測モデル", None)


class TestAnAnswerThatStatesNoneOfTheBrief:
    """Every word of the brief is in the library, but on slides the answer does not show: the note says so."""

    def _run(self, view, rows, query: str, *shown_ids: str):
        cards = tuple(Candidate(row=r, section="Capabilities & Overview") for r in rows(*shown_ids))
        return CoverageCheck(view).run(SearchState(query=query, angles=(query,),
                                                   groups={"Capabilities & Overview": cards}))

    def test_cards_stating_none_of_its_words_get_a_note_naming_them(self, small_view, rows):
        state = self._run(small_view, rows, "fund retention", "pricing-terms", "cloud-workloads")
        assert state.coverage_note == ('no card shown uses "fund" or "retention"; '
                                       "showing the closest related material by meaning")
        assert state.uncovered_terms == ()  # the library holds both words: no gap in the library is claimed

    def test_one_card_stating_one_word_by_its_stem_is_enough(self, small_view, rows):
        # "... with NAV reconciliation": "reconciliations" is stated by its stem, so the answer is not by meaning alone.
        query = "reconciliations retention"
        assert self._run(small_view, rows, query, "pricing-terms", "cloud-workloads").coverage_note
        assert self._run(small_view, rows, query, "pricing-terms", "capital-reporting").coverage_note is None

    def test_no_card_no_note(self, small_view):
        state = CoverageCheck(small_view).run(SearchState(query="fund retention", angles=("fund retention",), groups={}))
        assert state.coverage_note is None

    def test_a_word_the_library_never_uses_keeps_the_library_note(self, small_view, rows):
        note = self._run(small_view, rows, "zeppelin retention", "pricing-terms").coverage_note or ""
        assert note.startswith('nothing in the library uses that exact wording ("zeppelin")')
