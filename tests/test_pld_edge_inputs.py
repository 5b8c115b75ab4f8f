"""The PLD accountant answers every input of the issue "Tight accounting that always answers, fast"
with a right answer or a library error (benchmarks/pld_edge_inputs.py prints the table with times).

A right answer is a bracket checked against exact profiles: ``delta_exact(upper) <= delta`` and
``delta_exact(lower) >= delta`` (or ``lower = 0``) contain the tight epsilon; where the exact value
is not known, the bracket lies above a known lower bound and below a known upper bound. Work that
must not happen (a grid for a trivial case, a second pass that cannot help) is counted.
"""

import json
import math
from pathlib import Path

import mpmath
import pytest

import dpproofs as dp
from dpproofs.accountant import rdp as rdp_module
from dpproofs.accountant.pld import accountant as pld_accountant
from dpproofs.accountant.pld import discretise as pld_discretise
from dpproofs.errors import InvalidArgument
from dpproofs.math import pairs
from dpproofs.math import precise
from dpproofs.math import total_variation

DELTA = 1e-5


def contains(bounds, delta, profile):
    """Whether ``bounds`` contains the tight epsilon of the exact, non-increasing ``profile`` at ``delta``."""
    upper_ok = profile(bounds.upper) <= delta
    lower_ok = bounds.lower == 0 or profile(bounds.lower) >= delta
    return upper_ok and lower_ok and 0 <= bounds.lower <= bounds.upper


def gaussian_profile(sigma):
    return lambda eps: precise.delta_gaussian(eps, sigma, dps=30)


def sampled_profile(q, sigma):
    return lambda eps: precise.delta_sampled_gaussian(eps, q, sigma, dps=30)


@pytest.fixture
def counted(monkeypatch):
    """Counts of the one-step discretisations and of the RDP accountant's epsilon queries."""
    counts = {"discretise": 0, "rdp": 0}
    discretise, epsilon = pld_discretise.discretise, rdp_module.Accountant.epsilon

    def counting_discretise(*args, **kwargs):
        counts["discretise"] += 1
        return discretise(*args, **kwargs)

    def counting_epsilon(self, *args, **kwargs):
        counts["rdp"] += 1
        return epsilon(self, *args, **kwargs)

    monkeypatch.setattr(pld_discretise, "discretise", counting_discretise)
    monkeypatch.setattr(rdp_module.Accountant, "epsilon", counting_epsilon)
    return counts


# --- the inputs, one test each --------------------------------------------------------------


def test_one_step_at_rate_1e_9_is_exactly_zero_without_a_grid_or_the_rdp_bound(counted):
    bounds = dp.PLDAccountant().compose(dp.SampledGaussian(1e-9, 1.0), 1).epsilon_bounds(DELTA)
    assert bounds == (0.0, 0.0) and bounds.source == "exact" and bounds.target_met
    assert counted == {"discretise": 0, "rdp": 0}


def test_delta_at_epsilon_1e300_is_a_tiny_upper_bound_found_in_one_pass(monkeypatch):
    attempts = []
    attempt = pld_accountant.PLDAccountant._attempt

    def counting(self, *args, **kwargs):
        attempts.append(args[1])
        return attempt(self, *args, **kwargs)

    monkeypatch.setattr(pld_accountant.PLDAccountant, "_attempt", counting)
    bounds = dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 4.0), 10000).delta_bounds(1e300)
    # the tight delta at epsilon = 1e300 is below e^{-1e300}: any bracket [0, tiny] contains it
    assert 0 == bounds.lower <= bounds.upper <= 1e-300
    # its upper end is the grid-free mass beyond the window: a finer grid is not tried
    assert len(attempts) == 1


def test_delta_within_2_to_the_minus_53_of_one_is_exactly_zero_without_a_grid(counted):
    # 10 000 steps of total variation <= 0.01 erf(1/(8 sqrt 2)) = 9.9e-4 each: 1 - 4.7e-5 in all
    accountant = dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 4.0), 10000)
    assert accountant.total_variation_bound() <= 1 - 2**-53
    bounds = accountant.epsilon_bounds(1 - 2**-53)
    assert bounds == (0.0, 0.0) and bounds.source == "exact"
    assert counted["discretise"] == 0


def test_three_gaussian_148_steps_contain_the_closed_form():
    bounds = dp.PLDAccountant().compose(dp.Gaussian(148.2), 3).epsilon_bounds(DELTA)
    assert bounds.source == "pld" and contains(bounds, DELTA, gaussian_profile(148.2 / math.sqrt(3)))


def test_relative_width_1e_6_at_the_abadi_point_contains_the_stored_exact_value():
    bounds = dp.PLDAccountant(relative_width=1e-6).compose(dp.SampledGaussian(0.01, 4.0), 10000).epsilon_bounds(DELTA)
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "pld_reference.json"
    ref = json.loads(path.read_text())["values"]["0.01,4.0,10000,1e-05"]
    assert bounds.source == "pld"
    assert bounds.lower <= ref["epsilon"] - ref["epsilon_uncertainty"]
    assert ref["epsilon"] + ref["epsilon_uncertainty"] <= bounds.upper


def test_one_sampled_step_at_sigma_1e_minus_3_has_a_tight_bracket_around_the_closed_form():
    # the one-step loss reaches 5e5: the grid works in log space instead of overflowing
    bounds = dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 1e-3), 1).epsilon_bounds(DELTA)
    assert bounds.source == "pld" and bounds.upper - bounds.lower <= 1e-3 * bounds.upper
    assert contains(bounds, DELTA, sampled_profile(0.01, 1e-3))


def test_gaussian_at_sigma_1e_minus_3_contains_the_balle_wang_epsilon():
    bounds = dp.PLDAccountant().compose(dp.Gaussian(1e-3), 1).epsilon_bounds(DELTA)
    assert bounds.source == "pld" and bounds.upper - bounds.lower <= 1e-3 * bounds.upper
    assert contains(bounds, DELTA, gaussian_profile(1e-3))


@pytest.mark.parametrize("sigma", [5e-21, 1e-22, 1e-19])
def test_losses_beyond_the_grid_limit_get_the_rdp_bound_never_a_wrong_or_failed_grid(sigma):
    # pinned: Gaussian(5e-21) raised KeyError (a nan tilt) and Gaussian(1e-22) answered an upper end of
    # 0.0 from the grid, where epsilon(delta) > 1/(2 sigma^2) = 5e43 (one-step loss beyond 1e40)
    from dpproofs.accountant.pld.accountant import MAX_ONE_STEP_LOSS

    assert 0.5 / sigma**2 > MAX_ONE_STEP_LOSS
    mixture = dp.MixtureOfGaussians(sigma, (0.0, 1.0, 2.0), (0.2, 0.6, 0.2))
    bounds = dp.PLDAccountant().compose(mixture, 1).epsilon_bounds(DELTA)
    assert bounds.source == "rdp" and bounds.upper >= 0.5 / sigma**2 and bounds.lower <= bounds.upper
    # the Gaussian alone has its closed form (mu up to 1e150, no grid): a bracket around mu^2/2 + mu z
    bounds = dp.PLDAccountant().compose(dp.Gaussian(sigma), 1).epsilon_bounds(DELTA)
    assert bounds.source == "pld" and bounds.grid_step is None
    assert bounds.upper >= 0.5 / sigma**2 and bounds.upper - bounds.lower <= 1e-9 * bounds.upper


def test_laplace_at_scale_1e_minus_300_falls_back_to_the_rdp_bound_above_the_exact_epsilon():
    bounds = dp.PLDAccountant().compose(dp.Laplace(1e-300), 1).epsilon_bounds(DELTA)
    assert bounds.source == "rdp" and math.isfinite(bounds.upper)
    assert contains(bounds, DELTA, lambda eps: precise.delta_laplace(eps, 1e-300, dps=30))


def test_randomized_response_at_epsilon_1e300_falls_back_to_the_rdp_bound_above_the_exact_epsilon():
    bounds = dp.PLDAccountant().compose(dp.RandomizedResponse(1e300), 1).epsilon_bounds(DELTA)
    assert bounds.source == "rdp" and math.isfinite(bounds.upper)
    assert contains(bounds, DELTA, lambda eps: precise.delta_randomized_response(eps, 1e300, dps=30))


def test_fixed_batches_at_sigma_1e_minus_3_under_replace_one_contain_the_worst_realised_pair():
    # b/n = 0.1, replace-one: the worst case is the sampled pair at sigma/2 in both orders (realised
    # by x = -x'), so its closed form is the tight epsilon
    accountant = dp.PLDAccountant(relation="replace_one").compose(dp.FixedBatchGaussian(10, 100, 1e-3), 1)
    bounds = accountant.epsilon_bounds(DELTA)
    assert bounds.source == "pld" and contains(bounds, DELTA, sampled_profile(0.1, 5e-4))


def test_a_gaussian_and_a_laplace_of_very_different_scales_get_one_grid_and_a_finite_bracket():
    bounds = dp.PLDAccountant().compose(dp.Gaussian(0.025), 1).compose(dp.Laplace(3.0), 1).epsilon_bounds(DELTA)
    assert math.isfinite(bounds.lower) and math.isfinite(bounds.upper)
    # eps_G(delta) <= eps* <= eps_G(delta) + 1/3 (dropping the Laplace output is post-processing; the
    # Laplace step is (1/3)-DP): the upper end is above the lower bound, the lower end below the upper
    gaussian = gaussian_profile(0.025)
    assert gaussian(bounds.upper) <= DELTA
    assert gaussian(bounds.lower - mpmath.mpf(1) / 3) >= DELTA
    assert bounds.source == "pld" and bounds.upper - bounds.lower <= 1e-3 * bounds.upper


@pytest.mark.parametrize("q", [5e-324, 1e-300])
@pytest.mark.parametrize("accountant", ["pld", "rdp"])
def test_calibrating_at_a_rate_below_delta_is_refused_naming_the_argument(q, accountant):
    with pytest.raises(InvalidArgument) as error:
        dp.calibrate_sigma(epsilon=1.0, delta=DELTA, q=q, steps=1000, accountant=accountant)
    # pld: every sigma > 0 gives epsilon 0, so none is the smallest; rdp: met at its smallest sigma
    assert ("q=" if accountant == "pld" else "epsilon=1.0 is already met") in str(error.value)


# --- the root causes, each where it was ----------------------------------------------------------


def test_a_sampled_pair_at_rate_5e_minus_324_has_its_loss_range_bottom_below_its_top():
    # log(1 - q + q e^t) was taken as log q + t for t >= 700: a loss of -19 for 6.6e-9
    low, high = pairs.GaussianPair(5e-324, 0.0316763520, "remove").loss_range(7.2)
    assert -1e-8 < low < 0 < high <= 5e-324


def test_positions_of_losses_beyond_709_are_finite_and_invert_the_loss():
    pair = pairs.GaussianPair(0.01, 1e-3, "add")
    levels = [800.0, 5e5]
    for level, u in zip(levels, pair.positions(levels)):
        assert math.isfinite(u)
        assert abs(pair._loss(u) - level) <= 1e-9 * level


def test_the_one_step_upper_pld_at_sigma_1e_minus_3_keeps_its_mass_and_has_no_nan():
    one = pld_discretise.discretise(pairs.GaussianPair(1.0, 1e-3, "add"), 10.0, "upper", 6.0)
    assert not any(math.isnan(m) for m in one.masses)
    assert abs(sum(one.masses) + one.infinity - 1) <= 1e-9


def test_a_laplace_pair_at_scale_1e_minus_300_has_finite_cell_masses():
    edges = [-2e300, -1e300, 0.0, 1e300, 2e300]
    p, q, _, _, _, _ = pairs.LaplacePair(1e-300).cell_masses(edges)
    assert all(math.isfinite(x) for x in list(p) + list(q))


def test_total_variation_bounds_are_at_least_the_exact_profiles_at_zero():
    for sigma in (1e-3, 0.5, 4.0, 1e3):
        assert total_variation.gaussian(1.0, sigma) >= precise.delta_gaussian(0, sigma, dps=30)
    for b in (1e-3, 1.0, 1e3):
        assert total_variation.laplace(1.0, b) >= precise.delta_laplace(0, b, dps=30)
    for eps in (1e-6, 1.0, 50.0):
        assert total_variation.randomized_response(eps) >= precise.delta_randomized_response(0, eps, dps=30)
    for q, sigma in ((1e-9, 1.0), (0.01, 4.0), (0.5, 0.1)):
        tv = dp.SampledGaussian(q, sigma).total_variation("add_remove")
        assert precise.delta_sampled_gaussian(0, q, sigma, dps=30) <= tv <= q * (1 + 1e-15)


def test_the_composed_total_variation_bound_is_at_least_the_exact_product_formula():
    items = [(1e-3, 10000), (0.3, 2), (1e-12, 10**9)]
    with mpmath.workdps(50):
        product = mpmath.mpf(1)
        for tv, n in items:
            product *= (1 - mpmath.mpf(tv)) ** n
        exact = 1 - product
    bound = total_variation.composed(items)
    assert exact <= bound <= exact * (1 + 1e-12)
    assert total_variation.composed([(0.5, 10**400)]) == 1.0
    assert total_variation.composed([(0.0, 5), (0.2, 0)]) == 0.0


def test_the_short_circuit_does_not_answer_below_the_bound():
    # one step at q = 0.01, sigma = 0.1: delta(0) = 0.0099999; at delta = 0.005 epsilon is about 44
    accountant = dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 0.1), 1)
    assert accountant.total_variation_bound() > 0.005
    assert accountant.epsilon_bounds(0.005).lower > 40


def test_delta_below_the_composed_window_counts_every_cell_above_epsilon():
    # three RandomizedResponse(800) steps put all their mass at loss 2400, one cell: delta(1) was
    # answered as delta at the window's first loss (0.0012) instead of ~1
    bounds = dp.PLDAccountant().compose(dp.RandomizedResponse(800.0), 3).delta_bounds(1.0)
    exact = precise.delta_composed_pure(1.0, 800.0, 3, dps=30)
    assert bounds.lower <= exact <= bounds.upper and bounds.lower > 0.99
    accountant = dp.PLDAccountant().compose(dp.RandomizedResponse(2.0), 3)
    for eps in (0.0, 0.5, 3.0):
        bounds = accountant.delta_bounds(eps)
        assert bounds.lower <= precise.delta_composed_pure(eps, 2.0, 3, dps=30) <= bounds.upper


def test_a_sampled_laplace_of_scale_1e_minus_3_has_finite_atoms_and_contains_the_exact_epsilon():
    # its atoms' losses were log(P/Q) of masses with e^{-1/b} = 0: a ZeroDivisionError
    from dpproofs_theorems.accountant.sampled_laplace import _Mp, one_step_delta

    bounds = dp.PLDAccountant().compose(dp.SampledLaplace(0.5, 1e-3), 1).epsilon_bounds(DELTA)
    assert bounds.source == "pld"
    assert contains(bounds, DELTA, lambda eps: one_step_delta(eps, 0.5, 1e-3, _Mp))


def test_noise_so_small_that_the_loss_overflows_falls_back_to_the_rdp_bound_without_a_grid(counted):
    # sigma = 1e-170: 1/(2 sigma^2) is beyond float range (sigma^2 underflows to 0)
    bounds = dp.PLDAccountant().compose(dp.SampledGaussian(0.5, 1e-170), 2).epsilon_bounds(DELTA)
    assert bounds.source == "rdp" and bounds.lower == 0 and bounds.upper == math.inf
    assert counted["discretise"] == 0


@pytest.mark.parametrize("argument", [dict(steps=10**400), dict(relative_width=[1]), dict(relative_width=float("nan"))])
def test_pld_calibration_refuses_steps_beyond_the_limit_and_a_width_that_is_not_a_number(argument):
    arguments = {**dict(epsilon=1.0, delta=1e-5, q=0.01, steps=100, accountant="pld"), **argument}
    name = next(iter(argument))
    with pytest.raises((dp.InvalidArgument, dp.errors.InvalidArgumentType), match=name):
        dp.calibrate_sigma(**arguments)
