"""Finite mechanisms: the strategies respect their bounds and the quantities agree with sums."""

from fractions import Fraction

from hypothesis import given, settings
from mpmath import mp

from dpproofs.checker.oracles import finite
from dpproofs.checker.decide import mp_ball
from tests.support import sized


@settings(max_examples=sized(30))
@given(finite.pairs(max_log_ratio=0.4))
def test_bounded_pairs_are_eps_dp_at_the_requested_level(pair):
    assert finite.epsilon_dp(pair) <= 0.4
    assert sum(pair.p) == 1 and sum(pair.q) == 1


@settings(max_examples=sized(15))
@given(finite.adaptive_compositions(steps=2, max_outcomes=3))
def test_the_joint_distribution_of_an_adaptive_composition_sums_to_one(composition):
    joint = composition.joint()
    assert sum(joint.p) == 1 and sum(joint.q) == 1
    assert len(joint) == sum(len(pair) for pair in composition.step_pairs(1))


@settings(max_examples=sized(15))
@given(finite.pairs())
def test_log_moment_is_lambda_times_the_renyi_divergence_of_order_lambda_plus_one(pair):
    with mp.workdps(60):
        assert abs(finite.log_moment(pair, 3) - 3 * finite.rdp(pair, 4)) < mp.mpf(10) ** -40
        assert finite.rdp_ball(pair, 4).overlaps(mp_ball(finite.rdp(pair, 4), 50))
        assert finite.delta_ball(pair, 0.3).overlaps(mp_ball(finite.delta(pair, 0.3), 50))


def test_the_neyman_pearson_sets_attain_the_hockey_stick_divergence():
    pair = finite.Pair((Fraction(1, 2), Fraction(1, 3), Fraction(1, 6)), (Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)))
    best = max(
        finite.probability(pair.p, s) - 2 * finite.probability(pair.q, s) for s in finite.events(pair)
    )
    by_np = max(
        finite.probability(pair.p, s) - 2 * finite.probability(pair.q, s)
        for s in finite.neyman_pearson_events(pair)
    )
    assert best == by_np == Fraction(1, 6)
    with mp.workdps(40):
        assert abs(finite.delta(pair, mp.log(2)) - mp.mpf(1) / 6) < mp.mpf(10) ** -35
