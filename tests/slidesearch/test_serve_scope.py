"""A scoped server is indistinguishable from a library that holds only its universes (#18 case 9).

Two servers scoped to S&R: one over the whole serving corpus, one over a library built from the S&R
slides (and the master rows S&R may show) alone. Every response, every error and every count they
give must be the same.
"""

import pytest
import serve_corpus
from fastapi.testclient import TestClient

from slidesearch.engine import SlideSearch
from slidesearch.library import Library
from slidesearch.model import VerifiedCaseStudy
from slidesearch.serve.http_api import create_app
from slidesearch.serve.service import ServiceError, SlideService

SCOPE = ["S&R"]
#: A master row of another universe whose client a S&R query names: a leak if it is detected.
DAAIS_ROW = VerifiedCaseStudy(row_id="m2", client="Northwind", use_case="Fraud detection", universe="DAAIS",
                              title="Fraud detection at Northwind", summary="Northwind cut card fraud by 40%.")
MASTER = [*serve_corpus.SERVE_MASTER, DAAIS_ROW]
QUERIES = [
    "fraud detection",                      # words only DAAIS holds: the coverage note
    "Northwind capital call automation",    # a client only a DAAIS master row names
    "customer analytics",                   # words in every universe: expansion, rarity, ranking
    ["investor reporting", "learning analytics dashboards"],
    "Anand S profile",                      # a person named only in DAAIS
    "capital call",
]


@pytest.fixture(scope="module")
def servers() -> tuple[SlideService, SlideService]:
    whole = Library.from_slides(serve_corpus.SERVE_SLIDES, MASTER, embedder="fast")
    alone = Library.from_slides([s for s in serve_corpus.SERVE_SLIDES if s.universe in SCOPE],
                                [m for m in MASTER if m.universe is None or m.universe in SCOPE], embedder="fast")
    return SlideService(SlideSearch(whole), scope=SCOPE), SlideService(SlideSearch(alone), scope=SCOPE)


def _refusal(call) -> str:
    with pytest.raises(ServiceError) as refused:
        call()
    return str(refused.value)


class TestScopedServerIsItsUniversesAlone:
    @pytest.mark.parametrize("query", QUERIES, ids=str)
    def test_every_field_of_a_search_is_the_scoped_librarys(self, servers, query):
        scoped, alone = servers
        response = scoped.search(query, channel="test")
        assert response.model_dump(mode="json") == alone.search(query, channel="test").model_dump(mode="json")
        assert "other universes" not in (response.coverage_note or "") and response.client != "Northwind"

    def test_explanations_are_the_scoped_librarys(self, servers):
        scoped, alone = servers
        ids = [card.id for card in alone.search("customer analytics", channel="test").cards()]
        assert scoped.explain("customer analytics", ids, channel="test") == alone.explain(
            "customer analytics", ids, channel="test")

    @pytest.mark.parametrize("call", [
        lambda s: s.search("analytics", ["DAAIS"], channel="test"),
        lambda s: s.search("analytics", ["Pharma"], channel="test"),
        lambda s: s.search("analytics", ["S&R", "EdTech"], channel="test"),
        lambda s: s.explain("analytics", ["s1", "d1", "no-such-slide"], channel="test"),
        lambda s: s.explain("analytics", ["verified:m2"], channel="test"),
        lambda s: s.assemble(["d1", "s1"], channel="test"),
        lambda s: s.assemble(query="fraud detection", sections=["Case Studies"], universes=["DAAIS"], channel="test"),
    ], ids=["other-universe", "typo", "one-of-each", "other-ids", "other-master-row", "assemble-ids",
            "assemble-query"])
    def test_errors_do_not_tell_other_universes_from_nothing(self, servers, call):
        scoped, alone = servers
        message = _refusal(lambda: call(scoped))
        assert message == _refusal(lambda: call(alone))
        assert "DAAIS" not in message.split(";")[-1] and "EdTech" not in message.split(";")[-1]

    def test_health_stats_and_universes_count_the_scope_only(self, servers):
        answers = []
        for service in servers:
            with TestClient(create_app(service)) as client:
                stats = client.get("/stats").json()
                del stats["served"]  # this process's own counters and latencies, not the library's
                answers.append((client.get("/health").json(), stats, client.get("/universes").json()))
        (health, stats, universes), alone = answers
        assert (health, stats, universes) == alone
        assert health["slides"] == 4 and stats["library"]["verified_case_studies"] == 1
        assert universes == {"universes": ["S&R"]}


class TestLibraryWithin:
    def test_within_equals_a_library_built_from_the_scope_alone(self, servers):
        (scoped, alone) = (service.library for service in servers)
        assert scoped.ids == alone.ids and scoped.universes == alone.universes
        assert (scoped.vectors == alone.vectors).all() and scoped.sections.tolist() == alone.sections.tolist()
        assert scoped.taxonomy == alone.taxonomy and scoped.clusters == alone.clusters
        assert (scoped.taxonomy_vectors == alone.taxonomy_vectors).all()
        assert scoped.rarity.n_docs == alone.rarity.n_docs and dict(scoped.rarity.words) == dict(alone.rarity.words)
        assert [m.card_id for m in scoped.master] == ["verified:m1"]

    def test_a_scope_of_everything_is_the_library_itself(self):
        library = serve_corpus.build_library()
        assert library.within(["DAAIS", "S&R", "EdTech"]) is library
