"""Shared pieces of the Mironov 2017 modules: sources, symbols, finite-pair helpers.

Nothing here is a claim. The finite helpers only combine :mod:`dpproofs.finite` quantities
(exact Fractions) into the few derived numbers the Mironov proofs use (``||P - Q||_1``, event
probabilities as mp values or balls), so every module computes them the same way.
"""

from fractions import Fraction

import sympy
from hypothesis import strategies as st
from mpmath import mp

from dpproofs import finite
from dpproofs.evaluator import ball, precise

__all__ = [
    "PAPER",
    "source",
    "sym",
    "l1_distance",
    "mp_of",
    "arb_of",
    "eps_pairs",
    "both_orders",
    "endpoints",
    "monotone_ball",
]

PAPER = "Mironov 2017 (arXiv 1702.07476v3)"


def source(item):
    """``"Mironov 2017 (arXiv 1702.07476v3), <item>"``."""
    return f"{PAPER}, {item}"


def sym(name):
    """The sympy symbol a :class:`dpproofs.claims.Variable` of that name binds."""
    return sympy.Symbol(name, real=True)


def l1_distance(pair):
    """``||P - Q||_1`` exactly (a Fraction)."""
    return sum((abs(a - b) for a, b in zip(pair.p, pair.q)), Fraction(0))


def mp_of(value, dps):
    """An exact rational (Fraction) as an mpf at ``dps`` digits plus guard digits."""
    with mp.workdps(dps + precise.GUARD_DPS):
        return precise.to_mpf(value)


def arb_of(value, prec):
    """An exact rational (Fraction) as an arb ball at ``prec`` bits."""
    with ball.precision(prec):
        return ball.to_arb(value)


def eps_pairs(low=0.001, high=2.0, max_size=5):
    """Pairs with a bounded log-likelihood ratio: ``eps`` drawn in ``[low, high]``, then a pair
    with ``|log p_i/q_i| <= eps`` (the pair's own ``epsilon_dp`` is what claims use).

    ``P = Q`` is left out: every side is then exactly 0, and the mp divergence of two equal
    distributions comes out as a rounding-sized number of either sign (``log`` of a sum near 1),
    which no ball can separate from 0.
    """
    return (
        st.floats(low, high)
        .flatmap(lambda e: finite.pairs(min_size=2, max_size=max_size, max_log_ratio=e))
        .filter(lambda pair: pair.p != pair.q)
    )


def both_orders(pair):
    """``(pair, pair.swapped())``: statements about D(P||Q) are checked in both orders."""
    return (pair, pair.swapped())


def endpoints(value, prec):
    """``(low, high)`` exact arb endpoints of a number or of an arb ball (a box coordinate)."""
    with ball.precision(prec):
        x = ball.to_arb(value)
        if x.is_exact():
            return x, x
        return x.lower(), x.upper()


def monotone_ball(function, args, prec, increasing=()):
    """Enclosure of ``function(*args)`` over a box, for a function monotone in each argument.

    ``increasing[i]`` says whether argument ``i`` increases the value (True) or decreases it
    (False). The function is evaluated in ball arithmetic at the two extreme corners only, so the
    enclosure is rigorous *given the monotonicity*, which each caller cites (e.g. Renyi
    divergences are non-decreasing in the order, Mironov 2017 Prop. 9). At a point (exact args)
    this is just one ball evaluation.
    """
    lows, highs = [], []
    for value, up in zip(args, increasing, strict=True):
        low, high = endpoints(value, prec)
        lows.append(low if up else high)
        highs.append(high if up else low)
    with ball.precision(prec):
        bottom = function(*lows)
        if lows == highs:
            return bottom
        top = function(*highs)
        return bottom.union(top)


