import numpy as np
import pytest

from tenturns.agents.width import plan_width, target_probabilities


class TestTargetProbabilities:
    def test_ties_share_equally_and_weaker_matches_fade(self):
        q = target_probabilities(np.array([2.0, 2.0, 1.0]), sharpness=4.0)
        assert q[0] == pytest.approx(q[1]) and q[2] < q[0] / 50 and q.sum() == pytest.approx(1.0)

    def test_no_candidates_no_probabilities(self):
        assert len(target_probabilities(np.zeros(0), 4.0)) == 0


class TestPlanWidth:
    def test_a_sure_first_item_is_shown_alone(self):
        assert plan_width(np.array([1.0, 0.0, 0.0]), turn=3) == 1

    def test_a_small_tie_with_turns_to_spare_is_shown_one_at_a_time(self):
        assert plan_width(np.full(4, 0.25), turn=3) == 1

    def test_a_tie_larger_than_the_turns_left_can_cover_is_shown_wide(self):
        assert plan_width(np.full(60, 1 / 60), turn=5) > 1

    def test_the_last_turn_shows_everything_it_can(self):
        assert plan_width(np.full(3, 1 / 3), turn=10) == 10

    def test_width_never_exceeds_ten(self):
        assert plan_width(np.full(500, 1 / 500), turn=9) <= 10
