"""The float64 evaluator (dpproofs.math.fast) held against its mpmath twin (precise).

Hypothesis draws parameters log-uniformly over the documented domain of fast.py (boundaries
included) and compares with ``fast.RTOL`` imported from fast.py. A held-out grid compares the
sampled-Gaussian RDP with 50-digit mpmath (exact sum at integer orders, the 1-D integral at
fractional ones) to 1e-9 relative: a small subset always, the whole grid with ``-m campaign``.
"""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpproofs.math import fast
from dpproofs.math import precise

RTOL = fast.RTOL
GRID_RTOL = 1e-9


def log_uniform(low, high):
    """Floats whose log is uniform on [log low, log high], with both ends as explicit examples."""
    return st.floats(math.log(low), math.log(high)).map(math.exp).map(lambda x: min(max(x, low), high))


orders_fractional = log_uniform(1e-6, 1e4 - 1).map(lambda e: 1.0 + e).filter(lambda a: a != int(a))
orders_integer = log_uniform(2, 10000).map(round)
q_values = st.one_of(st.just(0.0), st.just(1.0), log_uniform(1e-12, 1.0), st.floats(0.3, 0.7))
sigma_values = log_uniform(0.1, 1e4)


def assert_close(value, exact, rtol):
    if exact == 0:
        assert value == 0.0
        return
    exact = float(exact) if exact >= fast.TINY else fast.TINY
    assert math.isfinite(value) and value >= 0
    assert abs(value - exact) <= rtol * exact, f"fast={value!r} precise={exact!r} rel={abs(value - exact) / exact:.3e}"


# --- elementary mechanisms -------------------------------------------------------------------


@given(alpha=st.one_of(orders_fractional, orders_integer.map(float)), sigma=log_uniform(1e-3, 1e6))
@example(alpha=1.000001, sigma=0.1)
@example(alpha=1e4, sigma=1e4)
def test_gaussian_rdp_matches_precise(alpha, sigma):
    value = float(fast.rdp_gaussian([alpha], sigma)[0])
    assert_close(value, precise.rdp_gaussian(alpha, sigma, dps=30), RTOL)


@given(alpha=st.one_of(orders_fractional, orders_integer.map(float)), scale=log_uniform(1e-2, 1e4))
@example(alpha=1.000001, scale=1e4)
@example(alpha=1e4, scale=1e-2)
@example(alpha=2.0, scale=1.0)
def test_laplace_rdp_matches_precise(alpha, scale):
    value = float(fast.rdp_laplace([alpha], scale)[0])
    assert_close(value, precise.rdp_laplace(alpha, scale, dps=30), RTOL)


@given(alpha=st.one_of(orders_fractional, orders_integer.map(float)), epsilon=log_uniform(1e-4, 50))
@example(alpha=1.000001, epsilon=1e-4)
@example(alpha=1e4, epsilon=50.0)
@example(alpha=2.0, epsilon=1.0)
def test_randomized_response_rdp_matches_precise(alpha, epsilon):
    value = float(fast.rdp_randomized_response([alpha], epsilon)[0])
    assert_close(value, precise.rdp_randomized_response(alpha, epsilon, dps=30), RTOL)


def test_sanity_values_of_the_notes_are_reproduced():
    assert float(fast.rdp_randomized_response([2.0], 1.0)[0]) == pytest.approx(0.735325664055519, rel=RTOL)
    assert float(fast.rdp_laplace([2.0], 1.0)[0]) == pytest.approx(0.619123629998593, rel=RTOL)
    values = fast.rdp_sampled_gaussian([20.0, 2.5], 0.01, 4.0)
    assert values[0] == pytest.approx(6.5263129572803867e-5, rel=RTOL)
    assert values[1] == pytest.approx(8.0644097584960330e-6, rel=RTOL)


# --- sampled Gaussian --------------------------------------------------------------------------


def precise_rdp_add(alpha, q, sigma, dps=30):
    """The add-direction RDP in mpmath: the exact sum at integer orders, the integral otherwise."""
    if q == 0:
        return mpmath.mpf(0)
    if float(alpha).is_integer():
        log_a = precise.log_a_integer(int(alpha), q, sigma, dps=dps)
    else:
        log_a = precise.log_a_integral(alpha, q, sigma, dps=dps)
    return log_a / (mpmath.mpf(alpha) - 1)


@given(alpha=orders_integer, q=q_values, sigma=sigma_values)
@example(alpha=2, q=1e-12, sigma=1e4)
@example(alpha=10000, q=1.0, sigma=0.1)
@example(alpha=10000, q=0.01, sigma=0.1)
@example(alpha=4096, q=0.5, sigma=1e4)
def test_sampled_gaussian_rdp_at_integer_orders_matches_the_exact_sum(alpha, q, sigma):
    value = float(fast.rdp_sampled_gaussian([float(alpha)], q, sigma)[0])
    assert_close(value, precise_rdp_add(alpha, q, sigma), RTOL)


@given(alpha=orders_fractional.filter(lambda a: a < 200), q=q_values, sigma=sigma_values)
@example(alpha=1.000001, q=0.01, sigma=1.0)
@example(alpha=1.5, q=0.5, sigma=0.1)
@example(alpha=2.5, q=1e-12, sigma=1e4)
@example(alpha=7.3, q=1e-6, sigma=1e3)
def test_sampled_gaussian_rdp_at_fractional_orders_matches_the_integral(alpha, q, sigma):
    value = float(fast.rdp_sampled_gaussian([alpha], q, sigma)[0])
    assert_close(value, precise_rdp_add(alpha, q, sigma), RTOL)


#: Found by the ci campaign on 2026-12-01 as "fast 1.6e-10 relative below the integral". The fast
#: value was right (4e-15 from the integral at 50 digits): the oracle, ``precise.log_a_integral`` at
#: 30 digits, lost digits of ``log A ~ 9e-36`` next to ``A ~ 1``; it now integrates ``A - 1``.
ACCURACY_FINDING = {"alpha": 1.0000453999297625, "q": 1.8795288165390832e-12, "sigma": 2980.9579870417283}


def test_the_fast_rdp_near_order_one_at_tiny_q_and_huge_sigma_is_within_its_tolerance():
    a, q, s = ACCURACY_FINDING["alpha"], ACCURACY_FINDING["q"], ACCURACY_FINDING["sigma"]
    assert_close(float(fast.rdp_sampled_gaussian([a], q, s)[0]), precise_rdp_add(a, q, s), RTOL)


def test_the_integral_oracle_keeps_its_digits_when_log_a_is_tiny():
    a, q, s = ACCURACY_FINDING["alpha"], ACCURACY_FINDING["q"], ACCURACY_FINDING["sigma"]
    at_30, at_60 = precise.log_a_integral(a, q, s, dps=30), precise.log_a_integral(a, q, s, dps=60)
    assert abs(at_30 / at_60 - 1) < mpmath.mpf(10) ** -29


@pytest.mark.campaign
@given(alpha=orders_fractional, q=q_values, sigma=sigma_values)
def test_sampled_gaussian_rdp_at_any_fractional_order_matches_the_integral(alpha, q, sigma):
    value = float(fast.rdp_sampled_gaussian([alpha], q, sigma)[0])
    assert_close(value, precise_rdp_add(alpha, q, sigma), RTOL)


def test_the_fractional_series_agrees_with_its_precise_twin_where_both_converge():
    for alpha, q, sigma in ((2.5, 0.01, 4.0), (5.5, 0.001, 2.0), (30.5, 0.5, 0.3)):
        log_am1, converged, _ = fast._series_log_a_minus_1(np.array([alpha]), q, sigma, 256)
        assert converged[0]
        series = precise.log_a_series(alpha, q, sigma, dps=30)
        assert float(np.logaddexp(0.0, log_am1[0])) == pytest.approx(float(series), rel=RTOL)


def test_sampled_gaussian_at_q_zero_is_exactly_zero_and_at_q_one_is_the_gaussian():
    orders = np.array([1.5, 2.0, 64.0, 300.25])
    assert np.all(fast.rdp_sampled_gaussian(orders, 0.0, 1.0) == 0.0)
    np.testing.assert_allclose(
        fast.rdp_sampled_gaussian(orders, 1.0, 2.0), fast.rdp_gaussian(orders, 2.0), rtol=RTOL
    )


def test_no_order_is_dropped_and_shape_and_duplicates_are_kept():
    orders = np.array([[4096.0, 1.01, 2.0], [2.0, 1.01, 37.5]])
    values = fast.rdp_sampled_gaussian(orders, 0.3, 0.5)
    assert values.shape == orders.shape
    assert np.all(np.isfinite(values)) and np.all(values > 0)
    assert values[0, 2] == values[1, 0] and values[0, 1] == values[1, 1]


def test_values_below_the_smallest_normal_float_come_back_as_that_upper_bound():
    value = fast.rdp_sampled_gaussian([2.0], 1e-200, 1.0)[0]
    assert value == fast.TINY


def test_log_erfc_and_log_ndtr_are_accurate_to_their_stated_tolerance():
    xs = np.concatenate([np.linspace(-30, 30, 601), np.logspace(-8, 3, 200), -np.logspace(-8, 3, 50)])
    ys = np.concatenate([np.linspace(-60, 40, 1001), -np.logspace(-8, 4, 300), np.logspace(-8, 3, 200)])
    with mpmath.workdps(40):
        erfc_truth = np.array([float(mpmath.log(mpmath.erfc(mpmath.mpf(x)))) for x in xs])
        ndtr_truth = np.array([float(mpmath.log(mpmath.ncdf(mpmath.mpf(y)))) for y in ys])
    for values, truth in ((fast.log_erfc(xs), erfc_truth), (fast._log_ndtr(ys), ndtr_truth)):
        assert np.all(np.abs(values - truth) <= fast._ERFC_RTOL * np.maximum(1.0, np.abs(truth)))


def test_log_binomials_are_within_their_error_size_even_next_to_a_pole():
    alphas = np.array([1.000001, 1.01, 1.5, 1.999999, 2.0001, 7.9, 33.3, 300.5, 9999.5])
    log_abs, sign, size = fast._log_abs_binomial_matrix(alphas, 8200)
    with mpmath.workdps(40):
        for row, alpha in enumerate(alphas):
            for i in sorted({0, 1, 2, 3, 4, 5, 17, 100, 1000, 8199, int(alpha), int(alpha) + 1, int(alpha) + 2} - {8200}):
                if i >= 8200:
                    continue
                exact = mpmath.binomial(mpmath.mpf(float(alpha)), i)
                assert sign[row, i] == mpmath.sign(exact)
                assert abs(log_abs[row, i] - float(mpmath.log(abs(exact)))) <= 2.0**-52 * size[row, i]


def test_segment_sums_are_pairwise_as_the_series_rounding_bound_assumes():
    # 1 + n ulp/2: a left-to-right sum rounds every addition away, a pairwise one keeps them
    n = 4096
    values = np.array([1.0] + [2.0**-53] * n)
    sums = np.add.reduceat(np.concatenate([values, values]), [0, n + 1])
    np.testing.assert_allclose(sums - 1.0, n * 2.0**-53, rtol=1e-3)


def test_orders_summed_to_different_lengths_in_one_call_match_separate_calls():
    alphas = np.array([1.1, 2.5, 7.3, 30.5])
    lengths = np.array([256, 64, 32, 48])
    together = fast._series_log_a_minus_1(alphas, 0.01, 1.1, lengths)
    for row, (alpha, n) in enumerate(zip(alphas, lengths)):
        alone = fast._series_log_a_minus_1(np.array([alpha]), 0.01, 1.1, int(n))
        assert together[1][row] == alone[1][0] and together[2][row] == alone[2][0]
        assert together[0][row] == pytest.approx(alone[0][0], rel=1e-14)


# --- held-out grid -----------------------------------------------------------------------------

GRID_Q = (1e-6, 1e-4, 1e-2, 0.1, 0.5, 1.0)
GRID_SIGMA = (0.3, 1.0, 3.0, 10.0, 100.0, 1e3)
GRID_ORDERS = (1.01, 1.5, 2.0, 2.5, 3.0, 7.3, 8.0, 32.0, 33.3, 128.0, 300.5, 1024.0, 4096.0)


def grid_errors(qs, sigmas, orders, dps):
    """Max relative error of fast against mpmath on the grid; asserts no nan, negative or drop."""
    worst = (0.0, None)
    orders = np.array(orders)
    for q in qs:
        for sigma in sigmas:
            values = fast.rdp_sampled_gaussian(orders, q, sigma)
            assert values.shape == orders.shape
            assert np.all(np.isfinite(values)) and np.all(values >= 0)
            for alpha, value in zip(orders, values):
                exact = precise_rdp_add(float(alpha), q, sigma, dps=dps)
                exact = max(float(exact), fast.TINY)
                error = abs(float(value) - exact) / exact
                if error >= worst[0]:
                    worst = (error, (float(alpha), q, sigma))
    return worst


def test_held_out_grid_subset_is_within_1e_9():
    error, where = grid_errors((1e-6, 0.01, 0.5), (0.3, 10.0), (1.01, 2.0, 2.5, 33.3, 128.0, 4096.0), dps=30)
    assert error <= GRID_RTOL, (error, where)


@pytest.mark.campaign
def test_held_out_grid_is_within_1e_9_at_50_digits():
    error, where = grid_errors(GRID_Q, GRID_SIGMA, GRID_ORDERS, dps=50)
    print(f"max relative error on the held-out grid: {error:.3e} at (alpha, q, sigma) = {where}")
    assert error <= GRID_RTOL, (error, where)


@given(
    alphas=st.lists(orders_fractional.filter(lambda a: a < 12), min_size=1, max_size=6),
    q=st.one_of(log_uniform(1e-12, 1e-2), st.floats(0.3, 0.95)),
    sigma=log_uniform(2.0, 1e4),
    panel=st.sampled_from([0.5, fast._WIDE_PANEL]),
)
@example(alphas=[1.1, 1.5, 2.7, 10.9], q=1e-4, sigma=50.0, panel=0.5)
@example(alphas=[1.1, 5.5, 10.9], q=0.9, sigma=100.0, panel=fast._WIDE_PANEL)
def test_the_quadrature_of_many_orders_at_once_matches_the_integral_at_each(alphas, q, sigma, panel):
    # one grid for all the orders; small u takes the moment form, with no 2-D array; the wide
    # panels (tried first when sigma >= 1) are accepted only where the self-check passes
    log_am1 = fast._quad_log_a_minus_1(np.array(alphas), q, sigma, panel=panel)
    for alpha, value in zip(alphas, log_am1):
        if not math.isnan(value):  # nan: the self-check refused, and the caller falls back
            assert_close(float(np.logaddexp(0.0, value)), precise.log_a_integral(alpha, q, sigma, dps=45), RTOL)


def test_the_slow_corner_needs_no_mpmath_fallback(monkeypatch):
    # (q = 1e-4, sigma = 50): every fractional order fails the series' rounding check; the float
    # quadrature must take all of them (dp_accounting's default orders: 1.1 .. 10.9)
    def refuse(*args):
        raise AssertionError("precise fallback used")

    monkeypatch.setattr(fast, "_precise_log_a", refuse)
    orders = np.array([1 + x / 10 for x in range(1, 100)] + [11.5, 20.25])
    values = fast.rdp_sampled_gaussian(orders, 1e-4 * (1 + 1e-13), 50.0)
    assert np.all(np.isfinite(values)) and np.all(values > 0)


@settings(max_examples=max(4, settings.default.max_examples // 4))
@given(alpha=orders_fractional.filter(lambda a: a < 40), q=log_uniform(1e-12, 0.99), sigma=log_uniform(0.05, 100.0))
@example(alpha=1.5, q=0.01, sigma=1e-3 * 50)
def test_the_convexity_chord_between_integer_orders_is_an_upper_bound(alpha, q, sigma):
    # the last resort outside the accuracy domain (dpproofs.math.limits): never below the exact log A
    chord = float(fast._chord_log_a(np.array([alpha]), q, sigma)[0])
    assert chord >= precise.log_a_integral(alpha, q, sigma, dps=30)


def test_a_large_grid_of_large_fractional_orders_stays_within_bounded_memory():
    """4096 fractional orders up to 1e4 once needed more than 24 GB (one ragged series for all);
    the series now runs in rounds of at most fast._ROUND_TERMS terms (about 120 MB)."""
    import tracemalloc

    orders = np.linspace(1.01, 1e4, 600)
    fast._series_plan.cache_clear()
    tracemalloc.start()
    try:
        values = fast.rdp_sampled_gaussian(orders, 0.01, 1.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.all(np.isfinite(values)) and np.all(values > 0)
    assert peak < 600 * 2**20, f"peak {peak / 2**20:.0f} MiB"


@given(epsilon=st.one_of(st.just(0.0), log_uniform(1e-10, 1e3)), sigma=log_uniform(1e-3, 1e7))
@settings(max_examples=60)
def test_the_gaussian_profile_enclosure_contains_the_precise_profile(epsilon, sigma):
    low, up = fast.delta_gaussian_bounds(epsilon, sigma)
    exact = precise.delta_gaussian(epsilon, sigma, dps=40)
    assert 0.0 <= low[0] <= exact <= up[0] <= 1.0
    if exact >= 1e-300:  # above the subnormal range the enclosure is narrow (its stated r < 1e-6)
        assert up[0] - low[0] <= 3e-6 * float(exact)


def test_log_rounded_up_is_never_below_the_exact_log_and_at_most_two_floats_above():
    """fast.log_rounded_up against 80-digit mpmath on random rationals >= 1 (tiny excesses, huge
    integers included); its mutant, libm's log of the rounded ratio, is below the exact log at
    some of them."""
    import fractions
    import random

    import mpmath

    rng = random.Random(2026)
    ratios = [fractions.Fraction(1) + fractions.Fraction(1, 10**rng.randint(1, 40)) for _ in range(20)]
    ratios += [fractions.Fraction(rng.randint(1, 10**30), rng.randint(1, 10**20)) + 1 for _ in range(40)]
    ratios += [10**400, 2**1100 + 1]
    mutant_below = False
    with mpmath.workdps(80):
        for ratio in ratios:
            exact = mpmath.log(mpmath.mpf(ratio.numerator) / ratio.denominator)
            value = fast.log_rounded_up(ratio)
            assert mpmath.mpf(value) >= exact, ratio
            assert mpmath.mpf(math.nextafter(math.nextafter(value, 0.0), 0.0)) < exact, ratio
            if ratio < 2**1000:
                mutant_below |= mpmath.mpf(math.log(float(ratio))) < exact
    assert mutant_below
