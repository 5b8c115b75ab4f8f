"""decide.compare: three outcomes, never a bare comparison of overlapping balls."""

import math

import mpmath
import pytest
from flint import arb

from dpproofs.checker.decide import Outcome, compare, mp_ball, normalised_margin


def test_overlapping_balls_are_undecided_for_every_relation():
    a, b = arb(1, 0.5), arb("1.2")
    for relation in ("<=", "<", ">=", ">"):
        assert compare(a, b, relation) is Outcome.UNDECIDED


def test_separated_balls_are_decided_both_ways():
    assert compare(arb(1), arb(2), "<=") is Outcome.HOLDS
    assert compare(arb(2), arb(1), "<=") is Outcome.VIOLATED
    assert compare(arb(2), arb(1), ">") is Outcome.HOLDS


def test_equal_exact_values_satisfy_non_strict_but_not_strict_relations():
    assert compare(arb(1), arb(1), "<=") is Outcome.HOLDS
    assert compare(arb(1), arb(1), "<") is Outcome.VIOLATED


def test_mp_values_are_compared_with_a_radius_derived_from_their_precision():
    with mpmath.mp.workdps(60):
        one = mpmath.mpf(1)
        close = one + mpmath.mpf(10) ** -48  # inside the 10^(5-50) relative radius
        far = one + mpmath.mpf(10) ** -40
        assert compare(one, close, "<", dps=50) is Outcome.UNDECIDED
        assert compare(one, far, "<", dps=50) is Outcome.HOLDS


def test_mp_ball_keeps_digits_beyond_the_global_precision():
    with mpmath.mp.workdps(60):
        value = mpmath.mpf(1) / 3
    ball = mp_ball(value, 55)
    assert ball.rad() < 1e-45 and ball.overlaps(arb(1) / 3)


def test_infinities_are_decided_only_when_exact():
    assert compare(arb.pos_inf(), arb(1), "<=") is Outcome.VIOLATED
    assert compare(arb(1), arb.pos_inf(), "<=") is Outcome.HOLDS
    assert compare(arb.pos_inf(), arb.pos_inf(), "<") is Outcome.UNDECIDED


def test_the_margin_is_negative_exactly_when_the_relation_is_violated():
    assert normalised_margin(1, 2, "<=") > 0
    assert normalised_margin(2, 1, "<=") < 0
    assert normalised_margin(2, 1, ">=") > 0


def test_an_unknown_relation_is_rejected():
    with pytest.raises(ValueError, match="relation"):
        compare(arb(1), arb(2), "=<")


def test_digits_and_bits_convert_both_ways_with_guard_bits():
    from dpproofs.checker.precision import GUARD_BITS, to_bits, to_digits

    for dps in (15, 20, 50, 100, 1600):
        assert to_bits(dps) > dps * math.log2(10) + GUARD_BITS - 1  # truncated to an int
        assert to_digits(to_bits(dps)) in (dps - 1, dps)  # both directions truncate
    for bits in (128, 256, 1000, 8192):
        assert to_bits(to_digits(bits)) <= bits  # the digits of some bits fit in them


def test_the_escalation_always_tries_two_and_four_times_the_digits_then_stops_when_slow():
    import time

    from dpproofs.checker.precision import MAX_ESCALATION_DPS, escalation

    assert list(escalation(50)) == [100, 200, 400, 800, 1600]
    assert max(escalation(1000)) == 4000 >= MAX_ESCALATION_DPS
    tried = []
    for digits in escalation(50):
        tried.append(digits)
        if digits >= 200:
            time.sleep(1.05)  # a slow step once 4 dps is reached ends the escalation
    assert tried == [100, 200]
