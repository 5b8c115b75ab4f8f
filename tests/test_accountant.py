"""The accountant: Abadi's numbers, agreement with dp_accounting, calibration, ledger, bad input.

Only the peer comparisons need dp_accounting (a test extra); they skip without it, the rest runs."""

import json
import math

import numpy as np
import pytest

import dpproofs as dp
from dpproofs.accountant import rdp as accountant_module
from dpproofs.math import fast
from dpproofs.math import precise

ABADI_ORDERS = list(range(2, 34))  # Abadi et al.'s implementation: integer lambda <= 32


def sampled(q, sigma, steps, orders=None, **kwargs):
    return dp.Accountant(orders, **kwargs).compose(dp.SampledGaussian(q, sigma), steps)


def peer():
    """dp_accounting and its RDP module; only the peer comparisons need it (they skip without it)."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting.rdp import rdp_privacy_accountant

    return dp_accounting, rdp_privacy_accountant


def dp_accounting_rdp(q, sigma, steps):
    dp_accounting, dpa_rdp = peer()
    reference = dpa_rdp.RdpAccountant()
    reference.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
    return reference


# --- numbers ---------------------------------------------------------------------------------


def test_the_abadi_configuration_gives_1_2586_at_10000_steps_and_2_5759_at_40000():
    eps_10k, order_10k = sampled(0.01, 4.0, 10000, ABADI_ORDERS).epsilon_and_order(1e-5, "classic")
    eps_40k, order_40k = sampled(0.01, 4.0, 40000, ABADI_ORDERS).epsilon_and_order(1e-5, "classic")
    assert round(eps_10k, 4) == 1.2586 and order_10k == 20  # lambda = 19
    assert round(eps_40k, 4) == 2.5759 and order_40k == 10  # lambda = 9


@pytest.mark.parametrize("q, sigma, steps", [(0.01, 4.0, 10000), (256 / 60000, 1.1, 15000), (0.1, 0.8, 100), (0.5, 2.0, 7)])
def test_improved_conversion_agrees_with_dp_accounting_in_rdp_and_epsilon(q, sigma, steps):
    _, dpa_rdp = peer()
    reference = dp_accounting_rdp(q, sigma, steps)
    orders = np.array(dpa_rdp.DEFAULT_RDP_ORDERS, dtype=float)
    ours = sampled(q, sigma, steps, orders)
    integer = orders == np.floor(orders)
    their_rdp = np.asarray(reference._rdp)
    np.testing.assert_allclose(ours.rdp[integer], their_rdp[integer], rtol=1e-9, atol=0)
    # epsilon at the integer orders of their grid: 1e-9
    their_epsilon, _ = dpa_rdp.compute_epsilon(orders[integer], their_rdp[integer], 1e-5)
    assert sampled(q, sigma, steps, orders[integer]).epsilon(1e-5) == pytest.approx(their_epsilon, rel=1e-9)
    # at their whole grid: their fractional-order series stops early or gives up (and drops the
    # order: q=0.1, sigma=0.8 loses alpha <= 2.4, the optimum), so ours is never looser, and where
    # it is tighter our value at the optimal order is the integral's
    epsilon, alpha = ours.epsilon_and_order(1e-5)
    assert epsilon <= reference.get_epsilon(1e-5) * (1 + 1e-9)
    exact = steps * float(precise.rdp_sampled_gaussian(alpha, q, sigma, dps=30, direction="add"))
    assert ours.rdp[list(orders).index(alpha)] == pytest.approx(exact, rel=fast.RTOL)


def test_where_dp_accounting_differs_at_a_fractional_order_we_are_the_closer_to_the_integral():
    _, dpa_rdp = peer()
    q, sigma, steps, alpha = 256 / 60000, 1.1, 15000, 7.9
    theirs = dp_accounting_rdp(q, sigma, steps)
    index = list(dpa_rdp.DEFAULT_RDP_ORDERS).index(alpha)
    ours = sampled(q, sigma, steps, [alpha]).rdp[0]
    exact = steps * float(precise.log_a_integral(alpha, q, sigma, dps=30)) / (alpha - 1)
    assert abs(ours - exact) <= fast.RTOL * exact
    assert abs(theirs._rdp[index] - exact) > 1e-9 * exact  # 5.3e-9 relative with dp-accounting 0.6


def test_the_sanity_value_of_the_sampled_gaussian_is_reproduced_by_the_accountant():
    accountant = sampled(0.01, 4.0, 1, [20, 2.5])
    np.testing.assert_allclose(accountant.rdp, [6.5263129572803867e-5, 8.0644097584960330e-6], rtol=fast.RTOL)


def test_epsilon_is_an_upper_bound_of_the_exact_formula_value():
    accountant = sampled(0.01, 4.0, 10000, ABADI_ORDERS)
    exact = min(
        10000 * float(precise.log_a_integer(a, 0.01, 4.0, dps=30)) / (a - 1) + math.log(1e5) / (a - 1)
        for a in ABADI_ORDERS
    )
    value = accountant.epsilon(1e-5, "classic")
    assert exact <= value <= exact * (1 + 1e-9)


def test_delta_inverts_epsilon_up_to_the_rounding_margins():
    accountant = sampled(0.01, 1.0, 5000)
    for conversion in ("classic", "improved"):
        epsilon = accountant.epsilon(1e-6, conversion)
        assert 1e-6 * (1 - 1e-6) <= accountant.delta(epsilon, conversion) <= 1e-6 * (1 + 1e-6)


def test_improved_is_never_looser_than_classic():
    accountant = sampled(0.02, 1.3, 2000)
    assert accountant.epsilon(1e-5, "improved") <= accountant.epsilon(1e-5, "classic")
    assert accountant.delta(2.0, "improved") <= accountant.delta(2.0, "classic")


def test_an_accountant_with_loss_gives_no_negative_epsilon_and_a_delta_floored_at_tiny():
    accountant = dp.Accountant().compose(dp.Gaussian(1e3))
    assert accountant.epsilon(0.9) == 0.0  # the formula is negative there: 0 is still a bound
    assert 0 < accountant.delta(0.0) <= 1.0
    assert accountant.delta(1e6) == fast.TINY  # underflow: the smallest normal, an upper bound


def test_refining_the_order_never_loosens_and_approaches_a_fine_grid():
    accountant = sampled(0.01, 4.0, 10000)
    grid_epsilon, grid_order = accountant.epsilon_and_order(1e-5)
    refined, order = accountant.epsilon_and_order(1e-5, refine=True)
    fine = sampled(0.01, 4.0, 10000, list(np.linspace(grid_order - 1, grid_order + 1, 201))).epsilon(1e-5)
    assert refined <= grid_epsilon
    assert refined <= fine * (1 + 1e-6)
    assert abs(order - grid_order) <= 1


def test_default_orders_reach_from_just_above_1_into_the_thousands():
    orders = dp.Accountant().orders
    assert orders.min() == 1.01 and orders.max() == 10000
    assert set(range(2, 65)) <= set(orders.tolist())
    assert tuple(orders) == dp.DEFAULT_ORDERS


def test_high_noise_runs_use_large_orders():
    epsilon, order = sampled(0.001, 10.0, 1000).epsilon_and_order(1e-5)
    assert order > 500
    assert epsilon < sampled(0.001, 10.0, 1000, list(range(2, 64))).epsilon(1e-5) / 10  # 0.0087 vs 0.103


# --- composition and ledger --------------------------------------------------------------------


def test_heterogeneous_composition_adds_rdp_curves():
    a, b = dp.SampledGaussian(0.01, 1.0), dp.Laplace(2.0)
    accountant = dp.Accountant().compose(a, 10).compose(b, 3).compose(dp.Gaussian(5.0)).compose(dp.RandomizedResponse(0.5), 2)
    expected = (
        10 * dp.Accountant().compose(a).rdp
        + 3 * dp.Accountant().compose(b).rdp
        + dp.Accountant().compose(dp.Gaussian(5.0)).rdp
        + 2 * dp.Accountant().compose(dp.RandomizedResponse(0.5)).rdp
    )
    np.testing.assert_allclose(accountant.rdp, expected, rtol=1e-15)


def test_steps_beyond_a_billion_are_counted_exactly():
    mechanism = dp.SampledGaussian(1e-6, 3.0)
    huge = 10**18 + 1
    accountant = dp.Accountant().compose(mechanism, huge).compose(mechanism, 2)
    assert accountant.ledger == [(mechanism, huge + 2)]
    np.testing.assert_allclose(accountant.rdp, float(huge + 2) * dp.Accountant().compose(mechanism).rdp, rtol=1e-15)
    assert dp.Accountant().compose(mechanism, 10**9).epsilon(1e-5) > 0


def test_compose_returns_the_accountant_and_zero_steps_change_nothing():
    accountant = dp.Accountant()
    assert accountant.compose(dp.Gaussian(1.0), 0) is accountant
    assert accountant.ledger == [] and np.all(accountant.rdp == 0)


def test_orders_and_rdp_are_copies():
    accountant = sampled(0.1, 1.0, 10)
    accountant.orders[0] = 99.0
    accountant.rdp[0] = -1.0
    assert accountant.orders[0] == dp.DEFAULT_ORDERS[0] and accountant.rdp[0] >= 0


def test_the_ledger_round_trips_through_json():
    accountant = (
        dp.Accountant([1.5, 2, 8, 300.25])
        .compose(dp.SampledGaussian(0.01, 1.1), 10**12)
        .compose(dp.Laplace(3.0), 2)
        .compose(dp.RandomizedResponse(0.1))
    )
    data = json.loads(json.dumps(accountant.to_dict()))
    again = dp.Accountant.from_dict(data)
    assert again.to_dict() == accountant.to_dict()
    np.testing.assert_array_equal(again.rdp, accountant.rdp)
    np.testing.assert_array_equal(again.orders, accountant.orders)
    assert again.epsilon(1e-5) == accountant.epsilon(1e-5)


def test_from_dict_rejects_malformed_data():
    good = sampled(0.1, 1.0, 5).to_dict()
    for bad in (None, [], {"type": "Other"}, {**good, "ledger": "x"}, {**good, "ledger": [{"steps": 1}]}):
        with pytest.raises(dp.DPProofsError):
            dp.Accountant.from_dict(bad)
    with pytest.raises(dp.InvalidArgument):
        dp.Accountant.from_dict({**good, "ledger": [{"mechanism": {"type": "Gaussian", "sigma": 1.0}, "steps": -1}]})


# --- calibration -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "epsilon, delta, q, steps, conversion",
    [
        (1.0, 1e-5, 0.01, 10000, "improved"),
        (8.0, 1e-5, 256 / 60000, 15000, "improved"),
        (0.5, 1e-6, 0.001, 1000, "classic"),
        (3.0, 1e-5, 1.0, 10, "improved"),
    ],
)
def test_calibrate_sigma_is_one_sided_and_within_1e_6_of_the_smallest_sigma(epsilon, delta, q, steps, conversion):
    sigma = dp.calibrate_sigma(epsilon=epsilon, delta=delta, q=q, steps=steps, conversion=conversion)
    assert sampled(q, sigma, steps).epsilon(delta, conversion) <= epsilon
    assert sampled(q, sigma / (1 + 1e-6), steps).epsilon(delta, conversion) > epsilon


def test_calibrate_sigma_honours_custom_orders():
    sigma = dp.calibrate_sigma(epsilon=1.2586, delta=1e-5, q=0.01, steps=10000, conversion="classic", orders=ABADI_ORDERS)
    assert sigma == pytest.approx(4.0, rel=1e-4)
    assert sampled(0.01, sigma, 10000, ABADI_ORDERS).epsilon(1e-5, "classic") <= 1.2586


def test_calibrate_sigma_rejects_unreachable_targets():
    with pytest.raises(dp.InvalidArgument, match="epsilon"):
        dp.calibrate_sigma(epsilon=1e-4, delta=1e-5, q=0.5, steps=10**6)
    with pytest.raises(dp.InvalidArgument, match="epsilon"):
        dp.calibrate_sigma(epsilon=1e4, delta=1e-5, q=0.01, steps=1)


# --- certified mode ------------------------------------------------------------------------


def test_certified_epsilon_is_an_upper_bound_close_to_the_fast_one():
    fast_accountant = sampled(0.01, 4.0, 10000, ABADI_ORDERS)
    certified = sampled(0.01, 4.0, 10000, ABADI_ORDERS, certified=True)
    for conversion in ("classic", "improved"):
        value, order = certified.epsilon_and_order(1e-5, conversion)
        fast_value, fast_order = fast_accountant.epsilon_and_order(1e-5, conversion)
        assert order == fast_order
        assert fast_value * (1 - 1e-9) <= value <= fast_value * (1 + 1e-9)
        assert certified.delta(value, conversion) <= 1e-5 * (1 + 1e-9)
    assert round(certified.epsilon(1e-5, "classic"), 4) == 1.2586


def test_certified_mode_is_restricted_to_integer_orders():
    assert np.all(dp.Accountant(certified=True).orders == np.floor(dp.Accountant(certified=True).orders))
    with pytest.raises(dp.InvalidArgument, match="integer"):
        dp.Accountant([2, 2.5], certified=True)
    with pytest.raises(dp.InvalidArgument, match="refine"):
        sampled(0.1, 1.0, 1, [2, 3], certified=True).epsilon(1e-5, refine=True)


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("orders", [[], [1.0], [0.5, 2], [2, float("nan")], [2, math.inf], [2, 2], [2, 1e6], np.ones((2, 2)) * 3])
def test_bad_orders_are_rejected_naming_the_argument(orders):
    with pytest.raises(dp.InvalidArgument, match="orders"):
        dp.Accountant(orders)


@pytest.mark.parametrize("orders", ["2,3", 5, [2, "3"], [2, None], object()])
def test_orders_of_the_wrong_type_are_rejected(orders):
    with pytest.raises(dp.InvalidArgumentType, match="orders"):
        dp.Accountant(orders)


def test_certified_must_be_a_bool():
    with pytest.raises(dp.InvalidArgumentType, match="certified"):
        dp.Accountant(certified=1)


@pytest.mark.parametrize("steps", [-1, 1.5, float("nan"), math.inf])
def test_bad_steps_are_rejected(steps):
    with pytest.raises(dp.InvalidArgument, match="steps"):
        dp.Accountant().compose(dp.Gaussian(1.0), steps)


@pytest.mark.parametrize("steps", ["3", None, True])
def test_steps_of_the_wrong_type_are_rejected(steps):
    with pytest.raises(dp.InvalidArgumentType, match="steps"):
        dp.Accountant().compose(dp.Gaussian(1.0), steps)


def test_a_failed_compose_leaves_the_accountant_unchanged():
    accountant = sampled(0.01, 1.0, 100)
    before = (accountant.to_dict(), accountant.rdp, accountant.epsilon(1e-5))
    for mechanism, steps in ((dp.Gaussian(2.0), -5), (dp.Gaussian(2.0), 0.5), ("Gaussian", 3), (None, 1)):
        with pytest.raises(dp.DPProofsError):
            accountant.compose(mechanism, steps)
    assert accountant.to_dict() == before[0]
    np.testing.assert_array_equal(accountant.rdp, before[1])
    assert accountant.epsilon(1e-5) == before[2]


@pytest.mark.parametrize("kwargs", [dict(q=float("nan"), sigma=1.0), dict(q=1.5, sigma=1.0), dict(q=-0.1, sigma=1.0),
                                    dict(q=0.1, sigma=0.0), dict(q=0.1, sigma=-1.0), dict(q=0.1, sigma=math.inf)])
def test_bad_mechanism_parameters_are_rejected(kwargs):
    with pytest.raises(dp.InvalidArgument):
        dp.SampledGaussian(**kwargs)


@pytest.mark.parametrize("delta", [0.0, 1.0, -1e-5, 2.0, float("nan"), math.inf])
def test_delta_outside_0_1_is_rejected(delta):
    accountant = sampled(0.01, 1.0, 10)
    with pytest.raises(dp.InvalidArgument, match="delta"):
        accountant.epsilon(delta)
    with pytest.raises(dp.InvalidArgument, match="delta"):
        dp.calibrate_sigma(epsilon=1.0, delta=delta, q=0.01, steps=10)


@pytest.mark.parametrize("epsilon", [-1.0, float("nan"), -math.inf, math.inf])
def test_bad_epsilon_for_delta_is_rejected(epsilon):
    with pytest.raises(dp.InvalidArgument, match="epsilon"):
        sampled(0.01, 1.0, 10).delta(epsilon)


def test_unknown_conversion_and_wrong_types_are_rejected():
    accountant = sampled(0.01, 1.0, 10)
    with pytest.raises(dp.InvalidArgument, match="conversion"):
        accountant.epsilon(1e-5, "optimal")
    with pytest.raises(dp.InvalidArgumentType, match="conversion"):
        accountant.delta(1.0, conversion=None)
    with pytest.raises(dp.InvalidArgumentType, match="delta"):
        accountant.epsilon("1e-5")
    with pytest.raises(dp.InvalidArgumentType, match="refine"):
        accountant.epsilon(1e-5, refine="yes")


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=float("nan")), "epsilon"),
        (dict(q=0.0), "q"),
        (dict(q=1.5), "q"),
        (dict(steps=0), "steps"),
        (dict(steps=2.5), "steps"),
        (dict(conversion="x"), "conversion"),
        (dict(orders=[0.5]), "orders"),
    ],
)
def test_calibrate_sigma_rejects_bad_arguments_naming_them(kwargs, name):
    arguments = dict(epsilon=1.0, delta=1e-5, q=0.01, steps=100, **{})
    arguments.update(kwargs)
    with pytest.raises(dp.InvalidArgument, match=name):
        dp.calibrate_sigma(**arguments)


def test_calibrate_sigma_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        dp.calibrate_sigma(1.0, 1e-5, 0.01, 100)


def test_the_public_names_are_exported():
    assert {"Accountant", "calibrate_sigma", "DEFAULT_ORDERS"} <= set(dp.__all__)
    assert set(accountant_module.__all__) >= {"Accountant"} and "calibrate_sigma_pld" not in dp.__all__


# --- bounds on steps, huge orders, tiny epsilon (the fuzz campaign's four) ----------------------


def test_compose_refuses_a_total_above_max_steps_and_leaves_the_ledger_as_it_was():
    accountant = dp.Accountant().compose(dp.Gaussian(1.0), accountant_module.MAX_STEPS)
    with pytest.raises(dp.InvalidArgument, match="MAX_STEPS"):
        accountant.compose(dp.Gaussian(1.0), 1)
    assert accountant.ledger == [(dp.Gaussian(1.0), accountant_module.MAX_STEPS)]
    assert math.isfinite(accountant.epsilon(1e-5))
    with pytest.raises(dp.InvalidArgument, match="steps"):
        dp.Accountant().compose(dp.Gaussian(1.0), accountant_module.MAX_STEPS + 1)


def test_calibrate_sigma_validates_steps_up_to_max_steps_and_a_tiny_epsilon_gives_a_library_error():
    with pytest.raises(dp.InvalidArgument, match="steps"):
        dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=accountant_module.MAX_STEPS + 1)
    # ten steps at q = 0.01 are within total variation 1 - 0.99^10 = 0.096 < delta: epsilon is 0 at every sigma
    with pytest.raises(dp.InvalidArgument, match="already met"):
        dp.calibrate_sigma(epsilon=1e-17, delta=0.1, q=0.01, steps=10)
    sigma = dp.calibrate_sigma(epsilon=1e-17, delta=0.1, q=0.5, steps=10)  # improved: eps < 0 possible
    assert sampled(0.5, sigma, 10).epsilon(0.1) <= 1e-17
    with pytest.raises(dp.InvalidArgument, match="epsilon"):
        dp.calibrate_sigma(epsilon=5e-324, delta=5e-324, q=0.01, steps=10)


def test_an_integer_order_beyond_the_float_range_is_refused_by_its_index():
    with pytest.raises(dp.InvalidArgument, match=r"orders\[1\]"):
        dp.Accountant(orders=[2, 10**400])


# --- zero privacy, several queries, consistency, refine, state, caches, pld ------------------------


@pytest.mark.parametrize("certified", [False, True])
def test_zero_privacy_loss_gives_exactly_zero_epsilon_and_delta_in_both_modes(certified):
    empty = dp.Accountant(certified=certified)
    no_steps = dp.Accountant(certified=certified).compose(dp.Gaussian(1.0), 0)
    rate_zero = dp.Accountant(certified=certified).compose(dp.SampledGaussian(0.0, 0.5), 10**6)
    for accountant in (empty, no_steps, rate_zero):
        for conversion in dp.accountant.rdp.CONVERSIONS:
            assert accountant.epsilon(1e-5, conversion) == 0.0
            assert accountant.delta(0.0, conversion) == 0.0
    assert rate_zero.compose(dp.SampledGaussian(0.01, 1.0)).epsilon(1e-5) > 0


def test_epsilon_and_delta_take_sequences_and_answer_one_float_per_item():
    accountant = sampled(0.01, 1.0, 100)
    deltas = [1e-5, 1e-7]
    expected = [accountant.epsilon(d) for d in deltas]
    for form in (deltas, tuple(deltas), np.array(deltas)):
        assert accountant.epsilon(form) == expected
        assert accountant.epsilon_and_order(form) == [accountant.epsilon_and_order(d) for d in deltas]
    assert accountant.delta([0.5, 1.0]) == [accountant.delta(0.5), accountant.delta(1.0)]
    assert all(type(v) is float for v in accountant.delta(np.array([0.5, 1.0])))
    with pytest.raises(dp.InvalidArgument, match=r"delta\[1\]"):
        accountant.epsilon([1e-5, 2.0])
    with pytest.raises(dp.InvalidArgument, match=r"epsilon\[0\]"):
        accountant.delta((-1.0, 1.0))


def _grid_configurations():
    # 5 x 4 x 3 = 60 runs, times 3 deltas: 180 configurations per conversion
    for q in (1e-4, 1e-3, 0.01, 0.1, 1.0):
        for sigma in (0.5, 1.0, 4.0, 20.0):
            for steps in (1, 1000, 10**6):
                yield q, sigma, steps


@pytest.mark.parametrize("conversion", ["improved", "classic"])
def test_the_delta_at_the_returned_epsilon_never_exceeds_the_delta_asked(conversion):
    for q, sigma, steps in _grid_configurations():
        accountant = sampled(q, sigma, steps)
        for d in (1e-5, 1e-10, 0.3):
            assert accountant.delta(accountant.epsilon(d, conversion), conversion) <= d, (q, sigma, steps, d)


def test_delta_is_non_increasing_in_epsilon_to_the_end_of_the_float_range():
    for accountant in (sampled(0.01, 1.0, 100), dp.Accountant().compose(dp.Gaussian(2.0), 10)):
        epsilons = np.concatenate([[0.0], np.logspace(-3, 308, 400), [1.7976931348623157e308]])
        deltas = accountant.delta(epsilons)
        assert all(b <= a for a, b in zip(deltas, deltas[1:]))
        assert deltas[-1] == fast.TINY


def test_refine_finds_optima_below_the_grid_and_above_the_largest_grid_order():
    # below 1.01: compare with a fine scan in log(alpha - 1)
    low = sampled(0.2, 0.3, 10**6)
    eps_low, alpha_low = low.epsilon_and_order(1e-10, refine=True)
    assert alpha_low < 1.01 and eps_low < low.epsilon(1e-10)
    scan = 1 + np.exp(np.linspace(math.log(alpha_low - 1) - 0.01, math.log(alpha_low - 1) + 0.01, 41))
    assert eps_low <= sampled(0.2, 0.3, 10**6, list(scan)).epsilon(1e-10) * (1 + 1e-6)
    # above the grid's top: optimum near alpha 46 000, epsilon about 4.35e-6
    high = sampled(1e-4, 50.0, 100)
    eps_high, alpha_high = high.epsilon_and_order(1e-5, refine=True)
    assert 4e4 < alpha_high < 5.5e4 and eps_high == pytest.approx(4.35e-6, rel=0.01)
    for factor in (0.98, 1.02):
        nearby = high._refine(high.ledger, 1e-5, "improved", 1.0, alpha_high * factor)  # a restart nearby
        assert eps_high <= nearby[0] * (1 + 1e-6)
    # and a scan of 41 continuous orders over +-1% of it (orders above the grid's cap, so the
    # per-order bound is evaluated as refine evaluates it)
    orders = alpha_high * np.linspace(0.99, 1.01, 41)
    rdp = 100 * fast.rdp_sampled_gaussian(orders, 1e-4, 50.0)
    scan = dp.accountant.rdp._epsilon_terms(dp.accountant.rdp._inflate(rdp, 1), orders, 1e-5, "improved")
    assert eps_high <= scan.min() * (1 + 1e-6)


@pytest.mark.parametrize("alpha", [20000.5, 46000.5])
def test_the_fast_evaluator_agrees_with_mpmath_at_the_large_orders_refine_uses(alpha):
    import mpmath

    for q, sigma in ((1e-4, 50.0), (0.01, 10.0)):
        value = fast.rdp_sampled_gaussian(np.array([alpha]), q, sigma)[0]
        reference = float(precise.rdp_sampled_gaussian(mpmath.mpf(alpha), q, sigma, dps=30))
        assert value == pytest.approx(reference, rel=fast.RTOL)


@pytest.mark.parametrize("certified", [False, True])
def test_every_accountant_pickles_and_deep_copies_after_queries(certified):
    import copy
    import pickle

    accountant = dp.Accountant(list(range(2, 12)), certified=certified).compose(dp.SampledGaussian(0.1, 1.0), 10)
    eps = accountant.epsilon(1e-5)
    for clone in (pickle.loads(pickle.dumps(accountant)), copy.deepcopy(accountant)):
        assert clone.epsilon(1e-5) == eps and clone.ledger == accountant.ledger
        clone.compose(dp.Gaussian(1.0))
        assert accountant.epsilon(1e-5) == eps


def test_concurrent_composes_from_four_threads_lose_no_step():
    import sys
    import threading

    accountant = dp.Accountant()
    mechanisms = [dp.SampledGaussian(0.01, 1.0), dp.Gaussian(3.0)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        def work(index):
            for _ in range(500):
                accountant.compose(mechanisms[index % 2], 1)
                accountant.epsilon(1e-5)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(old)
    assert dict(accountant.ledger) == {mechanisms[0]: 1000, mechanisms[1]: 1000}
    reference = dp.Accountant().compose(mechanisms[0], 1000).compose(mechanisms[1], 1000)
    assert accountant.epsilon(1e-5) == reference.epsilon(1e-5)


def test_a_schedule_of_1000_settings_queries_warm_from_the_caches_and_the_caches_stay_bounded(monkeypatch):
    """A warm query computes nothing again: no RDP curve (``_fast_rdp``) and no order terms
    (``conversions.order_terms``) are evaluated for a setting already seen; the work is counted,
    not timed, so the test says the same on a busy machine."""
    settings = [dp.SampledGaussian(0.001 + i * 1e-5, 0.8 + i * 1e-3) for i in range(1000)]
    calls = {"rdp": 0, "order_terms": 0}

    def counting(name, function):
        def counted(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)
        return counted

    accountant_module._RDP_CACHE.clear()
    accountant_module._ORDER_CACHE.clear()
    monkeypatch.setattr(accountant_module, "_fast_rdp", counting("rdp", accountant_module._fast_rdp))
    monkeypatch.setattr(accountant_module.conversions, "order_terms",
                        counting("order_terms", accountant_module.conversions.order_terms))
    cold = [dp.Accountant().compose(mechanism, 100).epsilon(1e-5) for mechanism in settings]
    assert calls["rdp"] == len(settings) and 1 <= calls["order_terms"] <= 2, calls
    calls.update(rdp=0, order_terms=0)
    warm = [dp.Accountant().compose(mechanism, 100).epsilon(1e-5) for mechanism in settings]
    assert calls == {"rdp": 0, "order_terms": 0}
    assert warm == cold
    assert accountant_module._RDP_CACHE.nbytes <= accountant_module.RDP_CACHE_BYTES
    assert accountant_module._ORDER_CACHE.nbytes <= accountant_module.ORDER_CACHE_BYTES


def test_calibrate_sigma_validates_the_accountant_by_name_and_the_pld_sigma_is_at_most_the_rdp_one():
    with pytest.raises(dp.InvalidArgument, match="accountant"):
        dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=100, accountant="moments")
    sigma = dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=100, accountant="pld")
    assert 0 < sigma <= dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=100)


@pytest.mark.parametrize("q, sigma, steps", [(0.001, 4.0, 1), (0.001, 10.0, 1), (0.01, 1.0, 100)])
def test_the_default_grid_loses_at_most_the_documented_6_percent_where_the_optimum_lies_inside_it(q, sigma, steps):
    accountant = sampled(q, sigma, steps)
    grid, refined = accountant.epsilon(1e-5), accountant.epsilon(1e-5, refine=True)
    assert refined <= grid <= refined * 1.06


def test_a_two_dimensional_array_of_deltas_is_refused_by_name_and_an_empty_list_gives_an_empty_list():
    accountant = sampled(0.01, 1.0, 100)
    with pytest.raises(dp.InvalidArgument, match="delta="):
        accountant.epsilon(np.full((2, 2), 1e-5))
    assert accountant.epsilon([]) == [] and accountant.delta(()) == []


@pytest.mark.parametrize("conversion", ["improved", "classic"])
def test_in_certified_mode_too_the_delta_at_the_returned_epsilon_never_exceeds_the_delta_asked(conversion):
    for q in (0.001, 0.1, 1.0):
        for sigma in (0.5, 4.0):
            accountant = sampled(q, sigma, 100, list(range(2, 40)), certified=True)
            for d in (1e-5, 0.3):
                assert accountant.delta(accountant.epsilon(d, conversion), conversion) <= d, (q, sigma, d)
