"""``seek eval run --ray`` and ``seek turns sweep --ray`` against a real two-node Ray cluster equal local runs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from eval.runs import load_run

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def _local_seek(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def _figures(record) -> dict:
    return {name: {"summary": d.summary, "per_group": d.per_group, "verdicts": d.verdicts, "error": d.error,
                   "gates": [(g.name, g.passed) for g in d.gates],
                   "items": [(i.id, i.score, i.metrics, i.ranked) for i in d.items]}
            for name, d in record.datasets.items()}


def test_eval_run_on_ray_gives_the_figures_of_a_local_run(ray_cluster, tmp_path, shared_data):
    config = tmp_path / "small.json"
    config.write_text(json.dumps({"name": "small", "slides": {"max_queries": 12, "embedder": "fast"}}))
    args = ("eval", "run", "--config", str(config), "--datasets", "public-sample,cranfield", "--json")
    local = _local_seek(*args)
    assert local.returncode == 0, local.stderr[-3000:]
    remote = ray_cluster.seek(*args, "--ray", ray_cluster.address, "--ray-chunk", "50")
    assert remote.returncode == 0, remote.stderr[-3000:]
    # 200 sessions in chunks of 50, played twice (the reproducibility gate), plus cranfield as one task.
    assert f"ray: 9 tasks on {ray_cluster.address}" in remote.stderr
    local_record = load_run(json.loads(local.stdout)["run_id"])
    ray_record = load_run(json.loads(remote.stdout)["run_id"])
    assert ray_record.run_id != local_record.run_id
    assert _figures(ray_record) == _figures(local_record)
    assert (ray_record.datasets["public-sample"].summary["n_sessions"] == 200
            and ray_record.datasets["cranfield"].params["n_queries"] == 12)


def test_a_slides_dataset_in_chunks_on_ray_gives_the_figures_of_a_local_run(ray_cluster, tmp_path, shared_data):
    config = tmp_path / "small.json"
    config.write_text(json.dumps({"name": "small", "slides": {"max_queries": 12, "embedder": "fast"}}))
    args = ("eval", "run", "--config", str(config), "--datasets", "cranfield", "--json")
    local = _local_seek(*args)
    assert local.returncode == 0, local.stderr[-3000:]
    remote = ray_cluster.seek(*args, "--ray", ray_cluster.address, "--ray-chunk", "5")
    assert remote.returncode == 0, remote.stderr[-3000:]
    assert f"ray: 3 tasks on {ray_cluster.address}" in remote.stderr  # 12 queries in chunks of 5
    local_record = load_run(json.loads(local.stdout)["run_id"])
    ray_record = load_run(json.loads(remote.stdout)["run_id"])
    assert _figures(ray_record) == _figures(local_record)
    stages = [[(s["stage"], s["candidates_in"], s["candidates_out"]) for s in r.datasets["cranfield"].trace["stages"]]
              for r in (ray_record, local_record)]
    assert stages[0] == stages[1] and stages[0]  # the trace query ran once, in the first chunk (timings aside)


def test_turns_sweep_on_ray_gives_the_table_of_a_local_sweep(ray_cluster, tmp_path, shared_data):
    grid = tmp_path / "grid.toml"
    grid.write_text('agent = "tenturns"\ndatasets = ["public-sample"]\n[options]\n'
                    'width_policy = ["seed", "expected"]\nrule_out_shown = [true, false]\n')
    local = _local_seek("turns", "sweep", "--config", str(grid), "--chunk", "1000", "--out", str(tmp_path / "local"),
                        "--json")
    assert local.returncode == 0, local.stderr[-3000:]
    remote = ray_cluster.seek("turns", "sweep", "--config", str(grid), "--chunk", "50", "--out", str(tmp_path / "ray"),
                              "--ray", ray_cluster.address, "--json")
    assert remote.returncode == 0, remote.stderr[-3000:]
    assert f"ray: 16 tasks on {ray_cluster.address}" in remote.stderr  # 4 configs x 4 chunks of 50 sessions
    local_rows = json.loads((tmp_path / "local" / "sweep.json").read_text())["rows"]
    ray_rows = json.loads((tmp_path / "ray" / "sweep.json").read_text())["rows"]
    assert len(ray_rows) == 4 and ray_rows == local_rows
    assert (tmp_path / "ray" / "sweep.md").read_text() == (tmp_path / "local" / "sweep.md").read_text()
