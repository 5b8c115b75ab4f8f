"""dpproofs' dp_accounting-shaped accountants against dp_accounting's own interface tests.

``dp_accounting.privacy_accountant_test.PrivacyAccountantTest`` ships in the dp-accounting wheel:
subclassing it runs dp_accounting's interface tests (unsupported events and their offending
sub-event, no events, no-op, non-private) against our classes, unchanged.
"""

import math
import warnings

import numpy as np
import pytest

dp_accounting = pytest.importorskip("dp_accounting")
privacy_accountant_test = pytest.importorskip("dp_accounting.privacy_accountant_test")

import dpproofs as dp  # noqa: E402
from dpproofs.integrations import dp_accounting_accountants as ours  # noqa: E402

REPLACE_ONE = dp_accounting.NeighboringRelation.REPLACE_ONE


class TestDpAccountingsOwnInterfaceTestsPassOnOurAccountants(privacy_accountant_test.PrivacyAccountantTest):
    def _make_test_accountants(self):
        return [ours.RdpAccountant(), ours.PLDAccountant(), ours.RdpAccountant(neighboring_relation=REPLACE_ONE),
                ours.PLDAccountant(REPLACE_ONE)]


EVENT = dp_accounting.SelfComposedDpEvent(
    dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.1)), 1000)


def test_our_accountants_are_dp_accounting_privacy_accountants_with_dpprooofs_answers():
    rdp = ours.RdpAccountant().compose(EVENT)
    assert isinstance(rdp, dp_accounting.PrivacyAccountant)
    expected = dp.Accountant().compose(dp.SampledGaussian(0.01, 1.1), 1000)
    assert rdp.get_epsilon(1e-5) == expected.epsilon(1e-5) and rdp.get_delta(1.0) == expected.delta(1.0)
    assert rdp.supports(rdp.ledger)


def test_the_pld_one_answers_the_certified_upper_end_and_never_below_dp_accountings_lower_error():
    pld = ours.PLDAccountant().compose(EVENT)
    bracket = dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 1.1), 1000).epsilon_bounds(1e-5)
    assert pld.get_epsilon(1e-5) == bracket.upper
    theirs = dp_accounting.pld.PLDAccountant().compose(EVENT).get_epsilon(1e-5)
    assert abs(pld.get_epsilon(1e-5) - theirs) <= 2e-3 * theirs  # the same quantity, two discretisations


def test_compose_refuses_an_unsupported_event_naming_it_and_leaves_the_state_unchanged():
    accountant = ours.RdpAccountant().compose(EVENT)
    before = accountant.get_epsilon(1e-5)
    bad = dp_accounting.ComposedDpEvent([EVENT, dp_accounting.SingleEpochTreeAggregationDpEvent(1.0, 10)])
    assert not accountant.supports(bad)
    with pytest.raises(dp_accounting.UnsupportedEventError, match="SingleEpochTreeAggregationDpEvent"):
        accountant.compose(bad)
    assert accountant.get_epsilon(1e-5) == before


def test_a_relation_refusal_leads_with_dp_accountings_words_and_names_our_reason():
    laplace = dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.LaplaceDpEvent(1.0))
    with pytest.raises(dp_accounting.UnsupportedEventError,
                       match="neighboring_relation must be `ADD_OR_REMOVE_ONE` or `REPLACE_SPECIAL` for `SampledLaplace`"):
        ours.PLDAccountant(REPLACE_ONE).compose(laplace)
    fixed = dp_accounting.SampledWithoutReplacementDpEvent(1000, 10, dp_accounting.GaussianDpEvent(1.0))
    with pytest.raises(dp_accounting.UnsupportedEventError,
                       match="neighboring_relation must be `REPLACE_ONE` for `FixedBatchGaussian`: .*relation='add_remove'"):
        ours.RdpAccountant().compose(fixed)


@pytest.mark.parametrize("event, words, named", [
    (dp_accounting.GaussianDpEvent(-1), "Noise multiplier", "event.noise_multiplier=-1"),
    (dp_accounting.PoissonSampledDpEvent(1.1, dp_accounting.GaussianDpEvent(1)), "Sampling rate",
     "event.sampling_probability=1.1"),
    (dp_accounting.PoissonSampledDpEvent(-0.1, dp_accounting.GaussianDpEvent(1)), "Sampling rate",
     "event.sampling_probability=-0.1"),
])
def test_a_bad_event_parameter_is_refused_in_dp_accountings_words_and_ours(event, words, named):
    """dp_accounting's own tests match "Noise multiplier" / "Sampling rate"; ours name the
    argument, its value and the allowed range after them."""
    for accountant in (ours.RdpAccountant(), ours.PLDAccountant()):
        with pytest.raises(ValueError, match=f"^{words}: {named} is outside the allowed range"):
            accountant.compose(event)


def test_a_replace_one_gaussian_warns_that_dp_accounting_reads_its_noise_over_2c():
    accountant = ours.RdpAccountant(neighboring_relation=REPLACE_ONE)
    with pytest.warns(ours.ReadDifferentlyWarning, match="noise_multiplier=2.0"):
        accountant.compose(dp_accounting.GaussianDpEvent(1.0), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours.RdpAccountant().compose(dp_accounting.GaussianDpEvent(1.0), 3)  # add/remove: read alike


def test_boundary_deltas_and_epsilons_follow_dp_accountings_convention():
    accountant = ours.RdpAccountant().compose(EVENT)
    assert accountant.get_epsilon(0) == math.inf and accountant.get_epsilon(1) == 0.0
    assert accountant.get_delta(math.inf) == 0.0
    with pytest.raises(dp.InvalidArgument, match="target_delta"):
        accountant.get_epsilon(-1e-5)
    special = ours.RdpAccountant(neighboring_relation=dp_accounting.NeighboringRelation.REPLACE_SPECIAL)
    assert special.accountant.relation == "add_remove"  # an upper bound of REPLACE_SPECIAL (module docstring)
    with pytest.raises(dp.InvalidArgument, match="neighboring_relation"):
        ours.RdpAccountant(neighboring_relation="replace-special")


def test_orders_outside_our_range_keep_their_place_in_rdp_with_an_upper_bound():
    from dpproofs.accountant.rdp import MIN_ORDER

    accountant = ours.RdpAccountant([1.0, 2.0, 8.0, 1e10, math.inf]).compose(EVENT)
    inner = dp.Accountant([MIN_ORDER, 2.0, 8.0]).compose(dp.SampledGaussian(0.01, 1.1), 1000)
    assert accountant.get_epsilon(1e-5) == inner.epsilon(1e-5)
    assert list(accountant._orders) == [1.0, 2.0, 8.0, 1e10, math.inf]
    # order 1 reads the value at MIN_ORDER (Renyi divergence is nondecreasing in the order);
    # above MAX_ORDER the Gaussian has no pure epsilon: inf
    assert list(accountant._rdp) == [*inner.rdp, math.inf, math.inf]


def test_orders_above_our_range_read_the_summed_pure_epsilon_of_laplace():
    accountant = ours.RdpAccountant([1.0, 1 + 1e-6, 1e10]).compose(
        dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(1 / 0.5), 3))
    assert accountant._rdp[2] == pytest.approx(1.5, rel=1e-12) and accountant._rdp[2] >= 1.5
    assert accountant._rdp[0] == accountant._rdp[1] <= 3 * min(0.5, 0.5 ** 2 / 2)  # about the KL divergence
    assert accountant.get_epsilon(1e-10) == pytest.approx(1.5, rel=1e-12)


@pytest.mark.parametrize("orders", [[], [0.5], [math.nan], [2.0, -1.0]])
def test_orders_below_one_or_empty_are_refused_naming_orders(orders):
    with pytest.raises(dp.InvalidArgument, match="orders"):
        ours.RdpAccountant(orders)


def test_a_zcdp_event_is_its_renyi_line_and_matches_the_gaussian_it_describes():
    rho = 0.05  # the Gaussian of sigma = sqrt(1 / (2 rho)) is rho-zCDP exactly
    ours_zcdp = ours.RdpAccountant().compose(dp_accounting.ZCDpEvent(rho, 0.0), 3).get_epsilon(1e-5)
    gaussian = dp.Accountant().compose(dp.Gaussian((1 / (2 * rho)) ** 0.5), 3).epsilon(1e-5)
    assert ours_zcdp == pytest.approx(gaussian, rel=1e-12)
    assert not ours.PLDAccountant().supports(dp_accounting.ZCDpEvent(rho, 0.0))
    with pytest.raises(dp.InvalidArgument, match="rho"):
        dp.ZCDP(-1.0)
    assert dp.Accountant().compose(dp.ZCDP(0.0), 5).epsilon(1e-5) == 0.0


def test_the_private_rdp_arrays_read_like_dp_accountings():
    accountant = ours.RdpAccountant([2.0, 3.0]).compose(dp_accounting.ZCDpEvent(0.1, 0.5), 2)
    assert list(accountant._orders) == [2.0, 3.0]
    assert accountant._rdp[0] == pytest.approx(2 * (0.5 + 0.2)) and accountant._rdp[1] >= 2 * (0.5 + 0.3)


def test_tree_aggregation_is_accounted_under_replace_special_and_replace_one_only():
    tree = dp_accounting.SingleEpochTreeAggregationDpEvent(0.7, [10, 400])
    relations = dp_accounting.NeighboringRelation
    assert not ours.RdpAccountant().supports(tree)
    assert "REPLACE_SPECIAL" in ours.RdpAccountant()._maybe_compose(tree, 1, False).error_message
    assert ours.RdpAccountant(neighboring_relation=relations.REPLACE_ONE).supports(tree)
    mine = ours.RdpAccountant([2.0, 8.0], relations.REPLACE_SPECIAL)
    mine.compose(tree, 2)
    theirs = dp_accounting.rdp.RdpAccountant([2.0, 8.0], relations.REPLACE_SPECIAL)
    theirs.compose(tree, 2)
    assert np.all(mine._rdp >= theirs._rdp) and np.allclose(mine._rdp, theirs._rdp, rtol=1e-9)
    pld = ours.PLDAccountant(relations.REPLACE_SPECIAL)
    pld.compose(tree)
    assert pld.get_epsilon(1e-6) <= mine.get_epsilon(1e-6)


def test_epsilon_at_delta_zero_is_the_summed_pure_epsilon_where_every_step_has_one():
    accountant = ours.PLDAccountant()
    accountant.compose(dp_accounting.dp_event.DiscreteLaplaceDpEvent(1.0, 1), 3)
    accountant.compose(dp_accounting.LaplaceDpEvent(2.0), 2)  # 1/2-DP each
    assert accountant.get_epsilon(0) >= 4.0 and accountant.get_epsilon(0) == pytest.approx(4.0, rel=1e-14)
    accountant.compose(dp_accounting.GaussianDpEvent(10.0))
    assert accountant.get_epsilon(0) == math.inf
