"""KaryRandomizedResponse: the exact pair of two inputs of k-ary randomized response."""

import math

import mpmath
import numpy as np
import pytest

import dpproofs as dp
from dpproofs.checker.decide import mp_ball
from dpproofs.math import fast, precise

K = dp.KaryRandomizedResponse


def brute_force(alpha, p, k, dps=40):
    """``D_alpha(R(x) || R(x'))`` summed over the k output atoms directly (small k)."""
    with mpmath.mp.workdps(dps):
        p = mpmath.mpf(p)
        a, b = 1 - p + p / k, p / k
        P = [a, b] + [b] * (k - 2)
        Q = [b, a] + [b] * (k - 2)
        alpha = mpmath.mpf(alpha)
        return mpmath.log(mpmath.fsum(x**alpha * y ** (1 - alpha) for x, y in zip(P, Q))) / (alpha - 1)


@pytest.mark.parametrize("bad, name", [((0.0, 3), "p"), ((1.0, 3), "p"), ((math.nan, 3), "p"), ((0.5, 1), "k"),
                                       ((0.5, 2.5), "k"), ((0.5, True), "k")])
def test_bad_parameters_are_named(bad, name):
    with pytest.raises((dp.InvalidArgument, dp.InvalidArgumentType), match=f"{name}="):
        K(*bad)


def test_round_trips_through_to_dict_with_a_huge_k():
    mechanism = K(0.25, 10**400)
    assert dp.Mechanism.from_dict(mechanism.to_dict()) == mechanism


@pytest.mark.parametrize("alpha", [1.5, 2.0, 7.25, 100.0])
@pytest.mark.parametrize("p, k", [(0.01, 3), (0.3, 10), (0.9, 1000), (0.5, 4)])
def test_the_exact_formula_is_the_sum_over_the_atoms(alpha, p, k):
    assert precise.rdp_kary_randomized_response(alpha, p, k, dps=30) == pytest.approx(
        float(brute_force(alpha, p, k)), rel=1e-25)


def test_two_buckets_is_binary_randomized_response():
    orders = np.array([1.01, 2.0, 10.0, 1000.0])
    m = K(0.3, 2)
    binary = dp.RandomizedResponse(math.log(2 / 0.3 - 1))
    assert m.rdp_curve(orders, "add_remove") == pytest.approx(binary.rdp_curve(orders, "add_remove"), rel=1e-13)


def test_kl_limit_is_one_minus_p_times_t():
    t = mpmath.log1p(10 * (1 - mpmath.mpf(0.3)) / mpmath.mpf(0.3))
    assert precise.rdp_kary_randomized_response(1, 0.3, 10) == pytest.approx(float(0.7 * t), rel=1e-15)
    assert precise.rdp_kary_randomized_response(1 + 1e-12, 0.3, 10, dps=40) == pytest.approx(float(0.7 * t), rel=1e-9)


@pytest.mark.parametrize("p", [1e-12, 1e-4, 0.3, 0.999999])
@pytest.mark.parametrize("k", [3, 1000, 10**9, 10**400])
def test_the_float_curve_is_within_rtol_of_the_exact_value(p, k):
    orders = np.array([1 + 1e-6, 1.001, 1.5, 3.0, 64.0, 1e4])
    curve = K(p, k).rdp_curve(orders, "replace_one")
    for alpha, value in zip(orders, curve):
        exact = precise.rdp_kary_randomized_response(float(alpha), p, k, dps=30)
        assert abs(value - exact) <= fast.RTOL * exact


def test_the_float_curve_is_capped_by_t_at_huge_orders():
    m = K(0.3, 10)
    assert m.rdp_curve([1e300], "add_remove")[0] == pytest.approx(m.log_ratio, rel=1e-15)


@pytest.mark.parametrize("order", [2, 5, 40])
def test_the_ball_contains_the_exact_value(order):
    for p, k in ((0.3, 10), (0.01, 10**400)):
        enclosure = K(p, k).rdp_ball(order, "add_remove", 200)
        # the reference is good to ~50 digits: a ball of that radius around it meets the enclosure
        assert enclosure.overlaps(mp_ball(precise.rdp_kary_randomized_response(order, p, k, dps=50), 50))
        assert enclosure.rad() < abs(enclosure.mid()) * 1e-30


def test_below_binary_randomized_response_of_its_epsilon():
    m = K(0.3, 10)
    orders = np.array([1.5, 2.0, 10.0, 100.0])
    binary = dp.RandomizedResponse(m.pure_epsilon("add_remove")).rdp_curve(orders, "add_remove")
    assert np.all(m.rdp_curve(orders, "add_remove") < binary)


def test_total_variation_and_pure_epsilon():
    m = K(0.3, 10)
    assert m.total_variation("add_remove") >= 0.7 and m.total_variation("add_remove") == pytest.approx(0.7, rel=1e-15)
    t = mpmath.log(1 + 10 * (1 - mpmath.mpf(0.3)) / mpmath.mpf(0.3))
    assert m.pure_epsilon("replace_one") >= t and m.pure_epsilon("replace_one") == pytest.approx(float(t), rel=1e-14)


@pytest.mark.parametrize("relation", ["add_remove", "replace_one"])
def test_both_accountants_agree_with_the_exact_profile(relation):
    m = K(0.3, 10)
    a, b = 0.7 + 0.03, 0.03
    for epsilon in (0.0, 1.0, 2.5):
        exact = max(a - math.exp(epsilon) * b, 0.0)  # one atom above the line
        pld = dp.PLDAccountant(relation=relation).compose(m, 1).delta(epsilon)
        assert exact <= pld <= exact + 1e-4
    rdp = dp.Accountant(relation=relation).compose(m, 1).epsilon(1e-6)
    assert rdp >= math.log((a - 1e-6) / b)


# --- special=True: under add/remove the absent record outputs the uniform distribution -------------


def brute_force_special(alpha, p, k, dps=40):
    """``max(D_alpha(R(x) || U), D_alpha(U || R(x)))`` over the k atoms directly (small k)."""
    with mpmath.mp.workdps(dps):
        p, alpha = mpmath.mpf(p), mpmath.mpf(alpha)
        P = [1 - p + p / k] + [p / k] * (k - 1)
        U = [mpmath.mpf(1) / k] * k

        def d(x, y):
            return mpmath.log(mpmath.fsum(a**alpha * b ** (1 - alpha) for a, b in zip(x, y))) / (alpha - 1)

        return max(d(P, U), d(U, P))


@pytest.mark.parametrize("alpha", [1.5, 2.0, 7.25, 100.0])
@pytest.mark.parametrize("p, k", [(0.01, 3), (0.3, 10), (0.9, 1000), (0.5, 2)])
def test_the_special_formula_is_the_sum_over_the_atoms(alpha, p, k):
    assert precise.rdp_kary_randomized_response_special(alpha, p, k, dps=30) == pytest.approx(
        float(brute_force_special(alpha, p, k)), rel=1e-25)


@pytest.mark.parametrize("p", [1e-300, 1e-12, 1e-4, 0.3, 0.999999, 1 - 2.0**-53])
@pytest.mark.parametrize("k", [2, 3, 1000, 10**9, 10**400])
def test_the_special_float_curve_is_within_rtol_of_the_exact_value(p, k):
    orders = np.array([1 + 1e-6, 1.001, 1.5, 3.0, 64.0, 1e4])
    curve = K(p, k, special=True).rdp_curve(orders, "add_remove")
    for alpha, value in zip(orders, curve):
        exact = precise.rdp_kary_randomized_response_special(float(alpha), p, k, dps=30)
        assert abs(value - exact) <= fast.RTOL * exact


def test_the_special_kl_limit_is_the_larger_kl():
    with mpmath.mp.workdps(40):
        p, k = mpmath.mpf(0.3), 10
        r1 = 1 + (k - 1) * (1 - p)
        forward = (r1 * mpmath.log(r1) + (k - 1) * p * mpmath.log(p)) / k
        backward = -(mpmath.log(r1) + (k - 1) * mpmath.log(p)) / k
        expected = float(max(forward, backward))
    assert precise.rdp_kary_randomized_response_special(1, 0.3, 10) == pytest.approx(expected, rel=1e-15)
    assert precise.rdp_kary_randomized_response_special(1 + 1e-12, 0.3, 10, dps=40) == pytest.approx(expected, rel=1e-9)


def test_special_changes_add_remove_only():
    orders = np.array([1.5, 2.0, 10.0])
    plain, special = K(0.3, 10), K(0.3, 10, special=True)
    assert np.array_equal(special.rdp_curve(orders, "replace_one"), plain.rdp_curve(orders, "replace_one"))
    assert np.all(special.rdp_curve(orders, "add_remove") < plain.rdp_curve(orders, "add_remove"))
    assert special.pure_epsilon("add_remove") == pytest.approx(math.log(1 + 9 * 0.7), rel=1e-14)
    assert special.total_variation("add_remove") == pytest.approx(0.7 * 0.9, rel=1e-15)
    assert dp.Mechanism.from_dict(special.to_dict()) == special
    with pytest.raises(dp.InvalidArgumentType, match="special="):
        K(0.3, 10, special=1)


def test_the_special_ball_contains_the_exact_value():
    for p, k in ((0.3, 10), (0.01, 10**400)):
        enclosure = K(p, k, special=True).rdp_ball(5, "add_remove", 200)
        assert enclosure.overlaps(mp_ball(precise.rdp_kary_randomized_response_special(5, p, k, dps=50), 50))
