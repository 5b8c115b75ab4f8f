"""SampledLaplace (Poisson-subsampled Laplace) in the RDP and PLD accountants."""

import math

import mpmath
import numpy as np
import pytest

import dpproofs as dp
from dpproofs.mechanisms import SampledLaplace, sampled_laplace_divergence
from dpproofs_theorems.accountant.sampled_laplace import _Arb, _Mp, add_direction, one_step_delta


def test_it_is_exported_validated_and_round_trips():
    m = dp.SampledLaplace(0.01, 2.0)
    assert "SampledLaplace" in dp.__all__ and dp.Mechanism.from_dict(m.to_dict()) == m
    with pytest.raises(dp.InvalidArgument, match="q="):
        dp.SampledLaplace(1.5, 1.0)
    with pytest.raises(dp.InvalidArgument, match="scale="):
        dp.SampledLaplace(0.5, 0.0)
    acc = dp.PLDAccountant().compose(m, 3)
    assert dp.PLDAccountant.from_dict(acc.to_dict()).ledger == [(m, 3)]


@pytest.mark.parametrize("k", [2, 3, 7, 20])
@pytest.mark.parametrize("q, b", [(0.01, 1.0), (0.3, 0.5), (0.9, 3.0)])
def test_the_add_direction_binomial_sum_equals_the_quadrature(k, q, b):
    with mpmath.workdps(40):
        binomial = add_direction(k, q, b, _Mp)
        quadrature = sampled_laplace_divergence(k, q, b, "add")
        assert abs(binomial - quadrature) <= mpmath.mpf(10) ** -30 * abs(binomial)
    assert float(add_direction(k, q, b, _Arb).mid()) == pytest.approx(float(binomial), rel=1e-12)


@pytest.mark.parametrize("q, b", [(1e-3, 1.0), (0.01, 0.3), (0.1, 1.0), (0.5, 5.0), (0.99, 0.5)])
def test_the_rdp_curve_is_above_both_exact_directions_at_every_default_order_sampled(q, b):
    m = SampledLaplace(q, b)
    orders = np.array([1.01, 1.1, 1.5, 2.0, 2.5, 3.0, 8.0, 33.0, 200.0, 1000.0])
    curve = m.rdp_curve(orders, "add_remove")
    for alpha, value in zip(orders, curve):
        exact = max(sampled_laplace_divergence(alpha, q, b, d) for d in ("add", "remove"))
        assert value >= float(exact) * (1 + 1e-12), (alpha, value, exact)
    # never above the Laplace's own RDP (a mixture is no further from P than Q is)
    assert np.all(curve <= dp.Accountant(list(orders)).compose(dp.Laplace(b)).rdp)


def test_the_curve_is_nearly_tight_for_small_q_at_small_orders():
    m = SampledLaplace(1e-3, 1.0)
    value = float(m.rdp_curve(np.array([2.0]), "add_remove")[0])
    exact = float(sampled_laplace_divergence(2, 1e-3, 1.0, "add"))
    assert exact <= value <= exact * 1.01


def test_certified_mode_agrees_with_the_float_curve_and_is_an_upper_bound():
    m = SampledLaplace(0.02, 1.0)
    plain = dp.Accountant().compose(m, 500)
    certified = dp.Accountant(certified=True).compose(m, 500)
    eps, eps_certified = plain.epsilon(1e-5), certified.epsilon(1e-5)
    # certified mode uses the integer orders only; the float grid also has dp_accounting's 0.1 steps
    integer_orders = [a for a in dp.DEFAULT_ORDERS if a == int(a)]
    assert eps_certified == pytest.approx(dp.Accountant(integer_orders).compose(m, 500).epsilon(1e-5), rel=1e-6)
    assert eps <= eps_certified <= eps * 1.001
    assert dp.Accountant(certified=True, relation="replace_one").compose(m, 500).epsilon(1e-5) >= eps_certified


def test_zero_rate_is_silent_and_rate_one_is_the_laplace():
    assert dp.Accountant().compose(SampledLaplace(0.0, 1.0), 10).epsilon(1e-5) == 0.0
    assert dp.PLDAccountant().compose(SampledLaplace(0.0, 1.0), 10).epsilon(1e-5) == 0.0
    assert dp.Accountant().compose(SampledLaplace(1.0, 2.0), 10).epsilon(1e-5) == \
        dp.Accountant().compose(dp.Laplace(2.0), 10).epsilon(1e-5)


@pytest.mark.parametrize("q, b, delta", [(0.05, 1.0, 1e-6), (0.3, 0.5, 1e-3), (0.9, 2.0, 1e-8)])
def test_the_pld_bracket_of_one_step_contains_the_exact_tight_epsilon(q, b, delta):
    lower, upper = dp.PLDAccountant().compose(SampledLaplace(q, b)).epsilon_bounds(delta)
    with mpmath.workdps(40):
        assert one_step_delta(upper, q, b, _Mp) <= delta
        assert lower == 0 or one_step_delta(lower, q, b, _Mp) >= delta
    assert upper - lower <= 2e-3 * upper


def test_the_pld_epsilon_of_a_composition_is_below_the_rdp_one():
    m = SampledLaplace(0.01, 1.0)
    bounds = dp.PLDAccountant().compose(m, 1000).epsilon_bounds(1e-5)
    assert bounds.source == "pld" and bounds.upper < dp.Accountant().compose(m, 1000).epsilon(1e-5)


def test_replace_one_is_rdp_only_and_the_pld_accountant_says_why():
    m = SampledLaplace(0.01, 1.0)
    assert dp.Accountant(relation="replace_one").supports(m)
    pld = dp.PLDAccountant(relation="replace_one")
    assert not pld.supports(m) and dp.PLDAccountant().supports(m)
    with pytest.raises(dp.InvalidArgument, match="replace_one.*not supported by the PLD accountant"):
        pld.compose(m)
    assert pld.ledger == []
    add_remove = dp.Accountant().compose(m, 100).epsilon(1e-5)
    assert dp.Accountant(relation="replace_one").compose(m, 100).epsilon(1e-5) > add_remove


def test_the_exact_evaluator_is_the_larger_direction():
    m = SampledLaplace(0.2, 0.7)
    value = dp.rdp(m, 3.5)
    both = [sampled_laplace_divergence(3.5, 0.2, 0.7, d) for d in ("add", "remove")]
    assert float(value) == pytest.approx(float(max(both)), rel=1e-20) and math.isfinite(float(value))
    assert float(dp.log_moment(m, 2)) == pytest.approx(2 * float(dp.rdp(m, 3)), rel=1e-30)


def test_the_dp_accounting_bridge_maps_a_poisson_sampled_laplace_both_ways():
    dpa = pytest.importorskip("dp_accounting")
    from dpproofs.integrations import dp_accounting as bridge

    event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.LaplaceDpEvent(2.0)), 10)
    for kind in ("rdp", "pld"):
        acc = bridge.accountant_for(event, kind)
        assert acc.ledger == [(dp.SampledLaplace(0.01, 2.0), 10)] and bridge.supports(event, kind)
        assert bridge.to_event(acc) == event
    assert not bridge.supports(event, "pld", neighboring_relation="replace_one")
