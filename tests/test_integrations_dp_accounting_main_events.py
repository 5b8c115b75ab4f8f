"""dp_accounting main-branch events through dpproofs.integrations.dp_accounting (issue 24).

The installed dp_accounting (0.6) has none of EpsilonDeltaDpEvent, ExponentialMechanismDpEvent,
PermuteAndFlipDpEvent, DiscreteGaussianDpEvent: they are built here as dp_accounting's main branch
defines them (dp_accounting/dp_event.py: attrs classes, frozen, slots, auto_attribs, subclasses of
DpEvent, the same names and fields), and the bridge recognises them by class name.
"""

import fractions
import math

import numpy as np
import pytest

import dpproofs as dp
from dpproofs.integrations import dp_accounting as bridge

dpa = pytest.importorskip("dp_accounting")
attr = pytest.importorskip("attr")

S, C, G = dpa.SelfComposedDpEvent, dpa.ComposedDpEvent, dpa.GaussianDpEvent


from tests.dp_accounting_main_stand_in import (  # noqa: E402
    DiscreteGaussianDpEvent,
    EpsilonDeltaDpEvent,
    ExponentialMechanismDpEvent,
    PermuteAndFlipDpEvent,
)


#: The pure epsilon-DP events, as name -> build(epsilon).
PURE = {
    "exponential mechanism": ExponentialMechanismDpEvent,
    "permute-and-flip": PermuteAndFlipDpEvent,
    "epsilon-delta, delta = 0": lambda eps: EpsilonDeltaDpEvent(eps, 0.0),
}
#: What each becomes: the exponential mechanism is eps-bounded range, the others eps-DP only.
MAPPED = {
    "exponential mechanism": dp.BoundedRange,
    "permute-and-flip": dp.RandomizedResponse,
    "epsilon-delta, delta = 0": dp.RandomizedResponse,
}

#: Float rounding of rho = (sensitivity / sigma)^2 / 2 plus the bridge's widening (_RHO_WIDEN, 4
#: ulps, and one nextafter) and ZCDP.rdp_curve's own (4 half-ulps, one nextafter): a dozen ulps.
RHO_RTOL = 1e-14


def _rr_rdp(eps, orders):
    """Mironov 2017 (arXiv 1702.07476v3) Proposition 5, the RDP of binary randomized response,
    the formula dp_accounting main's RDP accountant composes for EpsilonDeltaDpEvent."""
    orders = np.asarray(orders, dtype=float)
    return (eps * orders + np.logaddexp(0, eps * (1 - 2 * orders)) - np.logaddexp(0, eps)) / (orders - 1)


@pytest.mark.parametrize("accountant", ["rdp", "pld"])
@pytest.mark.parametrize("name", list(PURE))
def test_a_pure_event_is_randomized_response_and_delta_is_zero_at_the_summed_epsilon(name, accountant):
    event = C([S(PURE[name](0.25), 4), PURE[name](0.5)])  # 0.25 and 0.5 are exact binary fractions
    acc = bridge.accountant_for(event, accountant)
    assert acc.ledger == [(MAPPED[name](0.25), 4), (MAPPED[name](0.5), 1)]
    assert bridge.supports(event, accountant)
    if accountant == "rdp":
        assert acc.delta(1.5) == 0.0  # the summed pure epsilon: 4 * 0.25 + 0.5
        assert acc.delta(math.nextafter(1.5, 0)) > 0


def test_epsilon_delta_with_delta_zero_has_dp_accounting_mains_rdp():
    orders = np.array([1.5, 2.0, 8.0, 64.0])
    acc = bridge.accountant_for(S(EpsilonDeltaDpEvent(0.7, 0.0), 3), orders=orders)
    np.testing.assert_allclose(acc.rdp, 3 * _rr_rdp(0.7, orders), rtol=1e-9)
    assert np.all(acc.rdp >= 3 * _rr_rdp(0.7, orders) * (1 - 1e-15))


@pytest.mark.parametrize("name", list(PURE))
def test_a_pure_epsilon_is_never_rounded_down(name):
    third = fractions.Fraction(1, 3)
    (mechanism, _), = bridge.accountant_for(PURE[name](third)).ledger
    assert fractions.Fraction(mechanism.epsilon) >= third
    assert mechanism.epsilon == math.nextafter(1 / 3, 1)  # float(1/3) is below 1/3: one ulp up


@pytest.mark.parametrize("name", list(PURE))
def test_degenerate_pure_epsilons_are_no_loss_or_non_private(name):
    assert bridge.accountant_for(PURE[name](0.0)).ledger == []
    non_private = bridge.accountant_for(C([G(2.0), PURE[name](math.inf)]))
    assert isinstance(non_private, bridge.NonPrivateAccountant)
    assert non_private.epsilon(1e-5) == math.inf


def test_epsilon_delta_with_positive_delta_is_refused_by_name_in_both_accountants():
    event = C([G(2.0), S(EpsilonDeltaDpEvent(1.0, 1e-6), 3)])
    for accountant in ("rdp", "pld"):
        assert not bridge.supports(event, accountant)
        with pytest.raises(bridge.UnsupportedEvent) as info:
            bridge.accountant_for(event, accountant)
        assert "event.events[1].event=EpsilonDeltaDpEvent" in str(info.value)
        assert "delta=1e-06 > 0" in str(info.value)
        assert isinstance(info.value.event, EpsilonDeltaDpEvent)


def test_epsilon_delta_with_a_delta_that_rounds_to_zero_is_refused():
    with pytest.raises(bridge.UnsupportedEvent, match="EpsilonDeltaDpEvent"):
        bridge.accountant_for(EpsilonDeltaDpEvent(1.0, fractions.Fraction(1, 10**400)))


def test_epsilon_delta_with_delta_one_is_non_private():
    acc = bridge.accountant_for(EpsilonDeltaDpEvent(0.1, 1.0))
    assert isinstance(acc, bridge.NonPrivateAccountant)
    assert acc.delta(5.0) == 1.0


def test_permute_and_flip_under_replace_one_is_refused_by_name_and_the_others_are_accounted():
    event = S(PermuteAndFlipDpEvent(0.5), 2)
    assert not bridge.supports(event, neighboring_relation="replace_one")
    with pytest.raises(bridge.UnsupportedEvent, match="PermuteAndFlipDpEvent.*'add_remove', 'replace_special'"):
        bridge.accountant_for(event, neighboring_relation="replace_one")
    assert bridge.accountant_for(event, neighboring_relation="replace_special").ledger == [(dp.RandomizedResponse(0.5), 2)]
    for other, mechanism in ((ExponentialMechanismDpEvent(0.5), dp.BoundedRange(0.5)),
                             (EpsilonDeltaDpEvent(0.5, 0), dp.RandomizedResponse(0.5))):
        acc = bridge.accountant_for(S(other, 2), neighboring_relation="replace_one")
        assert acc.ledger == [(mechanism, 2)]


@pytest.mark.parametrize("dimension", [None, 1, 7])
def test_the_discrete_gaussian_is_its_zcdp_bound_at_every_dimension(dimension):
    sigma, sensitivity = 3.0, 2.0
    acc = bridge.accountant_for(S(DiscreteGaussianDpEvent(sigma, sensitivity, dimension), 5))
    (mechanism, steps), = acc.ledger
    assert isinstance(mechanism, dp.ZCDP) and steps == 5 and mechanism.xi == 0
    exact = fractions.Fraction(2) ** 2 / (2 * fractions.Fraction(3) ** 2)  # 2/9
    assert fractions.Fraction(mechanism.rho) >= exact
    assert mechanism.rho == pytest.approx(2 / 9, rel=RHO_RTOL)
    # dp_accounting main's RDP: rho * alpha per step, the continuous Gaussian's at sigma / sensitivity
    gaussian = bridge.accountant_for(S(G(sigma / sensitivity), 5))
    np.testing.assert_allclose(acc.rdp, gaussian.rdp, rtol=1e-9)


def test_the_discrete_gaussian_is_refused_by_the_pld_accountant_and_under_replace_one_by_name():
    event = C([G(2.0), DiscreteGaussianDpEvent(2.0)])
    assert bridge.supports(event, "rdp")
    assert not bridge.supports(event, "pld")
    with pytest.raises(bridge.UnsupportedEvent, match=r"event.events\[1\]=DiscreteGaussianDpEvent.*RDP accountant only"):
        bridge.accountant_for(event, "pld")
    assert not bridge.supports(event, neighboring_relation="replace_one")
    with pytest.raises(bridge.UnsupportedEvent, match="DiscreteGaussianDpEvent"):
        bridge.accountant_for(event, neighboring_relation="replace_one")


def test_degenerate_discrete_gaussians_are_no_loss_or_non_private():
    assert bridge.accountant_for(DiscreteGaussianDpEvent(2.0, 0.0)).ledger == []
    assert bridge.accountant_for(DiscreteGaussianDpEvent(math.inf, 1.0)).ledger == []
    assert isinstance(bridge.accountant_for(DiscreteGaussianDpEvent(0.0, 1.0)), bridge.NonPrivateAccountant)
    assert isinstance(bridge.accountant_for(DiscreteGaussianDpEvent(1e-300, 1e10)), bridge.NonPrivateAccountant)


BAD_FIELDS = [
    (ExponentialMechanismDpEvent(-1.0), r"^epsilon must be >= 0: event.epsilon=-1.0 is outside the allowed range \[0, inf\)"),
    (PermuteAndFlipDpEvent(math.nan), r"^epsilon must be >= 0: event.epsilon=nan must be a finite number"),
    (EpsilonDeltaDpEvent(-0.5, 0.0), r"^epsilon should be positive: event.epsilon=-0.5 is outside"),
    (EpsilonDeltaDpEvent(1.0, 1.5), r"^delta should be between 0 and 1: event.delta=1.5 is outside the allowed range \[0, 1\]"),
    (EpsilonDeltaDpEvent(1.0, -1e-9), r"^delta should be between 0 and 1: event.delta=-1e-09"),
    (DiscreteGaussianDpEvent(-1.0), r"^Sigma: event.sigma=-1.0 is outside the allowed range \[0, inf\)"),
    (DiscreteGaussianDpEvent(1.0, -2.0), r"^Sensitivity: event.sensitivity=-2.0 is outside"),
    (DiscreteGaussianDpEvent(1.0, math.inf), r"^Sensitivity: event.sensitivity=inf must be a finite number"),
    (DiscreteGaussianDpEvent(1.0, 1.0, 0), r"^Dimension: event.dimension=0 is outside the allowed range \[1, inf\]"),
    (DiscreteGaussianDpEvent(1.0, 1.0, 2.5), r"^Dimension: event.dimension=2.5"),
]


@pytest.mark.parametrize("event, message", BAD_FIELDS, ids=[repr(e) for e, _ in BAD_FIELDS])
def test_a_bad_field_is_named_with_its_value_and_range(event, message):
    with pytest.raises((dp.InvalidArgument, dp.InvalidArgumentType), match=message):
        bridge.accountant_for(event)
    with pytest.raises((dp.InvalidArgument, dp.InvalidArgumentType), match=message):
        bridge.supports(event)  # a parameter out of range raises, as dp_accounting does at compose


def test_an_event_of_that_name_without_mains_fields_is_named():
    @attr.s(frozen=True, slots=True, auto_attribs=True)
    class ExponentialMechanismDpEvent(dpa.DpEvent):  # noqa: F811 - the name is the point
        eps: float

    with pytest.raises(dp.InvalidArgumentType, match=r"has no field 'epsilon'.*\['epsilon'\]"):
        bridge.accountant_for(S(ExponentialMechanismDpEvent(1.0), 2))


def test_the_refusal_of_an_unknown_event_lists_the_main_branch_events():
    with pytest.raises(bridge.UnsupportedEvent) as info:
        bridge.accountant_for(dpa.UnsupportedDpEvent())
    for name in ("EpsilonDeltaDpEvent (delta = 0)", "ExponentialMechanismDpEvent", "PermuteAndFlipDpEvent",
                 "DiscreteGaussianDpEvent (RDP)"):
        assert name in str(info.value)


def test_the_drop_in_accountants_read_the_main_branch_events():
    from dpproofs.integrations.dp_accounting_accountants import PLDAccountant, RdpAccountant

    rdp = RdpAccountant()
    rdp.compose(ExponentialMechanismDpEvent(0.25), 4)
    rdp.compose(DiscreteGaussianDpEvent(4.0))
    assert rdp.get_epsilon(0) == math.inf  # the discrete Gaussian has no pure epsilon
    pure = RdpAccountant()
    pure.compose(C([ExponentialMechanismDpEvent(0.25), PermuteAndFlipDpEvent(0.5)]), 2)
    assert pure.get_epsilon(0) >= 1.5 and pure.get_epsilon(0) == pytest.approx(1.5, rel=1e-14)
    pld = PLDAccountant()
    assert pld.supports(EpsilonDeltaDpEvent(1.0, 0.0))
    assert not pld.supports(DiscreteGaussianDpEvent(4.0))
    assert not pld.supports(EpsilonDeltaDpEvent(1.0, 1e-6))
    assert not rdp.supports(EpsilonDeltaDpEvent(1.0, 1e-6))


def test_the_exponential_mechanism_is_tighter_than_randomized_response_in_rdp_and_equal_in_pld():
    event = S(ExponentialMechanismDpEvent(0.1), 100)
    rr = S(EpsilonDeltaDpEvent(0.1, 0.0), 100)
    orders = np.array([2.0, 8.0, 32.0])
    bounded = bridge.accountant_for(event, orders=orders).rdp
    np.testing.assert_allclose(bounded, 100 * orders * 0.1**2 / 8, rtol=1e-14)  # the zCDP line
    assert np.all(bounded < bridge.accountant_for(rr, orders=orders).rdp)
    assert bridge.accountant_for(event).epsilon(1e-5) < 0.55 * bridge.accountant_for(rr).epsilon(1e-5)


def test_dp_accounting_mains_exponential_rdp_is_within_its_xi_of_ours():
    """main composes min(xi + alpha eps^2/8, eps) (b5b0286, count applied here): ours is at most
    -xi above it per step, xi = r - 1 - log r - eps^2/8, r = eps / expm1(eps)."""
    eps, orders = 0.7, np.array([1.5, 2.0, 4.0, 16.0, 256.0])
    r = eps / np.expm1(eps)
    xi = r - 1 - np.log(r) - eps**2 / 8
    main = np.minimum(xi + eps**2 / 8 * orders, eps)
    ours = bridge.accountant_for(ExponentialMechanismDpEvent(eps), orders=orders).rdp
    assert xi < 0
    assert np.all(ours <= main - xi + 1e-15)


def test_a_bounded_range_ledger_goes_back_as_a_randomized_response_event_in_dp_accounting_0_6():
    acc = dp.Accountant().compose(dp.BoundedRange(0.5), 3)
    event = bridge.to_event(acc)
    assert isinstance(event.event, dpa.RandomizedResponseDpEvent) and event.count == 3
    (back, steps), = bridge.accountant_for(event, neighboring_relation="replace_one").ledger
    assert steps == 3 and back.epsilon >= 0.5 and back.epsilon == pytest.approx(0.5, rel=1e-12)
