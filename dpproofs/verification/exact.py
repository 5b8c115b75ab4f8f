"""Exact decisions at rational points: the corners of the domain as typed, and ties.

A bound such as ``x <= 0.1`` is the rational 1/10, which no float equals; a claim false only there
(``x < 0.1``) or only at a tie (``delta_randomized_response(eps, eps) = 0``) can be refuted only at
that exact point. :func:`candidates` lists the rational corners of the exact domain (closed bounds
only: an open bound is not a point of the domain), :func:`decide_at` decides the claim there:

1. ball arithmetic with the exact rational coordinates, at doubling precision up to
   :data:`EXACT_MAX_BITS` bits; a separated answer is final (a violation is then confirmed by
   the mpmath reference, as every counterexample is);
2. else (the two sides agree to every bit tried: a tie) exact arithmetic: the closed forms of
   :data:`EXACT_FORMS` replace the vocabulary calls, the coordinates are substituted as sympy
   Rationals and sympy decides ``lhs - rhs`` exactly when it reduces to a rational number or to
   zero (``exp(1/10) - exp(1/10)`` is 0 on construction). Nothing else is guessed: an undecided
   tie stays undecided.

The exact forms are the printed formulas of the vocabulary functions that have an elementary
closed form (Mironov 2017, arXiv 1702.07476v3, Props. 5-7; Balle & Wang 2018, Thm. 8, for the
Gaussian profile); tests/test_verify_exact.py checks each against the shared evaluator at random
points, so they cannot drift from it.
"""

import fractions
import itertools
import math

import sympy

from dpproofs.checker import precision
from dpproofs.checker import arithmetic
from dpproofs.checker import vocabulary
from dpproofs.checker.claims import relation_of
from dpproofs.checker.decide import Outcome, compare
from dpproofs.errors import DPProofsError

__all__ = ["EXACT_FORMS", "EXACT_MAX_BITS", "MAX_EXACT_CANDIDATES", "candidates", "decide_at", "exact_form",
           "to_rational", "point_text"]

#: Highest ball precision (bits) tried at an exact point before calling the sides a tie.
EXACT_MAX_BITS = 4096
#: Bits of the first ball evaluations at an exact point; past them the exact decision is tried
#: before the precision is doubled further.
EARLY_EXACT_BITS = 256
#: Most exact corners decided before the search (all of them up to 6 variables).
MAX_EXACT_CANDIDATES = 64
#: Largest number of operations of an exact expression sympy is asked to reduce (a bound on the
#: work: a tie that needs more stays undecided).
MAX_EXACT_OPS = 400

_ERRORS = (DPProofsError, ValueError, ZeroDivisionError, ArithmeticError, TypeError)


def _phi(x):
    return sympy.erfc(-x / sympy.sqrt(2)) / 2


def _rdp_rr(alpha, eps):
    p = sympy.exp(eps) / (1 + sympy.exp(eps))
    return sympy.log(p**alpha * (1 - p) ** (1 - alpha) + (1 - p) ** alpha * p ** (1 - alpha)) / (alpha - 1)


#: Elementary closed forms of vocabulary functions (name -> function of sympy arguments).
EXACT_FORMS = {
    "rdp_gaussian": lambda alpha, sigma: alpha / (2 * sigma**2),
    "rdp_laplace": lambda alpha, b: sympy.log(
        alpha / (2 * alpha - 1) * sympy.exp((alpha - 1) / b) + (alpha - 1) / (2 * alpha - 1) * sympy.exp(-alpha / b)
    ) / (alpha - 1),
    "rdp_randomized_response": _rdp_rr,
    "delta_laplace": lambda eps, b: sympy.Max(0, 1 - sympy.exp((eps - 1 / b) / 2)),
    "delta_randomized_response": lambda eps_prime, eps: sympy.Max(0, sympy.exp(eps) - sympy.exp(eps_prime))
    / (1 + sympy.exp(eps)),
    "delta_gaussian": lambda eps, sigma: _phi(1 / (2 * sigma) - eps * sigma)
    - sympy.exp(eps) * _phi(-1 / (2 * sigma) - eps * sigma),
    "Phi": _phi,
}


def exact_form(expr):
    """``expr`` with every vocabulary call that has a closed form replaced by it (or None when
    some vocabulary call has none)."""
    known = vocabulary.namespace()  # content packages' quantities included
    for node in sympy.preorder_traversal(expr):
        name = getattr(node.func, "__name__", None)
        if isinstance(node, sympy.Function) and name in known and name not in EXACT_FORMS:
            return None

    def rebuild(node):
        if not node.args:
            return node
        args = [rebuild(a) for a in node.args]
        name = getattr(node.func, "__name__", None)
        if isinstance(node, sympy.Function) and name in EXACT_FORMS:
            return EXACT_FORMS[name](*args)
        return node.func(*args) if args != list(node.args) else node

    return rebuild(expr)


def _sampled(q, at_zero, at_one):
    """A sampled-Gaussian quantity at an exact sampling rate: its value at q = 0 or q = 1 (the
    unsampled Gaussian), else None (kept opaque)."""
    if q == 0:
        return at_zero
    if q == 1:
        return at_one
    return None


#: Largest n for which ``delta_composed_pure`` is written out as its sum (n + 1 terms).
MAX_COMPOSED_TERMS = 6


def _composed_pure(eps_prime, eps, n):
    """Kairouz, Oh & Viswanath 2015 (arXiv 1311.0776v4), Thm 3.3, at an exact integer n >= 1."""
    if not (n.is_Integer and 1 <= n <= MAX_COMPOSED_TERMS):
        return None  # a larger sum of exponentials makes sympy's expand run for minutes
    total = sum(sympy.binomial(n, l) * sympy.Max(0, sympy.exp((n - l) * eps) - sympy.exp(eps_prime + l * eps))
                for l in range(int(n) + 1))
    return total / (1 + sympy.exp(eps)) ** n


#: Closed forms that hold at some exact points only, or that rewrite a vocabulary function in
#: terms of another (name -> function of the substituted sympy arguments, None where it has no
#: form there: the call stays opaque, and a tie is decided only if the opaque calls cancel).
#: ``log_moment(lam, q, sigma) = lam rdp_sampled_gaussian(lam + 1, q, sigma)`` is its definition
#: (Abadi et al. 2016, arXiv 1607.00133v2, Eqs. 3-4); at q = 1 the sampled Gaussian is the
#: Gaussian (Mironov 2017 Prop. 7: alpha/(2 sigma^2)), at q = 0 both distributions are equal.
POINT_FORMS = {
    "rdp_sampled_gaussian": lambda alpha, q, sigma: _sampled(q, sympy.Integer(0), alpha / (2 * sigma**2)),
    "log_moment": lambda lam, q, sigma: _sampled(q, sympy.Integer(0), lam * (lam + 1) / (2 * sigma**2))
    if q in (0, 1) else lam * vocabulary.namespace()["rdp_sampled_gaussian"](lam + 1, q, sigma),
    "delta_sampled_gaussian": lambda eps, q, sigma: _sampled(q, sympy.Integer(0), EXACT_FORMS["delta_gaussian"](eps, sigma)),
    "delta_composed_pure": _composed_pure,
}


def exact_value(expr, values):
    """``expr`` at the exact point ``values`` (symbol -> sympy Rational) with the closed forms of
    :data:`EXACT_FORMS` and :data:`POINT_FORMS` substituted; the vocabulary calls without a form
    there are kept as opaque calls (sympy cancels identical ones, nothing else)."""
    expr = expr.xreplace(values)

    def rebuild(node):
        if not node.args:
            return node
        args = [rebuild(a) for a in node.args]
        name = getattr(node.func, "__name__", None)
        if isinstance(node, sympy.Function) and name in (EXACT_FORMS.keys() | POINT_FORMS.keys()):
            form = EXACT_FORMS.get(name) or POINT_FORMS.get(name)
            value = form(*args) if form is not None else None
            if value is not None:
                return rebuild(value) if value.has(sympy.Function) and value != node else value
        return node.func(*args) if args != list(node.args) else node

    return rebuild(expr)


def to_rational(value):
    """A coordinate (int, float, Fraction, sympy Rational) as a sympy Rational, exactly."""
    if isinstance(value, bool):
        raise TypeError("a bool is not a coordinate")
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, float):
        return sympy.Rational(*value.as_integer_ratio())
    if isinstance(value, fractions.Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    return sympy.Rational(value)


def _coordinate(value):
    """An exact sympy number as the point coordinate the evaluators take (int or Fraction)."""
    value = sympy.Rational(value)
    if value.q == 1:
        return int(value.p)
    return fractions.Fraction(int(value.p), int(value.q))


def point_text(point):
    """A point's coordinates as JSON values: ints, floats, and ``"p/q"`` for other rationals."""
    out = {}
    for name, value in point.items():
        if isinstance(value, fractions.Fraction):
            out[name] = int(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
        else:
            out[name] = value
    return out


#: Exact points stepped inside an open bound: ``bound -+ width * 2^-k`` for these k (a claim
#: false only beyond every float, e.g. ``1/(1 - q) <= 10**17`` on ``0 <= q < 1``, is false there).
NEAR_OPEN_STEPS = (64, 256)


def candidates(variables, bounds):
    """The exact corners of the domain: every combination of each variable's closed exact bounds
    and of exact points just inside its open ones (:data:`NEAR_OPEN_STEPS`); a variable with no
    exact bound contributes the float corners of its box. At most :data:`MAX_EXACT_CANDIDATES`,
    in a fixed order (closed corners first)."""
    choices = []
    for v in variables:
        low, low_strict, high, high_strict = bounds.get(v.name, (None, True, None, True))
        values = []
        if v.integer:
            values = [int(v.low), int(v.high)]
        else:
            rational_low = low if low is not None and low.is_Rational else None
            rational_high = high if high is not None and high.is_Rational else None
            if rational_low is not None and not low_strict:
                values.append(_coordinate(rational_low))
            if rational_high is not None and not high_strict:
                values.append(_coordinate(rational_high))
            if rational_low is not None and rational_high is not None and rational_high > rational_low:
                width = rational_high - rational_low
                for k in NEAR_OPEN_STEPS:
                    if low_strict:
                        values.append(_coordinate(rational_low + width / sympy.Integer(2) ** k))
                    if high_strict:
                        values.append(_coordinate(rational_high - width / sympy.Integer(2) ** k))
            if not values:
                inside_low = math.nextafter(float(v.low), math.inf) if v.low_open else float(v.low)
                inside_high = math.nextafter(float(v.high), -math.inf) if v.high_open else float(v.high)
                values = [inside_low, inside_high]
        unique = []
        for value in values:
            if value not in unique:
                unique.append(value)
        choices.append(unique)
    found = []
    for combination in itertools.product(*choices):
        found.append({v.name: value for v, value in zip(variables, combination)})
        if len(found) >= MAX_EXACT_CANDIDATES:
            break
    return found


def _balls(lhs, rhs, point, low_bits=128, high_bits=EXACT_MAX_BITS):
    """Ball enclosures of both sides, doubling the precision from ``low_bits`` until they
    separate (or to ``high_bits``): ``(lhs, rhs)`` (None, None when nothing was enclosed)."""
    last = (None, None)
    for bits in precision.doubling(low_bits, high_bits):
        try:
            left = arithmetic.evaluate_ball(lhs, point, bits)
            right = arithmetic.evaluate_ball(rhs, point, bits)
        except vocabulary.UnsupportedExpression:
            return last
        except _ERRORS:
            continue
        if not (left.is_finite() and right.is_finite()):
            continue
        last = (left, right)
        if not left.overlaps(right):
            return last
    return last


def _exact_sign(lhs, rhs, point):
    """The sign (-1, 0, 1) of ``lhs - rhs`` at the rational ``point`` decided exactly, or None."""
    values = {s: to_rational(point[s.name]) for s in (lhs.free_symbols | rhs.free_symbols) if s.name in point}
    try:
        left, right = exact_value(lhs, values), exact_value(rhs, values)
        if sympy.count_ops(left) + sympy.count_ops(right) > MAX_EXACT_OPS:
            return None
        difference = left - right
        if difference.free_symbols:
            return None
        if not difference.is_Rational:
            difference = sympy.expand(difference)
    except _ERRORS:
        return None
    if difference.is_Rational:
        return int(sympy.sign(difference))
    if difference.is_zero is True:
        return 0
    return None


_HOLDS_BY_SIGN = {"<=": (-1, 0), "<": (-1,), ">=": (1, 0), ">": (1,)}


def _relation_outcome(lhs, rhs, relation, point):
    """``(Outcome, how, left ball, right ball)`` of ``lhs relation rhs`` at an exact point."""
    # balls at low precision; where they overlap, the exact decision first (a tie of two sampled
    # Gaussian integrals would otherwise be escalated to 4096 bits, 40 s an integral), then higher bits
    # (only for claims with a sampled-Gaussian or composition call: elsewhere balls are cheap and
    # sympy's expand can run for minutes on, e.g., powers with exponent 1 + 2^-52)
    early = any(getattr(f.func, "__name__", None) in POINT_FORMS for side in (lhs, rhs) for f in side.atoms(sympy.Function))
    left, right = _balls(lhs, rhs, point, high_bits=EARLY_EXACT_BITS if early else EXACT_MAX_BITS)
    if left is not None and not left.overlaps(right):
        return compare(left, right, relation), "ball", left, right
    sign = _exact_sign(lhs, rhs, point)
    if sign is None and early:
        higher = _balls(lhs, rhs, point, low_bits=2 * EARLY_EXACT_BITS)
        if higher[0] is not None:
            left, right = higher
            if not left.overlaps(right):
                return compare(left, right, relation), "ball", left, right
    if sign is None and left is not None and left.rad().is_zero() and right.rad().is_zero():
        sign = 0  # two exact balls that overlap are the same number
    if sign is None:
        return Outcome.UNDECIDED, None, left, right
    outcome = Outcome.HOLDS if sign in _HOLDS_BY_SIGN[relation] else Outcome.VIOLATED
    return outcome, "exact", left, right


def relation_outcome(lhs, rhs, relation, point):
    """The Outcome of ``lhs relation rhs`` at the exact ``point`` (see :func:`decide_at`)."""
    return _relation_outcome(lhs, rhs, relation, point)[0]


def hypotheses_hold(hypotheses, point):
    """Whether every hypothesis certainly holds at the exact ``point`` (ties decided exactly)."""
    for hypothesis in hypotheses:
        outcome, _, _, _ = _relation_outcome(hypothesis.lhs, hypothesis.rhs, relation_of(hypothesis), point)
        if outcome is not Outcome.HOLDS:
            return False
    return True


def decide_at(claim, point):
    """The claim at the exact ``point``: ``(outcome, how, details)``; ``how`` is ``"ball"`` (ball
    arithmetic separated the sides), ``"exact"`` (sympy decided a tie exactly) or None
    (undecided, or the point is outside the hypotheses: outcome None)."""
    try:
        if not hypotheses_hold(claim.hypotheses, point):
            return None, None, {}
        outcome, how, left, right = _relation_outcome(claim.lhs, claim.rhs, claim.relation, point)
    except _ERRORS as error:
        return Outcome.UNDECIDED, None, {"note": f"evaluation failed: {error}"}
    details = {}
    if left is not None:
        details.update(lhs_ball=str(left), rhs_ball=str(right))
    return outcome, how, details
