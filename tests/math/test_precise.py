"""The reference evaluator against the sanity values of docs/math.md and against itself (sum vs integral vs
series, closed form vs quadrature)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from mpmath import mp

from dpproofs.math import precise
from dpproofs.errors import NumericalError
from tests.support import sized


@pytest.fixture(autouse=True)
def high_precision():
    """Literals and arithmetic in these tests run at 60 digits, never the global 15."""
    with mp.workdps(60):
        yield


# The docs/math.md#sanity-values values are printed to 10-17 digits; we compare to that many.
SANITY = [
    (lambda: precise.rdp_randomized_response(2, 1), "0.735325664055519", 15),
    (lambda: precise.rdp_laplace(2, 1), "0.619123629998593", 15),
    (lambda: precise.rdp_sampled_gaussian(20, 0.01, 4, direction="add"), "6.5263129572803867e-5", 17),
    (lambda: precise.rdp_sampled_gaussian(2.5, 0.01, 4, direction="add"), "8.0644097584960330e-6", 17),
]


@pytest.mark.parametrize("compute, printed, digits", SANITY)
def test_the_evaluator_reproduces_the_sanity_values_of_the_notes(compute, printed, digits):
    value = compute()
    assert abs(value / mp.mpf(printed) - 1) < mp.mpf(10) ** (1 - digits)


def test_the_gaussian_profile_crosses_1e_minus_5_at_the_printed_epsilon():
    # 4.377178096 is printed to 10 digits: delta(eps) changes by ~4e-5 relative per 1e-9 in eps
    below, above = mp.mpf("4.3771780955"), mp.mpf("4.3771780965")
    assert precise.delta_gaussian(below, 1) > mp.mpf("1e-5") > precise.delta_gaussian(above, 1)


def test_the_composition_profile_crosses_1e_minus_5_at_the_printed_epsilon():
    below, above = mp.mpf("2.84466715"), mp.mpf("2.84466725")
    assert precise.delta_composed_pure(below, 0.1, 50) > mp.mpf("1e-5")
    assert precise.delta_composed_pure(above, 0.1, 50) < mp.mpf("1e-5")


@settings(max_examples=sized(8))
@given(
    alpha=st.integers(2, 60),
    q=st.floats(1e-4, 0.9),
    sigma=st.floats(0.5, 20),
)
def test_the_exact_sum_and_the_integral_agree_at_integer_orders(alpha, q, sigma):
    exact = precise.log_a_integer(alpha, q, sigma, dps=40)
    integral = precise.log_a_integral(alpha, q, sigma, dps=40)
    assert abs(exact - integral) <= mp.mpf(10) ** -35 * max(1, abs(exact))


@settings(max_examples=sized(4))
@given(alpha=st.floats(1.1, 40).filter(lambda a: a != int(a)), q=st.floats(1e-4, 0.05), sigma=st.floats(1, 20))
def test_the_signed_series_agrees_with_the_integral_at_fractional_orders(alpha, q, sigma):
    try:
        series = precise.log_a_series(alpha, q, sigma, dps=30, max_terms=1500)
    except NumericalError:
        return  # the series may refuse (documented); the integral is then the value
    integral = precise.log_a_integral(alpha, q, sigma, dps=30)
    assert abs(series - integral) <= mp.mpf(10) ** -25 * max(abs(integral), mp.mpf(10) ** -300)


def test_the_series_refuses_rather_than_returning_an_unconverged_value():
    with pytest.raises(NumericalError):
        precise.log_a_series(1.5, 0.5, 50.0, dps=30, max_terms=50)


@pytest.mark.parametrize(
    "eps, q, sigma", [(0.05, 0.01, 0.8), (1.0, 0.2, 0.5), (2.5, 0.9, 3.0), (0.3, 0.002, 7.0), (4.0, 1.0, 0.4)]
)
def test_the_closed_form_sampled_gaussian_profile_matches_a_riemann_sum(eps, q, sigma):
    """An independent check in float64: sum (P - e^eps Q)_+ on a fine grid (2e6 points).

    The grid step is about 8e-5 sigma; measured agreement with the closed form was 3e-9 relative
    on 40 random configurations, so 1e-6 relative is a safe bound for the kink error."""
    z = np.linspace(-40 * sigma - 5, 40 * sigma + 5, 2_000_001)
    step = z[1] - z[0]
    phi0 = np.exp(-(z**2) / (2 * sigma**2)) / (sigma * math.sqrt(2 * math.pi))
    phi1 = np.exp(-((z - 1) ** 2) / (2 * sigma**2)) / (sigma * math.sqrt(2 * math.pi))
    mixture = (1 - q) * phi0 + q * phi1
    factor = math.exp(eps)
    for direction, difference in (("add", mixture - factor * phi0), ("remove", phi0 - factor * mixture)):
        riemann = float(np.sum(np.maximum(difference, 0)) * step)
        closed = float(precise.delta_sampled_gaussian(eps, q, sigma, direction=direction, dps=20))
        assert abs(closed - riemann) <= 1e-6 * closed + 1e-13


def test_the_remove_direction_is_smaller_than_the_add_direction_at_a_typical_point():
    assert precise.log_b(20, 0.01, 4) < precise.log_a(20, 0.01, 4)


def test_randomized_response_rdp_equals_the_sinh_formula():
    a, e = mp.mpf(3.5), mp.mpf(0.7)
    sinh = mp.log((mp.sinh(a * e) - mp.sinh((a - 1) * e)) / mp.sinh(e)) / (a - 1)
    assert abs(precise.rdp_randomized_response(a, e) - sinh) < mp.mpf(10) ** -45


def test_the_limits_at_order_one_are_the_kl_divergences():
    assert abs(precise.rdp_randomized_response(1, 0.5) - mp.mpf(0.5) * mp.tanh(0.25)) < 1e-45
    near = precise.rdp_laplace(1 + mp.mpf(10) ** -20, 2, dps=60)
    assert abs(near - precise.rdp_laplace(1, 2)) < 1e-18


def test_a_tiny_gaussian_delta_keeps_its_significant_digits():
    tiny = precise.delta_gaussian(40, 1, dps=30)
    assert 0 < tiny < mp.mpf(10) ** -300
    again = precise.delta_gaussian(40, 1, dps=60)
    assert abs(tiny / again - 1) < mp.mpf(10) ** -28


@pytest.mark.parametrize("alpha, q, sigma", [(2.5, 0.01, 4.0), (10.25, 0.001, 2.0), (1.5, 0.05, 6.0)])
def test_the_signed_series_converges_and_matches_the_integral_in_the_dp_sgd_regime(alpha, q, sigma):
    series = precise.log_a_series(alpha, q, sigma, dps=40)
    integral = precise.log_a_integral(alpha, q, sigma, dps=40)
    assert abs(series / integral - 1) <= mp.mpf(10) ** -35


def test_finite_renyi_divergence_keeps_its_digits_when_the_distributions_nearly_agree():
    from fractions import Fraction

    tiny = Fraction(1, 10**30)
    p = (Fraction(1, 2) + tiny, Fraction(1, 2) - tiny)
    q = (Fraction(1, 2), Fraction(1, 2))
    # D_2 = log(1 + 4 tiny^2) exactly here
    value = precise.rdp_finite(2, p, q, dps=30)
    assert abs(value / mp.log1p(4 * (mp.mpf(1) / 10**30) ** 2) - 1) < mp.mpf(10) ** -25
    assert precise.rdp_finite(2, q, q) == 0


def test_the_add_direction_keeps_its_digits_at_a_tiny_sampling_rate():
    # A - 1 ~ C(20,2) q^2 expm1(1/16) at q = 1e-110: the log must not round to 0
    value = precise.log_a_integer(20, mp.mpf(10) ** -110, 4, dps=30)
    leading = 190 * mp.mpf(10) ** -220 * mp.expm1(mp.mpf(1) / 16)
    assert abs(value / leading - 1) < 1e-8


def test_randomized_response_keeps_its_digits_at_a_tiny_epsilon_and_near_order_one():
    # D_2 of eps-RR is log cosh-like: ~ eps^2 for tiny eps; and ~ eps tanh(eps/2) as a -> 1
    assert abs(precise.rdp_randomized_response(2, mp.mpf(10) ** -200, dps=30) / mp.mpf(10) ** -400 - 1) < 1e-25
    near_one = precise.rdp_randomized_response(1 + mp.mpf(10) ** -12, mp.mpf(10) ** -5, dps=30)
    assert abs(near_one / (mp.mpf(10) ** -5 * mp.tanh(mp.mpf(10) ** -5 / 2)) - 1) < 1e-10


def test_the_remove_direction_next_to_order_one_answers_and_is_stable_in_precision():
    # alpha = 1 + 2^-52 gives the power p = 1 - alpha = -2.2e-16 in log B: the excess integrand's
    # binomial series was used up to |p u| <= 1/100, i.e. |u| up to 4.5e13, where it diverges, and
    # the evaluation never ended (found 2026-12-01 by a time-budget test of dpproofs.verify)
    alpha = 1 + 2.0**-52
    values = [precise.rdp_sampled_gaussian(alpha, 0.5, 0.5, dps=dps, direction="remove") for dps in (30, 60)]
    assert abs(values[0] - values[1]) <= 1e-28 * abs(values[1])
    assert values[1] > 0
