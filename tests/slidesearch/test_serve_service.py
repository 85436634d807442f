"""The serving layer's shared service, on the serving corpus (tests/serve_corpus.py)."""

import pytest
from serve_corpus import build_library

from slidesearch.engine import SlideSearch
from slidesearch.serve.service import ServiceError, SlideService
from slidesearch.serve.usage_log import UsageLog


@pytest.fixture(scope="module")
def engine() -> SlideSearch:
    return SlideSearch(build_library())


@pytest.fixture()
def log(tmp_path) -> UsageLog:
    return UsageLog(tmp_path / "library.db")


def _ids(response) -> list[str]:
    return [card.id for card in response.cards()]


def _universe(engine, slide_id) -> str:
    return engine.library.universes[engine.library.id_to_row[slide_id]]


class TestScope:
    def test_unscoped_request_searches_everything_it_asks_for(self, engine):
        service = SlideService(engine)
        assert service.universes_for(None) is None
        assert service.universes_for(["daais", "EdTech"]) == ["DAAIS", "EdTech"]

    def test_a_request_narrows_the_scope(self, engine):
        service = SlideService(engine, scope=["EdTech", "S&R"])
        assert service.universes_for(None) == ["EdTech", "S&R"]
        assert service.universes_for(["s&r"]) == ["S&R"]

    def test_a_universe_outside_the_scope_is_unknown_like_a_typo_never_widened(self, engine):
        service = SlideService(engine, scope=["EdTech", "S&R"])
        for asked in (["DAAIS"], ["DAAIS", "EdTech"], ["Pharma"]):
            with pytest.raises(ServiceError) as refused:
                service.universes_for(asked)
            assert str(refused.value) == (f"unknown universe(s) in universes: {asked[0]}; "
                                          "the library has EdTech, S&R")

    def test_unknown_universe_lists_the_known_ones(self, engine):
        with pytest.raises(ServiceError, match="the library has DAAIS, EdTech, S&R"):
            SlideService(engine, scope=["Pharma"])

    def test_scoped_search_returns_only_in_scope_slides(self, engine):
        service = SlideService(engine, scope=["EdTech"])
        response = service.search("customer analytics", ["edtech"], channel="test")
        ids = _ids(response)
        assert ids and {_universe(engine, i) for i in ids if not i.startswith("verified:")} == {"EdTech"}
        assert response.universes == ["EdTech"]

    def test_why_this_reruns_the_query_in_the_scope_the_cards_were_found_in(self, engine):
        service = SlideService(engine, scope=["EdTech"])
        shown = _ids(service.search("capital call", channel="test"))  # unscoped, these EdTech cards are not shown
        assert shown
        explanations = service.explain("capital call", shown, channel="test")
        assert not any(e.explanation.startswith("Not among the results") for e in explanations)

    def test_cards_outside_the_scope_are_dropped_even_if_the_engine_returns_them(self, engine):
        class LeakyEngine(SlideSearch):
            def __init__(self):
                super().__init__(engine.library)

            def within(self, universes):
                return self  # an engine that ignores the scope it is given, to exercise the service's own guard

            def search_v2(self, query, universes=None, top_per_group=15):
                return engine.search_v2(query, None, top_per_group)

        service = SlideService(LeakyEngine(), scope=["S&R"])
        response = service.search("customer analytics", channel="test")
        assert _ids(response) and all(_universe(engine, i) == "S&R" for i in _ids(response) if i[0] != "v")
        assert service.stats()["served"]["out_of_scope_cards_dropped"] > 0

    def test_explain_refuses_out_of_scope_ids_as_unknown_ones(self, engine):
        service = SlideService(engine, scope=["EdTech"])
        with pytest.raises(ServiceError) as err:
            service.explain("customer analytics", ["e3", "d1", "zz"], channel="test")
        assert str(err.value) == "unknown slide ids: d1, zz"


class TestCalls:
    def test_search_is_the_engines_response(self, engine):
        service = SlideService(engine)
        served = service.search("customer analytics", channel="test")
        assert served == engine.search_v2("customer analytics")

    def test_search_and_explain_are_logged(self, engine, log):
        service = SlideService(engine, usage_log=log)
        response = service.search(["fraud detection", "regulatory compliance"], channel="http", session_id="s1")
        shown = _ids(response)[:3]
        explanations = service.explain(["fraud detection", "regulatory compliance"], shown, channel="http",
                                       session_id="s1")
        assert [e.slide_id for e in explanations] == shown
        (record,) = log.records()
        assert record.query == ["fraud detection", "regulatory compliance"] and record.slide_ids == _ids(response)
        assert record.explained_ids == shown and record.channel == "http" and record.latency_ms > 0

    def test_empty_queries_and_out_of_range_numbers_are_refused(self, engine):
        service = SlideService(engine)
        with pytest.raises(ServiceError, match="query is empty"):
            service.search(["  ", ""], channel="test")
        with pytest.raises(ServiceError, match="top_per_group must be between 1 and 50"):
            service.search("analytics", top_per_group=0, channel="test")
        with pytest.raises(ServiceError, match="max_slides must be between 1 and 200"):
            service.assemble(query="analytics", max_slides=201, channel="test")

    def test_an_oversized_query_is_searched_cut_with_a_note(self, engine):
        response = SlideService(engine).search("analytics " * 150, channel="test")
        assert any("first 1,000 characters" in note for note in response.notes)

    def test_verified_rows_can_be_explained(self, engine):
        service = SlideService(engine)
        (explanation,) = service.explain("fraud detection case study", ["verified:m1"], channel="test")
        assert explanation.slide_id == "verified:m1"

    def test_assemble_from_a_query_takes_the_named_sections(self, engine):
        service = SlideService(engine, scope=["DAAIS"])
        result = service.assemble(query="fraud detection case study", sections=["Case Studies"], max_slides=2,
                                  channel="test")
        assert [s.slide_id for s in result.slides] == ["d3", "verified:m1"]

    def test_assemble_refuses_out_of_scope_ids(self, engine):
        service = SlideService(engine, scope=["DAAIS"])
        with pytest.raises(ServiceError, match="^unknown slide ids: e1$"):
            service.assemble(["d1", "e1"], channel="test")

    def test_stats_count_the_scope_only(self, engine):
        stats = SlideService(engine, scope=["S&R"]).stats()
        assert stats["library"]["slides"] == 4 and stats["library"]["universes"] == {"S&R": 4}
        assert stats["scope"] == ["S&R"]
