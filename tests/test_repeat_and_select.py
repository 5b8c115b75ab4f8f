"""dpproofs.RepeatAndSelect: Papernot & Steinke 2022 (arXiv 2110.03620v2), Theorems 2 and 6."""

import json
import math

import mpmath
import numpy as np
import pytest

import dpproofs as dp
from dpproofs.mechanisms import _tnb_gamma_lower, _tnb_mean

ORDERS = np.array([1.5, 2.0, 3.0, 8.0, 32.0, 256.0])


def _corollary_4(order, sigma, mean, shape, orders=None):
    """Theorem 2 for one Gaussian of RDP rho * alpha (rho = 1/(2 sigma^2)), minimised over
    lambda_hat >= 1 and over the orders at or above ``order`` (all of them, or those of ``orders``;
    mpmath, 40 digits)."""
    with mpmath.workdps(40):
        rho = 1 / (2 * mpmath.mpf(sigma) ** 2)
        log_inv_gamma = -mpmath.log(_gamma_exact(mean, shape))
        hat = max(mpmath.mpf(1), mpmath.sqrt(log_inv_gamma / rho))
        constant = (1 + shape) * ((hat - 1) * rho + log_inv_gamma / hat)
        if orders is None:
            low = max(mpmath.mpf(order), 1 + mpmath.sqrt(mpmath.log(mean) / rho))
            return rho * low + mpmath.log(mean) / (low - 1) + constant
        return min(rho * a + mpmath.log(mean) / (a - 1) for a in map(mpmath.mpf, orders) if a >= order) + constant


def _gamma_exact(mean, shape):
    with mpmath.workdps(40):
        return mpmath.findroot(lambda g: _tnb_mean(g, shape, mpmath) - mean, (mpmath.mpf(1e-30), mpmath.mpf(1) - 1e-30),
                               solver="anderson")


@pytest.mark.parametrize("mean, shape", [(10.0, 1.0), (3.0, 0.0), (100.0, 0.5), (1.5, 5.0)])
def test_gamma_is_at_most_the_exact_root_and_within_1e_14(mean, shape):
    gamma = _tnb_gamma_lower(mean, shape)
    exact = _gamma_exact(mean, shape)
    assert gamma <= exact and float(exact) == pytest.approx(gamma, rel=1e-14)
    if shape == 1:
        assert gamma == pytest.approx(1 / mean, rel=1e-15)


@pytest.mark.parametrize("sigma, mean, shape", [(1.0, 10.0, 1.0), (3.0, 50.0, 0.0), (0.7, 4.0, 2.0)])
def test_truncated_negative_binomial_is_above_theorem_2_and_close_to_its_best(sigma, mean, shape):
    mechanism = dp.RepeatAndSelect([(dp.Gaussian(sigma), 1)], mean, shape)
    curve = mechanism.rdp_curve(ORDERS, "add_remove")
    for order, value in zip(ORDERS, curve):
        assert value >= _corollary_4(order, sigma, mean, shape)
        # on the same orders, within the lambda_hat grid's resolution (161 points over 7 decades)
        assert value <= _corollary_4(order, sigma, mean, shape, ORDERS) * (1 + 1e-3)


def test_mean_one_is_one_run_and_an_inner_composition_adds_its_curves():
    run = [(dp.Gaussian(2.0), 3), (dp.Laplace(5.0), 2)]
    one = dp.RepeatAndSelect(run, 1, 1.0).rdp_curve(ORDERS, "add_remove")
    composed = 3 * dp.Gaussian(2.0).rdp_curve(ORDERS, "add_remove") + 2 * dp.Laplace(5.0).rdp_curve(ORDERS, "add_remove")
    assert np.array_equal(one, composed)
    many = dp.RepeatAndSelect(run, 20.0, 1.0).rdp_curve(ORDERS, "add_remove")
    assert np.all(many > composed)


def test_poisson_pure_laplace_matches_theorem_6_with_delta_hat_zero():
    # Laplace of pure epsilon 1 at lambda = 1 + 1/expm1(1): eps_hat = 1 = the pure epsilon, delta_hat = 0
    order = 1 + 1 / math.expm1(1.0)
    value = dp.RepeatAndSelect([(dp.Laplace(1.0), 1)], 1000.0, math.inf).rdp_curve(np.array([order]), "add_remove")[0]
    laplace = dp.Laplace(1.0).rdp_curve(np.array([order]), "add_remove")[0]
    expected = laplace + math.log(1000.0) / (order - 1)
    assert expected <= value <= expected * (1 + 1e-9)


def test_poisson_gaussian_is_above_theorem_6_with_the_exact_gaussian_delta():
    sigma, mean = 2.0, 1e6
    curve = dp.RepeatAndSelect([(dp.Gaussian(sigma), 1)], mean, math.inf).rdp_curve(ORDERS, "add_remove")
    with mpmath.workdps(40):
        def bound(order):
            order, s = mpmath.mpf(order), mpmath.mpf(sigma)
            eps = mpmath.log1p(1 / (order - 1))
            delta = mpmath.ncdf(1 / (2 * s) - eps * s) - mpmath.exp(eps) * mpmath.ncdf(-1 / (2 * s) - eps * s)
            return order / (2 * s * s) + mean * delta + mpmath.log(mean) / (order - 1)

        exact = [bound(a) for a in ORDERS]
    for i, value in enumerate(curve):
        assert value >= min(exact[i:])
        assert value <= min(exact[i:]) * (1 + 1e-9)


def test_pure_epsilon_is_2_plus_eta_times_the_runs_and_inf_for_poisson():
    assert dp.RepeatAndSelect([(dp.Laplace(2.0), 1)], 5.0, 3.0).pure_epsilon("add_remove") == pytest.approx(2.5, rel=1e-15)
    assert dp.RepeatAndSelect([(dp.Laplace(2.0), 1)], 5.0, 3.0).pure_epsilon("add_remove") >= 2.5
    assert dp.RepeatAndSelect([(dp.Laplace(2.0), 1)], 5.0, math.inf).pure_epsilon("add_remove") == math.inf


def test_accountants_use_it_and_refuse_it_clearly_where_there_is_no_analysis():
    mechanism = dp.RepeatAndSelect([(dp.Gaussian(1.0), 1)], 10.0, 1.0)
    assert dp.Accountant().compose(mechanism).epsilon(1e-5) > dp.Accountant().compose(dp.Gaussian(1.0)).epsilon(1e-5)
    with pytest.raises(dp.InvalidArgument, match="not supported by the PLD accountant"):
        dp.PLDAccountant().compose(mechanism)
    with pytest.raises(dp.InvalidArgument, match="certified"):
        dp.Accountant(certified=True).compose(mechanism).epsilon(1e-5)


@pytest.mark.parametrize("mechanism", [
    dp.RepeatAndSelect([(dp.Gaussian(1.0), 2), (dp.SampledGaussian(0.01, 1.1), 100)], 10.0, 0.5),
    dp.RepeatAndSelect([(dp.Laplace(1.0), 1)], 3.0, math.inf),
])
def test_it_round_trips_through_json(mechanism):
    assert dp.Mechanism.from_dict(json.loads(json.dumps(mechanism.to_dict()))) == mechanism


@pytest.mark.parametrize("kwargs, words", [
    ({"mean": 0.5}, "mean=0.5"), ({"mean": float("nan")}, "mean=nan"), ({"shape": -1.0}, "shape=-1.0"),
    ({"shape": float("nan")}, "shape=nan"), ({"inner": [(dp.Gaussian(1.0), -1)]}, r"inner\[0\]\[1\]=-1"),
    ({"inner": [("Gaussian", 1)]}, r"inner\[0\]\[0\]"),
])
def test_bad_arguments_are_named(kwargs, words):
    arguments = {"inner": [(dp.Gaussian(1.0), 1)], "mean": 10.0, "shape": 1.0, **kwargs}
    with pytest.raises((dp.InvalidArgument, dp.InvalidArgumentType), match=words):
        dp.RepeatAndSelect(**arguments)


def test_an_accountant_holding_it_round_trips_through_json():
    accountant = dp.Accountant().compose(dp.RepeatAndSelect([(dp.Gaussian(3.0), 5)], 10.0, math.inf), 2)
    again = dp.Accountant.from_dict(json.loads(json.dumps(accountant.to_dict())))
    assert again.ledger == accountant.ledger and again.epsilon(1e-5) == accountant.epsilon(1e-5)
