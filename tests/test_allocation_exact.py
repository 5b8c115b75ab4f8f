"""dpproofs.math.allocation_exact: the exact one-epoch profile of random allocation (balls-in-bins).

Measured with ``PYTHONPATH=. python3 -m pytest tests/test_allocation_exact.py -q -n 0``.
"""

import math

import mpmath
import numpy as np
import pytest

import dpproofs as dp
from dpproofs.errors import InvalidArgument
from dpproofs.math import allocation_exact as ae
from dpproofs.math import ball

#: dps of the t = 2 values in these tests: one quadrature at 25 working digits, a fraction of a second.
DPS = 15


def _gaussian_by_ncdf(eps, sigma):
    """The Gaussian profile written with mpmath's ncdf (the module's own uses erfc)."""
    e, s = mpmath.mpf(eps), mpmath.mpf(sigma)
    return mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)


@pytest.mark.parametrize("sigma, eps", [(0.7, 0.0), (1.0, 1.0), (2.0, 0.5), (4.0, 3.0), (0.7, 3.0)])
def test_one_step_is_the_gaussian_to_1e_20(sigma, eps):
    with mpmath.workdps(60):
        reference = _gaussian_by_ncdf(eps, sigma)
    values = (ae.delta_add_exact(eps, 1, sigma), ae.delta_remove_exact(eps, 1, sigma), ae.delta_gaussian(eps, sigma))
    for value in values:
        # 1e-20 relative: the brief's bar; the values are computed to 30 digits
        assert abs(value - reference) <= mpmath.mpf("1e-20") * reference, (sigma, eps, value, reference)


def test_epochs_of_one_step_are_the_gaussian_of_sigma_over_root_epochs():
    with mpmath.workdps(60):
        reference = _gaussian_by_ncdf(1.0, 2.0 / mpmath.sqrt(3))
    assert abs(ae.delta_exact(1.0, 1, 2.0, epochs=3) - reference) <= mpmath.mpf("1e-20") * reference


def test_at_eps_0_both_directions_are_the_total_variation():
    # E(S - 1)_+ = E(1 - S)_+ because E S = 1: an identity the two quadratures do not share
    add, remove = ae.delta_add_exact(0, 2, 1.3, DPS), ae.delta_remove_exact(0, 2, 1.3, DPS)
    assert abs(add - remove) <= mpmath.mpf("1e-14") * add  # 1e-14: the values' 15 digits


def test_two_steps_decrease_in_eps_and_sit_below_one_step():
    for direction in (ae.delta_add_exact, ae.delta_remove_exact):
        values = [direction(e, 2, 1.0, DPS) for e in (0.0, 0.5, 1.0, 2.0)]
        assert all(a > b > 0 for a, b in zip(values, values[1:])), values
    # amplification: one epoch of 2 steps is a post-processing-free mixture of the 1-step pair
    for e in (0.0, 1.0, 2.0):
        assert ae.delta_exact(e, 2, 1.0, DPS) < ae.delta_exact(e, 1, 1.0, DPS)


def test_two_steps_dps_30_against_dps_40():
    for direction in (ae.delta_add_exact, ae.delta_remove_exact):
        low, high = direction(1.0, 2, 1.0, 30), direction(1.0, 2, 1.0, 40)
        assert abs(low - high) <= mpmath.mpf("1e-28") * high  # 1e-28: 30 digits less two for rounding


def test_two_steps_against_monte_carlo():
    # plain Monte Carlo of E_Q[(S - e^eps)_+] and E_Q[(1 - e^eps S)_+], S = (Y_1 + Y_2)/2; the
    # tolerance is 6 standard errors of the sample mean (a false alarm below 1e-8 per run)
    sigma, eps, n = 1.0, 0.5, 400_000
    z = np.random.default_rng(20261206).standard_normal((n, 2))
    s = np.exp(z / sigma - 0.5 / sigma**2).mean(axis=1)
    for samples, exact in ((np.maximum(s - math.exp(eps), 0), ae.delta_add_exact(eps, 2, sigma, DPS)),
                           (np.maximum(1 - math.exp(eps) * s, 0), ae.delta_remove_exact(eps, 2, sigma, DPS))):
        error = samples.std() / math.sqrt(n)
        assert abs(samples.mean() - float(exact)) <= 6 * error, (samples.mean(), float(exact), error)


@pytest.mark.campaign
def test_three_steps_against_monte_carlo():
    # t = 3 is a nested quadrature (about a minute at dps 8): campaign only. Tolerance: 6 standard
    # errors of the sample mean, as for t = 2
    sigma, eps, n = 1.0, 1.0, 400_000
    z = np.random.default_rng(3).standard_normal((n, 3))
    s = np.exp(z / sigma - 0.5 / sigma**2).mean(axis=1)
    for samples, exact in ((np.maximum(s - math.exp(eps), 0), ae.delta_add_exact(eps, 3, sigma, 8)),
                           (np.maximum(1 - math.exp(eps) * s, 0), ae.delta_remove_exact(eps, 3, sigma, 8))):
        error = samples.std() / math.sqrt(n)
        assert abs(samples.mean() - float(exact)) <= 6 * error, (samples.mean(), float(exact), error)


def test_add_dominates_at_the_remove_only_pin():
    # the pin of the claims' remove-only mutant (theorems/accountant/pld_allocation.py)
    add, remove = ae.delta_add_exact(1.0, 2, 2.0, DPS), ae.delta_remove_exact(1.0, 2, 2.0, DPS)
    assert mpmath.nstr(add, 4) == "0.0006461" and mpmath.nstr(remove, 4) == "0.000479"


@pytest.mark.parametrize("kwargs, name", [
    (dict(eps=-1, t=2, sigma=1.0), "eps"), (dict(eps=1, t=4, sigma=1.0), "t"), (dict(eps=1, t=0, sigma=1.0), "t"),
    (dict(eps=1, t=2, sigma=0.0), "sigma"), (dict(eps=float("nan"), t=2, sigma=1.0), "eps"),
    (dict(eps=1, t=2, sigma=1.0, dps=2), "dps"), (dict(eps=1, t=2, sigma=1.0, epochs=2), "epochs"),
])
def test_bad_input_is_refused_by_name(kwargs, name):
    with pytest.raises(InvalidArgument, match=name):
        ae.delta_exact(**kwargs)




@pytest.mark.parametrize("t, sigma, eps, epochs", [
    (1, 1.0, 1.0, 1), (1, 2.0, 0.5, 3), (2, 0.7, 0.0, 1), (2, 1.0, 1.0, 1), (2, 4.0, 0.2, 1), (2, 2.0, 3.0, 1),
])
def test_the_pld_bracket_contains_the_exact_value(t, sigma, eps, epochs):
    bounds = dp.PLDAccountant().compose(dp.RandomAllocationGaussian(t, sigma), epochs).delta_bounds(eps)
    exact = ae.delta_exact(eps, t, sigma, DPS, epochs=epochs)
    assert bounds.lower <= exact <= bounds.upper, (bounds, exact)


@pytest.mark.parametrize("t, sigma, eps", [(1, 1.0, 1.0), (2, 2.0, 1.0), (2, 0.7, 3.0), (2, 0.7, 0.0), (2, 4.0, 0.2)])
def test_the_certified_enclosure_contains_the_mpmath_value(t, sigma, eps):
    # two implementations: flint's acb.integral with bounded tails, and the fixed tanh-sinh rule
    for add, exact in ((True, ae.delta_add_exact), (False, ae.delta_remove_exact)):
        enclosure = ae.delta_direction_ball(eps, t, sigma, add, 128)
        value = exact(eps, t, sigma, 30)
        assert enclosure.lower() <= ball.to_arb(value) <= enclosure.upper(), (t, sigma, eps, add, enclosure, value)
        if value > 1e-10:  # 1e-15 relative: 128-bit balls are far tighter where the tails are not the whole value
            assert enclosure.rad() <= 1e-15 * float(value)
