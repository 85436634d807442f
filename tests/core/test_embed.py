import numpy as np
import pytest

from core.embed import CachedEmbedder, Embedder, MiniLMEmbedder, StaticEmbedder, l2_normalise, make_embedder


class CountingEmbedder:
    """A stand-in model: a fixed pseudo-random vector per text, and a record of what it was asked."""

    name = "counting"
    dim = 8

    def __init__(self):
        self.calls: list[list[str]] = []

    def encode(self, texts, batch_size=64):
        self.calls.append(list(texts))
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).normal(size=self.dim) for t in texts]
        return l2_normalise(np.array(rows, dtype=np.float32).reshape(len(texts), self.dim))


@pytest.fixture(scope="module")
def fast():
    return make_embedder("fast")


class TestL2Normalise:
    def test_rows_get_unit_length(self):
        out = l2_normalise(np.array([[3.0, 4.0], [1.0, 0.0]]))
        np.testing.assert_allclose(out, [[0.6, 0.8], [1.0, 0.0]], rtol=1e-6)
        assert out.dtype == np.float32

    def test_zero_rows_stay_zero(self):
        assert l2_normalise(np.zeros((2, 3))).tolist() == [[0.0] * 3] * 2


class TestStaticEmbedder:
    def test_returns_unit_float32_rows_of_its_dimension(self, fast):
        vectors = fast.encode(["quarterly revenue by region", "team credentials", "a"])
        assert vectors.shape == (3, fast.dim) == (3, 256)
        assert vectors.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)

    def test_no_texts_give_an_empty_matrix(self, fast):
        assert fast.encode([]).shape == (0, 256)

    def test_is_an_embedder_and_shared_per_process(self, fast):
        assert isinstance(fast, StaticEmbedder)
        assert isinstance(fast, Embedder)
        assert make_embedder("fast") is fast


class TestMakeEmbedder:
    def test_unknown_name_lists_the_valid_ones(self):
        with pytest.raises(ValueError, match="unknown embedder 'bert'.*minilm, minilm-full, fast"):
            make_embedder("bert")


class TestCachedEmbedder:
    def test_second_call_hits_the_cache_with_identical_vectors(self, tmp_path):
        inner = CountingEmbedder()
        cached = CachedEmbedder(inner, tmp_path / "cache.sqlite")
        first = cached.encode(["alpha", "beta"])
        second = cached.encode(["alpha", "beta"])
        np.testing.assert_array_equal(first, second)
        assert inner.calls == [["alpha", "beta"]]
        assert (cached.hits, cached.misses) == (2, 2)

    def test_embeds_only_what_changed(self, tmp_path):
        inner = CountingEmbedder()
        cached = CachedEmbedder(inner, tmp_path / "cache.sqlite")
        cached.encode(["alpha", "beta"])
        out = cached.encode(["beta", "gamma", "alpha"])
        assert inner.calls[-1] == ["gamma"]
        np.testing.assert_array_equal(out, inner.encode(["beta", "gamma", "alpha"]))

    def test_cache_persists_across_instances(self, tmp_path):
        CachedEmbedder(CountingEmbedder(), tmp_path / "cache.sqlite").encode(["alpha"])
        inner = CountingEmbedder()
        CachedEmbedder(inner, tmp_path / "cache.sqlite").encode(["alpha"])
        assert inner.calls == []

    def test_entries_are_keyed_by_embedder_name(self, tmp_path):
        CachedEmbedder(CountingEmbedder(), tmp_path / "cache.sqlite").encode(["alpha"])
        other = CountingEmbedder()
        other.name = "other-model"
        CachedEmbedder(other, tmp_path / "cache.sqlite").encode(["alpha"])
        assert other.calls == [["alpha"]]

    def test_wraps_a_real_embedder_transparently(self, tmp_path, fast):
        cached = CachedEmbedder(fast, tmp_path / "cache.sqlite")
        texts = ["pricing strategy", "supply chain"]
        np.testing.assert_array_equal(cached.encode(texts), fast.encode(texts))
        np.testing.assert_array_equal(cached.encode(texts), fast.encode(texts))
        assert (cached.name, cached.dim, cached.hits) == (fast.name, fast.dim, 2)


class TestMiniLM:
    def test_loads_offline_and_ranks_a_paraphrase_above_an_unrelated_text(self, monkeypatch):
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        model = make_embedder("minilm")
        query, paraphrase, unrelated = model.encode(
            ["How do we cut delivery costs in our supply chain?",
             "Reducing logistics spend across the distribution network",
             "Portrait photography tips for beginners"]
        )
        assert model.dim == 384
        assert query.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm([query, paraphrase, unrelated], axis=1), 1.0, rtol=1e-5)
        assert float(query @ paraphrase) > float(query @ unrelated) + 0.2

    def test_a_query_is_encoded_on_one_thread_and_the_thread_count_is_restored(self, monkeypatch):
        import torch

        model = make_embedder("minilm")
        seen = []
        original = model._model.encode
        monkeypatch.setattr(model._model, "encode", lambda *a, **k: seen.append(torch.get_num_threads()) or original(*a, **k))
        before = torch.get_num_threads()
        model.encode(["one query"])
        model.encode([f"slide {i}" for i in range(40)])
        assert seen == [1, before] and torch.get_num_threads() == before

    def test_a_query_text_gets_the_same_vector_alone_or_beside_others(self):
        model = make_embedder("minilm")
        alone = model.encode(["thank you"])[0]
        beside = model.encode(["workforce analytics case studies for a large retail bank in europe", "thank you"])[1]
        assert float(alone @ beside) == pytest.approx(1.0, abs=1e-5)

    def test_loading_draws_no_weight_loading_bar(self, capfd):
        from transformers.utils import logging as transformers_logging

        transformers_logging.enable_progress_bar()
        MiniLMEmbedder()
        assert "Loading weights" not in capfd.readouterr().err
        assert transformers_logging.is_progress_bar_enabled()  # restored: the switch is process-wide
