"""Shared pieces of the Mironov 2017 modules: sources, symbols, strategies of structured draws.

Nothing here is a claim. The quantities the statements use (divergences and profiles of finite
pairs, event probabilities, n-fold randomized response events, ...) are vocabulary functions
(:mod:`dpproofs.checker.vocabulary`, the paper's own registered by
:mod:`dpproofs_theorems.mironov2017.quantities`); the structured arguments they
take (a :class:`dpproofs.checker.oracles.finite.Pair`, an adaptive composition, an event) are drawn by the
strategies below and bound to the plain sympy symbols :func:`structured` makes.
"""

import sympy
from hypothesis import strategies as st

from dpproofs.checker.oracles import finite
from dpproofs.math import ball

__all__ = [
    "PAPER",
    "PAIR_OUTCOMES",
    "JOINT_OUTCOMES",
    "source",
    "sym",
    "structured",
    "pairs",
    "eps_pairs",
    "events",
    "endpoints",
    "monotone_ball",
]

PAPER = "Mironov 2017 (arXiv 1702.07476v3)"

#: Largest number of outcomes of a drawn finite pair, and of the joint of a drawn 2-step
#: composition with up to 3 outcomes per step.
PAIR_OUTCOMES = 5
JOINT_OUTCOMES = 9


def source(item):
    """``"Mironov 2017 (arXiv 1702.07476v3), <item>"``."""
    return f"{PAPER}, {item}"


def sym(name):
    """The sympy symbol a :class:`dpproofs.checker.claims.Variable` of that name binds."""
    return sympy.Symbol(name, real=True)


def structured(name):
    """The symbol of a structured argument (a pair, a composition, an event): not a real number."""
    return sympy.Symbol(name)


def pairs(max_size=PAIR_OUTCOMES):
    """Random finite pairs, in either order of the neighbours (statements about ``D(P||Q)`` hold
    in both orders, so the draw picks the order)."""
    return finite.either_order(finite.pairs(min_size=2, max_size=max_size))


def eps_pairs(low=0.001, high=2.0, max_size=PAIR_OUTCOMES):
    """Pairs with a bounded log-likelihood ratio: ``eps`` drawn in ``[low, high]``, then a pair
    with ``|log p_i/q_i| <= eps`` (the pair's own ``eps_pair`` is what claims use), either order.

    ``P = Q`` is left out: every side is then exactly 0, and the mp divergence of two equal
    distributions comes out as a rounding-sized number of either sign (``log`` of a sum near 1),
    which no ball can separate from 0.
    """
    return finite.either_order(
        st.floats(low, high)
        .flatmap(lambda e: finite.pairs(min_size=2, max_size=max_size, max_log_ratio=e))
        .filter(lambda pair: pair.p != pair.q)
    )


def events(max_outcomes=PAIR_OUTCOMES):
    """Non-empty events over the first ``max_outcomes`` outcomes (see :class:`dpproofs.checker.oracles.finite.Event`)."""
    return finite.event_sets(max_outcomes)


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


