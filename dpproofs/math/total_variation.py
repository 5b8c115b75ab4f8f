"""Upper bounds on the total variation distance of one mechanism step and of a composition (float64).

The total variation distance of a pair is its privacy profile at epsilon = 0,
``TV(P, Q) = sup_S P(S) - Q(S) = delta(0)``, the same in both orders. The privacy profile
``delta(epsilon)`` is non-increasing in epsilon, so where ``delta(0) <= delta`` the tight epsilon at
``delta`` is exactly 0 (the accountant's exact short-circuit,
:meth:`dpproofs.PLDAccountant.epsilon_bounds`; docs/math.md, "pld: trivial cases
(the total variation bound)").

* One step: the exact profiles of docs/math.md at epsilon = 0. Gaussian at L2 sensitivity ``d``:
  ``Phi(d/(2 s)) - Phi(-d/(2 s)) = erf(d / (2 sqrt(2) s))`` (Balle & Wang 2018, arXiv 1805.06530v2,
  Theorem 8, at epsilon = 0); Laplace at L1 sensitivity ``d``: ``1 - e^{-d/(2b)}``; randomized
  response: ``(1 - e^{-eps}) / (1 + e^{-eps}) = tanh(eps/2)``.
* Subsampling: a step that uses the record with probability at most ``g`` (Poisson at rate q, or a
  batch of b of n drawn without replacement, g = b/n) gives on neighbouring datasets two mixtures
  that share the part where the record is not used, ``(1-g) R + g P`` against ``(1-g) R + g Q``
  (add/remove: ``Q = R``), whose total variation is ``g TV(P, Q)`` (joint convexity of TV over the
  draw of the batch): at most ``g`` times the base mechanism's bound.
* Composition of steps with bounds ``tv_i`` (``n_i`` steps each, adaptively chosen or not):
  ``TV <= 1 - prod_i (1 - tv_i)^{n_i}``. TV is the least probability that the two sides of a
  coupling differ (Levin, Peres & Wilmer, Markov Chains and Mixing Times, 2nd ed. 2017,
  Proposition 4.7); run both compositions step by step, drawing each step's pair of outputs from a
  maximal coupling of the two conditional laws while the past outputs agree (each such pair has
  TV <= tv_i whatever the past, the step's bound being over all neighbouring inputs): all outputs
  agree with probability at least ``prod_i (1 - tv_i)^{n_i}``.

* From a Rényi bound: ``TV <= sqrt(1 - exp(-KL))`` (the Bretagnolle–Huber inequality; Tsybakov,
  Introduction to Nonparametric Estimation, 2009, Lemma 2.6 with (2.25)), and ``KL = D_1 <= D_alpha``
  for every order ``alpha >= 1`` (van Erven & Harremoës 2014, arXiv 1206.2459v2, Theorem 3: Rényi
  divergence is non-decreasing in its order). Any order's RDP of a composition therefore bounds its
  total variation (dp_accounting's ``compute_epsilon`` answers epsilon = 0 on the same test).

Every function returns a float that is at least the exact value (rounded up, with the rounding
allowance stated beside it), at most 1.
"""

import math

__all__ = ["gaussian", "laplace", "randomized_response", "subsampled", "composed", "from_renyi"]

_U = 2.0**-53
#: Absolute allowance for a result in float64's subnormal range (no relative accuracy there).
_TINY = 1e-320


def _up(value, ulps):
    """``value`` raised by ``ulps`` units of round-off relative, and one more float, capped at 1."""
    return min(1.0, math.nextafter(value * (1 + ulps * _U) + _TINY, math.inf))


def gaussian(sensitivity, sigma):
    """``erf(d / (2 sqrt 2 sigma))`` (Balle & Wang 2018, arXiv 1805.06530v2, Theorem 8 at epsilon = 0),
    rounded up: the argument carries at most 3 roundings, math.erf at most 1 ulp, and erf grows at
    most linearly (``erf(x (1 + e)) <= erf(x) (1 + e)`` for e >= 0, erf being concave on x >= 0)."""
    x = sensitivity / (2 * math.sqrt(2) * sigma)
    return _up(math.erf(x), 8)


def laplace(sensitivity, scale):
    """``1 - e^{-d/(2b)}``, the Laplace profile ``(1 - e^{(eps - d/b)/2})_+`` at epsilon = 0, rounded up
    (a quotient, a negation and expm1: within 4 ulp; ``1 - e^{-x}`` grows at most linearly)."""
    return _up(-math.expm1(-sensitivity / (2 * scale)), 8)


def randomized_response(epsilon):
    """``tanh(eps/2)``, the profile ``(e^eps - e^eps')_+ / (e^eps (1 + e^-eps))`` of epsilon-randomized
    response at eps' = 0, rounded up (tanh within 2 ulp; it grows at most linearly)."""
    return _up(math.tanh(epsilon / 2), 8)


def subsampled(rate, base):
    """``rate * base`` (a step that uses the record with probability at most ``rate``), rounded up;
    exactly 0 at rate 0 (the output ignores the data)."""
    if rate == 0:
        return 0.0
    return _up(rate * base, 2)


def composed(items):
    """``1 - prod (1 - tv)^n`` over ``items``, pairs ``(tv, n)`` (``n`` an integer >= 0), rounded up.

    In log space, ``s = sum n log1p(-tv)`` (<= 0): each term within 2 ulp (log1p, the product, the
    conversion of ``n``), the sum of ``k`` terms within ``k`` ulp more; ``s`` is pushed down by
    ``2 (k + 3)`` ulp relative before ``-expm1(s)`` (1 ulp), which is then raised by 4 ulp. A count
    beyond float range, or a term that overflows, makes ``s = -inf`` (the bound 1)."""
    items = [(float(tv), n) for tv, n in items if n > 0 and tv > 0]
    if not items:
        return 0.0  # every step's output ignores the data
    total = 0.0
    for tv, n in items:
        if tv >= 1.0:
            return 1.0
        term = math.log1p(-tv)
        if n > 2**1000:
            return 1.0
        total += float(n) * term
    if not total > -math.inf:
        return 1.0
    total *= 1 + 2 * (len(items) + 3) * _U
    return _up(-math.expm1(total), 4)


def from_renyi(divergence):
    """``sqrt(1 - exp(-D))`` for a Rényi divergence ``D >= 0`` of any order ``>= 1`` (module
    docstring: Bretagnolle–Huber with ``KL <= D``), rounded up: expm1 and the negation within 1 ulp,
    the square root within 1 ulp more, both functions increasing; ``D`` nan or infinite gives 1."""
    divergence = float(divergence)
    if not divergence < math.inf:
        return 1.0
    return _up(math.sqrt(_up(-math.expm1(-max(divergence, 0.0)), 4)), 4)
