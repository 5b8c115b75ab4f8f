"""Exact decisions at rational points, and the closed forms they rely on (dpproofs.verification.exact)."""

import fractions
import random

import mpmath
import pytest
import sympy

import dpproofs as dp
from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary
from dpproofs.checker.decide import Outcome, compare
from dpproofs.verification import build_claim, exact

_DOMAINS = {
    "rdp_gaussian": ((1.001, 64), (0.3, 10)),
    "rdp_laplace": ((1.001, 64), (0.3, 10)),
    "rdp_randomized_response": ((1.001, 64), (0.01, 5)),
    "delta_laplace": ((0, 5), (0.2, 10)),
    "delta_randomized_response": ((0, 3), (0, 3)),
    "delta_gaussian": ((0, 5), (0.2, 10)),
    "Phi": ((-8, 8),),
}


def test_every_closed_form_has_a_domain_to_be_tested_on():
    assert set(exact.EXACT_FORMS) == set(_DOMAINS)


@pytest.mark.parametrize("name", sorted(_DOMAINS))
def test_each_closed_form_agrees_with_the_shared_evaluator_at_random_points(name):
    rng = random.Random(name)
    symbols = sympy.symbols(f"a0:{len(_DOMAINS[name])}", real=True)
    call = vocabulary.NAMESPACE[name](*symbols)
    form = exact.EXACT_FORMS[name](*symbols)
    for _ in range(25):
        point = {s.name: rng.uniform(*bounds) for s, bounds in zip(symbols, _DOMAINS[name])}
        reference = arithmetic.evaluate_mp(call, point, 40)
        value = arithmetic.evaluate_mp(form, point, 40)
        assert compare(reference, value, "==", dps=30) is Outcome.HOLDS, (name, point, reference, value)


def test_an_exact_tie_is_decided_exactly_and_a_near_tie_by_balls():
    claim, problem, _ = build_claim("x < 0.1", ["0 <= x <= 0.1"])
    outcome, how, _ = exact.decide_at(claim, {"x": fractions.Fraction(1, 10)})
    assert (outcome, how) == (Outcome.VIOLATED, "exact")
    outcome, how, _ = exact.decide_at(claim, {"x": fractions.Fraction(1, 10) - fractions.Fraction(1, 10**40)})
    assert (outcome, how) == (Outcome.HOLDS, "ball")


def test_the_exact_corners_are_the_closed_bounds_as_typed_and_points_just_inside_the_open_ones():
    claim, problem, _ = build_claim("x <= 1", ["0.1 <= x < 0.3"])
    values = [point["x"] for point in exact.candidates(claim.variables, problem.bounds)]
    assert values[0] == fractions.Fraction(1, 10)
    assert all(fractions.Fraction(1, 10) <= v < fractions.Fraction(3, 10) for v in values)
    assert fractions.Fraction(3, 10) - values[1] == fractions.Fraction(1, 5) / 2**64


@pytest.mark.parametrize(
    "claim, where, integers, point",
    [
        ("x < 0.1", ["0 <= x <= 0.1"], [], {"x": "1/10"}),
        ("delta_randomized_response(eps_prime, eps) > 0", ["0 <= eps_prime <= 0.1", "0.1 <= eps <= 0.2"], [],
         {"eps_prime": "1/10", "eps": "1/10"}),
        ("rdp_gaussian(alpha, 1) <= 31.9999999999999999", ["1 < alpha <= 63.99999999999999999"], [],
         {"alpha": "6399999999999999999/100000000000000000"}),
        ("n <= 2**60", ["1 <= n <= 2**60 + 1"], ["n"], {"n": 2**60 + 1}),
    ],
)
def test_the_issue_examples_are_refuted_at_the_true_violation_with_exact_coordinates(claim, where, integers, point):
    verdict = dp.verify(claim, where, integers=integers)
    assert verdict.status == "refuted" and verdict.certified
    assert dict(verdict.counterexample) == point


@pytest.mark.parametrize(
    "claim, where",
    [("1/(1 - q) <= 10**17", ["0 <= q < 1"]), ("log(1/(alpha - 1)) <= 37", ["1 < alpha <= 2"])],
)
def test_a_claim_false_only_beyond_every_float_near_an_open_bound_is_refuted_inside_the_domain(claim, where):
    verdict = dp.verify(claim, where)
    assert verdict.status == "refuted"
    (name, value), = verdict.counterexample.items()
    user_claim, problem, _ = build_claim(claim, where)
    assert exact.hypotheses_hold(user_claim.hypotheses, {name: fractions.Fraction(value)})
    lhs = arithmetic.evaluate_mp(user_claim.lhs, {name: fractions.Fraction(value)}, 60)
    assert lhs > arithmetic.evaluate_mp(user_claim.rhs, {}, 60) * mpmath.mpf("1.1")


@pytest.mark.parametrize("claim, where, integers", [
    # log_moment is lam times the sampled Gaussian's RDP at lam + 1 by definition (an identity)
    ("log_moment(lam, q, sigma) < lam*rdp_sampled_gaussian(lam + 1, q, sigma)",
     ["1 <= lam <= 3", "0.01 <= q <= 0.1", "1 <= sigma <= 2"], ["lam"]),
    # one eps-DP mechanism: the optimal composition of n = 1 is randomized response
    ("delta_composed_pure(eps_prime, eps, n) < delta_randomized_response(eps_prime, eps)",
     ["0 <= eps_prime <= 1", "0.5 <= eps <= 2", "1 <= n <= 1"], ["n"]),
    # at q = 1 the sampled Gaussian is the Gaussian
    ("rdp_sampled_gaussian(alpha, q, sigma) < rdp_gaussian(alpha, sigma)",
     ["2 <= alpha <= 6", "0.5 <= q <= 1", "1 <= sigma <= 4"], ["alpha"]),
])
def test_an_exact_tie_under_a_strict_relation_is_refuted_exactly(claim, where, integers):
    verdict = dp.verify(claim, where, integers=integers)
    assert verdict.status == "refuted" and verdict.certified, verdict.evidence
    assert verdict.sides["exact"] == "lhs - rhs = 0 exactly"


def test_a_rewritten_vocabulary_call_decides_only_when_the_opaque_calls_cancel():
    ns = vocabulary.namespace()
    lam, q, sigma = sympy.symbols("lam q sigma")
    point = {"lam": 1, "q": fractions.Fraction(1, 100), "sigma": 1}
    same = lam * ns["rdp_sampled_gaussian"](lam + 1, q, sigma)
    assert exact._exact_sign(ns["log_moment"](lam, q, sigma), same, point) == 0
    assert exact._exact_sign(ns["log_moment"](lam, q, sigma), 2 * same, point) is None


@pytest.mark.parametrize("name, args", [
    ("rdp_sampled_gaussian", (3, 1, sympy.Rational(3, 2))), ("rdp_sampled_gaussian", (sympy.Rational(5, 2), 0, 2)),
    ("log_moment", (2, 1, sympy.Rational(3, 2))), ("log_moment", (3, sympy.Rational(1, 10), 2)),
    ("delta_sampled_gaussian", (sympy.Rational(1, 3), 1, 2)), ("delta_sampled_gaussian", (1, 0, 2)),
    ("delta_composed_pure", (sympy.Rational(1, 2), sympy.Rational(1, 3), 3)),
])
def test_each_point_form_agrees_with_the_shared_evaluator(name, args):
    args = tuple(sympy.sympify(a) for a in args)
    form = exact.exact_value(vocabulary.NAMESPACE[name](*args), {})
    reference = arithmetic.evaluate_mp(vocabulary.NAMESPACE[name](*args), {}, 40)
    value = arithmetic.evaluate_mp(form, {}, 40)
    assert compare(reference, value, "==", dps=30) is Outcome.HOLDS, (name, args, reference, value)
