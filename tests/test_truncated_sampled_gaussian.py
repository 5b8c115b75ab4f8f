"""TruncatedSampledGaussian: Poisson sampling with the batch cut to a maximum size (truncated DP-SGD),
accounted by a branch-revealed mixture of sampled Gaussians (dpproofs.math.truncation)."""

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

import dpproofs as dp
from dpproofs.integrations import dp_accounting as bridge
from dpproofs.math import truncation
from dpproofs_theorems.accountant.pld_truncated import realised_pair

dpa = pytest.importorskip("dp_accounting")


@pytest.mark.parametrize("q, batch, size", [(0.5, 2, 4), (256 / 60000, 300, 60000), (256 / 60000, 200, 60000),
                                            (0.01, 5, 10**9), (1.0, 3, 10), (0.3, 1, 2), (0.3, 1, 10**15)])
def test_the_branch_weights_enclose_the_binomial_probabilities(q, batch, size):
    branches = truncation.branches(q, batch, size)
    assert abs(math.fsum(b.weight for b in branches) - 1) <= math.fsum(b.weight_error for b in branches) + 1e-15
    # scipy's float binomial CDF (a few ulps, not certified) against the arb enclosure: 1e-9 relative
    # is far above scipy's error and far below any mistake in the branch bookkeeping
    first = branches[0]
    if first.sensitivity == 1:
        assert first.rate == q and first.weight == pytest.approx(stats.binom.cdf(batch - 1, size - 1, q), rel=1e-9, abs=1e-300)
    for branch in branches:
        assert 0 <= branch.weight <= 1 and branch.weight_error < 1e-12 and 0 < branch.rate <= q
    assert len(branches) <= 1 + truncation.MAX_GROUPS


def test_a_batch_that_can_never_be_cut_is_the_sampled_gaussian():
    truncated, plain = dp.TruncatedSampledGaussian(0.1, 1.2, 10, 10), dp.SampledGaussian(0.1, 1.2)
    assert truncation.branches(0.1, 10, 10) == [(1.0, 0.0, 0.1, 1)]
    assert dp.Accountant().compose(truncated, 100).epsilon(1e-5) == dp.Accountant().compose(plain, 100).epsilon(1e-5)
    ours = dp.PLDAccountant().compose(truncated, 100).epsilon_bounds(1e-5)
    theirs = dp.PLDAccountant().compose(plain, 100).epsilon_bounds(1e-5)
    assert (ours.lower, ours.upper) == (theirs.lower, theirs.upper)


@pytest.mark.parametrize("mechanism", [dp.TruncatedSampledGaussian(0.0, 1.0, 5, 100),
                                       dp.TruncatedSampledGaussian(0.3, 1.0, 0, 100)])
def test_no_sampling_or_no_batch_releases_nothing(mechanism):
    assert mechanism.silent
    assert dp.Accountant().compose(mechanism, 10).epsilon(1e-5) == 0
    assert dp.PLDAccountant().compose(mechanism, 10).epsilon_bounds(1e-5).upper == 0


@pytest.mark.parametrize("kind", [dp.Accountant, dp.PLDAccountant])
def test_replace_one_is_refused_by_name(kind):
    with pytest.raises(dp.InvalidArgument, match="relation='replace_one'.*compete for the batch"):
        kind(relation="replace_one").compose(dp.TruncatedSampledGaussian(0.1, 1.0, 5, 100), 1)


@pytest.mark.parametrize("name, value, kwargs", [
    ("q", 1.5, dict(q=1.5, sigma=1.0, max_batch_size=1, dataset_size=2)),
    ("sigma", 0.0, dict(q=0.5, sigma=0.0, max_batch_size=1, dataset_size=2)),
    ("max_batch_size", -1, dict(q=0.5, sigma=1.0, max_batch_size=-1, dataset_size=2)),
    ("dataset_size", 0, dict(q=0.5, sigma=1.0, max_batch_size=1, dataset_size=0)),
])
def test_bad_parameters_are_named(name, value, kwargs):
    with pytest.raises(dp.InvalidArgument, match=f"{name}={value!r}"):
        dp.TruncatedSampledGaussian(**kwargs)


def test_it_round_trips_through_its_dict():
    mechanism = dp.TruncatedSampledGaussian(0.01, 1.1, 300, 60000)
    assert dp.mechanisms.Mechanism.from_dict(mechanism.to_dict()) == mechanism


def _exact_renyi(first, second, s, alpha):
    """D_alpha(first || second) of two finite mixtures of N(v, s^2), mpmath quadrature."""
    with mpmath.workdps(30):
        density = lambda law, x: mpmath.fsum(mpmath.mpf(w.numerator) / w.denominator * mpmath.npdf(x, v, s)  # noqa: E731
                                            for v, w in law.items())
        value = mpmath.quad(lambda x: density(first, x) ** alpha * density(second, x) ** (1 - alpha),
                            [-mpmath.inf, -10, -5, 0, 5, mpmath.inf])
        return float(mpmath.log(value) / (alpha - 1))


@pytest.mark.parametrize("q, sigma, batch, size", [(0.9, 1.0, 1, 4), (0.5, 1.0, 2, 4), (0.3, 2.0, 1, 6)])
def test_the_rdp_curve_is_above_an_exactly_enumerated_pair_in_both_orders(q, sigma, batch, size):
    p_law, q_law = realised_pair(q, batch, size)
    mechanism = dp.TruncatedSampledGaussian(q, sigma, batch, size)
    orders = np.array([2.0, 3.0, 5.0, 8.0])
    curve = mechanism.rdp_curve(orders, "add_remove")
    for alpha, bound in zip(orders, curve):
        exact = max(_exact_renyi(p_law, q_law, sigma, alpha), _exact_renyi(q_law, p_law, sigma, alpha))
        assert exact <= bound, (alpha, exact, bound)
        # the float curve and the arb enclosure of the same bound agree within the float path's
        # documented tolerance (fast.RTOL = 1e-10, the inflation of its branch curves), 1e-9 here
        enclosure = mechanism.rdp_ball(int(alpha), "add_remove", 128)
        assert float(enclosure.lower()) <= bound * (1 + 1e-9) and bound <= float(enclosure.upper()) * (1 + 1e-9)


def test_dp_accountings_truncated_event_is_our_mechanism_and_never_looser():
    event = dpa.dp_event.TruncatedSubsampledGaussianDpEvent(4, 0.5, 2, 1.0)
    second = dpa.dp_event.TruncatedSubsampledGaussianDpEvent(3, 0.5, 2, 1.0)
    accountant = bridge.accountant_for(dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(event, 3),
                                                            dpa.SelfComposedDpEvent(second, 2)]), "pld")
    assert [m for m, _ in accountant.ledger] == [dp.TruncatedSampledGaussian(0.5, 1.0, 2, 4),
                                                 dp.TruncatedSampledGaussian(0.5, 1.0, 2, 3)]
    bounds = accountant.epsilon_bounds(1e-6)
    # dp_accounting's own test expects 17.904330 (its averaged-rate replace-one pair); the per-branch
    # add/remove pairs are tighter and sound (tests/theorems/test_accountant_pld_truncated.py)
    assert bounds.upper < 17.904330 and bounds.upper - bounds.lower <= 1e-3 * bounds.upper
    assert bridge.to_event(accountant) == dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(event, 3),
                                                               dpa.SelfComposedDpEvent(second, 2)])


def test_the_bridge_carries_dp_accountings_zero_cases_and_refuses_replace_one():
    T = dpa.dp_event.TruncatedSubsampledGaussianDpEvent
    for silent in (T(0, 0.5, 2, 1.0), T(10, 0.0, 2, 1.0), T(10, 0.5, 0, 1.0)):
        assert bridge.accountant_for(silent).ledger == []
    assert bridge.accountant_for(T(10, 0.5, 2, 0.0)).epsilon(1e-5) == math.inf
    assert not bridge.supports(T(10, 0.5, 2, 1.0), neighboring_relation="replace_one")
    with pytest.raises(bridge.UnsupportedEvent, match="TruncatedSubsampledGaussianDpEvent"):
        bridge.accountant_for(T(10, 0.5, 2, 1.0), neighboring_relation="replace_one")
    with pytest.raises(dp.InvalidArgument, match="Truncated batch size: .*truncated_batch_size=-1"):
        bridge.accountant_for(T(10, 0.5, -1, 1.0))


def test_sizes_beyond_2_to_the_53_are_refused_and_the_extremes_within_answer():
    # pinned: 10^400 records was an OverflowError, 10^20 a TypeError, and (1e-300, 2, 2^53) an
    # OverflowError from scipy's binomial in the group placement (now the geometric placement)
    from dpproofs.mechanisms_truncated import MAX_RECORDS

    for size in (10**400, 10**20):
        with pytest.raises(dp.InvalidArgument, match="dataset_size=.*outside the allowed range \\[1, 9007199254740992\\]"):
            dp.TruncatedSampledGaussian(0.3, 1.0, 5, size)
    with pytest.raises(dp.InvalidArgument, match="max_batch_size"):
        dp.TruncatedSampledGaussian(0.3, 1.0, MAX_RECORDS + 1, 10)
    for q, batch in ((1e-300, 2), (5e-324, 1), (0.5, 2**52)):
        mechanism = dp.TruncatedSampledGaussian(q, 1.0, batch, MAX_RECORDS)
        rdp, pld = dp.Accountant().compose(mechanism, 10).epsilon(1e-5), dp.PLDAccountant().compose(mechanism, 10).epsilon(1e-5)
        assert 0 <= pld <= rdp < math.inf
