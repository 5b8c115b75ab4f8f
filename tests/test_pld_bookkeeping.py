"""The PLD accountant's bookkeeping pieces (issue 22): each fast path against its direct form.

* blocked log-MGF (:func:`dpproofs.accountant.pld.discretise.blocked_log_mgf`) and its memo;
* per-edge normal cell masses (``_vec_normal_mass_edges``) against the per-cell form;
* the closed form of the suffix-weight norms (``_suffix_weight_norm``) against the direct sums;
* the componentwise FFT power error bound (``_componentwise_power_error``) against the actual
  error of a composition, with a reference convolution in extended precision, and against the
  normwise bound it replaces where smaller;
* the centred buffers: a composition is the same with and without centring.
"""

import math

import numpy as np
import pytest

import dpproofs as dp
from dpproofs.accountant.pld import compose as pld_compose
from dpproofs.accountant.pld import discretise as pld_eval
from dpproofs.math import pairs

#: Relative agreement of two float evaluations of the same log-sum-exp (a few hundred roundings
#: of terms within e^{+-200}: far below this).
LOG_MGF_AGREEMENT = 1e-12


def _direct_log_mgf(w, base, step, thetas):
    keep = w > 0
    logw, l = np.log(w[keep]), base + step * np.flatnonzero(keep)
    e = logw[None, :] + np.asarray(thetas)[:, None] * l[None, :]
    top = e.max(axis=1)
    return top + np.log(np.sum(np.exp(e - top[:, None]), axis=1))


@pytest.mark.parametrize("n, step", [(1, 0.1), (7, 0.3), (1000, 1e-3), (20000, 1e-5), (5000, 0.05)])
def test_blocked_log_mgf_matches_the_direct_log_sum_exp(n, step):
    rng = np.random.default_rng(n)
    w = rng.random(n) ** 8
    w[0] = 0.3
    w[rng.random(n) < 0.2] = 0.0
    thetas = np.concatenate(([0.0], np.geomspace(1e-3, 2e3, 40), -np.geomspace(1e-3, 50.0, 8)))
    base = -n * step / 3
    blocked = pld_eval.blocked_log_mgf(w, base, step, thetas)
    direct = _direct_log_mgf(w, base, step, thetas)
    assert np.all(np.abs(blocked - direct) <= LOG_MGF_AGREEMENT * np.maximum(1.0, np.abs(direct)))


def test_one_step_log_mgf_is_memoised_per_tilt_and_keeps_its_values():
    one = pld_eval.discretise(pld_eval.GaussianPair(0.01, 1.0, "add"), 1e-3, "upper")
    first = one.log_mgf([0.5, 2.0, 0.5])
    assert first[0] == first[2]
    assert set(one._mgf_memo) == {0.5, 2.0}
    again = one.log_mgf(np.array([2.0, 0.5]))
    assert again[0] == first[1] and again[1] == first[0]
    l, w = one.losses(), one.masses
    keep = w > 0
    direct = np.log(np.sum(w[keep] * np.exp(2.0 * l[keep])))
    assert abs(first[1] - direct) <= LOG_MGF_AGREEMENT * max(1.0, abs(direct))


@pytest.mark.parametrize("n, scale", [(5, 3.0), (1000, 1e-3), (20000, 1e-5), (300, 40.0)])
def test_per_edge_normal_masses_equal_the_per_cell_ones(n, scale):
    rng = np.random.default_rng(n)
    u = np.concatenate(([-np.inf], np.sort(rng.normal(size=n)) * scale * math.sqrt(n), [np.inf]))
    for mean in (0.0, 1.0, -1.0):
        cell = pairs._vec_normal_mass(u[:-1], u[1:], mean, 0.7)
        edge = pairs._vec_normal_mass_edges(u, mean, 0.7)
        assert np.array_equal(cell[0], edge[0]) and np.array_equal(cell[1], edge[1])


@pytest.mark.parametrize("width", [1e-7, 1e-4, 1.5e-4, 3e-3, 0.04])
def test_narrow_cell_masses_are_within_their_error_bounds_of_the_exact_ones(width):
    # both quadrature rules (2-point on tiny cells, width (|t| + 2) <= TINY_CELL; 8-point on the
    # other narrow ones) against mpmath at 40 digits, and the bound no looser than needed
    import mpmath

    starts = np.array([-9.0, -3.2, -0.5, -width / 3, 0.0, 0.7, 2.5, 6.0, 12.0])
    x, y = starts, starts + width
    mass, error = pairs._vec_normal_mass(x, y, 0.0, 1.0)
    with mpmath.workdps(40):
        for a, b, m, e in zip(x, y, mass, error):
            exact = mpmath.ncdf(-a) - mpmath.ncdf(-b) if a >= 0 else mpmath.ncdf(b) - mpmath.ncdf(a)  # no cancellation
            assert abs(mpmath.mpf(m) - exact) <= e, (a, b)
            assert e <= 1e-12 * exact + 2 * pairs.SUBNORMAL_ERROR, (a, b)
    tiny = (y - x) * (np.maximum(np.abs(x), np.abs(y)) + 2) <= pairs.TINY_CELL
    assert tiny.any() or width > 1e-3


@pytest.mark.parametrize("n, rate", [(1, 0.1), (10, 0.0), (100, 0.01), (100, 5.0), (3000, 1e-3), (50, 100.0)])
def test_suffix_weight_norms_bound_the_direct_sums(n, rate):
    norms = pld_compose._suffix_weight_norm(n, rate)
    for j in (0, n // 2, n - 1):
        m = np.arange(1, n - j, dtype=np.float64)
        direct = math.sqrt(math.fsum(np.exp(-2 * rate * m))) if len(m) else 0.0
        assert direct <= norms[j] <= direct * (1 + 1e-8) + 1e-300


def _reference_composition(x, count):
    """The ``count``-fold convolution of ``x`` in extended precision (repeated squaring)."""
    result, power = np.array([1.0], dtype=np.longdouble), np.asarray(x, dtype=np.longdouble)
    while count:
        if count & 1:
            result = np.convolve(result, power)
        count >>= 1
        if count:
            power = np.convolve(power, power)
    return result


@pytest.mark.parametrize("q, sigma, count", [(0.05, 1.0, 60), (1.0, 3.0, 200), (0.05, 1.0, 5)])
def test_composed_error_bound_covers_the_actual_round_off(q, sigma, count):
    one = pld_eval.discretise(pld_eval.GaussianPair(q, sigma, "add"), 0.05, "upper", tail_z=8.0)
    items = [(one, count)]
    theta = 0.7
    composed = pld_compose.compose_fourier(items, theta)
    # the tilted one-step measure exactly as compose_fourier builds it
    lm = float(one.log_mgf([theta])[0])
    x = pld_compose.tilted_masses(one, theta, lm)
    reference = _reference_composition(x, count)
    first = round((composed.first_loss - count * one.shift) / one.step) - count * one.offset
    window = np.zeros(len(composed.zhat), dtype=np.longdouble)
    lo, hi = max(first, 0), min(first + len(window), len(reference))
    window[lo - first:hi - first] = reference[lo:hi]
    actual = float(np.sqrt(np.sum((composed.zhat.astype(np.longdouble) - window) ** 2)))
    outside = float(np.sum(reference)) - float(np.sum(window))
    assert outside <= composed.wrapped
    assert actual <= composed.error
    # the componentwise bound is the smaller one here (work, not time: a property of the bound)
    size = len(composed.zhat)
    normwise = count * pld_compose._fft_constant(size) * math.sqrt(size) * pld_compose._norm(x)
    spectrum = np.abs(np.fft.rfft(np.concatenate((x, np.zeros(size - len(x))))))
    componentwise = pld_compose._componentwise_power_error(
        [(spectrum, pld_compose._fft_constant(size) * float(np.sum(x)), count)])
    assert componentwise < normwise


def test_componentwise_bound_is_infinite_for_useless_inputs():
    assert pld_compose._componentwise_power_error([(np.ones(4), 0.0, 3)]) == math.inf


def test_a_composition_far_from_index_zero_brackets_the_exact_value():
    """A grid composition (grid_step given: no closed form) whose one-step mean is far from the
    window's first index still brackets the exact value: the Gaussian closed form."""
    bounds = dp.PLDAccountant(grid_step=1e-3).compose(dp.Gaussian(2.0), 50).epsilon_bounds(1e-6)
    assert bounds.source == "pld"
    # exact: Gaussian(2 / sqrt(50)) (Balle & Wang 2018, Thm 8); the test only needs its bracket
    from dpproofs.math import precise

    s = 2.0 / math.sqrt(50)
    assert precise.delta_gaussian(bounds.upper, s, dps=30) <= 1e-6 <= precise.delta_gaussian(bounds.lower, s, dps=30)


def test_composed_parts_are_computed_once():
    one = pld_eval.discretise(pld_eval.GaussianPair(0.1, 1.0, "add"), 0.01, "upper")
    composed = pld_compose.compose_fourier([(one, 10)], 1.0)
    first = composed._parts()
    assert composed._parts() is first


def test_tilted_masses_agree_with_the_logarithmic_form_and_do_not_overflow():
    one = pld_eval.discretise(pld_eval.GaussianPair(0.05, 1.0, "add"), 0.05, "upper", tail_z=8.0)
    lm = float(one.log_mgf([0.7])[0])
    x = pld_compose.tilted_masses(one, 0.7, lm)
    with np.errstate(divide="ignore"):
        logarithmic = np.exp(np.log(one.masses) + 0.7 * one.losses() - lm)
    assert np.allclose(x, logarithmic, rtol=1e-12, atol=0.0)
    far = pld_eval.OneStep(1.0, 800, 0.0, np.array([1e-300, 1e-310]), 0.0, "upper")
    y = pld_compose.tilted_masses(far, 1.0, 0.0)
    assert np.all(np.isfinite(y)) and y[0] == pytest.approx(math.exp(800 + math.log(1e-300)), rel=1e-12)


@pytest.mark.parametrize("n", [1, 2, 7, 64, 1000, 12345])
def test_power_by_squaring_is_within_its_bound_of_the_exact_power(n):
    """Against mpmath at 60 digits, on spectra of modulus up to 1 (tilted masses sum to about 1),
    some tiny enough to underflow; the mutant bound 0 (exact products) is refuted."""
    import mpmath

    rng = np.random.default_rng(n)
    spec = rng.uniform(0.0, 1.0, 40) * np.exp(1j * rng.uniform(-math.pi, math.pi, 40))
    spec[:3] = [1.0, 1 - 1e-9 + 1e-9j, 1e-170]
    power, rel, products = pld_compose.power_by_squaring(spec, n)
    underflow = pld_compose._underflow_error(products, 0.0)
    mutant_refuted = False
    with mpmath.workdps(60):
        for value, got in zip(spec, power):
            exact = mpmath.mpc(value.real, value.imag) ** n
            error = abs(mpmath.mpc(got.real, got.imag) - exact)
            assert error <= rel * abs(exact) + underflow
            mutant_refuted |= error > underflow
    assert mutant_refuted or n == 1


@pytest.mark.parametrize("log_wrapped", [-702.3, -800.0])
def test_the_mass_below_a_far_window_is_bounded_in_log_space(log_wrapped):
    # 16 cells from loss 1000 with true P-mass 1e-300 each (e^{K - theta l_0} = 1), and a tilted mass
    # outside the window of e^{log_wrapped}: below the window it may weigh e^{K - theta eps} = e^1000
    # at eps = 0. With that factor capped at e^700 (as until 2026-12-07) the upper end's delta(0) came
    # out as e^{700} x e^{-702} = 0.14, or 0 once the wrapped mass underflowed
    import mpmath

    wrapped = math.exp(log_wrapped)
    composed = pld_compose.Composed(np.full(16, 1e-300), 1000.0, 1.0, 1.0, 1000.0, 0.0, wrapped, 0.0, 0.0,
                                    "upper", log_wrapped)
    for epsilon in (0.0, 100.0, 299.0, 600.0):
        exact = mpmath.e ** (mpmath.mpf(1000) - epsilon + log_wrapped)
        assert composed.delta(epsilon) >= min(1, exact)


def test_a_replace_one_run_whose_finest_pass_tilts_to_2e6_keeps_a_valid_upper_end():
    # found by a seeded fuzz (seed 20261207, case 93): the last pass's bulk/jump split, tilted to
    # theta = 2e6, put its windows at loss 6.9e6 and answered an upper end of 0 (the mass below the
    # windows, e^{1.4e13} x e^{-1.4e13}, came out as 0), below the lower end 22.67
    mechanism = dp.SampledGaussian(0.00035589684985578093, 0.6169755526332621)
    bounds = dp.PLDAccountant(relation="replace_one").compose(mechanism, 4487193).epsilon_bounds(2.374795817617205e-05)
    assert 22.6 < bounds.lower <= bounds.upper < 22.9
