from eval.compare import compare_runs


class TestCompareRuns:
    def test_paired_per_dataset_with_verdict(self, sample_runs, make_dataset, make_run):
        base, cand = sample_runs
        result = compare_runs(base, cand)
        outcomes = {row.name: row.paired.outcome for row in result.datasets}
        assert outcomes == {"generated": "win", "cranfield": "tie", "public-sample": "tie"}
        assert result.verdict.accepted

    def test_win_on_one_dataset_and_loss_on_another_is_rejected(self, make_dataset, make_run):
        base = make_run("a", [make_dataset("cranfield", [0.3, 0.4] * 20), make_dataset("cisi", [0.5, 0.6] * 20)])
        cand = make_run("b", [make_dataset("cranfield", [0.5, 0.6] * 20), make_dataset("cisi", [0.3, 0.45] * 20)])
        result = compare_runs(base, cand)
        assert not result.verdict.accepted
        assert result.verdict.detail == "loses on cisi"

    def test_different_data_is_not_paired(self, make_dataset, make_run):
        base = make_run("a", [make_dataset("cisi", [0.5] * 10)])
        cand = make_run("b", [make_dataset("cisi", [0.9] * 10, sources={"CISI.ALL": "cd" * 32})])
        result = compare_runs(base, cand)
        assert not result.datasets[0].comparable and "hashes differ" in result.datasets[0].note
        assert not result.verdict.accepted

    def test_candidate_with_zero_result_query_is_rejected_despite_winning(self, make_dataset, make_run):
        base = make_run("a", [make_dataset("generated", [0.4] * 20)])
        cand = make_run("b", [make_dataset("generated", [0.8] * 20, zero={"q3"})])
        result = compare_runs(base, cand)
        assert result.datasets[0].paired.outcome == "win"
        assert not result.verdict.accepted and "gate" in result.verdict.detail

    def test_datasets_only_on_one_side_are_listed(self, sample_runs, make_dataset, make_run):
        base, _ = sample_runs
        other = make_run("c", [make_dataset("cisi", [0.5] * 5)])
        result = compare_runs(base, other)
        assert result.only_in_candidate == ["cisi"] and "cranfield" in result.only_in_baseline

    def test_metric_pairs_the_judged_card_shares_and_skips_sets_without_cards(self, sample_runs):
        base, cand = sample_runs
        result = compare_runs(base, cand, metric="correct_share")
        rows = {row.name: row for row in result.datasets}
        # generated: 1 correct of 4 cards -> 3 of 4 in every query
        assert rows["generated"].paired.baseline_mean == 0.25 and rows["generated"].paired.candidate_mean == 0.75
        assert rows["generated"].primary == "correct_share"
        assert not rows["cranfield"].comparable and "no per-item correct_share" in rows["cranfield"].note
        assert result.verdict.accepted and result.verdict.detail.startswith("wins on generated")

    def test_not_wrong_share_counts_50_50_cards_as_not_wrong(self, sample_runs):
        base, _ = sample_runs
        values = base.datasets["generated"].item_values("not_wrong_share")
        assert set(values.values()) == {0.5}

    def test_metric_can_be_any_item_metric(self, sample_runs):
        base, cand = sample_runs
        result = compare_runs(base, cand, metric="mrr@10")
        assert {row.name for row in result.datasets if row.paired} == {"generated", "cranfield", "public-sample"}
