"""The PLD accountant: its bracket contains the exact tight epsilon/delta, API, bad input."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest
from mpmath import mp

import dpproofs as dp
from dpproofs.accountant.pld import compose as pld_compose
from dpproofs.accountant.pld import discretise as pld_eval
from dpproofs.math import precise
from dpproofs.math import pld_exact as precise_pld

#: Exact tight epsilons of the Abadi configurations (q = 0.01, sigma = 4, delta = 1e-5), from
#: dpproofs.math.pld_exact (Bromwich inversion; delta(0.9468668) = 1.0000000121e-5 there).
ABADI_EXACT = {10000: 0.9468668, 40000: 2.0330653}


def sampled(q, sigma, steps, **options):
    return dp.PLDAccountant(**options).compose(dp.SampledGaussian(q, sigma), steps)


def gaussian_epsilon(sigma, delta):
    """Exact epsilon of the Gaussian mechanism by bisection on its closed-form profile."""
    low, high = 0.0, 200.0
    for _ in range(80):
        mid = (low + high) / 2
        if precise.delta_gaussian(mid, sigma, dps=30) > delta:
            low = mid
        else:
            high = mid
    return low, high


@pytest.mark.parametrize("steps", sorted(ABADI_EXACT))
def test_the_abadi_bracket_contains_the_exact_value_and_is_within_1e_3_relative(steps):
    bounds = sampled(0.01, 4.0, steps).epsilon_bounds(1e-5)
    assert bounds.source == "pld" and bounds.target_met
    assert bounds.lower <= ABADI_EXACT[steps] - 1e-7 and ABADI_EXACT[steps] + 1e-7 <= bounds.upper
    assert bounds.width <= 1e-3 * bounds.upper


def test_the_abadi_bracket_lies_below_the_rdp_bound():
    bounds = sampled(0.01, 4.0, 10000).epsilon_bounds(1e-5)
    assert bounds.upper < dp.Accountant().compose(dp.SampledGaussian(0.01, 4.0), 10000).epsilon(1e-5)


@pytest.mark.parametrize("sigma, steps, delta", [(10.0, 100, 1e-5), (2.0, 1, 1e-3), (50.0, 10000, 1e-10)])
def test_the_gaussian_bracket_contains_the_closed_form(sigma, steps, delta):
    low, high = gaussian_epsilon(sigma / math.sqrt(steps), delta)
    bounds = dp.PLDAccountant().compose(dp.Gaussian(sigma), steps).epsilon_bounds(delta)
    assert bounds.lower <= low and high <= bounds.upper
    assert bounds.width <= 1e-3 * bounds.upper


@pytest.mark.parametrize("q, sigma, eps", [(0.01, 4.0, 0.01), (0.3, 1.0, 0.5), (0.5, 0.7, 2.0)])
def test_one_sampled_gaussian_step_has_the_closed_form_delta_inside_its_delta_bracket(q, sigma, eps):
    exact = float(precise.delta_sampled_gaussian(eps, q, sigma, dps=30))
    bounds = sampled(q, sigma, 1).delta_bounds(eps)
    assert bounds.lower <= exact <= bounds.upper
    assert bounds.width <= 1e-2 * bounds.upper


@pytest.mark.parametrize("epsilon, steps", [(0.1, 100), (1.0, 7)])
def test_randomized_response_bracket_contains_the_kairouz_oh_viswanath_value(epsilon, steps):
    acc = dp.PLDAccountant().compose(dp.RandomizedResponse(epsilon), steps)
    for eps_prime in (0.0, 0.5, 1.5):
        with mp.workdps(40):
            exact = float(precise.delta_composed_pure(mp.mpf(eps_prime), mp.mpf(epsilon), steps, dps=30))
        bounds = acc.delta_bounds(eps_prime)
        assert bounds.lower <= exact * (1 + 1e-12) and exact * (1 - 1e-12) <= bounds.upper


def test_one_laplace_step_has_the_closed_form_delta_inside_its_bracket():
    acc = dp.PLDAccountant().compose(dp.Laplace(2.0), 1)
    for eps in (0.0, 0.1, 0.4):
        exact = float(precise.delta_laplace(mp.mpf(eps), mp.mpf(2.0), dps=30))
        bounds = acc.delta_bounds(eps)
        assert bounds.lower <= exact <= bounds.upper


def test_a_bracket_moved_inward_by_its_width_misses_the_exact_value():
    """Mutant: the bracket is tight enough that either end moved inward by the width excludes
    the exact value (the containment check can fail)."""
    lower, upper = sampled(0.01, 4.0, 10000).epsilon_bounds(1e-5)
    width = upper - lower
    assert not (lower + width <= ABADI_EXACT[10000] <= upper)
    assert not (lower <= ABADI_EXACT[10000] <= upper - width)


def test_dropping_the_tail_mass_sent_to_infinity_lowers_delta_at_small_delta():
    """Mutant: the one-step upper PLD without its +inf mass gives a smaller delta than with it
    (so the tail accounting is not vacuous)."""
    pair = pld_eval.GaussianPair(0.5, 0.5, "add")
    one = pld_eval.discretise(pair, 1e-3, "upper", tail_z=6.0)
    assert one.infinity > 0
    dropped = pld_eval.OneStep(one.step, one.offset, one.shift, one.masses, 0.0, "upper")
    with_tail = pld_compose.compose_fourier([(one, 3)], 1.0)
    without = pld_compose.compose_fourier([(dropped, 3)], 1.0)
    assert without.delta(40.0) < with_tail.delta(40.0)


def test_zero_privacy_loss_gives_zero_epsilon_and_delta():
    for acc in (dp.PLDAccountant(), sampled(0.0, 1.0, 10), sampled(0.01, 1.0, 0)):
        assert tuple(acc.epsilon_bounds(1e-5)) == (0.0, 0.0)
        assert acc.epsilon(1e-5) == 0.0 and acc.delta(0.5) == 0.0
        assert acc.delta_bounds(0.0).source == "exact"


def test_compose_returns_the_accountant_and_heterogeneous_sequences_are_bracketed():
    acc = dp.PLDAccountant()
    assert acc.compose(dp.SampledGaussian(0.01, 4.0), 1000) is acc
    acc.compose(dp.Gaussian(10.0), 5).compose(dp.Laplace(20.0), 3).compose(dp.RandomizedResponse(0.05), 2)
    bounds = acc.epsilon_bounds(1e-5)
    rdp = dp.Accountant()
    for mechanism, steps in acc.ledger:
        rdp.compose(mechanism, steps)
    assert 0 < bounds.lower <= bounds.upper <= rdp.epsilon(1e-5)


def test_bad_input_raises_invalid_argument_naming_the_argument_and_leaves_the_ledger_unchanged():
    acc = sampled(0.01, 4.0, 10)
    before = acc.ledger
    for call, name in [
        (lambda: acc.compose(dp.SampledGaussian(0.01, 4.0), -1), "steps"),
        (lambda: acc.epsilon(0.0), "delta"),
        (lambda: acc.epsilon(1.0), "delta"),
        (lambda: acc.delta(-0.1), "epsilon"),
        (lambda: acc.delta(math.nan), "epsilon"),
        (lambda: dp.PLDAccountant(relative_width=0.0), "relative_width"),
        (lambda: dp.PLDAccountant(max_cells=3), "max_cells"),
        (lambda: dp.calibrate_sigma(epsilon=-1.0, delta=1e-5, q=0.01, steps=10, accountant="pld"), "epsilon"),
    ]:
        with pytest.raises(dp.InvalidArgument, match=name):
            call()
    with pytest.raises(dp.InvalidArgumentType):
        acc.compose("gaussian", 1)
    assert acc.ledger == before


def test_to_dict_round_trips_through_json():
    acc = sampled(0.01, 4.0, 100).compose(dp.Laplace(3.0), 2)
    again = dp.PLDAccountant.from_dict(json.loads(json.dumps(acc.to_dict())))
    assert again.ledger == acc.ledger and again.to_dict() == acc.to_dict()
    with pytest.raises(dp.InvalidArgumentType):
        dp.PLDAccountant.from_dict({"type": "Accountant"})


def test_delta_1e_minus_300_is_answered_with_a_bracket_inside_the_rdp_bound():
    bounds = sampled(0.01, 4.0, 1000).epsilon_bounds(1e-300)
    rdp = dp.Accountant().compose(dp.SampledGaussian(0.01, 4.0), 1000).epsilon(1e-300)
    assert 0 < bounds.lower <= bounds.upper <= rdp


def test_a_budget_the_tight_computation_cannot_meet_falls_back_to_rdp_marked_as_such():
    acc = sampled(0.01, 4.0, 10**9, max_cells=1 << 12)
    bounds = acc.epsilon_bounds(1e-5)
    rdp = dp.Accountant().compose(dp.SampledGaussian(0.01, 4.0), 10**9).epsilon(1e-5)
    assert bounds.source == "rdp" and bounds.upper == rdp and not bounds.target_met


def test_calibrate_sigma_pld_never_overshoots_and_is_close():
    sigma = dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=1000, tolerance=1e-2, accountant="pld")
    assert sampled(0.01, sigma, 1000).epsilon(1e-5) <= 1.0
    assert sampled(0.01, sigma * 0.97, 1000).epsilon(1e-5) > 1.0


@pytest.mark.parametrize("tolerance", [1e-3, 1e-6])
def test_calibrate_sigma_pld_is_the_smallest_certified_sigma_to_its_tolerance(tolerance):
    """One tolerance below the calibrated sigma the certified epsilon is above the target."""
    sigma = dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.1, steps=100, tolerance=tolerance, accountant="pld")
    assert sampled(0.1, sigma, 100).epsilon(1e-5) <= 1.0
    assert sampled(0.1, sigma * (1 - tolerance), 100).epsilon(1e-5) > 1.0


def test_calibrate_sigma_pld_counts_its_evaluations_not_one_per_tolerance_step():
    """The certified point above the coarse search is found by doubling steps: at tolerance 1e-6 the
    single steps of 1e-6 took 29 user-accountant evaluations here (work counted, not seconds)."""
    lines = []
    sigma = dp.calibrate_sigma(epsilon=0.2, delta=1e-5, q=0.001, steps=10000, tolerance=1e-6, accountant="pld",
                               progress=lines.append)
    checks = [line for line in lines if "check sigma" in line]
    assert sampled(0.001, sigma, 10000).epsilon(1e-5) <= 0.2
    assert sampled(0.001, sigma * (1 - 1e-6), 10000).epsilon(1e-5) > 0.2
    assert len(checks) <= 16, checks  # 10 on x86_64; a margin for other float libraries


def test_calibrate_sigma_pld_below_a_zero_epsilon_sigma_finds_the_crossing():
    # found by benchmarks/calibrate_fuzz.py (seed 20261207): epsilon is 0 from sigma ~1.57 on (the
    # total variation is below delta), the RDP sigma is 2.178, and the calibration returned it: an
    # upper end of 0 counted as not certified, the coarse grid (from the RDP sigma) read the RDP bound
    # below sigma 0.93, and the search down from there stopped below sigma 1e-3
    q, delta, target = 3.023850443444953e-4, 5.348263461461326e-4, 0.07859991360132099
    lines = []
    sigma = dp.calibrate_sigma(epsilon=target, delta=delta, q=q, steps=5, relation="replace_one", accountant="pld",
                               progress=lines.append)
    # the coarse search ends near the crossing: 2 full evaluations after it (8, and 50 s, when the
    # coarse grid's RDP readings stand and the search down does the rest)
    assert len([line for line in lines if "check sigma" in line]) <= 4, lines

    def certified(s):
        return dp.PLDAccountant(relation="replace_one").compose(dp.SampledGaussian(q, s), 5).epsilon(delta)

    assert certified(sigma) <= target < certified(sigma * (1 - 1e-3))
    assert 0.30 < sigma < 0.31  # (2.178 before)


def test_the_calibration_searches_read_an_upper_end_of_0_as_certified():
    from dpproofs.accountant import calibrate

    assert calibrate._log_excess(0.0, 0.1) < 0
    assert calibrate._log_excess(math.inf, 0.1) > 0 and calibrate._log_excess(math.nan, 0.1) > 0
    assert calibrate._log_excess(0.2, 0.1) == pytest.approx(math.log(2))


def test_the_search_down_from_a_certified_sigma_steps_by_at_most_a_factor_4_to_a_steep_crossing():
    # an epsilon falling like sigma^-5 (steeper than the secant's elasticity 1): its first step from
    # 0.93 went below sigma 1e-3, and the search stopped at 0.93 (3x above the crossing)
    from dpproofs.accountant import calibrate
    from dpproofs.accountant.base import Bounds

    evaluated = []

    def bounds(sigma, width):
        evaluated.append(sigma)
        return Bounds(0.0, 8.4e-5 * (0.93 / sigma) ** 5, "pld")

    sigma = calibrate._smallest_certified(0.93, bounds, 0.0786, None, 1e-6)
    crossing = 0.93 / (0.0786 / 8.4e-5) ** 0.2
    assert crossing <= sigma <= crossing * (1 + 1e-6)
    assert len(evaluated) <= calibrate.MAX_DOWNWARD_EVALUATIONS + 1


def test_the_exact_reference_inverts_the_gaussian_composition_to_its_closed_form():
    value = precise_pld.delta_sampled_gaussian_composed(4.379, 1, 10.0, 100)
    assert abs(value - precise.delta_gaussian(4.379, 1.0, dps=30)) <= 1e-12 * value


def test_the_pld_accountant_path_imports_no_sympy_hypothesis_or_flint():
    code = ("import sys, dpproofs as dp; dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 4.0), 100).epsilon(1e-5);"
            "print([m for m in ('sympy', 'hypothesis', 'flint') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def _stored_reference(q, sigma, steps, delta):
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "pld_reference.json"
    return json.loads(path.read_text())["values"][f"{q!r},{sigma!r},{steps!r},{delta!r}"]


def test_rare_large_losses_get_a_tight_bracket_not_the_rdp_fallback():
    # (q, sigma, T, delta) = (1e-4, 1, 1000, 1e-12): the answer is carried by one sampled step far
    # in its tail (the bulk/jump split); RDP says 1.398, the exact value is 0.0954177
    bounds = sampled(1e-4, 1.0, 1000).epsilon_bounds(1e-12)
    ref = _stored_reference(1e-4, 1.0, 1000, 1e-12)
    assert bounds.source == "pld" and bounds.target_met
    assert bounds.lower <= ref["epsilon"] - ref["epsilon_uncertainty"]
    assert ref["epsilon"] + ref["epsilon_uncertainty"] <= bounds.upper


def test_a_million_steps_at_q_1e_4_meet_the_width_target_and_contain_the_exact_value():
    bounds = sampled(1e-4, 4.0, 10**6).epsilon_bounds(1e-6)
    ref = _stored_reference(1e-4, 4.0, 10**6, 1e-6)
    assert bounds.source == "pld" and bounds.width <= 1e-3 * bounds.upper
    assert bounds.lower <= ref["epsilon"] <= bounds.upper


def test_the_split_composition_equals_the_single_tilt_one_where_both_are_tight():
    pair = pld_eval.GaussianPair(0.01, 4.0, "add")
    one = pld_eval.discretise(pair, 2e-4, "upper", 9.0)
    theta = pld_compose.choose_tilt([(one, 10000)], delta=1e-5)
    single = pld_compose.compose_fourier([(one, 10000)], theta).epsilon(1e-5)
    split = pld_compose.compose_split(one, 10000, delta=1e-5, epsilon_hint=0.95).epsilon(1e-5)
    # the split's upper end carries the terms beyond K as a constant of at most
    # SPLIT_REMAINDER_SHARE * delta, which moves epsilon by about that share over the tilt theta
    assert abs(single - split) <= 1e-6 * single + pld_compose.SPLIT_REMAINDER_SHARE / theta


def test_the_upper_one_step_pld_keeps_its_mass_at_fine_grids():
    # each cell carries its own mass error, not the 2 err / h of a cancelling difference
    pair = pld_eval.GaussianPair(1e-4, 4.0, "add")
    for step in (1e-5, 1e-6):
        one = pld_eval.discretise(pair, step, "upper", 9.0)
        assert abs(math.fsum(one.masses) + one.infinity - 1) <= 1e-12


def test_epsilon_is_an_upper_end_no_looser_than_the_brackets():
    acc = sampled(0.01, 4.0, 10000)
    assert ABADI_EXACT[10000] <= acc.epsilon(1e-5) <= acc.epsilon_bounds(1e-5).upper * (1 + 1e-3)


def test_the_vectorised_bromwich_reference_agrees_with_the_mpmath_one_and_the_gaussian():
    # delta(0.9468668) = 1.0000000121e-5 by the mpmath inversion (module docstring of test_pld)
    value = precise_pld.bromwich_delta(0.9468668, 0.01, 4.0, 10000)
    assert abs(value - 1.0000000121e-5) <= 1e-8 * 1e-5
    for sigma, steps, eps in ((2.0, 10, 0.5), (10.0, 100, 0.3)):
        exact = float(precise.delta_gaussian(eps, sigma / math.sqrt(steps), dps=30))
        assert abs(precise_pld.bromwich_delta(eps, 1.0, sigma, steps) - exact) <= 1e-9 * exact


def test_the_vectorised_bromwich_reference_refuses_when_its_contours_disagree():
    with pytest.raises(ArithmeticError):
        precise_pld.bromwich_delta(0.0954, 1e-4, 1.0, 1000, rtol=1e-9)


def test_calibration_reports_progress_through_its_callback():
    lines = []

    sigma = dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=1000, progress=lines.append, accountant="pld")
    assert lines and all(line.startswith("pld calibration:") for line in lines)
    assert sampled(0.01, sigma, 1000).epsilon(1e-5) <= 1.0


@pytest.mark.parametrize("count, rate", [(1, 0.3), (2, 0.0), (5, 1e-3), (37, 0.5), (300, 2.0), (1000, 0.9),
                                         (777, 1e-7), (2000, 0.31), (32, 9.2), (16, 18.7)])
def test_the_damped_suffix_sums_and_their_weight_norms_match_mpmath(count, rate):
    # Composed's A_j, B_j (in place, blockwise when rate * count > 300) and the Cauchy-Schwarz
    # weights of its round-off term: the sums within Composed.gamma, the norms never below
    import numpy as np

    z = np.random.default_rng(count).random(count) ** 3
    sums = pld_compose._damped_suffix(z, rate)
    norms = pld_compose._suffix_weight_norm(count, rate)
    gamma = pld_compose.suffix_sum_error(count, rate)
    mp.dps = 40
    for j in range(0, count, max(1, count // 29)):
        exact = mp.fsum(mp.mpf(float(z[k])) * mp.exp(-mp.mpf(rate) * (k - j)) for k in range(j + 1, count))
        assert abs(sums[j] - exact) <= gamma * exact
        norm = mp.sqrt(mp.fsum(mp.exp(-2 * mp.mpf(rate) * m) for m in range(1, count - j)))
        assert norm <= norms[j] <= norm * (1 + 1e-8) + 1e-300


def test_each_decay_factor_is_within_its_stated_error_up_to_exponents_of_300():
    # the exponent's rounding dominates (relative error ~ |rate i| u): the allowance of
    # Composed.gamma is per decay factor, DECAY_FACTOR_ERROR u, for |rate i| <= 300 (one block)
    import numpy as np

    rng = np.random.default_rng(5)
    mp.dps = 40
    for rate in [1e-6, 1e-3, 0.0019, 0.31, 2.3, *rng.uniform(1e-4, 3.0, 12)]:
        count = int(min(300 / rate, 50000))
        ramp = pld_compose._decay_ramp(rate, count)
        for i in {0, count - 1, *rng.integers(0, count, 60).tolist()}:
            exact = mp.exp(-mp.mpf(float(rate)) * i)
            assert abs(ramp[i] - exact) <= pld_compose.DECAY_FACTOR_ERROR * 2.0**-53 * exact


def test_the_suffix_sums_need_the_decay_factor_allowance():
    # pinned: at 32 cells and rate 9.2 the exponents' rounding alone puts the sums 167 u off,
    # beyond the n-roundings allowance 4.4 n u + 1e-15 that Composed.gamma used to be
    import numpy as np

    count, rate = 32, 9.2
    mp.dps = 40
    worst = 0.0
    for seed in range(20):
        z = np.random.default_rng(seed).random(count) ** 3
        sums = pld_compose._damped_suffix(z, rate)
        for j in range(count - 1):
            exact = mp.fsum(mp.mpf(float(z[k])) * mp.exp(-mp.mpf(rate) * (k - j)) for k in range(j + 1, count))
            worst = max(worst, float(abs(sums[j] - exact) / exact))
    assert worst > 4.4 * count * 2.0**-53 + 1e-15
    assert worst <= pld_compose.suffix_sum_error(count, rate)


def test_a_short_run_starts_on_a_grid_set_by_its_epsilon_not_its_spread():
    # (4.9e-4, 0.889, 866, 1e-12): the composed spread asked for h = 1.7e-5 (0.5-0.8 s, 1.5e-5 wide);
    # the floor 0.1 x target x RDP epsilon gives h ~ 1.3e-4 and one pass meets the 1e-3 width
    accountant = dp.PLDAccountant().compose(dp.SampledGaussian(4.9e-4, 0.889), 866)
    bounds = accountant.epsilon_bounds(1e-12)
    assert bounds.target_met and bounds.grid_step >= 1e-4


#: Exact deltas (Bromwich inversion, dpproofs.math.pld_exact.bromwich_delta at rtol 1e-7; its two
#: contours agreed to 2.6e-12, 3.7e-12 and 2.3e-9 relative) of three rows of the seeded suite
#: benchmarks/pld_soundness_generated.py whose delta brackets were 25 %, 6.4 %, 96 % and 97 % wide:
#: (epsilon, q, sigma, T) -> delta.
DELTA_EXACT = {(0.0471462, 0.00748, 2.95, 9): 6.299990974029166e-09,
               (0.175795, 0.0075, 1.84, 49): 2.300036540981471e-08,
               (0.0891691, 0.000286, 0.957, 685): 1.1005723684955008e-08,
               # a pass that only resized the tails must not stop the refinement: it had left
               # [6.8e-8, 4.4e-6] (contours agree to 1.1e-12)
               (162.943, 0.0573, 1.3, 78324): 3.4009743847461127e-06}


@pytest.mark.parametrize("key", sorted(DELTA_EXACT))
def test_a_delta_bracket_sizes_its_tail_allowance_from_the_answer_and_meets_its_width(key):
    epsilon, q, sigma, steps = key
    bracket = sampled(q, sigma, steps).delta_bounds(epsilon)
    assert bracket.lower <= DELTA_EXACT[key] <= bracket.upper
    assert bracket.source == "pld" and bracket.upper - bracket.lower <= 1e-2 * bracket.upper


def test_without_the_resized_tail_allowance_a_delta_bracket_misses_its_width(monkeypatch):
    # the mutant: the tails sized from the RDP delta only (the check above would fail)
    from dpproofs.accountant.pld import accountant as pld_accountant
    monkeypatch.setattr(pld_accountant, "TAIL_Z_RESIZE", math.inf)
    epsilon, q, sigma, steps = (0.0891691, 0.000286, 0.957, 685)
    bracket = sampled(q, sigma, steps).delta_bounds(epsilon)
    assert bracket.upper - bracket.lower > 0.5 * bracket.upper


def test_small_epsilon_at_small_delta_takes_a_tilt_beyond_2000_and_meets_the_width(monkeypatch):
    # Chernoff order near 5e4: at the former largest tilt, 2000, the round-off allowance held the
    # bracket at [5.5049e-4, 5.7669e-4] (4.5 % wide) at every grid step; both brackets are certified,
    # so the new one lies inside the old
    accountant = sampled(4.27e-5, 5.26, 174)
    bracket = accountant.epsilon_bounds(6.1e-12)
    assert bracket.source == "pld" and bracket.upper - bracket.lower <= 1e-3 * bracket.upper
    assert 5.5049e-4 <= bracket.lower and bracket.upper <= 5.7670e-4
    # the mutant: tilts capped at 2000 again
    monkeypatch.setattr(pld_compose, "MAX_TILT", 2e3)
    monkeypatch.setattr(pld_compose, "MAX_TILT_RATE", 0.0)
    wide = sampled(4.27e-5, 5.26, 174).epsilon_bounds(6.1e-12)
    assert wide.upper - wide.lower > 1e-2 * wide.upper


def test_the_tilt_stays_within_its_rate_cap_at_coarse_steps(monkeypatch):
    # two equal atoms one step apart, 10 steps, delta = 1e-12: (K(theta) + log(1/delta)) / theta
    # decreases without end (log(1/delta) > 10 log 2), so the largest allowed candidate is chosen
    from dpproofs.accountant.pld.discretise import OneStep

    def tilt(step):
        return pld_compose.choose_tilt([(OneStep(step, 0, 0.0, np.array([0.5, 0.5]), 0.0, "upper"), 10)],
                                       delta=1e-12)

    assert tilt(0.05) == 2e3  # theta * step <= 100 would allow 2000 only
    assert 2e3 < tilt(1e-3) <= 100 / 1e-3
    assert tilt(1e-6) == pld_compose.MAX_TILT
    # the mutant: no rate cap (blocks of the suffix sums shrink to one cell at theta step > 300)
    monkeypatch.setattr(pld_compose, "MAX_TILT_RATE", math.inf)
    assert tilt(0.05) == pld_compose.MAX_TILT


def _passes(monkeypatch):
    from dpproofs.accountant.pld import accountant as pld_accountant
    count = {"passes": 0}
    original = pld_accountant.PLDAccountant._attempt

    def counted(self, *args, **kwargs):
        count["passes"] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pld_accountant.PLDAccountant, "_attempt", counted)
    return count


def test_the_width_model_starts_on_a_grid_that_meets_the_target_in_one_pass(monkeypatch):
    # (5e-4, 2, 1e5, 1e-8): the spread's step (sd / 1500) gave 5.8e-3 and needed a second pass
    count = _passes(monkeypatch)
    bracket = sampled(5e-4, 2.0, 100000).epsilon_bounds(1e-8)
    assert count["passes"] == 1
    assert bracket.lower <= 0.413827175 <= bracket.upper  # the exact value (benchmarks/pld_reference.json)
    assert bracket.upper - bracket.lower <= 1e-3 * bracket.upper
    # the mutant: no width model (the spread's step alone) takes two passes
    from dpproofs.accountant.pld import accountant as pld_accountant
    monkeypatch.setattr(pld_accountant, "WIDTH_MODEL_REACH", 1.0)
    count["passes"] = 0
    sampled(5e-4, 2.0, 100000).epsilon_bounds(1e-8)
    assert count["passes"] == 2


def test_1e8_steps_at_delta_1e_15_get_a_pld_bracket_above_dp_accountings_optimistic_answer():
    # dp_accounting's PLDAccountant (value_discretization_interval 1e-4) answers 9133.99; the Bromwich
    # reference gives delta_exact(9133.987) = 4.45e-9, delta_exact(9405.151) = 2.69e-15 and
    # delta_exact(9435.225) = 4.25e-16 (contours agreeing to 1.5e-9), at the target 1e-15
    bracket = sampled(0.01, 1.0, 10**8).epsilon_bounds(1e-15)
    assert bracket.source == "pld"
    assert 9133.987 < bracket.lower and bracket.upper <= 9435.23
    assert precise_pld.bromwich_delta(bracket.lower, 0.01, 1.0, 10**8, rtol=1e-4) > 1e-15
    assert precise_pld.bromwich_delta(bracket.upper, 0.01, 1.0, 10**8, rtol=1e-4) <= 1e-15


def test_later_passes_centre_their_tilt_at_the_previous_epsilon_and_meet_the_width(monkeypatch):
    # row 7 of benchmarks/pld_soundness_generated.py: 4.7e-4 wide in two passes; with every pass at
    # the Chernoff order for delta (the mutant) 1.2e-3 after four
    bracket = sampled(1.09e-5, 19.3, 414417).epsilon_bounds(1.9e-11)
    assert bracket.source == "pld" and bracket.upper - bracket.lower <= 1e-3 * bracket.upper
    from dpproofs.accountant.pld import accountant as pld_accountant
    monkeypatch.setattr(pld_accountant.PLDAccountant, "_tilt",
                        lambda self, items, delta, epsilon: pld_compose.choose_tilt(items, delta=delta, epsilon=epsilon))
    wide = sampled(1.09e-5, 19.3, 414417).epsilon_bounds(1.9e-11)
    assert wide.upper - wide.lower > 1e-3 * wide.upper


def test_a_wide_split_bracket_is_tilted_again_at_its_lower_end():
    # found by benchmarks/calibrate_fuzz.py (seed 20261207), inside a calibration: the first pass's
    # single tilt is over budget, the split tilted at the RDP bound's half (0.80, nine times the
    # answer) gave [0.0505, 0.636], the next pass was over budget, and the answer was [0.078, 0.636]
    bracket = sampled(1.2719713404650438e-05, 0.790914, 351810).epsilon_bounds(1.2275753569381279e-10)
    assert bracket.source == "pld" and 0.0880 <= bracket.lower and bracket.upper <= 0.0883


def test_a_sampled_laplaces_lower_end_has_its_atoms_at_cell_middles():
    # found by benchmarks/pld_fuzz.py (seed 20261212): on the plain grid each atom shared its cell
    # with continuous mass on one side and the cell moved down by up to a step, 3.1e6 times: the lower
    # end was 1.140 where the upper end is 1.826. A second accountant three times finer brackets it
    mechanism, count, delta = dp.SampledLaplace(1.6318361505399858e-4, 0.8124666393072303), 3142136, 2.5044182404293997e-9
    bracket = dp.PLDAccountant().compose(mechanism, count).epsilon_bounds(delta)
    assert bracket.source == "pld" and bracket.lower >= 1.75 and bracket.upper <= 1.8264
    finer = dp.PLDAccountant(grid_step=bracket.grid_step / 3, max_cells=1 << 23).compose(mechanism, count)
    other = finer.epsilon_bounds(delta)
    assert bracket.lower <= other.upper and other.lower <= bracket.upper


def test_a_tight_bracket_reads_the_rdp_bound_at_the_planning_orders_alone(rdp_calls):
    # the default grid's orders above 64 are most of a sampled Gaussian's RDP time (PLANNING_ORDERS)
    from dpproofs.accountant.pld.accountant import PLANNING_ORDERS

    bracket = sampled(0.01, 4.0, 10_000).epsilon_bounds(1e-5)
    assert bracket.source == "pld" and bracket.target_met
    assert rdp_calls == [PLANNING_ORDERS]


def test_where_the_best_planning_order_is_the_largest_the_search_starts_from_the_whole_default_grid(rdp_calls):
    # RDP's best order here is 291 (a small epsilon): the planning orders' bound, at 64, is looser.
    # Without the rule the search would start from that looser bound and never compute the whole grid
    from dpproofs.accountant.pld.accountant import PLANNING_ORDERS

    bracket = sampled(1e-4, 4.0, 1000).epsilon_bounds(1e-5)
    rdp = dp.Accountant().compose(dp.SampledGaussian(1e-4, 4.0), 1000).epsilon(1e-5)
    assert rdp_calls == [PLANNING_ORDERS, None]
    assert bracket.source == "pld" and bracket.upper <= rdp


def test_a_fallback_after_the_planning_orders_answers_the_whole_default_grids_rdp_bound(rdp_calls):
    from dpproofs.accountant.pld.accountant import PLANNING_ORDERS

    bounds = sampled(0.01, 4.0, 10**9, max_cells=1 << 12).epsilon_bounds(1e-5)
    rdp = dp.Accountant().compose(dp.SampledGaussian(0.01, 4.0), 10**9).epsilon(1e-5)
    assert rdp_calls == [PLANNING_ORDERS, None]
    assert bounds.source == "rdp" and bounds.upper == rdp


@pytest.mark.parametrize("scale, count, delta", [(0.5693, 5, 0.00188), (116.3415, 7, 0.00094),
                                                  (0.5, 10, 1e-3), (1.0, 10, 1e-3), (3.0, 10, 1e-3)])
def test_a_ledger_whose_top_loss_carries_more_than_delta_gets_its_bracket_from_the_pld(scale, count, delta):
    # found by benchmarks/pld_fuzz.py (seeds 20261208, 20261209): the Chernoff order for delta ran to
    # 1.4e4 and more, the windows held the top cells alone, and the answer was [0, RDP bound]. The
    # last three by /tmp/sweep_atoms.py (Laplace and randomized response, T 1..1000, delta 1e-2..1e-10):
    # orders 126 and 423, below TILT_CHECK, and [0, RDP bound] until atoms always had the check
    accountant = dp.PLDAccountant().compose(dp.Laplace(scale), count)
    bracket = accountant.epsilon_bounds(delta)
    rdp = dp.Accountant().compose(dp.Laplace(scale), count).epsilon(delta)
    assert bracket.source == "pld" and bracket.target_met and bracket.upper <= rdp
    other = dp.PLDAccountant(grid_step=1e-4).compose(dp.Laplace(scale), count).epsilon_bounds(delta)
    assert other.lower <= bracket.upper and bracket.lower <= other.upper


@pytest.mark.parametrize("scale, count, delta", [(0.5693, 5, 0.00188), (1.0, 10, 1e-3)])
def test_the_mutant_that_keeps_the_overshooting_chernoff_order_answers_from_rdp(monkeypatch, scale, count, delta):
    from dpproofs.accountant.pld import accountant as pld_accountant

    monkeypatch.setattr(pld_accountant, "TILT_OVERSHOOT", math.inf)
    bracket = dp.PLDAccountant().compose(dp.Laplace(scale), count).epsilon_bounds(delta)
    assert bracket.source == "rdp" and bracket.lower == 0.0


def test_a_pure_dp_ledger_near_its_cap_answers_from_the_pld_below_the_rdp_bound():
    # row 43 of benchmarks/pld_peer_grid.py: on the plain upper grid the atoms at +-1 sat between two
    # grid points, the top of ten at 10.0085, and the upper end 10.00009 was above the RDP bound 9.998981
    bracket = dp.PLDAccountant().compose(dp.Laplace(1.0), 10).epsilon_bounds(1e-6)
    rdp = dp.Accountant().compose(dp.Laplace(1.0), 10).epsilon(1e-6)
    assert bracket.source == "pld" and bracket.upper < rdp and bracket.target_met


def test_the_upper_grid_of_an_atom_pair_has_a_point_just_below_its_heaviest_atom():
    from dpproofs.accountant.pld import discretise as pld_discretise

    pair = dp.Laplace(0.5).pld_pairs("add_remove")["add"]
    one = pld_discretise.discretise(pair, 2 / 375, "upper")
    heaviest = one.losses()[np.argmax(one.masses)]
    assert 2.0 - 2 * pld_discretise.ATOM_GAP * one.step <= heaviest < 2.0
    assert np.max(one.masses) > 0.4999


@pytest.mark.parametrize("gap", [0.0, 2.0**-20, -(2.0**-20)])
def test_the_edge_margin_of_a_cell_at_the_end_of_laplaces_loss_range_leaves_its_atom_out(monkeypatch, gap):
    # a grid point within rounding of the end of Laplace's continuous loss range makes a cell a few ulp
    # wide, edge_ratio ~ 1; with the atom's mass in that cell's margin the one-step upper PLD had total
    # mass 204 (ATOM_GAP = 0), and Laplace(0.5) x 30 at delta 1e-3 went [51.834, 54.766]
    from dpproofs.accountant.pld import discretise as pld_discretise

    monkeypatch.setattr(pld_discretise, "ATOM_GAP", gap)
    pair = dp.Laplace(0.5).pld_pairs("add_remove")["add"]
    assert abs(np.sum(pld_discretise.discretise(pair, 2 / 375, "upper").masses) - 1) < 1e-12
    assert dp.PLDAccountant().compose(dp.Laplace(0.5), 30).epsilon_bounds(1e-3).upper < 51.8339


def _abadi_bracket(steps=10000):
    return dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 4.0), steps).epsilon_bounds(1e-5)


def test_a_dominated_direction_is_settled_on_a_coarser_grid_with_the_same_bracket(monkeypatch):
    from dpproofs.accountant.pld import accountant as pld_accountant

    found = []
    original = pld_accountant.PLDAccountant._dominated_coarsely

    def counting(self, *args):
        found.append(original(self, *args))
        return found[-1]

    monkeypatch.setattr(pld_accountant.PLDAccountant, "_dominated_coarsely", counting)
    coarse = _abadi_bracket()
    # at the Abadi point the remove direction's upper end two steps coarse (0.93836) is under the add
    # direction's lower end (0.94670): one coarse composition instead of one at the pass's step
    assert len(found) == 1 and found[0] is not None and found[0] < coarse.lower
    monkeypatch.setattr(pld_accountant.PLDAccountant, "_dominated_coarsely", lambda self, *args: None)
    assert _abadi_bracket() == coarse
    assert coarse.lower <= 0.9468668 <= coarse.upper  # the exact value (Bromwich, precise_pld)


def test_a_coarse_direction_above_the_other_lower_end_is_composed_at_the_passs_step(monkeypatch):
    # (1e-3, 10, 1e5, 1e-6): the directions' Chernoff epsilons are 0.2 % apart, under the gate. Forced
    # through the gate, the remove direction's coarse upper end (0.1163077) is above the add
    # direction's lower end (0.1162904) and must not be taken: the bracket is the one without the check
    from dpproofs.accountant.pld import accountant as pld_accountant

    def bracket():
        return dp.PLDAccountant().compose(dp.SampledGaussian(1e-3, 10.0), 100000).epsilon_bounds(1e-6)

    reference = bracket()
    monkeypatch.setattr(pld_accountant, "DOMINATED_GATE", -math.inf)  # every coarse check is tried
    assert bracket() == reference


def test_a_bulk_inside_one_cell_gets_a_centred_lower_grid_and_one_pass(monkeypatch):
    # (1e-5, 0.5, 1e5, 1e-10): the loss range makes the first grid step 2.7e-4, wider than the bulk
    # (losses within ~1e-4 of 0). On the plain grid that cell moved down 6.3e-6 a step on average and the
    # first pass's lower end was 2.1914 (upper 2.8242); centred on the cell, one pass meets the width
    def bracket():
        return dp.PLDAccountant().compose(dp.SampledGaussian(1e-5, 0.5), 100000).epsilon_bounds(1e-10)

    centred = bracket()
    assert centred.source == "pld" and centred.upper - centred.lower <= 1e-3 * centred.upper
    assert centred.grid_step > 2e-4  # the first pass's step
    monkeypatch.setattr(pld_eval, "HEAVY_CELL_SHARE", math.inf)  # never centred
    plain = dp.PLDAccountant(grid_step=centred.grid_step).compose(dp.SampledGaussian(1e-5, 0.5), 100000)
    assert plain.epsilon_bounds(1e-10).lower < 0.9 * centred.lower


@pytest.mark.parametrize("q, sigma, step, negligible, grids",
                         [(1e-4, 1.0, 1.4e-4, 1e-9, 1), (1e-4, 1.0, 1.4e-4, 0.0, 3), (1e-5, 0.5, 2.7e-4, 1e-9, 3)])
def test_the_alternative_lower_grids_are_tried_only_where_the_plain_grid_moves_more_than_the_caller_allows(
        monkeypatch, q, sigma, step, negligible, grids):
    # (1e-4, 1): the plain grid's mean move is 1.9e-11 (1.4e-7 h), and its two centred alternatives
    # took twice its time for a larger move (the peer grid's row 4, allowed 6e-10 there by the
    # accountant, twice per pass); (1e-5, 0.5): 6.3e-6 (2.3e-2 h)
    calls = []
    original = pld_eval._lower_one_step

    def counting(*args):
        found = original(*args)
        calls.append(found[1])
        return found

    monkeypatch.setattr(pld_eval, "_lower_one_step", counting)
    pair = dp.SampledGaussian(q, sigma).pld_pairs("add_remove")["add"]
    pld_eval.discretise(pair, step, "lower", 8.0, negligible_move=negligible)
    assert len(calls) == grids
    assert (calls[0] <= negligible) == (grids == 1)


def test_the_accountants_allowance_for_a_lower_grids_move_shrinks_with_the_step_count():
    # NEGLIGIBLE_DRIFT_SHARE x target x planning epsilon / T: a fixed 1e-6 h, blind to T, skipped the
    # alternatives at (1e-4, 2, 10^9, 1e-6) too, and the lower end fell from 8.791 to 8.604
    allowed = {}
    for steps in (10**3, 10**6):
        accountant = dp.PLDAccountant().compose(dp.SampledGaussian(1e-4, 2.0), steps)
        accountant.epsilon_bounds(1e-6)
        allowed[steps] = accountant._negligible_move
    assert 0 < allowed[10**6] < allowed[10**3] / 10
    accountant.delta_bounds(1.0)
    assert accountant._negligible_move == 0.0  # delta at epsilon: nothing skipped


def test_lifted_shares_cancel_the_lower_ends_drift(monkeypatch):
    # (1e-4, 50, 1e6, 1e-5) on its first pass's grid: the atoms' mean move down (1.7e-10 a step) put
    # the lower end 2.5 % below the upper; lifted shares merged into the next grid point's group take
    # the drift out to first order (0.6 % apart, the upper end's own 0.35 % included)
    def bracket():
        ledger = dp.PLDAccountant(grid_step=3.33e-7).compose(dp.SampledGaussian(1e-4, 50.0), 10**6)
        return ledger.epsilon_bounds(1e-5)

    lifted = bracket()
    assert lifted.lower <= 0.0043857 <= lifted.upper  # inside every stored bracket: [0.0043857, 0.0043866]
    assert lifted.upper - lifted.lower < 0.007 * lifted.upper
    monkeypatch.setattr(pld_eval, "LIFT_SHARE_MARGIN", 1.0)  # every share 0: nothing lifted
    plain = bracket()
    assert plain.upper - plain.lower > 0.02 * plain.upper


def test_a_bulk_straddling_a_cell_edge_gets_the_grid_centred_on_both_cells():
    # SampledGaussian(1.9e-5, 2.71) at step 2.66e-5: 57 % and 42 % of the mass in two adjacent cells.
    # Centred on the heavier alone the add direction moved down 1.5e-6 a step, and 8.3e6 steps with
    # RandomizedResponse(8.94) x 4 (fuzz seed 20261214, i = 56) had the lower end 23.07 (35.66 at a
    # step 2.9 times coarser); centred on both cells it is within the upper end's 1e-2
    ledger = dp.PLDAccountant(grid_step=2.66e-5).compose(dp.SampledGaussian(1.9068332515150073e-05, 2.7114168510809824),
                                                         8255408).compose(dp.RandomizedResponse(8.942200960812189), 4)
    bracket = ledger.epsilon_bounds(1.1182004291906139e-08)
    assert bracket.lower > 0.99 * bracket.upper
