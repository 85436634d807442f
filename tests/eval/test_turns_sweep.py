import itertools
import json

import pytest

from eval.config import TurnsConfig
from eval.dataset_types import TurnsDatasetInfo, source_file
from eval.turns_run import play_whole_set
from eval.turns_sweep import (
    ChunkedPlayer,
    SweepGrid,
    chunk_tasks,
    load_grid,
    local_map,
    run_sweep,
    sweep_markdown,
)


@pytest.fixture
def small_public(shared_data, tmp_path):
    techjam = shared_data / "techjam"
    sessions = tmp_path / "sessions.jsonl"
    with (techjam / "public_set.jsonl").open() as fh:
        sessions.write_text("".join(itertools.islice(fh, 30)))
    catalog = techjam / "catalog_sample.jsonl"
    return TurnsDatasetInfo(name="small", catalog_path=str(catalog), sessions_path=str(sessions),
                            n_sessions=30, sources=[source_file(catalog), source_file(sessions)])


class TestChunks:
    def test_chunks_cover_every_session_once_in_order(self, small_public):
        tasks = chunk_tasks(TurnsConfig(agent="baseline"), small_public, chunk=7)
        assert [(t.start, t.stop) for t in tasks] == [(0, 7), (7, 14), (14, 21), (21, 28), (28, 30)]

    @pytest.mark.parametrize("agent", ["baseline", "tenturns"])
    def test_a_set_played_in_chunks_scores_as_one_evaluation(self, small_public, agent):
        config = TurnsConfig(agent=agent)
        whole = play_whole_set(small_public, config)
        chunked = ChunkedPlayer(local_map, chunk=8)(small_public, config)
        assert chunked.per_session == whole.per_session
        for metric in ("hr10", "mrr", "mttc", "efficiency", "technical_score", "n_sessions"):
            assert getattr(chunked, metric) == getattr(whole, metric), metric
        assert chunked.per_scenario == whole.per_scenario and chunked.sessions_sha256 != ""


class TestGrid:
    def test_every_combination_is_one_config(self, tmp_path):
        path = tmp_path / "grid.toml"
        path.write_text('agent = "tenturns"\n[options]\nsharpness = [2.0, 4.0]\nwidth_policy = ["seed", "expected"]\n')
        labels = [label for label, _ in load_grid(path).configs()]
        assert len(labels) == 4 and 'sharpness=2.0, width_policy="seed"' in labels

    def test_json_grid_and_an_unknown_option_is_an_error(self, tmp_path):
        path = tmp_path / "grid.json"
        path.write_text(json.dumps({"agent": "tenturns", "options": {"no_such_knob": [1]}}))
        with pytest.raises(ValueError, match="invalid options"):
            load_grid(path).configs()

    def test_an_empty_value_list_is_an_error(self, tmp_path):
        path = tmp_path / "grid.json"
        path.write_text(json.dumps({"agent": "tenturns", "options": {"sharpness": []}}))
        with pytest.raises(ValueError, match="no values"):
            load_grid(path)

    def test_a_sweep_row_per_config_and_dataset_with_the_official_figures(self, small_public):
        grid = SweepGrid(agent="tenturns", options={"width_policy": ["seed", "expected"]})
        rows = run_sweep(grid, [small_public], local_map, chunk=10)
        assert [r.config for r in rows] == ['width_policy="seed"', 'width_policy="expected"']
        direct = play_whole_set(small_public, TurnsConfig(agent="tenturns", options={"width_policy": "seed"}))
        assert rows[0].technical_score == direct.technical_score and rows[0].mttc == direct.mttc
        assert sweep_markdown(rows).count("\n") == 4
