"""Ledgers of Gaussians in the PLD accountant: the exact closed form (Balle & Wang 2018, Thm 8, at
mu = sqrt(sum n_i / sigma_i^2)), certified in arb, at any number of steps and noise; the grid
(asked for by grid_step) brackets the same value."""

import math
from fractions import Fraction

import pytest

import dpproofs as dp
from dpproofs.accountant.pld import gaussian_closed_form as gcf
from dpproofs.math import precise


def _exact_delta(epsilon, mu):
    return precise.delta_gaussian(epsilon, 1 / precise.mp.mpf(mu), dps=40)


@pytest.mark.parametrize("sigma, steps, delta", [(1.0, 1, 1e-5), (0.3, 1, 1e-6), (100.0, 10000, 1e-10),
                                                 (10.0, 10**9, 1e-5), (1e-3, 1, 1e-5), (148.2, 3, 1e-5)])
def test_a_gaussian_ledger_is_answered_exactly_at_any_steps_and_noise(sigma, steps, delta):
    bounds = dp.PLDAccountant().compose(dp.Gaussian(sigma), steps).epsilon_bounds(delta)
    mu = math.sqrt(steps) / sigma
    assert bounds.source == "pld" and bounds.grid_step is None and bounds.target_met
    assert _exact_delta(bounds.upper, mu) <= delta <= _exact_delta(bounds.lower, mu)
    assert bounds.upper - bounds.lower <= 1e-9 * bounds.upper


def test_gaussians_of_different_noise_compose_to_one_gaussian_under_both_relations():
    for relation, sensitivity in (("add_remove", 1.0), ("replace_one", 2.0)):
        acc = dp.PLDAccountant(relation=relation).compose(dp.Gaussian(1.0), 3).compose(dp.Gaussian(2.0), 5)
        acc.compose(dp.SampledGaussian(1.0, 4.0), 2)  # a rate of 1 is the Gaussian
        mu = sensitivity * math.sqrt(3 / 1.0**2 + 5 / 2.0**2 + 2 / 4.0**2)
        bounds = acc.epsilon_bounds(1e-6)
        assert _exact_delta(bounds.upper, mu) <= 1e-6 <= _exact_delta(bounds.lower, mu)
        deltas = acc.delta_bounds(2.0)
        assert deltas.lower <= _exact_delta(2.0, mu) <= deltas.upper


def test_the_grid_asked_for_brackets_the_closed_form():
    closed = dp.PLDAccountant().compose(dp.Gaussian(2.0), 100).epsilon_bounds(1e-5)
    grid = dp.PLDAccountant(grid_step=1e-3).compose(dp.Gaussian(2.0), 100).epsilon_bounds(1e-5)
    assert grid.grid_step == 1e-3
    assert grid.lower <= closed.lower <= closed.upper <= grid.upper


def test_a_gaussian_beside_another_mechanism_goes_to_the_grid():
    bounds = dp.PLDAccountant().compose(dp.Gaussian(2.0), 10).compose(dp.Laplace(5.0)).epsilon_bounds(1e-5)
    assert bounds.source == "pld" and bounds.grid_step is not None


def test_beyond_the_closed_forms_range_the_accountant_keeps_its_other_paths():
    assert gcf.gaussian_mu([(dp.Gaussian(1e-151), 1)], "add_remove") is None  # mu = 1e151 > MAX_MU
    bounds = dp.PLDAccountant().compose(dp.Gaussian(1e-151)).epsilon_bounds(1e-5)
    assert bounds.upper > 0 and bounds.lower <= bounds.upper


@pytest.mark.parametrize("sigma, steps, relation, delta", [
    (0.0557, 510181, "replace_one", 1e-6),  # the fuzz's case (seed 20261211): mu 25 650, was [0, 3.3e8] from RDP
    (1e-6, 100, "add_remove", 1e-6),  # mu = 1e7: arb's own erfc lost all accuracy here
    (1e-30, 1, "add_remove", 1e-10),  # mu = 1e30, epsilon 5e59
])
def test_a_gaussian_ledger_of_huge_mu_is_answered_from_the_closed_form(sigma, steps, relation, delta):
    bounds = dp.PLDAccountant(relation=relation).compose(dp.Gaussian(sigma), steps).epsilon_bounds(delta)
    assert bounds.source == "pld" and bounds.grid_step is None
    assert bounds.upper - bounds.lower <= 1e-9 * bounds.upper
    with precise.mp.workdps(120):  # epsilon = mu^2/2 + mu z: about 2 log10(mu) digits cancel
        noise = precise.mp.mpf(sigma) / ((2 if relation == "replace_one" else 1) * precise.mp.sqrt(steps))
        assert (precise.delta_gaussian(bounds.upper, noise, dps=120) <= delta
                <= precise.delta_gaussian(bounds.lower, noise, dps=120))


def test_the_arb_erfc_keeps_its_accuracy_far_out():
    # arb's own erfc on this ball answered [+/- 3.4e-217149303769]; Mills-ratio bounds (A&S 7.1.13)
    from flint import arb

    from dpproofs.math import ball

    with ball.precision(128):
        x = arb(707107) + arb("0 +/- 1e-30")
        value = ball.erfc(x)
    with precise.mp.workdps(60):
        exact = precise.mp.erfc(707107)
        middle = precise.mp.mpf(value.mid().str(40, radius=False))
        radius = precise.mp.mpf(value.rad().str(10, radius=False))
        assert radius < 1e-9 * middle
        assert abs(middle - exact) <= radius


def test_a_delta_at_or_above_the_profile_at_zero_gives_zero():
    assert gcf.epsilon_bracket(Fraction(1, 10**6), 0.01) == (0.0, 0.0)
    assert gcf.epsilon_bracket(Fraction(1), 0.5) == (0.0, 0.0)


def test_mu_is_exact_so_no_rounding_makes_the_bracket_optimistic():
    # 1/1.25 is 0.8 only in exact arithmetic: the float 0.8 made a lower delta end 2e-19 above the
    # exact profile (found by the allocation claims at t = 1, sigma = 1.25, eps = 2)
    mu2 = gcf.gaussian_mu([(dp.Gaussian(1.25), 1)], "add_remove")
    assert mu2 == Fraction(16, 25)
    exact = _exact_delta(2.0, precise.mp.mpf(4) / 5)
    low, high = gcf.delta_bracket(mu2, 2.0)
    assert low <= exact <= high
