import pytest

from eval.config import SlidesConfig
from eval.dataset_types import LabelledQuery, SlidesDataset
from eval.slides_run import as_slides, default_engine, run_slides_dataset
from slidesearch.model import Slide, VerifiedCaseStudy

DOCS = [
    Slide(slide_id="cs-fraud", deck_id="Banking Wins V2", deck_name="Banking Wins V2", content_type="case_study", title="Fraud detection for a retail bank",
        text="Case study: machine learning fraud detection cut card fraud losses by 32% for a retail bank."),
    Slide(slide_id="cs-churn", deck_id="Retail Wins", deck_name="Retail Wins", content_type="case_study", title="Customer churn reduction",
        text="Case study: churn prediction model for a telecom operator reduced churn by 12%."),
    Slide(slide_id="cs-supply", deck_id="Ops Wins", deck_name="Ops Wins", content_type="case_study", title="Supply chain optimisation",
        text="Case study: inventory optimisation saved $4M in working capital for a manufacturer."),
    Slide(slide_id="team-lead", deck_id="Team Deck", deck_name="Team Deck", content_type="team", title="Leadership team",
        text="Our leadership team: Anand S, co-founder and chief data scientist, leads analytics delivery."),
    Slide(slide_id="team-bench", deck_id="Team Deck Other", deck_name="Team Deck Other", content_type="team", title="Delivery bench",
        text="Two hundred data engineers and analysts across three delivery centres."),
    Slide(slide_id="dash-churn", deck_id="Analytics Demos", deck_name="Analytics Demos", content_type="dashboard", title="Customer churn dashboard",
        text="Dashboard: churn rate by segment, revenue per account, NPS distribution and retention cohorts."),
    Slide(slide_id="dash-fraud", deck_id="Risk Demos", deck_name="Risk Demos", content_type="dashboard", title="Fraud monitoring dashboard",
        text="Dashboard: fraud alerts per day, false positive rate and investigation backlog."),
    Slide(slide_id="cap-ai", deck_id="Capabilities", deck_name="Capabilities", content_type="content", title="AI and analytics capabilities",
        text="We build machine learning, forecasting and optimisation solutions for banks, retailers and telecoms."),
]
QUERIES = [
    LabelledQuery(id="fraud", text="fraud detection case study", qrels={"cs-fraud": 3.0, "dash-fraud": 1.0}, kind="topic"),
    LabelledQuery(id="churn", text="customer churn dashboard", qrels={"dash-churn": 3.0, "cs-churn": 2.0}, kind="topic"),
    LabelledQuery(id="anand", text="Anand S profile", qrels={"team-lead": 3.0}, kind="person"),
]


def _dataset(mode):
    return SlidesDataset(name=f"tiny-{mode}", mode=mode, docs=DOCS, queries=QUERIES, sources=[])


CONFIG = SlidesConfig(embedder="fast")


class HardSectionFilter:
    """The seed's reverted idea in its bluntest form: keep only one section's cards for every query."""

    def __init__(self, engine, section):
        self.engine, self.section = engine, section
        self.library, self.model = engine.library, engine.model

    def search_v2(self, query, universes=None, top_per_group=15, trace=False):
        response = self.engine.search_v2(query, universes=universes, top_per_group=top_per_group, trace=trace)
        groups = {s: cards for s, cards in response.groups.items() if s == self.section}
        return response.model_copy(update={"groups": groups, "total_matches": sum(map(len, groups.values()))})

    def explain_response(self, response):
        return self.engine.explain_response(response)

    def retrieve(self, query, k=10):
        return self.engine.retrieve(query, k=k)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SEEK_HOME", str(tmp_path_factory.mktemp("home")))
        yield run_slides_dataset(_dataset("pipeline"), CONFIG)


class TestPipelineRun:
    def test_every_card_is_judged_by_labels(self, result):
        cards = [c for item in result.items for c in item.cards]
        assert cards and sum(result.verdicts.values()) == len(cards)
        assert {c.judge for c in cards} == {"label"}
        assert all(c.explanation for c in cards)
        shares = sum(result.summary[f"{v}_share"] for v in ("correct", "50-50", "wrong"))
        assert shares == pytest.approx(1.0)

    def test_wrong_by_section_counts_wrong_cards(self, result):
        wrong = sum(1 for item in result.items for c in item.cards if c.verdict == "wrong")
        assert sum(result.wrong_by_section.values()) == wrong

    def test_zero_result_gate_passes_and_trace_is_kept(self, result):
        assert result.passed and result.summary["zero_result_queries"] == 0
        assert result.trace["stages"][0]["candidates_in"] == len(DOCS)
        assert set(result.per_group) == {"topic", "person"}

    def test_primary_is_the_product_ndcg_of_the_cards(self, result):
        assert result.primary == "product_ndcg@10" and "measure" in result.sources
        assert all(item.score == item.metrics["product_ndcg@10"] for item in result.items)

    def test_without_a_pool_cards_outside_the_graded_list_are_counted(self, result):
        for item in result.items:
            qrels = next(q.qrels for q in QUERIES if q.id == item.id)
            assert item.metrics["ungraded"] == sum(c.id not in qrels for c in item.cards)
        assert result.summary["ungraded_total"] == sum(i.metrics["ungraded"] for i in result.items)

    def test_reference_rankers_are_scored_beside_the_answer(self, result):
        for key in ("minilm_ndcg@10", "retrieve_ndcg@10", "product_minus_minilm"):
            assert key in result.summary
        assert {"n", "product_ndcg@10", "cards_shown", "precision"} <= set(result.per_group["topic"])


def test_cards_outside_a_judged_pool_are_unjudged_not_wrong(tmp_path, monkeypatch):
    monkeypatch.setenv("SEEK_HOME", str(tmp_path))
    pooled = [
        LabelledQuery(id="fraud", text="fraud detection case study", qrels={"cs-fraud": 3.0},
                      judged=["cs-fraud", "dash-fraud"], kind="topic"),
        LabelledQuery(id="absent", text="wind farm project financing", judged=["cap-ai"], kind="absent"),
    ]
    dataset = SlidesDataset(name="tiny-pool", mode="pipeline", docs=DOCS, queries=pooled, sources=[])
    result = run_slides_dataset(dataset, CONFIG)
    for item in result.items:
        pool = next(set(q.judged) for q in pooled if q.id == item.id)
        assert all((c.verdict == "unjudged") == (c.id not in pool) for c in item.cards)
        assert item.metrics["unjudged"] == sum(c.id not in pool for c in item.cards)
    absent = next(i for i in result.items if i.id == "absent")
    assert absent.score is None and "any_note" in absent.metrics
    assert "absent" in result.per_group and "product_ndcg@10" not in result.per_group["absent"]


def test_hard_section_filter_fails_the_zero_result_gate():
    def broken(library, config):
        return HardSectionFilter(default_engine(library, config), "Team & Credentials")

    result = run_slides_dataset(_dataset("pipeline"), CONFIG, engine_factory=broken)
    gate = result.gates[0]
    assert not gate.passed and "fraud" in gate.offenders and "churn" in gate.offenders
    assert not result.passed


class TestRetrieveRun:
    def test_ir_metrics_and_second_run_from_the_embedding_cache(self, monkeypatch):
        from eval import slides_run

        first = run_slides_dataset(_dataset("retrieve"), CONFIG.model_copy(update={"retrieve_k": 10}))
        assert set(first.summary) == {"ndcg@10", "mrr@10", "recall@10"}
        assert first.items[0].ranked[0] == "cs-fraud" and first.passed
        built = []
        original = slides_run.build_library
        monkeypatch.setattr(slides_run, "build_library", lambda d, e, lex=None: built.append(original(d, e, lex)) or built[-1])
        second = run_slides_dataset(_dataset("retrieve"), CONFIG.model_copy(update={"retrieve_k": 10}))
        assert second.summary == first.summary
        assert built[0][1].misses == 0 and built[0][1].hits > len(DOCS)

    def test_max_queries_cuts_the_set(self):
        result = run_slides_dataset(_dataset("retrieve"), CONFIG.model_copy(update={"max_queries": 1}))
        assert [i.id for i in result.items] == ["fraud"]


class TestUnlabelledLog:
    def _log(self):
        queries = [LabelledQuery(id="1", text="fraud detection case study"), LabelledQuery(id="2", text="churn")]
        return SlidesDataset(name="log:test", mode="pipeline", docs=DOCS, queries=queries, sources=[])

    def test_offline_cards_are_unjudged_but_zero_results_still_gate(self):
        result = run_slides_dataset(self._log(), CONFIG)
        assert set(result.verdicts) == {"unjudged"} and result.judge == "unjudged"
        assert result.primary == "verdict_value" and all(i.score is None for i in result.items)
        assert result.passed

    def test_llm_judge_without_a_key_falls_back_to_unjudged_without_network(self, monkeypatch):
        monkeypatch.setenv("SEEK_JUDGE_LLM", "anthropic:claude-haiku-4-5")
        result = run_slides_dataset(self._log(), CONFIG)
        assert result.judge == "llm:anthropic:claude-haiku-4-5"
        assert {c.judge for i in result.items for c in i.cards} == {"unjudged"}
        assert result.usage.cost_usd == 0


def test_a_query_the_engine_refuses_counts_as_zero_results():
    dataset = SlidesDataset(name="log:blank", mode="pipeline", docs=DOCS, sources=[],
                            queries=[LabelledQuery(id="ok", text="fraud"), LabelledQuery(id="blank", text="   ")])
    result = run_slides_dataset(dataset, CONFIG)
    refused = result.items[1]
    assert refused.n_results == 0 and refused.error and refused.score == 0.0
    assert result.gates[0].offenders == ["blank"]


def test_verified_master_rows_are_left_unjudged_by_labels():
    master = [VerifiedCaseStudy(row_id="1", client="First Retail Bank", use_case="fraud detection",
                                title="Card fraud detection with machine learning",
                                summary="Machine learning fraud detection case study for a retail bank: losses down 32%.")]
    dataset = SlidesDataset(name="tiny-master", mode="pipeline", docs=DOCS, master=master, queries=QUERIES[:1],
                            sources=[])
    cards = run_slides_dataset(dataset, CONFIG).items[0].cards
    verified = [c for c in cards if c.id.startswith("verified:")]
    assert verified and all(c.verdict == "unjudged" for c in verified)
    assert all(c.judge == "label" for c in cards if not c.id.startswith("verified:"))


def test_a_verified_row_is_judged_and_counted_as_the_slide_it_stands_for():
    master = [VerifiedCaseStudy(row_id="1", client="First Retail Bank", use_case="fraud detection",
                                title="Card fraud detection with machine learning",
                                summary="Machine learning fraud detection case study for a retail bank: losses down 32%."),
              VerifiedCaseStudy(row_id="2", client="Second Bank", use_case="fraud analytics",
                                title="Fraud analytics for a second bank", summary="Fraud case study: alerts down 40%.")]
    aliases = {"verified:1": "cs-fraud", "verified:2": "cs-supply"}
    plain = SlidesDataset(name="tiny-master", mode="pipeline", docs=DOCS, master=master, queries=QUERIES[:1], sources=[])
    item = run_slides_dataset(plain.model_copy(update={"aliases": aliases}), CONFIG).items[0]
    verdicts = {c.id: c.verdict for c in item.cards}
    assert verdicts["verified:1"] == "correct"  # stands for cs-fraud, graded 3
    assert verdicts.get("verified:2", "wrong") == "wrong"  # stands for an unlabelled slide
    assert item.metrics["recall@10"] <= 1.0


def test_in_the_ir_metrics_a_verified_row_counts_once_as_its_slide():
    aliases = {"verified:1": "s1", "verified:2": "s9"}
    assert as_slides(["s1", "s2", "verified:1", "verified:2", "verified:3"], aliases) == ["s1", "s2", "s9", "verified:3"]
    assert as_slides(["verified:1", "s1"], aliases) == ["s1"]


def test_a_query_log_runs_against_the_stored_slide_index(tmp_path, _isolated_seek_home):
    from eval.datasets import load_slides_dataset
    from slidesearch.library import Library

    index = _isolated_seek_home / "slides" / "index"
    Library.from_slides(DOCS, embedder="fast").save(index)
    log = tmp_path / "queries.txt"
    log.write_text("fraud detection case study\ncustomer churn dashboard\n")
    result = run_slides_dataset(load_slides_dataset(f"log:{log}"), CONFIG)
    assert result.params["library"] == str(index) and result.params["n_docs"] == len(DOCS)
    assert all(item.n_results > 0 for item in result.items) and result.passed


class TestChunkedRun:
    """A dataset measured in chunks (as ``seek eval run --ray`` does, one task a chunk) equals one run of it."""

    @pytest.mark.parametrize("mode", ["pipeline", "retrieve"])
    @pytest.mark.parametrize("size", [1, 2])
    def test_chunks_assemble_into_the_figures_of_one_run(self, tmp_path, monkeypatch, mode, size):
        from eval.slides_run import assemble_slides_result, measure_slides_chunk

        monkeypatch.setenv("SEEK_HOME", str(tmp_path))
        dataset = _dataset(mode)
        whole = run_slides_dataset(dataset, CONFIG)
        bounds = [(start, min(start + size, len(QUERIES))) for start in range(0, len(QUERIES), size)]
        chunks = [measure_slides_chunk(dataset, CONFIG, start, stop, with_trace=i == 0)
                  for i, (start, stop) in enumerate(bounds)]
        assert len(chunks) == len(bounds) > 1
        assembled = assemble_slides_result(dataset, CONFIG, chunks, 0.0)
        timing = {"seconds"}
        assert assembled.model_dump(exclude=timing | {"items", "trace"}) == whole.model_dump(exclude=timing | {"items", "trace"})
        assert ([i.model_dump(exclude=timing) for i in assembled.items]
                == [i.model_dump(exclude=timing) for i in whole.items])
        assert assembled.trace is not None and assembled.trace["query"] == whole.trace["query"]


def test_the_minilm_reference_stays_minilm_whatever_the_engine_reads(tmp_path, monkeypatch):
    """#17's yardstick is plain MiniLM: a library embedded with another encoder must not move it."""
    from eval.slides_run import build_library, dense_ranking, ids_by_score

    monkeypatch.setenv("SEEK_HOME", str(tmp_path))
    dataset = _dataset("pipeline")
    fast, _ = build_library(dataset, "fast")
    minilm, _ = build_library(dataset, "minilm")
    for q in QUERIES:
        plain = ids_by_score(minilm, minilm.vectors @ minilm.embedder().encode([q.text])[0], 5)
        assert dense_ranking(fast, q.text, 5) == plain == dense_ranking(minilm, q.text, 5)
    # The engine's own encoder did rank differently: otherwise the test would not tell the two apart.
    assert any(ids_by_score(fast, fast.vectors @ fast.embedder().encode([q.text])[0], 5) != dense_ranking(fast, q.text, 5)
               for q in QUERIES)
