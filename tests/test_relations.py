"""Fixed-size batches and the replace-one relation in the RDP accountant (issue 12, RDP part)."""

import copy
import math
import pickle

import numpy as np
import pytest
from mpmath import mp

import dpproofs as dp
from dpproofs.math import reductions as subsampling
from dpproofs.math import fast
from dpproofs.math import precise
from dpproofs.accountant import rdp as rdp_module

F = dp.FixedBatchGaussian


# --- FixedBatchGaussian: construction -----------------------------------------------------------------


def test_fixed_batch_gaussian_takes_keywords_or_positions_and_reports_its_rate():
    assert F(batch_size=256, dataset_size=60000, sigma=1.1) == F(256, 60000, 1.1)
    m = F(256, 60000.0, 1)
    assert m.dataset_size == 60000 and isinstance(m.dataset_size, int) and m.sigma == 1.0
    assert m.rate == 256 / 60000
    assert F(7, 7, 2.0).rate == 1.0


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(batch_size=0, dataset_size=10, sigma=1.0), "batch_size"),
        (dict(batch_size=11, dataset_size=10, sigma=1.0), "batch_size"),
        (dict(batch_size=2.5, dataset_size=10, sigma=1.0), "batch_size"),
        (dict(batch_size=2, dataset_size=0, sigma=1.0), "dataset_size"),
        (dict(batch_size=2, dataset_size=10, sigma=0.0), "sigma"),
        (dict(batch_size=2, dataset_size=10, sigma=math.inf), "sigma"),
        (dict(batch_size=2, dataset_size=10, sigma=math.nan), "sigma"),
    ],
)
def test_fixed_batch_gaussian_rejects_bad_input_naming_argument_value_and_range(kwargs, name):
    with pytest.raises(dp.InvalidArgument) as info:
        F(**kwargs)
    message = str(info.value)
    assert name in message and repr(kwargs[name]) in message
    assert "[" in message or "(" in message  # the allowed range


def test_fixed_batch_gaussian_rejects_wrong_types():
    with pytest.raises(dp.InvalidArgumentType):
        F(True, 10, 1.0)
    with pytest.raises(dp.InvalidArgumentType):
        F("2", 10, 1.0)


def test_fixed_batch_gaussian_round_trips_through_to_dict():
    m = F(3, 17, 0.7)
    assert m.to_dict() == {"type": "FixedBatchGaussian", "batch_size": 3, "dataset_size": 17, "sigma": 0.7}
    assert dp.SampledGaussian.from_dict(m.to_dict()) == m


def test_the_docstring_states_the_sigma_convention_and_the_loader():
    doc = F.__doc__
    assert "clipping norm" in doc and "2C" in doc and "without replacement" in doc.lower()
    assert "shuffled" in doc.lower()


# --- Accountant(relation=...) --------------------------------------------------------------------------


def test_the_relation_is_validated_kept_and_shown():
    assert dp.Accountant().relation == "add_remove"
    acc = dp.Accountant(relation="replace_one")
    assert acc.relation == "replace_one" and "relation='replace_one'" in repr(acc)
    with pytest.raises(dp.InvalidArgument, match="relation='swap'"):
        dp.Accountant(relation="swap")
    with pytest.raises(dp.InvalidArgumentType):
        dp.Accountant(relation=None)


def test_an_unsupported_pair_raises_naming_it_and_leaves_the_accountant_unchanged():
    acc = dp.Accountant().compose(dp.SampledGaussian(0.01, 1.0), 10)
    before = (acc.to_dict(), acc.rdp.copy())
    with pytest.raises(dp.InvalidArgument) as info:
        acc.compose(F(10, 1000, 1.0), 5)
    message = str(info.value)
    assert "FixedBatchGaussian" in message and "add_remove" in message and "changes the dataset" in message
    assert acc.to_dict() == before[0]
    assert np.array_equal(acc.rdp, before[1])


def test_accountants_round_trip_with_their_relation():
    acc = dp.Accountant(relation="replace_one").compose(F(10, 1000, 1.5), 7).compose(dp.SampledGaussian(0.1, 2.0), 3)
    data = acc.to_dict()
    assert data["relation"] == "replace_one"
    again = dp.Accountant.from_dict(data)
    assert again.relation == "replace_one" and again.to_dict() == data
    assert again.epsilon(1e-5) == acc.epsilon(1e-5)
    old = {key: value for key, value in dp.Accountant().compose(dp.Gaussian(2.0)).to_dict().items() if key != "relation"}
    assert dp.Accountant.from_dict(old).relation == "add_remove"  # dicts written before the relation existed
    for clone in (pickle.loads(pickle.dumps(acc)), copy.deepcopy(acc)):
        assert clone.relation == "replace_one" and clone.epsilon(1e-5) == acc.epsilon(1e-5)


def test_the_same_mechanism_under_two_relations_does_not_share_a_cached_curve():
    m = dp.SampledGaussian(0.02, 1.3)
    add_remove = dp.Accountant().compose(m, 100).epsilon(1e-5)
    replace_one = dp.Accountant(relation="replace_one").compose(m, 100).epsilon(1e-5)
    assert replace_one > add_remove
    assert dp.Accountant().compose(m, 100).epsilon(1e-5) == add_remove


#: Measured on the commit before the relation existed (55d05f0). Identical to the last few ulps:
#: numpy 2.4 moved the Laplace delta by one ulp (0.13690471926419767), so the comparison allows
#: ULPS units in the last place; a change in the accountant's formulas moves far more.
ULPS = 4
BEFORE = [
    (dp.SampledGaussian(256 / 60000, 1.1), 14063, "improved", False, False, 2.597079519794952, 0.03900926973765797),
    (dp.SampledGaussian(0.01, 4.0), 10000, "classic", False, False, 1.25857474131806, 0.0007547036152664899),
    (dp.Gaussian(2.0), 5, "improved", False, False, 5.377728337132369, 0.31803404324168943),
    (dp.Laplace(3.0), 7, "improved", False, False, 2.3320582249032435, 0.1369047192641977),
    (dp.RandomizedResponse(0.3), 11, "classic", False, False, 3.30054155626314, 0.8732440283200199),
    (dp.SampledGaussian(0.1, 1.5), 100, "improved", True, False, 3.923386156779754, 0.11641295942646976),
    (dp.SampledGaussian(0.02, 2.0), 500, "improved", False, True, 1.0152578678692494, 1.276505014368112e-05),
]


#: The default grid of that commit (the peers' orders joined it later: issue 24).
BEFORE_ORDERS = tuple(sorted(rdp_module._FRACTIONAL_ORDERS + tuple(range(2, 65)) + rdp_module._LARGE_ORDERS))


@pytest.mark.parametrize("mechanism, steps, conversion, refine, certified, epsilon, delta", BEFORE)
def test_add_remove_answers_are_bit_identical_to_before(mechanism, steps, conversion, refine, certified, epsilon, delta):
    orders = [a for a in BEFORE_ORDERS if a == int(a)] if certified else BEFORE_ORDERS
    acc = dp.Accountant(orders, certified=certified).compose(mechanism, steps)
    pure = mechanism.pure_epsilon("add_remove") * steps  # pure DP joined the accountant (issue 24)
    if pure < epsilon:
        assert acc.epsilon(1e-5, conversion, refine=refine) == pytest.approx(pure, rel=1e-14, abs=0)
    else:
        assert acc.epsilon(1e-5, conversion, refine=refine) == pytest.approx(epsilon, rel=ULPS * 2.0**-52, abs=0)
    # delta is now also capped by the total variation bound (the profile at 0; issue 24)
    expected_delta = min(delta, acc.total_variation_bound())
    assert acc.delta(1.0, conversion) == pytest.approx(expected_delta, rel=ULPS * 2.0**-52, abs=0)


def test_calibrate_sigma_default_is_no_larger_than_before_and_within_the_grid_gain():
    # before the peers' orders joined the default grid (issue 24): 1.0144943329730616, 1.9081069112200146
    for now, before in [(dp.calibrate_sigma(epsilon=3.0, delta=1e-5, q=256 / 60000, steps=14063), 1.0144943329730616),
                        (dp.calibrate_sigma(epsilon=1.0, delta=1e-6, q=0.01, steps=1000, conversion="classic"),
                         1.9081069112200146)]:
        assert before * 0.99 <= now <= before


# --- the per-step curves ---------------------------------------------------------------------------------

ORDERS = [1.01, 1.5, 2, 2.5, 3, 8, 20, 64.5, 300, 2000]


@pytest.mark.parametrize(
    "mechanism, add_remove_twin",
    [
        (dp.Gaussian(1.7), dp.Gaussian(0.85)),
        (dp.Laplace(2.0), dp.Laplace(1.0)),
        (dp.RandomizedResponse(0.8), dp.RandomizedResponse(0.8)),
    ],
)
def test_elementary_mechanisms_under_replace_one_are_their_half_scale_twins(mechanism, add_remove_twin):
    replace_one = dp.Accountant(ORDERS, relation="replace_one").compose(mechanism, 3).rdp
    assert np.array_equal(replace_one, dp.Accountant(ORDERS).compose(add_remove_twin, 3).rdp)


@pytest.mark.parametrize("q, sigma", [(0.001, 1.0), (0.05, 0.7), (0.3, 4.0), (1.0, 2.0)])
def test_poisson_replace_one_is_at_least_add_remove_and_at_most_the_sensitivity_2_gaussian(q, sigma):
    replace_one = dp.Accountant(ORDERS, relation="replace_one").compose(dp.SampledGaussian(q, sigma)).rdp
    add_remove = dp.Accountant(ORDERS).compose(dp.SampledGaussian(q, sigma)).rdp
    gaussian = 2 * np.array(ORDERS) / sigma**2
    assert np.all(replace_one >= add_remove)
    assert np.all(replace_one <= gaussian * (1 + 1e-12))


@pytest.mark.parametrize("b, n, sigma", [(1, 10, 1.0), (256, 60000, 1.1), (3, 8, 0.7), (600, 60000, 4.0), (5, 5, 2.0)])
def test_fixed_batch_replace_one_is_at_least_the_realised_pair_p1(b, n, sigma):
    """P1 = ((1-g)N(0)+gN(2), N(0)) is the sampled Gaussian at sigma/2 (both directions)."""
    shipped = dp.Accountant(ORDERS[:8], relation="replace_one").compose(F(b, n, sigma)).rdp
    for a, value in zip(ORDERS[:8], shipped):
        exact = precise.rdp_sampled_gaussian(a, mp.mpf(b) / n, mp.mpf(sigma) / 2, dps=30, direction="max")
        assert value >= exact, (a, value, exact)


def test_a_batch_that_is_the_whole_dataset_is_the_sensitivity_2_gaussian_not_zero():
    rdp = dp.Accountant(ORDERS, relation="replace_one").compose(F(10, 10, 2.0)).rdp
    assert np.allclose(rdp, 2 * np.array(ORDERS) / 4.0, rtol=1e-14, atol=0)
    assert dp.Accountant(relation="replace_one").compose(F(10, 10, 2.0)).epsilon(1e-5) > 0


def test_extreme_sigmas_and_rates_give_the_floor_or_infinity_never_nan():
    huge = dp.Accountant(relation="replace_one").compose(F(1, 10, 1e200), 10)
    assert np.all(huge.rdp == fast.TINY * 10) and huge.epsilon(1e-5) == 0.0  # total variation below delta
    tiny = dp.Accountant(relation="replace_one").compose(F(1, 10, 1e-200), 10)
    assert np.all(tiny.rdp == np.inf) and tiny.epsilon(1e-5) == math.inf
    assert tiny.delta(1.0) == tiny.total_variation_bound() == pytest.approx(1 - 0.9**10)  # the batch misses the record
    vast = dp.Accountant(relation="replace_one").compose(F(1, 10**400, 1.0))
    assert np.all(vast.rdp >= fast.TINY) and np.all(np.isfinite(vast.rdp))
    for sigma in (1e-140, 1e-3, 1e3, 1e140):
        rdp = dp.Accountant(relation="replace_one").compose(dp.SampledGaussian(0.3, sigma)).rdp
        assert not np.any(np.isnan(rdp)) and np.all(rdp > 0)
    zero = dp.Accountant(relation="replace_one").compose(dp.SampledGaussian(0.0, 1.0), 5)
    assert zero.epsilon(1e-5) == 0.0 and zero.delta(0.5) == 0.0


def test_the_float_wbk19_bound_is_above_its_mpmath_value_and_within_1e_9_and_inside_the_arb_ball_order():
    from flint import ctx

    for a, g, s in [(2, 0.01, 1.0), (10, 256 / 60000, 1.1), (64, 0.001, 0.8), (500, 0.01, 4.0), (3000, 1e-4, 50.0)]:
        value = subsampling.wor_replace_one_rdp_integer(a, g, s)
        with mp.workdps(40):
            exact = subsampling.wor_replace_one_rdp_integer(a, g, s, backend="mpmath")
            assert value >= exact and value <= exact * (1 + 1e-9)
        saved = ctx.prec
        ctx.prec = 200
        try:
            enclosure = subsampling.wor_replace_one_rdp_integer(a, g, s, backend="arb")
        finally:
            ctx.prec = saved
        assert float(enclosure.upper()) <= value


def test_fractional_orders_of_the_fixed_batch_curve_are_the_chord_of_the_integer_log_moments():
    g, s = 0.01, 1.3
    k2 = subsampling.wor_replace_one_rdp_integer(2, g, s) * 1
    k3 = subsampling.wor_replace_one_rdp_integer(3, g, s) * 2
    value = subsampling.wor_replace_one_rdp([2.25], g, s)[0]
    assert value >= (0.75 * k2 + 0.25 * k3) / 1.25
    assert value <= (0.75 * k2 + 0.25 * k3) / 1.25 * (1 + 1e-14)
    assert subsampling.wor_replace_one_rdp([1.5], g, s)[0] >= subsampling.wor_replace_one_rdp_integer(2, g, s)  # K(1) = 0


@pytest.mark.parametrize("mechanism", [F(25, 1000, 1.2), dp.SampledGaussian(0.025, 1.2), dp.Gaussian(5.0)])
def test_certified_mode_agrees_with_the_float_path_under_replace_one(mechanism):
    orders = [2, 3, 5, 8, 16, 32, 64]
    float_acc = dp.Accountant(orders, relation="replace_one").compose(mechanism, 200)
    certified = dp.Accountant(orders, certified=True, relation="replace_one").compose(mechanism, 200)
    eps_float, eps_cert = float_acc.epsilon(1e-5), certified.epsilon(1e-5)
    assert eps_cert <= eps_float * (1 + 1e-12)  # both upper bounds; the float one is inflated
    assert eps_cert >= eps_float * (1 - 1e-8)  # and the float path is not far above the certified one


def test_refine_is_never_above_the_grid_and_stays_on_the_covered_curve():
    for mechanism in (F(256, 60000, 1.1), dp.SampledGaussian(256 / 60000, 1.1), F(1, 10**4, 50.0)):
        acc = dp.Accountant(relation="replace_one").compose(mechanism, 1000)
        grid = acc.epsilon(1e-5)
        refined, order = acc.epsilon_and_order(1e-5, refine=True)
        assert 0 < refined <= grid
        again = dp.Accountant([min(order, dp.accountant.rdp.MAX_ORDER)], relation="replace_one").compose(mechanism, 1000)
        if order <= dp.accountant.rdp.MAX_ORDER:  # the refined value is the grid value at its order
            assert again.epsilon(1e-5) == pytest.approx(refined, rel=1e-9)


# --- calibration -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("relation, sampling", [("replace_one", "poisson"), ("replace_one", "fixed")])
def test_calibrate_sigma_for_the_new_pairs_meets_its_target_and_is_tight(relation, sampling):
    sigma = dp.calibrate_sigma(epsilon=3.0, delta=1e-5, q=256 / 60000, steps=14063, relation=relation, sampling=sampling)

    def epsilon(s):
        m = F(256, 60000, s) if sampling == "fixed" else dp.SampledGaussian(256 / 60000, s)
        return dp.Accountant(relation=relation).compose(m, 14063).epsilon(1e-5)

    assert epsilon(sigma) <= 3.0 < epsilon(sigma / (1 + 2e-6))


def test_calibrate_sigma_refuses_unsupported_combinations():
    with pytest.raises(dp.InvalidArgument, match="sampling='fixed' with relation='add_remove'"):
        dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=10, sampling="fixed")
    with pytest.raises(dp.InvalidArgument, match="sampling"):
        dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=10, sampling="shuffled")
    with pytest.raises(dp.InvalidArgument, match="FixedBatchGaussian.*add_remove"):
        dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=10, accountant="pld", sampling="fixed")


def test_pld_calibration_of_fixed_batches_under_replace_one_never_overshoots():
    sigma = dp.calibrate_sigma(epsilon=4.0, delta=1e-5, q=0.01, steps=100, accountant="pld", relation="replace_one",
                               sampling="fixed")
    batch, dataset = (0.01).as_integer_ratio()
    accountant = dp.PLDAccountant(relation="replace_one").compose(F(batch, dataset, sigma), 100)
    assert accountant.epsilon(1e-5) <= 4.0


# --- side by side with dp_accounting ---------------------------------------------------------------------


#: (n, b, sigma, epochs) -> dp_accounting 0.6.0's RdpAccountant(REPLACE_ONE) epsilon at delta 1e-5 for
#: SampledWithoutReplacementDpEvent(n, b, GaussianDpEvent(sigma / 2)): its WOR formula takes the
#: noise multiplier as std / replace-one sensitivity (2C), so our sigma (std / C) is passed halved.
RUNS = [(60000, 256, 1.1, 60), (10000, 100, 2.0, 50), (60000, 600, 4.0, 100)]


@pytest.mark.parametrize("n, b, sigma, epochs", RUNS)
def test_fixed_batch_replace_one_is_within_a_few_percent_of_dp_accounting(n, b, sigma, epochs):
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting import rdp

    steps = math.ceil(epochs * n / b)
    theirs = rdp.RdpAccountant(neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE)
    event = dpa.SampledWithoutReplacementDpEvent(n, b, dpa.GaussianDpEvent(sigma / 2))
    theirs.compose(dpa.SelfComposedDpEvent(event, steps))
    their_eps = theirs.get_epsilon(1e-5)
    ours = dp.Accountant(relation="replace_one").compose(F(b, n, sigma), steps).epsilon(1e-5)
    # Theorem 9 (ours) is >= their Theorem 27 at each order; our grid is finer than theirs
    assert 0.97 * their_eps <= ours <= 1.05 * their_eps, (ours, their_eps)
