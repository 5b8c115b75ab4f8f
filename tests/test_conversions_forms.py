"""dpproofs.math.conversions: the forms added for the accountant and the accountant claims (order terms,
magnitudes, delta-argument forms) are the same formulas on every backend."""

import math

import numpy as np
import pytest
import sympy
from flint import arb, ctx
from mpmath import mp

from dpproofs.math import conversions
from dpproofs.checker.vocabulary import NAMESPACE


@pytest.mark.parametrize("conversion", conversions.CONVERSIONS)
def test_the_order_terms_forms_equal_the_plain_formulas_on_numpy(conversion):
    alphas = np.array([1.000001, 1.5, 2.0, 64.0, 4096.0])
    rdp, log_delta, epsilon = alphas / 8, math.log(1e-7), 3.0
    terms = conversions.order_terms(alphas)
    np.testing.assert_array_equal(conversions.epsilon_at(conversion, rdp, terms, log_delta),
                                  conversions.epsilon_bound(conversion, rdp, alphas, log_delta))
    np.testing.assert_array_equal(conversions.log_delta_at(conversion, rdp, terms, epsilon),
                                  conversions.log_delta_bound(conversion, rdp, alphas, epsilon))


@pytest.mark.parametrize("conversion", conversions.CONVERSIONS)
def test_magnitudes_bound_the_values_they_measure(conversion):
    alphas = np.array([1.01, 3.0, 100.0])
    rdp = np.array([0.0, 0.2, 5.0])
    terms = conversions.order_terms(alphas)
    for log_delta in (math.log(1e-300), math.log(0.5)):
        value = conversions.epsilon_at(conversion, rdp, terms, log_delta)
        assert np.all(conversions.epsilon_magnitude_at(conversion, rdp, terms, log_delta) >= np.abs(value))
    value = conversions.log_delta_at(conversion, rdp, terms, 2.0)
    assert np.all(conversions.log_delta_magnitude_at(conversion, rdp, terms, 2.0) >= np.abs(value))


@pytest.mark.parametrize("conversion", conversions.CONVERSIONS)
def test_delta_forms_agree_across_mpmath_arb_and_sympy(conversion):
    alpha, rdp, delta, epsilon = 3.5, 0.25, 2.0**-20, 2.0  # exact binary numbers: every backend sees the same
    a, r, d, e = sympy.symbols("a r d e", positive=True)
    exact = {a: sympy.Rational(7, 2), r: sympy.Rational(1, 4), d: sympy.Rational(1, 2**20), e: 2}
    with mp.workdps(40):
        eps_mp = conversions.epsilon_from_delta(conversion, mp.mpf(rdp), mp.mpf(alpha), mp.mpf(delta))
        delta_mp = conversions.delta_from_epsilon(conversion, mp.mpf(rdp), mp.mpf(alpha), mp.mpf(epsilon))
        eps_sym = mp.mpf(str(sympy.N(conversions.epsilon_from_delta(conversion, r, a, d).subs(exact), 40)))
        delta_sym = mp.mpf(str(sympy.N(conversions.delta_from_epsilon(conversion, r, a, e).subs(exact), 40)))
        assert abs(eps_mp - eps_sym) < mp.mpf(10) ** -30
        assert abs(delta_mp - delta_sym) < mp.mpf(10) ** -30 * delta_mp
    saved, ctx.prec = ctx.prec, 128
    try:
        eps_ball = conversions.epsilon_from_delta(conversion, arb(rdp), arb(alpha), arb(delta))
        delta_ball = conversions.delta_from_epsilon(conversion, arb(rdp), arb(alpha), arb(epsilon))
    finally:
        ctx.prec = saved
    assert abs(float(eps_ball) - float(eps_mp)) <= 1e-15 * abs(float(eps_mp))
    assert abs(float(delta_ball) - float(delta_mp)) <= 1e-15 * float(delta_mp)


def test_a_sympy_function_of_the_vocabulary_selects_the_sympy_backend():
    x = sympy.Symbol("x", real=True)
    call = NAMESPACE["rdp_gaussian"](x, 2)
    assert conversions.backend_for(call, 2.0, 1e-5).name == "sympy"
    assert isinstance(conversions.improved_epsilon(call, 2.0, math.log(1e-5)), sympy.Basic)
    assert conversions.backend_for(1.0, np.float64(2.0)).name == "numpy"
