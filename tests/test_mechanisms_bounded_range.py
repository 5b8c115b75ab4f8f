"""dpproofs.BoundedRange: the epsilon-bounded-range step (the exponential mechanism).

Its RDP bound min(alpha eps^2 / 8, randomized response's) is held against exact Rényi divergences
(mpmath) of bounded-range pairs: the two-point pairs (loss t or t + eps; for a fixed t they are the
extreme points, the worst for the convex e^{alpha L}) and a concrete exponential mechanism.
"""

import math

import numpy as np
import pytest
from mpmath import exp, log, mp, mpf

import dpproofs as dp

EPSILONS = (0.01, 0.1, 1.0, 5.0)
ORDERS = (1.5, 2.0, 8.0, 64.0, 1000.0)
#: Grid of the two-point family: the Q-mass p at the top loss (the sup is not needed: every grid
#: point is a bounded-range pair, so the bound must lie above each).
GRID = 300


def _two_point_rdp(eps, alpha, p):
    """D_alpha(P || Q) of the bounded-range pair with losses t, t + eps, Q-masses 1 - p, p."""
    eps, alpha, p = mpf(eps), mpf(alpha), mpf(p)
    t = -log(1 - p + p * exp(eps))
    return log((1 - p) * exp(alpha * t) + p * exp(alpha * (t + eps))) / (alpha - 1)


def _worst_two_point(eps, alpha):
    with mp.workdps(40):
        return float(max(_two_point_rdp(eps, alpha, mpf(i) / GRID) for i in range(1, GRID)))


@pytest.mark.parametrize("eps", EPSILONS)
def test_the_curve_is_above_every_two_point_bounded_range_pair_and_below_randomized_response(eps):
    orders = np.array(ORDERS)
    curve = dp.BoundedRange(eps).rdp_curve(orders, "add_remove")
    rr = dp.RandomizedResponse(eps).rdp_curve(orders, "add_remove")
    assert np.all(curve <= rr)
    for alpha, bound in zip(ORDERS, curve):
        assert bound >= _worst_two_point(eps, alpha)


def test_a_quarter_of_the_zcdp_line_is_refuted_by_a_two_point_pair():
    """The check has teeth: alpha eps^2 / 16 (half the zCDP constant) is below a bounded-range pair."""
    eps, alpha = 0.1, 2.0
    assert _worst_two_point(eps, alpha) > alpha * eps**2 / 16


def _exponential_mechanism_rdp(eps, u, v, alpha):
    """Exact D_alpha of the exponential mechanism exp(eps u / 2) on utilities u vs v (|u - v| <= 1)."""
    with mp.workdps(40):
        eps, alpha = mpf(eps), mpf(alpha)
        wp = [exp(eps * mpf(x) / 2) for x in u]
        wq = [exp(eps * mpf(x) / 2) for x in v]
        zp, zq = sum(wp), sum(wq)
        total = sum((a / zp) ** alpha * (b / zq) ** (1 - alpha) for a, b in zip(wp, wq))
        return float(log(total) / (alpha - 1))


@pytest.mark.parametrize("eps", (0.1, 1.0, 3.0))
def test_a_concrete_exponential_mechanism_is_below_the_curve(eps):
    u = [0.0, 1.0, 1.0, 3.0, 0.5]
    v = [1.0, 0.0, 1.0, 2.0, 1.0]  # every utility moved by at most 1 (sensitivity 1)
    curve = dp.BoundedRange(eps).rdp_curve(np.array(ORDERS), "add_remove")
    for alpha, bound in zip(ORDERS, curve):
        assert _exponential_mechanism_rdp(eps, u, v, alpha) <= bound
        assert _exponential_mechanism_rdp(eps, v, u, alpha) <= bound


@pytest.mark.parametrize("order", [2, 8, 100, 100000])
def test_the_certified_ball_encloses_an_upper_bound_of_the_float_curve(order):
    mechanism = dp.BoundedRange(0.3)
    ball = mechanism.rdp_ball(order, "add_remove", 128)
    value = float(mechanism.rdp_curve(np.array([float(order)]), "add_remove")[0])
    assert float(ball.upper().mid()) >= value * (1 - 1e-10)
    assert float(ball.lower().mid()) >= _worst_two_point(0.3, order)
    rr = float(dp.RandomizedResponse(0.3).rdp_curve(np.array([float(order)]), "add_remove")[0])
    exact_min = min(order * 0.3**2 / 8, rr)
    assert float(ball.mid()) == pytest.approx(exact_min, rel=1e-9)


def test_pure_epsilon_total_variation_and_pld_pairs_are_randomized_responses():
    mechanism, rr = dp.BoundedRange(0.7), dp.RandomizedResponse(0.7)
    for relation in ("add_remove", "replace_one"):
        assert mechanism.pure_epsilon(relation) == 0.7
        assert mechanism.total_variation(relation) == rr.total_variation(relation)
    pairs = mechanism.pld_pairs("add_remove")
    assert pairs["add"].atoms == rr.pld_pairs("add_remove")["add"].atoms


def test_the_accountants_compose_it_and_delta_is_zero_at_the_summed_epsilon():
    rdp = dp.Accountant().compose(dp.BoundedRange(0.25), 8)
    assert rdp.delta(2.0) == 0.0
    certified = dp.Accountant(certified=True).compose(dp.BoundedRange(0.1), 100)
    plain = dp.Accountant().compose(dp.BoundedRange(0.1), 100)
    assert certified.epsilon(1e-5) >= plain.epsilon(1e-5) * (1 - 1e-9)
    pld = dp.PLDAccountant().compose(dp.BoundedRange(0.1), 100)
    assert pld.epsilon(1e-5) <= dp.PLDAccountant().compose(dp.RandomizedResponse(0.1), 100).epsilon(1e-5)


def test_it_validates_and_round_trips():
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(dp.InvalidArgument, match="epsilon="):
            dp.BoundedRange(bad)
    with pytest.raises(dp.InvalidArgumentType, match="epsilon="):
        dp.BoundedRange("1")
    mechanism = dp.BoundedRange(0.5)
    assert dp.mechanisms.Mechanism.from_dict(mechanism.to_dict()) == mechanism
