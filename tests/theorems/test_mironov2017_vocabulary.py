"""The Mironov 2017 section of the vocabulary: both evaluators agree, domains are enforced, the
quantities are what their docs say, and the Mironov claims' statements are mathematics, not labels."""

import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mp

from dpproofs.math import conversions
from dpproofs.checker.oracles import finite
from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary
from dpproofs.checker.decide import mp_ball
from dpproofs.errors import InvalidArgument
from dpproofs_theorems.mironov2017 import corollary1, lemma1, proposition1, proposition3, proposition4, proposition10
from tests.support import sized

MODULES = (corollary1, lemma1, proposition1, proposition3, proposition4, proposition10)

F = vocabulary.NAMESPACE
alpha, eps, n, u, shape = (sympy.Symbol(name, real=True) for name in ("alpha", "eps", "n", "u", "shape"))
pair, C, A = sympy.Symbol("pair"), sympy.Symbol("C"), sympy.Symbol("A")
RR = finite.Pair((Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4)))  # log(3)-RR
DPS, PREC = 40, 200


def _agree(expr, point):
    """The mp value lies in the ball (at DPS digits) and return it."""
    value = arithmetic.evaluate_mp(expr, point, DPS)
    enclosure = arithmetic.evaluate_ball(expr, point, PREC)
    assert enclosure.overlaps(mp_ball(value, DPS)), (expr, point, value, enclosure)
    return value


PAIR_FUNCTIONS = [
    F["rdp_pair"](alpha, pair),
    F["delta_pair"](eps, pair),
    F["eps_pair"](pair),
    F["l1_pair"](pair),
    F["prob_P"](pair, A),
    F["prob_Q"](pair, A),
]


@pytest.mark.parametrize("expr", PAIR_FUNCTIONS, ids=str)
@settings(max_examples=sized(15))
@given(p=finite.pairs(max_size=5), event=finite.event_sets(5), a=st.floats(1, 40), e=st.floats(0, 5))
def test_pair_quantities_agree_between_the_mp_and_ball_evaluators(expr, p, event, a, e):
    _agree(expr, {"alpha": a, "eps": e, "pair": p, "A": event})


@settings(max_examples=sized(10))
@given(composition=finite.adaptive_compositions(steps=2, max_outcomes=3), a=st.floats(1.01, 20))
def test_composition_quantities_agree_and_a_step_budget_bounds_each_of_its_pairs(composition, a):
    point = {"alpha": a, "C": composition}
    for i in (0, 1):
        budget = _agree(F["rdp_step"](alpha, C, i), point)
        # the budget is the largest step divergence (to the DPS digits both are computed at)
        worst = max(finite.rdp(p, a, DPS) for p in composition.step_pairs(i))
        assert abs(worst - budget) <= mp.mpf(10) ** (5 - DPS) * (1 + worst)
    _agree(F["eps_composition"](C), point)
    _agree(F["rdp_pair"](alpha, F["joint"](C)), point)


@settings(max_examples=sized(15))
@given(e=st.floats(1e-3, 2), count=st.integers(1, 200), position=st.floats(0, 1), single=st.integers(0, 1))
def test_n_fold_randomized_response_event_probabilities_agree_between_evaluators(e, count, position, single):
    point = {"eps": e, "n": count, "u": position, "shape": single}
    p_s = _agree(F["rr_event_P"](eps, n, u, shape), point)
    q_s = _agree(F["rr_event_Q"](eps, n, u, shape), point)
    assert 0 <= q_s <= 1 and 0 <= p_s <= 1


def test_n_fold_randomized_response_events_are_the_binomial_head_counts():
    e, count = 0.5, 7
    with mp.workdps(DPS):
        p = mp.exp(e) / (1 + mp.exp(e))
        # u = 0.5 selects k = floor(0.5 * 8) = 4
        threshold_p = mp.fsum(mp.binomial(count, l) * p**l * (1 - p) ** (count - l) for l in range(4, count + 1))
        level_q = mp.binomial(count, 4) * (1 - p) ** 4 * p ** (count - 4)
        point = {"eps": e, "n": count, "u": 0.5, "shape": 0}
        assert abs(arithmetic.evaluate_mp(F["rr_event_P"](eps, n, u, shape), point, DPS) - threshold_p) < 1e-35
        point["shape"] = 1
        assert abs(arithmetic.evaluate_mp(F["rr_event_Q"](eps, n, u, shape), point, DPS) - level_q) < 1e-35
        # u = 0, threshold: the whole space
        whole = {"eps": e, "n": count, "u": 0.0, "shape": 0}
        assert abs(arithmetic.evaluate_mp(F["rr_event_P"](eps, n, u, shape), whole, DPS) - 1) < 1e-35


def test_pair_quantities_of_randomized_response_have_their_closed_forms():
    point = {"pair": RR, "alpha": 2, "eps": 0, "A": finite.Event(frozenset({0, 7}))}
    with mp.workdps(DPS):
        log3 = mp.log(3)
        assert abs(arithmetic.evaluate_mp(F["eps_pair"](pair), point, DPS) - log3) < 1e-35
        assert arithmetic.evaluate_mp(F["l1_pair"](pair), point, DPS) == 1  # 2 tanh(log(3)/2) = 1
        assert arithmetic.evaluate_mp(F["delta_pair"](eps, pair), point, DPS) == mp.mpf(1) / 2  # TV at eps = 0
        assert abs(arithmetic.evaluate_mp(F["rdp_pair"](alpha, pair), point, DPS) - mp.log(mp.mpf(7) / 3)) < 1e-35
        # an event is its trace on the pair's outcomes: {0, 7} is {0}
        assert arithmetic.evaluate_mp(F["prob_P"](pair, A), point, DPS) == mp.mpf(3) / 4
        # alpha = 1 is KL, in both evaluators
        kl = _agree(F["rdp_pair"](alpha, pair), {**point, "alpha": 1})
        assert abs(kl - log3 / 2) < 1e-35


@pytest.mark.parametrize(
    "expr, point, argument",
    [
        (F["rdp_pair"](alpha, pair), {"alpha": 0.5, "pair": RR}, "alpha"),
        (F["delta_pair"](eps, pair), {"eps": -1, "pair": RR}, "eps"),
        (F["eps_pair"](pair), {"pair": 0.5}, "pair"),
        (F["prob_P"](pair, A), {"pair": RR, "A": RR}, "A"),
        (F["rr_event_P"](eps, n, u, shape), {"eps": 0.1, "n": 5, "u": 1.5, "shape": 0}, "u"),
        (F["rdp_randomized_response"](alpha, eps), {"alpha": 2, "eps": 0}, "eps"),
    ],
    ids=lambda x: str(x) if isinstance(x, str) else None,
)
def test_arguments_outside_a_registered_domain_are_refused_by_both_evaluators(expr, point, argument):
    with pytest.raises(InvalidArgument, match=f"argument {argument}="):
        arithmetic.evaluate_mp(expr, point, DPS)
    with pytest.raises(InvalidArgument, match=f"argument {argument}="):
        arithmetic.evaluate_ball(expr, point, PREC)


def test_every_mironov_registration_states_its_domain_and_doc():
    names = ["rdp_pair", "delta_pair", "eps_pair", "l1_pair", "prob_P", "prob_Q", "joint", "rdp_step",
             "eps_composition", "rr_event_P", "rr_event_Q", "rdp_sampled_gaussian_add",
             "delta_sampled_gaussian_add", "rdp_randomized_response"]
    for name in names:
        binding = vocabulary.FUNCTIONS[name]
        (arity,) = binding.symbol.nargs
        assert binding.doc and len(binding.domain) == arity, name


@settings(max_examples=sized(20))
@given(rdp=st.floats(0, 50), a=st.floats(1.001, 256), log_delta=st.floats(-60, -0.01))
def test_proposition3_conversions_are_the_conversions_module_in_every_backend(rdp, a, log_delta):
    with mp.workdps(DPS):
        d = mp.exp(log_delta)
        expected_classic = conversions.classic_epsilon(mp.mpf(rdp), mp.mpf(a), mp.log(d))
        expected_improved = conversions.improved_epsilon(mp.mpf(rdp), mp.mpf(a), mp.log(d))
        assert proposition3.classic_epsilon(mp.mpf(rdp), mp.mpf(a), d) == expected_classic
        assert proposition3.improved_epsilon(mp.mpf(rdp), mp.mpf(a), d) == expected_improved
    r, al, de = sympy.symbols("r al de", positive=True)
    assert sympy.simplify(proposition3.classic_epsilon(r, al, de) - (r + sympy.log(1 / de) / (al - 1))) == 0
    assert math.isclose(float(proposition3.classic_epsilon(rdp, a, math.exp(log_delta))),
                        rdp - log_delta / (a - 1), rel_tol=1e-12)


def test_mironov_statements_are_mathematics_over_their_domain_not_labels():
    claims = [claim for module in MODULES for claim in module.CLAIMS]
    custom = [claim for claim in claims if claim.sides is not None]
    assert len(custom) <= len(claims) // 4
    for claim in claims:
        names = {v.name for v in claim.variables} | set(claim.extra)
        free = {s.name for s in claim.statement.free_symbols}
        assert free <= names, (claim.id, free - names)
        # every function of the statement is one the evaluators know
        assert claim.sides is not None or arithmetic.ball_supported(claim.statement.lhs), claim.id
