import json

import numpy as np
import pytest

from tenturns.agents.facets import FacetIndex, entropy, price_band, product_facets, query_facets
from tenturns.catalog import Product, load_catalog


class TestProductFacets:
    def test_details_come_before_text(self):
        product = Product(parent_asin="A", title="Black cotton tee", details={"Color": "Navy", "Department": "Womens"},
                          price=24.0, store="Acme")
        facets = product_facets(product)
        assert facets["color"] == "navy" and facets["material"] == "cotton" and facets["department"] == "women"
        assert facets["brand"] == "acme" and facets["price_band"] == "20-35"

    def test_missing_fields_are_unknown(self):
        assert product_facets(Product(parent_asin="A"))["price_band"] is None


class TestQueryFacets:
    def test_reads_colour_material_budget_department_and_a_known_brand(self):
        found = query_facets("men's grey wool coat by acme, budget around $45.5", {"acme", "zed"})
        assert found == {"color": "gray", "material": "wool", "department": "men", "price_band": "35-60",
                         "brand": "acme"}

    def test_price_bands_are_left_closed(self):
        assert price_band(10.0) == "10-20" and price_band(9.99) == "0-10" and price_band(500) == "100+"


class TestInformationGain:
    @pytest.fixture
    def facets(self, tmp_path):
        rows = [{"parent_asin": f"P{i}", "title": f"{c} shirt", "details": {"Department": "Mens"}}
                for i, c in enumerate(["red", "blue", "green", "black"])]
        path = tmp_path / "c.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in rows))
        return FacetIndex(load_catalog(path))

    def test_a_facet_that_splits_the_candidates_gains_more_than_a_constant_one(self, facets):
        gains = facets.information_gain(np.arange(4), np.ones(4))
        assert gains["color"] == pytest.approx(2.0) and gains["department"] == 0.0

    def test_agreement_rewards_matches_and_penalises_contradictions(self, facets):
        assert facets.agreement(np.arange(4), {"color": "blue"}).tolist() == [-1.0, 1.0, -1.0, -1.0]

    def test_entropy_of_nothing_is_zero(self):
        assert entropy(np.zeros(3)) == 0.0
