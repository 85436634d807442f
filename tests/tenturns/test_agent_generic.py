import hashlib
import json

import numpy as np
import pytest

from core.embed import l2_normalise
from tenturns.agents.generic import GenericAgent, GenericConfig
from tenturns.evaluate import evaluate_agent


class HashEmbedder:
    """Bag of hashed words: deterministic, instant, enough to test the dense route's plumbing."""

    name = "hash-64"
    dim = 64

    def __init__(self):
        self.calls = 0

    def encode(self, texts, batch_size=64):
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim] += 1.0
        return l2_normalise(out)


ROWS = [
    {"parent_asin": "R", "title": "Red cotton tee", "features": ["crew neck"], "price": 12.0,
     "categories": ["Clothing, Shoes & Jewelry", "Men", "Shirts"], "details": {"Department": "Mens"}},
    {"parent_asin": "B", "title": "Blue cotton tee", "features": ["v neck"], "price": 30.0,
     "categories": ["Clothing, Shoes & Jewelry", "Men", "Shirts"], "details": {"Department": "Mens"}},
    {"parent_asin": "W", "title": "Wool beanie hat", "features": ["warm"], "price": 15.0,
     "categories": ["Clothing, Shoes & Jewelry", "Women", "Hats"], "details": {"Department": "Womens"}},
]


@pytest.fixture
def catalog_path(tmp_path):
    path = tmp_path / "catalog.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


class TestGenericAgent:
    def test_lexical_and_dense_routes_find_the_described_product(self, catalog_path):
        agent = GenericAgent(catalog_path, embedder=HashEmbedder())
        agent.reset("s", {})
        response = agent.respond("s", "I'm looking for a wool beanie hat", 1)
        assert response["recommendations"][0]["parent_asin"] == "W"

    def test_facet_agreement_breaks_a_lexical_tie(self, catalog_path):
        agent = GenericAgent(catalog_path, config=GenericConfig(dense=False))
        agent.reset("s", {})
        response = agent.respond("s", "cotton tee, color: blue", 1)
        assert response["recommendations"][0]["parent_asin"] == "B"

    def test_asks_the_most_informative_attribute_once(self, catalog_path):
        agent = GenericAgent(catalog_path, config=GenericConfig(dense=False))
        agent.reset("s", {})
        asks = [agent.respond("s", m, t)["ask_attribute"]
                for t, m in enumerate(["cotton tee", "I don't have an additional preference for color."], 1)]
        assert asks[0] in {"color", "budget", "style"} and asks[1] != asks[0]

    def test_product_vectors_are_cached_on_disk(self, catalog_path):
        first = HashEmbedder()
        GenericAgent(catalog_path, embedder=first)
        second = HashEmbedder()
        GenericAgent(catalog_path, embedder=second)
        assert first.calls == 1 and second.calls == 0


class TestOnThePublicSample:
    def test_well_above_the_baseline(self, shared_data):
        catalog = shared_data / "techjam" / "catalog_sample.jsonl"
        sessions = shared_data / "techjam" / "public_set.jsonl"
        generic = evaluate_agent(lambda path: GenericAgent(path, embedder=HashEmbedder()), catalog, sessions)
        baseline = evaluate_agent("baseline", catalog, sessions)
        assert generic.technical_score > baseline.technical_score + 0.15
