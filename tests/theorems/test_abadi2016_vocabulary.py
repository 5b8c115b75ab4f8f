"""The vocabulary the Abadi et al. 2016 claims are stated over: one registration per quantity
(evaluators, domain, doc), ball enclosures that contain the mpmath values, domains enforced,
structured arguments (finite pairs, adaptive compositions) passed through."""

from fractions import Fraction

import pytest
import sympy
from flint import arb
from hypothesis import given
from hypothesis import strategies as st
from mpmath import mp

from dpproofs.checker.oracles import finite
from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary
from dpproofs.checker.decide import Outcome, compare, mp_ball
from dpproofs.errors import InvalidArgument
from dpproofs.checker.vocabulary import NAMESPACE as F
import dpproofs_theorems.abadi2016  # noqa: F401  (registers the paper's quantities)

#: registered by dpproofs_theorems.abadi2016 (its quantities.py)
ABADI = [
    "log_moment_add", "log_moment_remove", "eq5_moment_add", "eq5_moment_remove", "eq5_series_add",
    "eq5_series_remove", "gaussian_ratio_moment", "log_moment_randomized_response",
    "loss_mean_randomized_response", "ceil", "kl_pair", "loss_centred_range_pair", "log_moment_pair",
    "loss_tail_pair", "max_event_excess_pair", "sum_step_log_moments", "sum_step_log_moments_min_aux",
    "loss_sum_gap", "log_moment_factorised",
]
#: generic quantities the claims also use, registered by the library
GENERIC = ["delta_sampled_gaussian_add", "swapped", "eps_pair", "delta_pair", "joint"]
#: the quadratures: mpmath only, on purpose (claims compare them with closed forms)
NO_BALL = {"eq5_moment_remove", "eq5_series_remove", "gaussian_ratio_moment"}

PAIR = finite.Pair((Fraction(3, 5), Fraction(1, 5), Fraction(1, 5)), (Fraction(1, 5), Fraction(2, 5), Fraction(2, 5)))
HALF = (Fraction(1, 2), Fraction(1, 2))
COMPOSITION = finite.AdaptiveComposition((
    {(): finite.Pair((Fraction(2, 3), Fraction(1, 3)), HALF)},
    {(0,): finite.Pair(HALF, HALF), (1,): finite.Pair((Fraction(9, 10), Fraction(1, 10)), (Fraction(1, 10), Fraction(9, 10)))},
))
lam, q, sigma, eps, t = sympy.symbols("lam q sigma eps t", positive=True)
pair, composition = sympy.Symbol("pair"), sympy.Symbol("composition")

# (expression, point) where both evaluators apply
NUMERIC = [
    (F["log_moment_add"](lam, q, sigma), {"lam": 5, "q": 0.01, "sigma": 1.5}),
    (F["log_moment_add"](lam, q, sigma), {"lam": 2.5, "q": 0.05, "sigma": 2.0}),
    (F["log_moment_remove"](lam, q, sigma), {"lam": 3, "q": 0.02, "sigma": 1.0}),
    (F["eq5_moment_add"](t, q, sigma), {"t": 5, "q": 0.1, "sigma": 8.0}),
    (F["eq5_series_add"](lam, q, sigma), {"lam": 7, "q": 0.3, "sigma": 0.7}),
    (F["log_moment_randomized_response"](lam, eps), {"lam": 0.5, "eps": 0.01}),
    (F["loss_mean_randomized_response"](eps), {"eps": 2.0}),
    (F["delta_sampled_gaussian_add"](eps, q, sigma), {"eps": 0.5, "q": 0.1, "sigma": 1.2}),
    (F["ceil"](2 * eps), {"eps": 1.3}),
    (F["eps_pair"](pair), {"pair": PAIR}),
    (F["kl_pair"](F["swapped"](pair)), {"pair": PAIR}),
    (F["loss_centred_range_pair"](pair), {"pair": PAIR}),
    (F["log_moment_pair"](lam, pair), {"lam": 3.5, "pair": PAIR}),
    (F["delta_pair"](eps, pair), {"eps": 0.3, "pair": PAIR}),
    (F["loss_tail_pair"](eps, pair), {"eps": 0.3, "pair": PAIR}),
    (F["max_event_excess_pair"](eps, pair), {"eps": 0.3, "pair": PAIR}),
    (F["sum_step_log_moments"](lam, composition), {"lam": 2.0, "composition": COMPOSITION}),
    (F["sum_step_log_moments_min_aux"](lam, composition), {"lam": 2.0, "composition": COMPOSITION}),
    (F["log_moment_factorised"](lam, composition), {"lam": 2.0, "composition": COMPOSITION}),
    (F["log_moment_pair"](lam, F["joint"](composition)), {"lam": 2.0, "composition": COMPOSITION}),
]


@pytest.mark.parametrize("name", ABADI + GENERIC)
def test_every_abadi_quantity_is_one_registration_with_evaluators_a_domain_per_argument_and_a_doc(name):
    binding = vocabulary.FUNCTIONS[name]
    assert binding.doc.strip()
    assert binding.symbol.nargs == {len(binding.domain)}
    assert callable(binding.precise) and callable(binding.ball)
    assert binding.has_ball is (name not in NO_BALL)


@pytest.mark.parametrize("expr, point", NUMERIC, ids=lambda x: str(x)[:60] if not isinstance(x, dict) else "")
def test_abadi_quantity_ball_encloses_its_mpmath_value(expr, point):
    value = arithmetic.evaluate_mp(expr, point, 40)
    enclosure = arithmetic.evaluate_ball(expr, point, 256)
    assert compare(enclosure, mp_ball(value, 40), "==") is Outcome.HOLDS  # they overlap
    assert enclosure.rad() <= abs(enclosure.mid()) * arb(2) ** -60 + arb(2) ** -200  # and it is tight


def test_the_paper_quantities_live_in_the_paper_package_and_the_library_registers_none_of_them():
    from dpproofs_theorems.abadi2016 import quantities

    assert set(ABADI) <= set(quantities.QUANTITIES)
    assert not set(GENERIC) & set(quantities.QUANTITIES)
    for name in ABADI:
        assert vocabulary.FUNCTIONS[name].precise is quantities.QUANTITIES[name][0]


@pytest.mark.parametrize("name", sorted(NO_BALL))
def test_quadrature_quantities_have_no_ball_evaluation(name):
    expr = F[name](2, 0.1, 1.5) if name != "gaussian_ratio_moment" else F[name](2, 1.5)
    with pytest.raises(vocabulary.UnsupportedExpression):
        arithmetic.evaluate_ball(expr, {}, 128)


def test_eq5_moments_of_order_0_and_1_are_exactly_1_and_0_in_both_evaluators():
    point = {"q": 0.03, "sigma": 3.0}
    assert arithmetic.evaluate_mp(F["eq5_moment_add"](0, q, sigma), point, 30) == 1
    assert arithmetic.evaluate_mp(F["eq5_moment_add"](1, q, sigma), point, 30) == 0
    assert arithmetic.evaluate_ball(F["eq5_moment_add"](1, q, sigma), point, 128).is_zero()


def test_eq5_series_is_the_binomial_expansion_of_the_add_moment():
    point = {"lam": 6, "q": 0.2, "sigma": 0.9}
    series = arithmetic.evaluate_mp(F["eq5_series_add"](lam, q, sigma), point, 40)
    direct = arithmetic.evaluate_mp(sympy.exp(F["log_moment_add"](lam, q, sigma)), point, 40)
    assert abs(series - direct) <= abs(direct) * mp.mpf(10) ** -35


@pytest.mark.parametrize("expr, point, argument", [
    (F["log_moment_add"](lam, q, sigma), {"lam": -1.0, "q": 0.1, "sigma": 1.0}, "lam"),
    (F["log_moment_add"](lam, q, sigma), {"lam": 2, "q": 1.5, "sigma": 1.0}, "q"),
    (F["eq5_moment_remove"](2, q, sigma), {"q": 0.0, "sigma": 1.0}, "q"),
    (F["log_moment_randomized_response"](lam, eps), {"lam": 1.0, "eps": 0.0}, "eps"),
    (F["log_moment_pair"](lam, pair), {"lam": 1.0, "pair": 0.5}, "pair"),
    (F["joint"](pair), {"pair": PAIR}, "composition"),
    (F["delta_pair"](pair, pair), {"pair": PAIR}, "eps"),
])
def test_abadi_quantity_outside_its_domain_raises_naming_the_argument(expr, point, argument):
    for evaluate in (lambda: arithmetic.evaluate_mp(expr, point, 30), lambda: arithmetic.evaluate_ball(expr, point, 128)):
        with pytest.raises(InvalidArgument, match=argument):
            evaluate()


def test_a_ball_argument_not_certainly_inside_the_domain_is_refused():
    with pytest.raises(InvalidArgument, match="eps"):
        arithmetic.evaluate_ball(F["log_moment_randomized_response"](lam, eps), {"lam": 1, "eps": arb(0, 1e-3)}, 128)


def test_ceil_has_a_ball_only_when_the_enclosure_has_one_ceiling():
    assert arithmetic.evaluate_ball(F["ceil"](eps), {"eps": arb("2.5")}, 128) == 3
    with pytest.raises(vocabulary.UnsupportedExpression):
        arithmetic.evaluate_ball(F["ceil"](eps), {"eps": arb(3, 1e-20)}, 128)


def test_structured_arguments_pass_through_and_swapped_is_an_involution():
    swapped_twice = arithmetic.evaluate_mp(F["swapped"](F["swapped"](pair)), {"pair": PAIR}, 30)
    assert swapped_twice == PAIR
    assert arithmetic.evaluate_mp(F["joint"](composition), {"composition": COMPOSITION}, 30) == COMPOSITION.joint()
    assert arithmetic.evaluate_mp(F["loss_sum_gap"](composition), {"composition": COMPOSITION}, 30) == 0


@given(st.floats(1, 8), st.floats(1, 8), st.floats(0.01, 4), st.floats(0.01, 4), st.floats(0, 1), st.floats(0, 1))
def test_rr_log_moment_corner_enclosure_over_a_box_contains_its_interior_values(l1, l2, e1, e2, a, b):
    box = {"lam": arb(min(l1, l2)).union(arb(max(l1, l2))), "eps": arb(min(e1, e2)).union(arb(max(e1, e2)))}
    inner = {"lam": min(l1, l2) + a * abs(l1 - l2), "eps": min(e1, e2) + b * abs(e1 - e2)}
    expr = F["log_moment_randomized_response"](lam, eps)
    enclosure = arithmetic.evaluate_ball(expr, box, 128)
    value = arithmetic.evaluate_ball(expr, inner, 128)
    assert (value - enclosure.upper()).upper() <= 0 and (value - enclosure.lower()).lower() >= 0


def test_a_claim_typed_through_verify_in_a_fresh_process_sees_the_abadi_quantities():
    """dp.verify parses at call time against vocabulary.namespace(): the content packages (found by
    entry point) are loaded then, so a paper's quantity is known although nothing imported it."""
    import os
    import pathlib
    import subprocess
    import sys

    code = ("import sys, dpproofs as dp; assert 'dpproofs_theorems.abadi2016' not in sys.modules; "
            "v = dp.verify('loss_mean_randomized_response(eps) <= eps**2/4', where='0 < eps <= 3', samples=50, "
            "time_budget=60); print(v.status, v.certified)")
    root = pathlib.Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["refuted", "True"]  # eps tanh(eps/2) > eps^2/4 at eps = 3
