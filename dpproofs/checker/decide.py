"""The only place where two uncertain numbers are compared.

A comparison has three outcomes: the relation certainly holds, is certainly violated, or the
numbers cannot separate the two (``UNDECIDED``). Balls (python-flint ``arb``) are compared through
their endpoints (``lower()``/``upper()``), never with ``<``, because overlapping balls answer
``False`` to both ``<`` and ``>=``. High-precision mpmath values are treated as balls whose radius
is derived from the working precision (:func:`mp_ball`).
"""

import enum

import mpmath
from flint import arb, ctx

from dpproofs.math.ball import precision, to_arb
from dpproofs.checker.precision import to_bits

__all__ = [
    "Outcome",
    "RELATIONS",
    "compare",
    "mp_ball",
    "normalised_margin",
    "relative_radius",
]

RELATIONS = ("<=", "<", ">=", ">", "==")


class Outcome(enum.Enum):
    HOLDS = "holds"
    VIOLATED = "violated"
    UNDECIDED = "undecided"


def relative_radius(dps):
    """Relative uncertainty assumed for a value computed to ``dps`` digits.

    The evaluator promises about ``dps`` correct digits; we allow ``10^(5 - dps)``: five digits
    of slack for rounding in the arithmetic that combines evaluator outputs into a claim's sides.
    """
    return mpmath.mpf(10) ** (5 - dps)


def mp_ball(value, dps):
    """An arb ball around an mpmath value, of relative radius :func:`relative_radius`."""
    if value == mpmath.inf or value == -mpmath.inf:
        return arb.pos_inf() if value > 0 else arb.neg_inf()
    # mpf() and arb arithmetic would round to the ambient (global) precision: work at dps
    with mpmath.mp.workdps(dps + 10), precision(max(ctx.prec, to_bits(dps))):
        value = value if isinstance(value, mpmath.mpf) else mpmath.mpf(value)
        radius = to_arb(abs(value) * relative_radius(dps)) * 2  # x2 covers rounding of the radius
        return to_arb(value) + arb(0, 1) * radius


def _as_ball(value, dps):
    if isinstance(value, arb):
        return value
    return mp_ball(value, dps)


def compare(lhs, rhs, relation, *, dps=None):
    """Decide ``lhs relation rhs`` for balls (or mpmath values computed to ``dps`` digits).

    For ``==``: HOLDS when the balls overlap (consistent with equality: equality of reals cannot
    be certified by enclosures), VIOLATED when they are disjoint.
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation={relation!r} is not one of {RELATIONS}")
    if dps is None and not (isinstance(lhs, arb) and isinstance(rhs, arb)):
        raise ValueError("dps is needed to compare mpmath values")
    bits = max(ctx.prec, 256, to_bits(dps or 0))
    with precision(bits):
        return _compare_balls(_as_ball(lhs, dps), _as_ball(rhs, dps), relation)


def _compare_balls(left, right, relation):
    if not (left.is_finite() and right.is_finite()):
        return _compare_infinite(left, right, relation)
    if relation == "==":
        return Outcome.HOLDS if left.overlaps(right) else Outcome.VIOLATED
    if relation in (">=", ">"):
        left, right = right, left
        relation = "<=" if relation == ">=" else "<"
    gap = right - left  # the relation is gap >= 0 (<=) or gap > 0 (<)
    if relation == "<=":
        if gap.lower() >= 0:
            return Outcome.HOLDS
        if gap.upper() < 0:
            return Outcome.VIOLATED
    else:
        if gap.lower() > 0:
            return Outcome.HOLDS
        if gap.upper() <= 0:
            return Outcome.VIOLATED
    return Outcome.UNDECIDED


def _compare_infinite(left, right, relation):
    """Infinite endpoints: only exact infinities (e.g. a divergence of +inf) are decided."""
    def kind(ball):
        if ball.is_nan():
            return None
        if ball == arb.pos_inf():
            return 1
        if ball == arb.neg_inf():
            return -1
        return 0 if ball.is_finite() else None

    a, b = kind(left), kind(right)
    if a is None or b is None or (a == b and a != 0):
        return Outcome.UNDECIDED
    holds = {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b, "==": a == b}[relation]
    return Outcome.HOLDS if holds else Outcome.VIOLATED


def normalised_margin(lhs, rhs, relation):
    """How far the relation is from failing, in relative terms (negative when violated).

    For ``<=``/``<``: ``(rhs - lhs) / (|lhs| + |rhs|)``; mirrored for ``>=``/``>``; for ``==``
    minus the relative difference. Returns an mpf; 0 when both sides are 0. Used to steer the
    search (``hypothesis.target``) and to report the closest approach, never to decide.
    """
    with mpmath.mp.workprec(max(mpmath.mp.prec, _precision_of(lhs), _precision_of(rhs))):
        return _margin(lhs, rhs, relation)


def _precision_of(value):
    """Bits of the mantissa of an mpf (its ``_mpf_`` bit count), so no digit is rounded away."""
    return value._mpf_[3] + 16 if isinstance(value, mpmath.mpf) else 53


def _margin(lhs, rhs, relation):
    lhs, rhs = +mpmath.mpf(lhs), +mpmath.mpf(rhs)
    if mpmath.isinf(lhs) or mpmath.isinf(rhs):
        if lhs == rhs:
            return mpmath.mpf(0)
        ordered = {"<=": lhs < rhs, "<": lhs < rhs, ">=": lhs > rhs, ">": lhs > rhs}.get(relation)
        return mpmath.mpf(1) if ordered else mpmath.mpf(-1)
    scale = abs(lhs) + abs(rhs)
    if scale == 0:
        return mpmath.mpf(0)
    if relation in ("<=", "<"):
        return (rhs - lhs) / scale
    if relation in (">=", ">"):
        return (lhs - rhs) / scale
    return -abs(lhs - rhs) / scale
