"""The accountant_* vocabulary functions return exactly what the public accountant returns, as mpf
and as exact balls, and refuse arguments that do not name one float."""

import pytest
import sympy
from flint import arb
from mpmath import mp

import dpproofs as dp
from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary

F = vocabulary.namespace()

q, sigma, T, delta = sympy.symbols("q sigma T delta", real=True)
POINT = {"q": 0.01, "sigma": 4.0, "T": 10000, "delta": 1e-5}


def test_accountant_epsilon_is_the_public_answer_exactly_in_mp_and_as_an_exact_ball():
    expr = F["accountant_epsilon_sampled_gaussian"](q, sigma, T, delta, 1, 0, 0)
    public = dp.Accountant().compose(dp.SampledGaussian(0.01, 4.0), 10000).epsilon(1e-5, "classic")
    assert arithmetic.evaluate_mp(expr, POINT, 50) == mp.mpf(public)
    ball = arithmetic.evaluate_ball(expr, POINT, 256)
    assert ball.is_exact() and ball == arb(public)


def test_accountant_order_delta_rdp_and_calibration_match_the_public_api():
    accountant = dp.Accountant(certified=True).compose(dp.Gaussian(2.0), 7)
    assert float(arithmetic.evaluate_mp(F["accountant_order_gaussian"](sigma, T, delta, 0, 0, 1),
                                        {"sigma": 2.0, "T": 7, "delta": 1e-5}, 30)) == accountant.epsilon_and_order(1e-5)[1]
    assert float(arithmetic.evaluate_mp(F["accountant_delta_gaussian"](sigma, T, 3.0, 0, 1),
                                        {"sigma": 2.0, "T": 7}, 30)) == accountant.delta(3.0)
    assert float(arithmetic.evaluate_mp(F["accountant_rdp_laplace"](2.5, sigma, T), {"sigma": 2.0, "T": 7}, 30)) == (
        dp.Accountant([2.5]).compose(dp.Laplace(2.0), 7).rdp[0]
    )
    calibrated = dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=1000)
    assert float(arithmetic.evaluate_mp(F["calibrated_sigma"](1, delta, q, T, 0), {**POINT, "T": 1000}, 30)) == calibrated


def test_a_computed_argument_is_rounded_to_the_nearest_float_and_a_straddling_ball_is_refused():
    expr = F["accountant_rdp_gaussian"](2, sigma / 3, 1)
    assert float(arithmetic.evaluate_mp(expr, {"sigma": 1.0}, 30)) == dp.Accountant([2]).compose(dp.Gaussian(1 / 3)).rdp[0]
    with pytest.raises(vocabulary.UnsupportedExpression, match="float64"):
        vocabulary._float_of(arb(1.0, 1e-10))
    with pytest.raises(vocabulary.UnsupportedExpression, match="integer"):
        arithmetic.evaluate_mp(F["accountant_rdp_gaussian"](2, 1, sympy.Rational(3, 2)), {}, 30)


def test_bad_accountant_arguments_raise_the_accountants_own_error():
    with pytest.raises(dp.InvalidArgument, match="delta"):
        arithmetic.evaluate_mp(F["accountant_epsilon_gaussian"](1, 1, 2, 0, 0, 0), {}, 30)
