"""The accountant's truncated Poisson sampling (``dpproofs.TruncatedSampledGaussian``) against
neighbouring datasets enumerated exactly (ids ``accountant.pld.truncated.*``).

One step of truncated Poisson sampling on a small dataset in one dimension: the record ``x = +1``
and ``n - 1`` others at ``-1`` (clipping norm 1). Every outcome of the sampling is enumerated
(``K`` others sampled, ``x`` sampled or not, ``x`` surviving the cut with probability ``B/(K+1)``),
so the batch sum's law is an exact finite mixture with rational weights, with ``x`` (``P``) and
without it (``Q``); the release adds ``N(0, sigma^2)``. For a threshold ``t`` the hockey stick at
``eps`` is at least ``P(S) - e^eps Q(S)`` with ``S = {u > t}`` or ``{u < t}`` (any event is a test),
in both orders; ``t`` is the float maximiser found by a bounded scalar search (any ``t`` gives a
valid lower bound, so the float search cannot make the claim wrong).

* ``accountant.pld.truncated.upper``: ``PLDAccountant().compose(TruncatedSampledGaussian(q, sigma,
  B, n)).delta_bounds(eps).upper`` is at least that test value (the upper end bounds every pair of
  neighbouring datasets; this pair is the one where the record displaces another at distance 2).
* mutant ``untruncated``: the upper end of ``SampledGaussian(q, sigma)`` (truncation ignored, the
  common shortcut) is refuted at ``(q, sigma, B, n, eps) = (0.9, 1, 1, 4, 2)``: the realised pair's
  test value is 0.0374, the untruncated bound 0.0153.
"""

import functools
import math
from fractions import Fraction

import sympy
from flint import arb
from scipy import optimize, stats

import dpproofs as dp
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = ["CLAIMS", "realised_pair", "UNTRUNCATED_PIN"]

SOURCE = ("dpproofs TruncatedSampledGaussian (branch-revealed mixture: dpproofs.math.truncation, docs/math.md "
          "'Truncated Poisson sampling'), held against an exact enumeration")

q, sigma, b, n, eps = (sympy.Symbol(name, real=True) for name in ("q", "sigma", "b", "n", "eps"))
realised_test = sympy.Function("truncated_realised_test_delta")
pld_upper = sympy.Function("pld_truncated_delta_upper")


@functools.lru_cache(maxsize=256)
def realised_pair(rate, batch, size):
    """``(P, Q)``: ``{batch sum: exact probability}`` of one truncated Poisson batch with the record
    ``+1`` (``P``) and without it (``Q``), the ``size - 1`` others at ``-1``; ``rate`` a float read
    exactly."""
    r, m = Fraction(rate), size - 1
    p_law, q_law = {}, {}
    for k in range(m + 1):
        weight = math.comb(m, k) * r**k * (1 - r) ** (m - k)
        without = -min(k, batch)
        q_law[without] = q_law.get(without, 0) + weight
        p_law[without] = p_law.get(without, 0) + weight * (1 - r)
        if k + 1 <= batch:
            p_law[1 - k] = p_law.get(1 - k, 0) + weight * r
        else:  # x survives the cut with probability B / (k + 1) and displaces one other
            keep = Fraction(batch, k + 1)
            p_law[2 - batch] = p_law.get(2 - batch, 0) + weight * r * keep
            p_law[-batch] = p_law.get(-batch, 0) + weight * r * (1 - keep)
    return p_law, q_law


def _float_test(first, second, s, e, t, above):
    """``first(S) - e^e second(S)`` in float, ``S = {u > t}`` (``above``) or ``{u < t}``."""
    tail = stats.norm.sf if above else stats.norm.cdf
    mass = lambda law: sum(float(w) * tail((t - v) / s) for v, w in law.items())  # noqa: E731
    return mass(first) - math.exp(e) * mass(second)


#: Thresholds tried by the float search before its local refinement (the test value is a smooth
#: function of t with a few local maxima, between the batch sums).
GRID_POINTS = 400


@functools.lru_cache(maxsize=256)
def _best_test(rate, s, batch, size, e):
    """``(t, above, order)`` of the best threshold test found in float (order 0: P vs Q, 1: Q vs P):
    a grid over the batch sums +- 10 sigma, then a bounded search around the best grid point."""
    p_law, q_law = realised_pair(rate, batch, size)
    low, high = -batch - 1 - 10 * s, 2 + 10 * s
    width = (high - low) / GRID_POINTS
    best = (-math.inf, 0.0, True, 0)
    for order, (first, second) in enumerate(((p_law, q_law), (q_law, p_law))):
        for above in (True, False):
            grid = [low + i * width for i in range(GRID_POINTS + 1)]
            start = max(grid, key=lambda t: _float_test(first, second, s, e, t, above))
            found = optimize.minimize_scalar(lambda t: -_float_test(first, second, s, e, t, above),
                                             bounds=(start - width, start + width), method="bounded")
            for t in (start, float(found.x)):
                value = _float_test(first, second, s, e, t, above)
                if value > best[0]:
                    best = (value, t, above, order)
    return best[1:]


def _point(point):
    return float(point["q"]), float(point["sigma"]), int(point["b"]), int(point["n"]), float(point["eps"])


def _upper(mechanism_of):
    @functools.lru_cache(maxsize=256)
    def upper(key):
        rate, s, batch, size, e = key
        return dp.PLDAccountant().compose(mechanism_of(rate, s, batch, size), 1).delta_bounds(e).upper

    return upper


_truncated_upper = _upper(lambda rate, s, batch, size: dp.TruncatedSampledGaussian(rate, s, batch, size))
_untruncated_upper = _upper(lambda rate, s, batch, size: dp.SampledGaussian(rate, s))


def _test_of(point):
    """``(key, threshold, above, first law, second law)`` of the point's best threshold test."""
    key = _point(point)
    rate, _, batch, size, _ = key
    t, above, order = _best_test(*key)
    laws = realised_pair(rate, batch, size)
    return key, t, above, laws[order], laws[1 - order]


def _test_value(point, to_number, normal_sf, exp, total):
    """The test value ``first(S) - e^eps second(S)`` and the accountant's upper end, in one arithmetic
    (``to_number`` converts a float or a fraction exactly; mpmath or arb)."""
    key, t, above, first, second = _test_of(point)
    _, s, _, _, e = key
    sd, threshold = to_number(s), to_number(t)
    tail = (lambda v: normal_sf((threshold - v) / sd)) if above else (lambda v: normal_sf((v - threshold) / sd))
    mass = lambda law: total([to_number(w) * tail(v) for v, w in law.items()])  # noqa: E731
    return mass(first) - exp(to_number(e)) * mass(second), key


def _sides(upper):
    def precise_side(point, dps):
        mp = precise.mp
        with mp.workdps(dps + precise.GUARD_DPS):
            convert = lambda x: mp.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else precise.to_mpf(x)  # noqa: E731
            value, key = _test_value(point, convert, precise.normal_sf, mp.exp, mp.fsum)
            return value, precise.to_mpf(upper(key))

    def ball_side(point, prec):
        with ball.precision(prec):
            convert = lambda x: arb(x.numerator) / x.denominator if isinstance(x, Fraction) else ball.to_arb(x)  # noqa: E731
            value, key = _test_value(point, convert, ball.normal_sf, lambda x: x.exp(), lambda xs: sum(xs, arb(0)))
            return value, ball.to_arb(upper(key))

    return Sides(precise_side, ball_side)


VARIABLES = (Variable("q", 0.05, 0.95), Variable("sigma", 0.5, 4.0), Variable("b", 1, 6, integer=True),
             Variable("n", 2, 8, integer=True), Variable("eps", 0.0, 4.0))

upper = Claim(
    id="accountant.pld.truncated.upper",
    source=SOURCE,
    statement=sympy.Le(realised_test(q, sigma, b, n, eps), pld_upper(q, sigma, b, n, eps)),
    variables=VARIABLES,
    title="truncated Poisson sampling: the PLD upper end's delta >= an exactly enumerated neighbouring pair's",
    explanation="the record +1 against n - 1 others at -1: where the batch is cut it displaces one at distance 2",
    sides=_sides(_truncated_upper),
    cost=0.3,
)

UNTRUNCATED_PIN = {"q": 0.9, "sigma": 1.0, "b": 1, "n": 4, "eps": 2.0}
untruncated = upper.mutant(
    "untruncated",
    statement=sympy.Le(realised_test(q, sigma, b, n, eps), sympy.Function("pld_sampled_delta_upper")(q, sigma, eps)),
    sides=_sides(_untruncated_upper),
    explanation="accounting the truncated step as plain Poisson sampling (the cut ignored): at (0.9, 1, 1, 4, 2) the "
    "enumerated pair's test value is 0.0374 against the untruncated bound 0.0153 (a record that survives the cut "
    "displaces another, a shift of 2)",
    pinned=(UNTRUNCATED_PIN,),
)

CLAIMS = [upper, untruncated]
