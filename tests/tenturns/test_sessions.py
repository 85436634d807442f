import json
from collections import Counter

import pytest

from tenturns.catalog import load_catalog
from tenturns.sessions import (
    OFFICIAL_MIX,
    draw_sessions,
    draw_sessions_file,
    read_public_rows,
    scenario_counts,
)
from tenturns.simulator import TurnsSession


@pytest.fixture(scope="module")
def techjam(shared_data):
    return shared_data / "techjam"


@pytest.fixture(scope="module")
def public(techjam):
    return read_public_rows(techjam / "public_set.jsonl")


class TestScenarioCounts:
    def test_two_hundred_is_the_official_mix(self):
        assert scenario_counts(200) == OFFICIAL_MIX

    @pytest.mark.parametrize("n", [1, 7, 20, 33, 1000])
    def test_counts_sum_to_n_and_stay_proportional(self, n):
        counts = scenario_counts(n)
        assert sum(counts.values()) == n
        for name, official in OFFICIAL_MIX.items():
            assert abs(counts[name] - n * official / 200) < 1


class TestDrawSessions:
    def test_official_mix_distinct_catalog_targets_and_public_profiles(self, techjam, public):
        rows = draw_sessions(techjam / "catalog_sample.jsonl", 200, 5, public)
        assert Counter(r["scenario_type"] for r in rows) == Counter(OFFICIAL_MIX)
        catalog = load_catalog(techjam / "catalog_sample.jsonl")
        targets = [r["ground_truth"]["parent_asin"] for r in rows]
        assert len(set(targets)) == 200 and all(t in catalog.index_of for t in targets)
        profiles = {json.dumps(r["user_profile"], sort_keys=True) for r in public}
        assert all(json.dumps(r["user_profile"], sort_keys=True) in profiles for r in rows)
        assert all(TurnsSession.model_validate(r) for r in rows)

    def test_targets_are_uniform_not_the_public_ones(self, techjam, public):
        rows = draw_sessions(techjam / "catalog_sample.jsonl", 600, 1, public)
        first_200 = {p.parent_asin for p in load_catalog(techjam / "catalog_sample.jsonl").products[:200]}
        share = sum(r["ground_truth"]["parent_asin"] in first_200 for r in rows) / len(rows)
        assert 0.10 < share < 0.24  # 200 of 1,200 rows: one in six

    def test_seed_and_catalog_hash_are_recorded(self, techjam, public):
        rows = draw_sessions(techjam / "catalog_sample.jsonl", 10, 9, public)
        assert {json.dumps(r["source"]) for r in rows} == {json.dumps({
            "generator": "seek turns sessions draw", "seed": 9, "catalog": "catalog_sample.jsonl",
            "catalog_sha256": "4ab047be3e9b3f9034d1674eccbceae5d29c5b8d15fa37324b48c0573821f54e"})}

    def test_deterministic_per_seed(self, techjam, public, tmp_path):
        a = draw_sessions_file(techjam / "catalog_sample.jsonl", 50, 3, tmp_path / "a.jsonl", techjam / "public_set.jsonl")
        b = draw_sessions_file(techjam / "catalog_sample.jsonl", 50, 3, tmp_path / "b.jsonl", techjam / "public_set.jsonl")
        c = draw_sessions_file(techjam / "catalog_sample.jsonl", 50, 4, tmp_path / "c.jsonl", techjam / "public_set.jsonl")
        assert a == b != c

    def test_n_larger_than_the_catalog_is_an_error(self, techjam, public):
        with pytest.raises(ValueError, match="between 1 and the catalog size 1200"):
            draw_sessions(techjam / "catalog_sample.jsonl", 5000, 1, public)
