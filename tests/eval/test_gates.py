import pytest

from eval.gates import (
    MIN_EFFECT,
    PairedDifference,
    agreement_gate,
    paired_bootstrap,
    reproducibility_gate,
    zero_result_gate,
)


class TestZeroResultGate:
    def test_any_empty_query_fails(self):
        gate = zero_result_gate({"q1": 5, "q2": 0, "q3": 1})
        assert not gate.passed and gate.offenders == ["q2"]

    def test_all_nonempty_passes(self):
        assert zero_result_gate({"q1": 5, "q2": 1}).passed


class TestReproducibilityGate:
    def test_identical_to_six_decimals_passes(self):
        assert reproducibility_gate({"hr10": 0.1250001}, {"hr10": 0.1250004}).passed

    def test_difference_at_sixth_decimal_fails(self):
        gate = reproducibility_gate({"hr10": 0.125, "mrr": 0.5}, {"hr10": 0.125001, "mrr": 0.5})
        assert not gate.passed and gate.offenders == ["hr10"]

    def test_missing_metric_fails(self):
        assert not reproducibility_gate({"hr10": 0.1}, {}).passed


def _scores(values):
    return {f"q{i}": v for i, v in enumerate(values)}


class TestPairedBootstrap:
    def test_clear_gain_is_a_win(self):
        base = _scores([0.5] * 100)
        cand = _scores([0.6] * 100)
        diff = paired_bootstrap(base, cand)
        assert diff.outcome == "win" and diff.diff == pytest.approx(0.1) and diff.n == 100

    def test_noise_is_a_tie_and_is_reproducible(self):
        base = _scores([(i * 37 % 11) / 10 for i in range(60)])
        cand = _scores([(i * 37 % 11) / 10 + (0.05 if i % 2 else -0.05) for i in range(60)])
        first, second = paired_bootstrap(base, cand), paired_bootstrap(base, cand)
        assert first.outcome == "tie" and first == second

    def test_reliable_but_tiny_gain_is_not_a_win(self):
        base = _scores([0.5] * 200)
        cand = _scores([0.5 + MIN_EFFECT / 2] * 200)
        assert paired_bootstrap(base, cand).outcome == "tie"

    def test_any_reliable_loss_is_a_loss(self):
        assert paired_bootstrap(_scores([0.5] * 200), _scores([0.499] * 200)).outcome == "loss"

    def test_only_shared_items_are_paired(self):
        assert paired_bootstrap({"a": 1.0, "b": 0.0}, {"b": 1.0, "c": 0.0}).n == 1
        with pytest.raises(ValueError):
            paired_bootstrap({"a": 1.0}, {"b": 1.0})


def _diff(outcome):
    return PairedDifference(n=10, baseline_mean=0.5, candidate_mean=0.5, diff=0.0, ci_low=0.0, ci_high=0.0,
                            outcome=outcome)


class TestAgreementGate:
    def test_win_on_one_and_loss_on_another_is_rejected(self):
        up = paired_bootstrap(_scores([0.4] * 80), _scores([0.6] * 80))
        down = paired_bootstrap(_scores([0.7] * 80), _scores([0.55] * 80))
        verdict = agreement_gate({"cranfield": up, "cisi": down})
        assert not verdict.accepted and "cisi" in verdict.detail

    def test_win_with_ties_elsewhere_is_accepted(self):
        assert agreement_gate({"a": _diff("win"), "b": _diff("tie")}).accepted

    def test_all_ties_is_rejected(self):
        assert not agreement_gate({"a": _diff("tie"), "b": _diff("tie")}).accepted

    def test_gate_failure_blocks_acceptance(self):
        verdict = agreement_gate({"a": _diff("win")}, blocked=["a"])
        assert not verdict.accepted and "gate" in verdict.detail
