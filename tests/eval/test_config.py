import json

import pytest

from eval.config import EvalConfig, load_sweep

SEED_PARAMETERS = {
    "rrf_k": 30, "floor": 0.2, "section_cap": 10, "global_cap": 40, "global_deck_cap": 3,
    "near_duplicate_threshold": 0.85, "boost_cap": 0.3, "entity_boost": 1.4, "expansion_cap": 8,
    "taxonomy_cutoff": 0.7, "world_expansion_cutoff": 0.55,
}


class TestEvalConfig:
    def test_every_seed_parameter_is_settable(self):
        config = EvalConfig.model_validate({"slides": {"search": SEED_PARAMETERS}})
        assert config.slides.search.model_dump(include=set(SEED_PARAMETERS)) == SEED_PARAMETERS

    def test_fingerprint_follows_content(self):
        assert EvalConfig().fingerprint() == EvalConfig().fingerprint()
        assert EvalConfig().fingerprint() != EvalConfig.model_validate({"slides": {"search": {"rrf_k": 10}}}).fingerprint()

    def test_typo_is_an_error(self, tmp_path):
        path = tmp_path / "c.json"
        path.write_text(json.dumps({"turns": {"agnet": "baseline"}}))
        with pytest.raises(ValueError, match="agnet"):
            load_sweep(path)


class TestLoadSweep:
    def test_list_is_a_sweep_and_object_is_one_config(self, tmp_path):
        sweep = tmp_path / "sweep.json"
        sweep.write_text(json.dumps([{"name": f"k{k}", "slides": {"search": {"rrf_k": k}}} for k in (20, 60, 100)]))
        configs = load_sweep(sweep)
        assert [c.slides.search.rrf_k for c in configs] == [20, 60, 100]
        single = tmp_path / "one.json"
        single.write_text(json.dumps({"turns": {"agent": "baseline"}}))
        assert [c.turns.agent for c in load_sweep(single)] == ["baseline"]

    def test_missing_and_malformed_files_are_clear_errors(self, tmp_path):
        with pytest.raises(FileNotFoundError, match="nope.json"):
            load_sweep(tmp_path / "nope.json")
        bad = tmp_path / "bad.json"
        bad.write_text("{")
        with pytest.raises(ValueError, match="invalid JSON at line 1"):
            load_sweep(bad)
