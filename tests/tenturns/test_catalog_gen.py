import gzip
import json
import statistics
from collections import Counter

import pytest

from tenturns.catalog import load_catalog, shelf_label
from tenturns.catalog_gen import (
    GeneratorConfig,
    build_catalog,
    build_catalog_file,
    near_twin,
    read_base_rows,
    shelf_sizes,
)


@pytest.fixture(scope="module")
def base(shared_data):
    rows, errors = read_base_rows(shared_data / "techjam" / "catalog_sample.jsonl")
    assert errors == []
    return rows


@pytest.fixture(scope="module")
def small(base):
    config = GeneratorConfig(size=5000, seed=7)
    return base[:100], build_catalog(base[:100], config)


def _label(row):
    return shelf_label([str(c) for c in row["categories"]])


class TestBuildCatalog:
    def test_exact_size_and_every_real_row_kept_verbatim(self, small):
        base, rows = small
        assert len(rows) == 5000
        by_id = {r["parent_asin"]: r for r in rows}
        assert len(by_id) == 5000
        assert all(by_id[r["parent_asin"]] == r for r in base)

    def test_shelf_count_scales_and_sizes_are_long_tailed(self, small):
        _, rows = small
        sizes = sorted(Counter(_label(r) for r in rows).values())
        assert 100 <= len(sizes) <= 115  # 1,100 per 50k rows
        assert 4 <= statistics.median(sizes) <= 16
        assert sizes[-1] > 20 * statistics.median(sizes)

    def test_real_shelves_hold_their_real_rows(self, small):
        base, rows = small
        counts = Counter(_label(r) for r in rows)
        for label, real in Counter(_label(r) for r in base).items():
            assert counts[label] >= real

    def test_generated_rows_keep_the_schema_and_real_vocabulary(self, small, base):
        _, rows = small
        real_ids = {r["parent_asin"] for r in base}
        generated = [r for r in rows if r["parent_asin"] not in real_ids]
        fields = {"parent_asin", "title", "features", "description", "price", "categories", "details",
                  "average_rating", "rating_number", "store"}
        assert all(fields <= set(r) for r in generated)
        real_keys = {k for r in base for k in r["details"]}
        assert {k for r in generated for k in r["details"]} <= real_keys | {"Color", "Size"}
        real_stores = {r["store"] for r in base}
        assert all(r["store"] in real_stores for r in generated if r["store"])

    def test_same_seed_same_rows_other_seed_other_rows(self, base):
        config = GeneratorConfig(size=1500, seed=3)
        first = build_catalog(base[:100], config)
        assert build_catalog(base[:100], config) == first
        assert build_catalog(base[:100], GeneratorConfig(size=1500, seed=4)) != first

    def test_empty_base_is_an_error(self):
        with pytest.raises(ValueError, match="no rows"):
            build_catalog([], GeneratorConfig(size=10))


class TestShelfSizes:
    def test_sum_median_and_knee(self):
        import random

        sizes = shelf_sizes(1100, GeneratorConfig(), random.Random(1))
        assert abs(sum(sizes) - 50_000) < 200
        assert 6 <= statistics.median(sizes) <= 11
        assert 1000 < sizes[0] < 2000


class TestNearTwin:
    @pytest.mark.parametrize("change", ["color", "material", "size", "feature", "detail"])
    def test_twin_stays_on_the_shelf_and_differs(self, base, change):
        import random

        from tenturns.catalog_gen import CollectDistributions, GenState, Pool

        state = CollectDistributions().run(GenState(config=GeneratorConfig(), base=base, rng=random.Random(0)))
        template = next(r for r in base if r["parent_asin"] == "B088QF5G58")  # cotton briefs, several features
        twin = near_twin(state, template, Pool([template], base[:50]), change)
        assert twin["categories"] == template["categories"]
        assert twin["parent_asin"] != template["parent_asin"]
        content = ("title", "features", "details", "description")
        assert any(twin[k] != template[k] for k in content)


class TestBuildCatalogFile:
    def test_writes_gzip_deterministically_and_reports_bad_base_rows(self, base, tmp_path):
        source = tmp_path / "base.jsonl"
        source.write_text("\n".join([json.dumps(base[0]), "{broken", *map(json.dumps, base[1:60])]) + "\n",
                          encoding="utf-8")
        out_a, out_b = tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl.gz"
        n, errors, sha_a = build_catalog_file(source, out_a, GeneratorConfig(size=400, seed=1))
        _, _, sha_b = build_catalog_file(source, out_b, GeneratorConfig(size=400, seed=1))
        assert n == 400 and sha_a == sha_b
        assert errors == ["line 2: invalid JSON (Expecting property name enclosed in double quotes)"]
        with gzip.open(out_a, "rt", encoding="utf-8") as handle:
            assert sum(1 for _ in handle) == 400
        assert len(load_catalog(out_a)) == 400


class TestVocabularyReuse:
    def test_renamed_noun_keeps_number_and_absent_noun_is_not_added(self):
        from tenturns.catalog_gen import _rename_noun

        template = ["Clothing, Shoes & Jewelry", "Women", "Shoes", "Sneakers"]
        shelf = ["Clothing, Shoes & Jewelry", "Women", "Shoes", "Slippers"]
        assert _rename_noun("Acme Sneaker for Women", template, shelf) == "Acme Slipper for Women"
        assert _rename_noun("Acme Sneakers 2-Pack", template, shelf) == "Acme Slippers 2-Pack"
        assert _rename_noun("Acme Trainer", template, shelf) == "Acme Trainer"

    def test_a_products_own_feature_is_reworded_and_shared_ones_reused(self, base):
        import random

        from tenturns.catalog_gen import CollectDistributions, GenState, Pool, borrowed_text

        state = CollectDistributions().run(GenState(config=GeneratorConfig(), base=base, rng=random.Random(0)))
        unique = "Soft breathable fabric keeps everyone comfortable during summer afternoons"
        shared = "Machine Wash"
        assert state.feature_rows[shared] > 1
        state.feature_rows[unique] = 1
        pool = Pool(base[:5], base[:40])
        pool.features = [unique]
        assert borrowed_text(state, pool, "Women Dresses") != unique
        pool.features = [shared]
        assert borrowed_text(state, pool, "Women Dresses") == shared
