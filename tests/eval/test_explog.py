from eval.explog import append_log, log_line


class TestExperimentLog:
    def test_line_has_every_dataset_and_the_verdict(self, sample_runs, make_dataset, make_run):
        run, _ = sample_runs
        line = log_line(run, "baseline | offline")
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert cells[0] == "2026-11-29" and cells[1] == "ffffffffff"
        assert "baseline / offline" in cells[2] and run.run_id in cells[2]
        assert "cranfield ndcg@10=0.4000" in cells[3] and "public-sample technical_score=0.9000" in cells[3]
        assert cells[4] == "gates pass"

    def test_failed_gate_is_named(self, make_dataset, make_run):
        run = make_run("r", [make_dataset("generated", [0.5] * 3, zero={"q1"})])
        assert "FAILED generated: zero-result" in log_line(run, "hard filter")

    def test_append_only(self, sample_runs, tmp_path):
        log = tmp_path / "EXPERIMENT_LOG.md"
        log.write_text("# Experiment log\n")
        append_log(sample_runs[0], "first", log)
        append_log(sample_runs[1], "second", log)
        lines = log.read_text().splitlines()
        assert lines[0] == "# Experiment log" and "first" in lines[1] and "second" in lines[2]
