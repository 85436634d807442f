import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from core.settings import get_settings
from eval.config import SlidesConfig
from eval.datasets import LabelledQuery, dataset_suite, suite_datasets
from eval.realdecks import load_realdecks, split_of
from eval.slides_run import run_slides_dataset

SUBSET = (
    "decks/Airline-Financial-Analysis-2014-2015-/Financial Analysis.pptx",
    "decks/hackathon-kalimotxo/Business Plan.pptx",
    "decks/sales-analysis-Python/Market Analysis.pptx",
)
SUBSET_BRIEFS = ("q23", "q30", "q47", "q56")


def _realdecks_dir() -> Path:
    directory = get_settings().data_dir / "realdecks"
    if not (directory / "decks").is_dir():
        pytest.skip(f"realdecks not present at {directory}")
    return directory


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture
def subset_dir(tmp_path):
    """Three small real decks copied into a temporary folder (ingest does not follow links), with the briefs and
    judgements restricted to them."""
    source = _realdecks_dir()
    target = tmp_path / "data" / "realdecks"
    for deck in SUBSET:
        (target / deck).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / deck, target / deck)
    _write_jsonl(target / "sources.jsonl", [r for r in _jsonl(source / "sources.jsonl") if r["deck"] in SUBSET])

    def keep(keys: dict) -> dict:
        return {k: g for k, g in keys.items() if k.split("#")[0] in SUBSET}

    queries = [r for r in _jsonl(source / "queries.jsonl") if r["qid"] in SUBSET_BRIEFS]
    _write_jsonl(target / "queries.jsonl", [{**r, "relevant": keep(r["relevant"])} for r in queries])
    judged = [r for r in _jsonl(source / "judged.jsonl") if r["qid"] in SUBSET_BRIEFS]
    _write_jsonl(target / "judged.jsonl", [{**r, "judged": keep(r["judged"])} for r in judged])
    return target.parent


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return tmp_path_factory.mktemp("realdecks") / "library.db"


class TestFullSet:
    def test_every_judged_key_maps_to_an_ingested_slide(self, store):
        directory = _realdecks_dir()
        dataset = load_realdecks("realdecks", store_path=store)
        judged = {r["qid"]: r["judged"] for r in _jsonl(directory / "judged.jsonl")}
        assert len(dataset.docs) == sum(r["slides"] for r in _jsonl(directory / "sources.jsonl"))
        assert len(dataset.queries) == len(judged)
        for brief in dataset.queries:
            assert len(brief.judged) == len(judged[brief.id])
            assert len(brief.qrels) == sum(g > 0 for g in judged[brief.id].values())
        assert Counter(b.kind for b in dataset.queries if not b.qrels) == {"absent": 5}

    def test_tune_and_check_split_every_kind_into_disjoint_halves(self, store):
        _realdecks_dir()
        everything = load_realdecks("realdecks", store_path=store)
        tune = load_realdecks("realdecks-tune", store_path=store)
        check = load_realdecks("realdecks-check", store_path=store)
        tune_ids, check_ids = {b.id for b in tune.queries}, {b.id for b in check.queries}
        assert not tune_ids & check_ids and tune_ids | check_ids == {b.id for b in everything.queries}
        kinds = Counter(b.kind for b in everything.queries)
        for kind, n in kinds.items():
            in_tune = sum(b.kind == kind for b in tune.queries)
            assert abs(in_tune - (n - in_tune)) <= 1, kind
        assert {"absent"} <= {b.kind for b in tune.queries} & {b.kind for b in check.queries}

    def test_registered_in_the_slides_suite(self):
        assert {"realdecks-tune", "realdecks-check"} <= set(suite_datasets("slides"))
        assert "realdecks" not in suite_datasets("slides")  # the two halves together: on demand only
        assert dataset_suite("realdecks-tune") == "slides" and dataset_suite("realdecks") == "slides"


class TestSplit:
    def test_is_stratified_deterministic_and_balanced_across_odd_kinds(self):
        briefs = [LabelledQuery(id=f"{kind}{i}", text="x", kind=kind) for kind, n in (("a", 3), ("b", 3)) for i in range(n)]
        split = split_of(briefs)
        assert split == split_of(list(reversed(briefs)))
        assert Counter(split.values()) == {"tune": 3, "check": 3}
        assert Counter(v for q, v in split.items() if q.startswith("a")) == {"tune": 2, "check": 1}


class TestSubset:
    def test_an_unmapped_judged_key_is_an_error_naming_it(self, subset_dir, tmp_path):
        path = subset_dir / "realdecks" / "judged.jsonl"
        rows = _jsonl(path)
        rows[0]["judged"][f"{SUBSET[1]}#99"] = 2
        _write_jsonl(path, rows)
        with pytest.raises(ValueError, match="Business Plan.pptx#99"):
            load_realdecks(data_dir=subset_dir, store_path=tmp_path / "library.db")

    def test_a_deck_whose_bytes_changed_is_refused(self, subset_dir, tmp_path):
        path = subset_dir / "realdecks" / "sources.jsonl"
        rows = _jsonl(path)
        rows[0]["sha256"] = "0" * 64
        _write_jsonl(path, rows)
        with pytest.raises(ValueError, match="sha256 differs"):
            load_realdecks(data_dir=subset_dir, store_path=tmp_path / "library.db")

    def test_pipeline_run_reports_the_product_measure(self, subset_dir, tmp_path, monkeypatch):
        monkeypatch.setenv("SEEK_HOME", str(tmp_path / "home"))
        dataset = load_realdecks(data_dir=subset_dir, store_path=tmp_path / "library.db")
        result = run_slides_dataset(dataset, SlidesConfig(embedder="fast"))
        assert result.primary == "product_ndcg@10" and "measure" in result.sources
        by_id = {i.id: i for i in result.items}
        absent = by_id["q56"]
        assert absent.score is None and {"coverage_note", "any_note", "cards_shown"} <= set(absent.metrics)
        pools = {b.id: set(b.judged) for b in dataset.queries}
        for item in result.items:
            outside = sum(c.id not in pools[item.id] for c in item.cards)
            assert item.metrics["unjudged"] == outside
            assert sum(c.verdict == "unjudged" for c in item.cards) == outside
        for qid in ("q23", "q30", "q47"):
            assert by_id[qid].score == by_id[qid].metrics["product_ndcg@10"]
            assert {"minilm_ndcg@10", "retrieve_ndcg@10", "minilm_capped_ndcg@10"} <= set(by_id[qid].metrics)
        assert result.summary["n"] == 4 and result.summary["answered"] == 3
        assert set(result.per_group) == {"absent", "paraphrase", "two-part"}
        assert result.per_group["paraphrase"]["n"] == 2
