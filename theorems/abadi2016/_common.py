"""Helpers shared by the Abadi et al. 2016 modules: the source string, one way to build Sides.

* :func:`expression_sides`: the default mp evaluation of two sympy expressions, with a ball
  evaluation that encloses each side over a *box* by evaluating it at the box's corners, which is
  valid only when the caller has proved the side monotone in each variable (say why, at the call).

The quantities the claims are stated over are the library's generic ones and the paper's own,
registered in :mod:`dpproofs.checker.vocabulary` by :mod:`dpproofs_theorems.abadi2016.quantities`.
"""

import sympy
from flint import arb

from dpproofs.checker import arithmetic
from dpproofs.checker.claims import Sides
from dpproofs.math import ball

__all__ = ["SOURCE", "source", "expression_sides", "outcome_at", "ball_outcome_at"]

SOURCE = "Abadi et al. 2016 (arXiv 1607.00133v2)"


def source(item):
    """``"Abadi et al. 2016 (arXiv 1607.00133v2), <item>"``."""
    return f"{SOURCE}, {item}"


def expression_sides(lhs, rhs, *, monotone=None):
    """Sides evaluating sympy ``lhs``/``rhs`` (vocabulary functions allowed).

    ``monotone`` maps ``"lhs"``/``"rhs"`` to a dict ``{variable: +1 | -1}``: the side is
    non-decreasing (+1) or non-increasing (-1) in that variable on the whole domain. When given,
    the ball evaluation of that side over a box is the union of its enclosures at the two extreme
    corners, which encloses the side on the box *because* of the monotonicity, and avoids the
    dependency blow-up of naive interval evaluation. Without ``monotone`` the ball evaluation is
    the plain interval evaluation.
    """
    monotone = monotone or {}
    lhs, rhs = sympy.sympify(lhs), sympy.sympify(rhs)

    def precise(point, dps):
        return arithmetic.evaluate_mp(lhs, point, dps), arithmetic.evaluate_mp(rhs, point, dps)

    def enclose(expr, point, prec, directions):
        if not directions:
            return arithmetic.evaluate_ball(expr, point, prec)
        low, high = {}, {}
        for name, value in point.items():
            sign = directions.get(name)
            if isinstance(value, arb) and not value.is_exact():
                if sign is None:
                    raise ValueError(f"no monotonicity stated for the interval variable {name!r}")
                a, b = arb(value.lower()), arb(value.upper())
                low[name], high[name] = (a, b) if sign > 0 else (b, a)
            else:
                low[name] = high[name] = value
        with ball.precision(prec):
            return arithmetic.evaluate_ball(expr, low, prec).union(
                arithmetic.evaluate_ball(expr, high, prec)
            )

    def in_balls(point, prec):
        return (
            enclose(lhs, point, prec, monotone.get("lhs")),
            enclose(rhs, point, prec, monotone.get("rhs")),
        )

    return Sides(precise=precise, ball=in_balls)


def outcome_at(claim, point, dps=50):
    """The claim's relation at ``point`` in mpmath (an Outcome), or None outside its hypotheses."""
    return claim.outcome_at(point, dps)


def ball_outcome_at(claim, point, prec=256):
    """The claim's relation at ``point`` in ball arithmetic (an Outcome), hypotheses included."""
    return claim.ball_outcome_at(point, prec)
