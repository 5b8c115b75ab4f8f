"""The privacy curve on the accountant interface: ``tpr_at_fpr`` (an upper bound on a test's power,
from the f-DP / (eps, delta) duality) and ``gdp_mu_bounds`` (a bracket around the composition's
Gaussian-DP mu), against closed forms.

For T Gaussians of noise sigma the composition is exactly mu-GDP, mu = sqrt(T)/sigma, and the most
powerful test at type-I error a has power Phi(Phi^-1(a) + mu) (Dong, Roth & Su 2022, arXiv
1905.02383v3). The envelope itself is measured with a test accountant whose delta is the exact
Gaussian profile (float64 enclosure), so that its tolerance (1e-9 absolute) is the finite eps set's
alone; the PLD accountant adds its delta bracket's width, the RDP accountant its conversion's loss.
"""

import math

import mpmath
import numpy as np
import pytest

import dpproofs as dp
from dpproofs.accountant import curve
from dpproofs.accountant.base import Bounds, PrivacyAccountant
from dpproofs.errors import InvalidArgument, InvalidArgumentType
from dpproofs.math import fast, precise

#: The envelope's stated tolerance over the exact profile (curve.tpr_upper's docstring).
ENVELOPE_TOLERANCE = 1e-9
#: The GDP upper end's stated slack over mu with the exact profile: (h/mu)^2/4 on the binding cells, h = mu/16
#: after two halvings of mu/4 (measured 0.098%), plus room.
GDP_TOLERANCE = 1.1e-3


class ExactGaussianProfile(PrivacyAccountant):
    """A test accountant: mu-GDP with the exact Gaussian profile (float64 enclosure), counting calls."""

    kind = "exact-gaussian-test"

    def __init__(self, mu):
        self.mu = mu
        self.calls = 0

    def _compose_checked(self, mechanism, steps):
        raise NotImplementedError

    @property
    def ledger(self):
        return []

    def _epsilon_one(self, delta):
        raise NotImplementedError

    def _epsilon_bounds_one(self, delta):
        raise NotImplementedError

    def _delta_bounds_one(self, epsilon):
        self.calls += 1
        low, up = fast.delta_gaussian_bounds(epsilon, 1 / self.mu)
        return Bounds(low[0], up[0], "exact")

    def _delta_one(self, epsilon):
        return self._delta_bounds_one(epsilon).upper

    def _options(self):
        return {}

    @classmethod
    def _option_names(cls):
        return ()


def exact_power(fpr, mu):
    """Phi(Phi^-1(fpr) + mu) at 40 digits."""
    if fpr in (0.0, 1.0):
        return fpr
    with mpmath.workdps(40):
        return float(mpmath.ncdf(-mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * mpmath.mpf(fpr)) + mu))


FPRS = (0.0, 1e-12, 1e-6, 1e-3, 0.05, 0.3, 0.5, 0.9, 0.999, 1.0)


@pytest.mark.parametrize("mu", [0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0])
def test_the_envelope_over_the_exact_gaussian_profile_is_the_closed_form_within_its_tolerance_never_below(mu):
    accountant = ExactGaussianProfile(mu)
    for fpr, bound in zip(FPRS, accountant.tpr_at_fpr(list(FPRS))):
        exact = exact_power(fpr, mu)
        assert exact <= bound <= exact + ENVELOPE_TOLERANCE, (fpr, bound, exact)


def test_the_envelope_asks_for_a_bounded_number_of_deltas():
    accountant = ExactGaussianProfile(1.0)
    accountant.tpr_at_fpr(1e-300)
    assert accountant.calls <= 1 + curve.SCAN_DOUBLINGS + curve.GOLDEN_STEPS + 2


@pytest.mark.parametrize("sigma, steps", [(2.0, 10), (1.0, 1), (5.0, 100)])
def test_pld_tpr_of_gaussians_is_above_the_closed_form_and_within_its_delta_bracket(sigma, steps):
    mu = math.sqrt(steps) / sigma
    fprs = [1e-6, 1e-3, 0.2]
    bounds = dp.PLDAccountant().compose(dp.Gaussian(sigma), steps).tpr_at_fpr(fprs)
    for fpr, bound in zip(fprs, bounds):
        exact = exact_power(fpr, mu)
        # the delta bracket's relative width (1e-2 by default) bounds delta_up - delta* at the optimum
        assert exact <= bound <= exact * (1 + 1e-2) + ENVELOPE_TOLERANCE, (fpr, bound, exact)


@pytest.mark.parametrize("sigma, steps", [(2.0, 10), (1.0, 1), (0.8, 50)])
def test_rdp_tpr_of_gaussians_is_above_the_closed_form(sigma, steps):
    mu = math.sqrt(steps) / sigma
    accountant = dp.Accountant().compose(dp.Gaussian(sigma), steps)
    for fpr, bound in zip(FPRS, accountant.tpr_at_fpr(list(FPRS))):
        assert exact_power(fpr, mu) <= bound <= 1.0


def one_step_sampled_powers(fpr, q, sigma):
    """The most powerful tests' powers at type-I error ``fpr`` for one SampledGaussian(q, sigma)
    step, both orders (Neyman-Pearson: the likelihood ratio is monotone in the output z), at 40 digits.
    Null N(0, s^2), alternative (1-q) N(0, s^2) + q N(1, s^2): reject for z > c. Null the mixture,
    alternative N(0, s^2): reject for z < c, c solving the mixture's mass below c = fpr."""
    with mpmath.workdps(40):
        a, q, s = mpmath.mpf(fpr), mpmath.mpf(q), mpmath.mpf(sigma)
        z = -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * a)
        add = (1 - q) * a + q * mpmath.ncdf(z + 1 / s)
        low, high = s * z - 40, s * z + 40  # the mixture's mass below c increases with c: bisection
        for _ in range(200):
            c = (low + high) / 2
            if (1 - q) * mpmath.ncdf(c / s) + q * mpmath.ncdf((c - 1) / s) < a:
                low = c
            else:
                high = c
        remove = mpmath.ncdf(c / s)
        return float(add), float(remove)


@pytest.mark.parametrize("q, sigma, accountants", [
    (0.1, 1.0, (dp.Accountant,)),  # the PLD accountant takes ~0.5 s per delta here: left to the next case
    (0.5, 0.8, (dp.PLDAccountant, dp.Accountant)),
])
def test_tpr_of_one_sampled_gaussian_step_is_never_below_the_exact_neyman_pearson_power(q, sigma, accountants):
    fprs = [1e-4, 0.01, 0.3]
    for accountant in (make() for make in accountants):
        bounds = accountant.compose(dp.SampledGaussian(q, sigma), 1).tpr_at_fpr(fprs)
        for fpr, bound in zip(fprs, bounds):
            assert max(one_step_sampled_powers(fpr, q, sigma)) <= bound <= 1.0, (type(accountant), fpr)


@pytest.mark.parametrize("mu", [0.1, 1.0, 5.0])
def test_the_power_bracket_over_the_exact_profile_contains_the_closed_form_within_its_target(mu):
    accountant = ExactGaussianProfile(mu)
    fprs = [1e-6, 1e-3, 0.3, 0.9]
    for fpr, bracket in zip(fprs, accountant.tpr_at_fpr_bounds(fprs)):
        exact = exact_power(fpr, mu)
        assert isinstance(bracket, Bounds) and bracket.source == "profile"
        assert fpr <= bracket.lower <= exact <= bracket.upper <= 1.0
        assert bracket.width <= curve.BOUNDS_TARGET * bracket.upper  # measured at most 0.0093


def test_the_pld_power_bracket_of_gaussians_contains_the_closed_form():
    mu = math.sqrt(10) / 2.0
    accountant = dp.PLDAccountant().compose(dp.Gaussian(2.0), 10)
    for fpr in (1e-3, 0.1):
        bracket = accountant.tpr_at_fpr_bounds(fpr)
        assert bracket.lower <= exact_power(fpr, mu) <= bracket.upper
        assert bracket.upper == accountant.tpr_at_fpr(fpr)


def test_the_rdp_power_bracket_has_lower_end_fpr():
    bracket = dp.Accountant().compose(dp.Gaussian(2.0), 10).tpr_at_fpr_bounds(1e-3)
    assert bracket.lower == 1e-3 and bracket.upper >= exact_power(1e-3, math.sqrt(10) / 2.0)


def test_a_lower_end_read_at_the_scanned_points_alone_would_be_above_the_exact_power():
    # why the lower end needs its cells: the infimum over every epsilon is not attained at the
    # points asked (the claim accountant.privacy_curve.tpr_lower.mutant.at_the_scanned_points)
    from dpproofs_theorems.accountant import privacy_curve

    assert privacy_curve.tpr_lower_at_scanned_points(2.0, 10, 1e-3) > exact_power(1e-3, math.sqrt(10) / 2.0)


@pytest.mark.parametrize("mu", [0.05, 1.0, 5.0])
def test_gdp_bracket_over_the_exact_profile_contains_mu_within_its_tolerance(mu):
    bracket = ExactGaussianProfile(mu).gdp_mu_bounds()
    assert bracket.lower <= mu <= bracket.upper <= mu * (1 + GDP_TOLERANCE)
    assert bracket.lower >= mu * (1 - 1e-9)


def test_gdp_bracket_of_pld_gaussians_contains_sqrt_t_over_sigma():
    mu = math.sqrt(10) / 2.0
    bracket = dp.PLDAccountant().compose(dp.Gaussian(2.0), 10).gdp_mu_bounds()
    assert isinstance(bracket, Bounds) and bracket.source == "gdp"
    assert bracket.lower <= mu <= bracket.upper <= mu * (1 + 2 * GDP_TOLERANCE)
    assert bracket.lower >= mu * (1 - 1e-5)


def test_gdp_bracket_of_the_rdp_accountant_has_lower_end_0_and_an_upper_end_above_mu():
    bracket = dp.Accountant().compose(dp.Gaussian(2.0), 10).gdp_mu_bounds()
    assert bracket.lower == 0.0 and bracket.upper >= math.sqrt(10) / 2.0


def test_gdp_bracket_of_a_sampled_gaussian_run_is_below_the_unsampled_mu():
    # sampling only helps: T sampled steps are at most sqrt(T)/sigma-GDP
    bracket = dp.Accountant().compose(dp.SampledGaussian(0.01, 1.0), 1000).gdp_mu_bounds()
    assert 0.0 <= bracket.lower <= bracket.upper <= math.sqrt(1000) / 1.0


def test_an_empty_accountant_has_power_equal_to_the_type_one_error_and_mu_0():
    for accountant in (dp.Accountant(), dp.PLDAccountant()):
        values = accountant.tpr_at_fpr([0.0, 0.25, 1.0])  # delta = 0: the fpr itself, rounded up
        assert values[0] == 0.0 and 0.25 <= values[1] <= 0.25 + 1e-15 and values[2] == 1.0
        assert tuple(accountant.tpr_at_fpr_bounds(0.25))[0] == 0.25
        assert tuple(accountant.gdp_mu_bounds()) == (0.0, 0.0)


def test_a_sequence_gives_a_list_equal_to_the_single_values():
    accountant = dp.Accountant().compose(dp.SampledGaussian(0.01, 1.0), 1000)
    singles = [accountant.tpr_at_fpr(f) for f in (1e-3, 0.1)]
    assert accountant.tpr_at_fpr([1e-3, 0.1]) == singles
    assert accountant.tpr_at_fpr(np.array([1e-3, 0.1])) == singles
    assert accountant.tpr_at_fpr((1e-3, 0.1)) == singles
    assert isinstance(singles[0], float)


@pytest.mark.parametrize("mechanism", [dp.Gaussian(1e-3), dp.Gaussian(1e3), dp.SampledGaussian(1.0, 0.1),
                                       dp.Laplace(0.05), dp.RandomizedResponse(30.0)])
def test_extreme_mechanisms_and_fprs_give_numbers_in_zero_one_never_nan(mechanism):
    fprs = [0.0, 5e-324, 1e-300, 1e-10, 0.5, 1 - 1e-16, 1.0]
    values = dp.Accountant().compose(mechanism, 3).tpr_at_fpr(fprs)
    for fpr, value in zip(fprs, values):
        assert not math.isnan(value) and fpr <= value <= 1.0
    bracket = dp.Accountant().compose(mechanism, 3).gdp_mu_bounds()
    assert not math.isnan(bracket.lower) and not math.isnan(bracket.upper) and 0 <= bracket.lower <= bracket.upper


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, math.inf, -math.inf])
def test_an_fpr_outside_zero_one_is_a_library_error_naming_it(bad):
    with pytest.raises(InvalidArgument, match="fpr"):
        dp.Accountant().compose(dp.Gaussian(1.0)).tpr_at_fpr(bad)


def test_a_bad_item_of_a_sequence_is_named_by_its_index():
    with pytest.raises(InvalidArgument, match=r"fpr\[1\]"):
        dp.PLDAccountant().compose(dp.Gaussian(1.0)).tpr_at_fpr([0.1, 2.0])
    with pytest.raises(InvalidArgument, match=r"fpr\[0\]"):
        dp.PLDAccountant().compose(dp.Gaussian(1.0)).tpr_at_fpr_bounds([math.nan])


@pytest.mark.parametrize("bad", ["0.1", None, 1j])
def test_an_fpr_of_the_wrong_type_is_a_type_error_naming_it(bad):
    with pytest.raises(InvalidArgumentType, match="fpr"):
        dp.Accountant().compose(dp.Gaussian(1.0)).tpr_at_fpr(bad)


@pytest.mark.parametrize("bad, error", [(0.0, InvalidArgument), (1.0, InvalidArgument), (math.nan, InvalidArgument),
                                        ("1e-10", InvalidArgumentType)])
def test_a_bad_min_delta_is_a_library_error_naming_it(bad, error):
    with pytest.raises(error, match="min_delta"):
        dp.Accountant().compose(dp.Gaussian(1.0)).gdp_mu_bounds(min_delta=bad)


def test_the_float_gaussian_profile_encloses_the_precise_one():
    epsilons = np.array([0.0, 1e-8, 0.01, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0])
    for sigma in (1e-3, 0.1, 0.5, 1.0, 3.0, 100.0, 1e4, 1e7):
        low, up = fast.delta_gaussian_bounds(epsilons, sigma)
        for epsilon, lo, hi in zip(epsilons, low, up):
            exact = precise.delta_gaussian(float(epsilon), sigma, dps=40)
            assert lo <= exact <= hi
            if exact > 1e-300:
                assert hi - lo <= 1e-6 * float(exact)
