import re

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from core.lexical import BM25Index, analyse, okapi_idf

TOY = [
    analyse("Retail pricing strategy for a grocery chain"),
    analyse("Supply chain flow optimisation and warehouse flow"),
    analyse("Pricing flow in retail"),
    analyse("Flow of goods through the supply chain"),
    analyse("Grocery loyalty programme"),
]


def _smart_records(text):
    """Cranfield's SMART format: `.I id` starts a record, `.X` marker lines start its fields."""
    records = []
    for chunk in re.split(r"^\.I\s+", text, flags=re.M)[1:]:
        fields, current = {}, None
        for line in chunk.splitlines()[1:]:
            marker = re.match(r"^\.([A-Z])\s*$", line)
            if marker:
                current = marker.group(1)
                fields.setdefault(current, [])
            elif current:
                fields[current].append(line)
        records.append({key: " ".join(lines) for key, lines in fields.items()})
    return records


@pytest.fixture(scope="module")
def cranfield(shared_data):
    root = shared_data / "ir" / "cranfield"
    docs = _smart_records((root / "cran.all.1400").read_text())
    queries = _smart_records((root / "cran.qry").read_text())
    return [analyse(d.get("T", "") + " " + d.get("W", "")) for d in docs], [analyse(q["W"]) for q in queries]


class TestAnalyse:
    def test_lower_case_tokens_without_english_stopwords(self):
        assert analyse("The Supply-Chain of a Retailer") == ["supply", "chain", "retailer"]

    def test_custom_stopwords(self):
        assert analyse("the supply chain", frozenset({"chain"})) == ["the", "supply"]

    def test_snowball_stemming_folds_inflections(self):
        assert analyse("Case studies of the retailers", stemmer="english") == analyse("case study retailer", stemmer="english")

    def test_stopwords_are_matched_before_stemming(self):
        # "was" stems to "wa"; the stoplist must still see the word as written
        assert analyse("it was reported", stemmer="english") == ["report"]

    def test_unknown_stemmer_language_is_a_clear_error(self):
        with pytest.raises(ValueError, match="no Snowball stemmer for 'klingon'"):
            analyse("text", stemmer="klingon")


class TestAgreesWithRankBm25:
    def test_scores_equal_bm25okapi_scores(self):
        reference = BM25Okapi(TOY)
        index = BM25Index.build(TOY)
        for query in (["pricing"], ["supply", "chain", "flow"], ["grocery", "retail", "retail"]):
            np.testing.assert_allclose(index.scores(query), reference.get_scores(query), rtol=1e-5, atol=1e-6)

    def test_a_term_in_most_documents_keeps_the_okapi_floor_weight(self):
        # "flow" is in 3 of 5 documents, so its Robertson IDF is negative and BM25Okapi raises it
        # to 0.25 x the mean IDF; bm25s on its own would score it 0.
        scores = BM25Index.build(TOY).scores(["flow"])
        assert (scores[[1, 2, 3]] > 0).all()
        assert scores[0] == scores[4] == 0

    def test_top10_agrees_with_rank_bm25_on_at_least_95_percent_of_cranfield_queries(self, cranfield):
        # Measured: 225 of 225 Cranfield queries give the same top-10 set.
        docs, queries = cranfield
        index, reference = BM25Index.build(docs), BM25Okapi(docs)
        same = 0
        for query in queries:
            ours, _ = index.top_k(query, 10)
            theirs = np.argsort(-reference.get_scores(query), kind="stable")[:10]
            same += set(ours.tolist()) == set(theirs.tolist())
        assert len(queries) == 225
        assert same / len(queries) >= 0.95


class TestOkapiIdf:
    def test_negative_idfs_are_raised_to_epsilon_times_the_mean(self):
        df = np.array([1.0, 1.0, 4.0])
        raw = np.log((5 - df + 0.5) / (df + 0.5))
        assert okapi_idf(5, df) == pytest.approx([raw[0], raw[1], 0.25 * raw.mean()])

    def test_floor_never_goes_below_zero(self):
        assert okapi_idf(2, np.array([2.0, 2.0])).tolist() == [0.0, 0.0]


class TestScores:
    def test_unknown_tokens_contribute_nothing(self):
        index = BM25Index.build(TOY)
        np.testing.assert_array_equal(index.scores(["pricing", "zebra"]), index.scores(["pricing"]))
        assert not index.scores(["zebra"]).any()

    def test_an_empty_query_scores_zero(self):
        assert BM25Index.build(TOY).scores([]).tolist() == [0.0] * len(TOY)

    def test_one_score_per_document_as_float32(self):
        scores = BM25Index.build(TOY).scores(["retail"])
        assert scores.shape == (len(TOY),)
        assert scores.dtype == np.float32

    def test_a_corpus_without_tokens_scores_zero(self):
        assert BM25Index.build([]).scores(["a"]).shape == (0,)
        assert BM25Index.build([[], []]).scores(["a"]).tolist() == [0.0, 0.0]


class TestTopK:
    def test_best_first_positive_only(self):
        ids, scores = BM25Index.build(TOY).top_k(["grocery"], 10)
        assert sorted(ids.tolist()) == [0, 4]
        assert (np.diff(scores) <= 0).all()
        assert (scores > 0).all()

    def test_k_caps_the_results(self):
        ids, scores = BM25Index.build(TOY).top_k(["flow", "chain"], 2)
        assert len(ids) == len(scores) == 2

    def test_agrees_with_sorting_all_scores(self):
        index = BM25Index.build(TOY)
        query = ["supply", "chain", "flow", "retail"]
        ids, scores = index.top_k(query, 3)
        full = index.scores(query)
        assert ids.tolist() == np.argsort(-full, kind="stable")[:3].tolist()
        np.testing.assert_array_equal(scores, full[ids])

    def test_mask_keeps_only_allowed_documents(self):
        mask = np.array([False, True, False, True, False])
        ids, _ = BM25Index.build(TOY).top_k(["flow", "pricing"], 10, mask=mask)
        assert sorted(ids.tolist()) == [1, 3]

    def test_mask_excluding_every_match_gives_nothing(self):
        mask = np.array([False, True, False, True, True])
        ids, scores = BM25Index.build(TOY).top_k(["pricing"], 10, mask=mask)
        assert ids.size == scores.size == 0

    def test_ties_break_by_document_order(self):
        ids, _ = BM25Index.build([["x"], ["y"], ["x"], ["y"], ["y"]]).top_k(["x"], 10)
        assert ids.tolist() == [0, 2]


class TestSaveLoad:
    @pytest.mark.parametrize("mmap", [True, False])
    def test_round_trip_gives_the_same_scores(self, tmp_path, mmap):
        index = BM25Index.build(TOY, k1=1.2, b=0.6)
        index.save(tmp_path / "bm25")
        loaded = BM25Index.load(tmp_path / "bm25", mmap=mmap)
        assert (loaded.k1, loaded.b, loaded.method, loaded.n_docs) == (1.2, 0.6, "robertson", len(TOY))
        for query in (["flow"], ["retail", "pricing"], ["zebra"]):
            np.testing.assert_array_equal(loaded.scores(query), index.scores(query))

    def test_round_trip_keeps_the_stemmer_so_queries_match_the_documents(self, tmp_path):
        index = BM25Index.from_texts(["retail pricing studies", "turbulent flows", "wing loads", "heat transfer"], stemmer="english")
        index.save(tmp_path / "bm25")
        loaded = BM25Index.load(tmp_path / "bm25")
        assert loaded.stemmer == "english"
        assert loaded.analyse("flowing") == ["flow"]
        assert loaded.scores(loaded.analyse("price study")).tolist()[1] == 0.0
        assert loaded.scores(loaded.analyse("price study"))[0] > 0

    def test_an_index_saved_without_a_stemmer_analyses_queries_unstemmed(self, tmp_path):
        BM25Index.build(TOY).save(tmp_path / "bm25")
        assert BM25Index.load(tmp_path / "bm25").analyse("Flowing prices") == ["flowing", "prices"]

    def test_round_trip_of_an_empty_index(self, tmp_path):
        BM25Index.build([[]]).save(tmp_path / "bm25")
        assert BM25Index.load(tmp_path / "bm25").scores(["a"]).tolist() == [0.0]

    def test_save_leaves_no_temporary_file(self, tmp_path):
        BM25Index.build(TOY).save(tmp_path / "bm25")
        assert not list((tmp_path / "bm25").glob("*.tmp"))


class TestRowsWith:
    def test_lists_every_holder_even_when_the_word_weighs_zero(self, tmp_path):
        docs = ["capital call notice", "learning analytics", "capital markets", "risk models"]
        index = BM25Index.from_texts(docs, stemmer="english")
        (capital,) = index.analyse("capital")
        assert float(index.scores([capital]).max()) == 0.0  # in half the documents: Okapi IDF is 0
        assert index.rows_with(capital).tolist() == [0, 2]
        assert index.rows_with("nowhere").tolist() == []
        assert index.knows(capital) and not index.knows("nowhere")
        index.save(tmp_path / "bm25")
        assert BM25Index.load(tmp_path / "bm25").rows_with(capital).tolist() == [0, 2]
