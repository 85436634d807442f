import gzip
import json

import pytest

from tenturns.catalog import FALLBACK_SHELF, Product, load_catalog, searchable_text, shelf_label


@pytest.fixture(scope="module")
def sample(shared_data):
    return load_catalog(shared_data / "techjam" / "catalog_sample.jsonl")


class TestShelfLabel:
    def test_keeps_the_last_two_parts_after_dropping_clothing(self, sample):
        assert sample.shelf_of[sample.index_of["B07QMS8TX8"]] == "Medical Scrub Bottoms"
        assert sample.shelf_of[sample.index_of["B088QF5G58"]] == "Underwear Briefs"

    def test_shoes_and_jewelry_survives_the_comma_split(self, sample):
        assert sample.shelf_of[sample.index_of["B07VFZ2FC2"]] == "Shoes & Jewelry Men"
        assert sample.shelf_of[sample.index_of["B09N8SYG7Q"]] == "Shoes & Jewelry Women"

    def test_comma_inside_a_category_splits_it(self, sample):
        assert sample.shelf_of[sample.index_of["B0BX2SMVG8"]] == "Jewelry & Watch Accessories Shoe Care & Accessories"

    def test_nothing_left_is_clothing_item(self):
        assert shelf_label([]) == FALLBACK_SHELF
        assert shelf_label(["Clothing", " clothing "]) == FALLBACK_SHELF

    def test_shelf_index_covers_every_row_once(self, sample):
        rows = sorted(row for members in sample.shelves.values() for row in members)
        assert rows == list(range(len(sample)))
        assert len(sample.shelves) == 377


class TestLoadCatalog:
    def test_real_sample_loads_clean(self, sample):
        assert len(sample) == 1200
        assert sample.errors == []
        assert sample.sha256 == "4ab047be3e9b3f9034d1674eccbceae5d29c5b8d15fa37324b48c0573821f54e"

    def test_odd_price_is_kept_as_text_for_the_intent_card(self, sample):
        product = sample.get("B01N0I8BFI")
        assert product.price is None
        assert product.price_text == "—"

    def test_bad_rows_are_reported_with_line_numbers_and_skipped(self, tmp_path, sample):
        good = sample.products[0].model_dump()
        lines = [json.dumps(good), "{not json", json.dumps({"title": "no id"}), "", "[1, 2]",
                 json.dumps(good), json.dumps(sample.products[1].model_dump())]
        path = tmp_path / "cat.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        catalog = load_catalog(path)
        assert [p.parent_asin for p in catalog.products] == [good["parent_asin"], sample.products[1].parent_asin]
        assert [e.split(":")[0] for e in catalog.errors] == ["line 2", "line 3", "line 5", "line 6"]
        assert "missing parent_asin" in catalog.errors[1]

    def test_reads_gzip(self, tmp_path, sample):
        path = tmp_path / "cat.jsonl.gz"
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            for product in sample.products[:5]:
                handle.write(json.dumps(product.model_dump()) + "\n")
        assert [p.parent_asin for p in load_catalog(path).products] == [p.parent_asin for p in sample.products[:5]]

    def test_missing_file_is_a_clear_error(self, tmp_path):
        with pytest.raises(FileNotFoundError, match="catalog not found"):
            load_catalog(tmp_path / "nope.jsonl")

    def test_cached_until_the_file_changes(self, tmp_path, sample):
        path = tmp_path / "cat.jsonl"
        path.write_text(json.dumps(sample.products[0].model_dump()) + "\n", encoding="utf-8")
        first = load_catalog(path)
        assert load_catalog(path) is first
        path.write_text("\n".join(json.dumps(p.model_dump()) for p in sample.products[:2]) + "\n", encoding="utf-8")
        assert len(load_catalog(path)) == 2


class TestSearchableText:
    def test_renders_details_as_key_value_in_field_order(self):
        product = Product.model_validate({"parent_asin": "X", "title": "Tee", "features": ["Soft"],
                                          "details": {"Department": "Mens"}, "description": ["Nice"],
                                          "categories": ["Men"], "store": "Acme"})
        assert searchable_text(product) == "Tee Soft Department Mens Nice Men Acme"
