"""The domain of every public quantity, and why inside it every answer is right in bounded time.

One place for the bounds that the mechanisms, :func:`dpproofs.rdp` / :func:`dpproofs.log_moment`
and the float evaluator (:mod:`dpproofs.math.fast`, whose tolerances live in its module
docstring) rely on. "Right" means: within the evaluator's stated tolerance where it promises one,
and always an upper bound (possibly ``+inf``, or the ``TINY`` floor), never below the exact value.

Mechanism parameters (checked at construction, :mod:`dpproofs.mechanisms`): every finite float
in the mathematical range, ``sigma > 0``, ``q`` in ``[0, 1]``, ``scale > 0``, ``epsilon > 0``.
The float range has clean answers at both ends, so no extra bound is imposed:

* ``sigma < SIGMA_TINY`` with ``q > 0`` (sampled Gaussian): the RDP at every order ``a > 1`` is at
  least ``a/(2 sigma^2) + a log(q)/(a-1) > 1e299`` (``A_a >= q^a E[r'^a]`` with ``r'`` the
  Gaussian likelihood ratio, ``q >= 5e-324``, ``a/(a-1) <= 1e6``): it is returned as ``+inf``, a
  valid upper bound (and what any composition with it gives in float anyway).
* ``sigma > SIGMA_HUGE``: ``sigma^2`` overflows float64. The sampled-Gaussian RDP is at most the
  Gaussian one ``a/(2 sigma^2) < 1e-296`` (joint quasi-convexity of Rényi divergence:
  ``D_a((1-q) mu0 + q mu1 || mu0) <= max(D_a(mu0||mu0), D_a(mu1||mu0))``): that bound is returned,
  floored at ``TINY`` (an upper bound).
* ``0 < q < Q_SERIES_MIN`` at fractional orders: the float series' intermediate powers of ``q``
  underflow; the value is the convexity bound below (``log A_a`` is convex in ``a``: Hölder), an
  upper bound that is also far below anything an accountant can resolve (``~ q^2 < 1e-200``).

Fractional orders outside the accuracy domain of ``fast`` (``sigma`` outside
``[SIGMA_ACCURATE_MIN, SIGMA_ACCURATE_MAX]``), where neither the self-checked series nor the
self-checked quadrature reaches the tolerance, get the chord of the convex ``log A`` between the
neighbouring integer orders, ``log A_a <= (n + 1 - a) log A_n + (a - n) log A_{n+1}``
(``n = floor(a)``, ``log A_1 = 0``): an upper bound computed from exact integer-order sums, in
``O(a)`` time and memory, instead of the unbounded mpmath fallback.

Orders. The accountant accepts orders in ``[1.000001, 1e4]`` (:data:`dpproofs.accountant.rdp.MAX_ORDER`).
The exact evaluator (:func:`dpproofs.rdp`, :func:`dpproofs.log_moment`) accepts any finite order
for the closed forms (Gaussian, Laplace, randomized response: constant time), and orders up to
:data:`MAX_EXACT_ORDER` for the sampled Gaussian, whose exact sum has ``alpha`` terms and whose
quadrature cost grows with ``alpha`` (measured: ``dp.rdp(SampledGaussian(0.5, 1), 1e4)`` about
1 s; ``1e5`` took 46 s).

Time and memory. Every float method has a size cap fixed before allocation: the series at most
``32 * 2^ceil(log2(floor(a) + 64))`` terms per order, the quadrature ``_QUAD_MAX_PANELS``
panels (counted before any array is built), integer sums ``a - 1`` terms per order.
"""

__all__ = [
    "SIGMA_TINY",
    "SIGMA_HUGE",
    "SIGMA_ACCURATE_MIN",
    "SIGMA_ACCURATE_MAX",
    "Q_SERIES_MIN",
    "MAX_EXACT_ORDER",
]

#: Below this sigma (with q > 0) the sampled-Gaussian RDP is returned as +inf (see above).
SIGMA_TINY = 1e-150
#: Above this sigma the sampled-Gaussian RDP is the Gaussian bound, floored at TINY (see above).
SIGMA_HUGE = 1e150
#: The sigma range in which the float evaluator is held to its tolerance at fractional orders
#: (tests/math/test_fast.py); outside it, fractional orders may fall back to the chord bound.
SIGMA_ACCURATE_MIN = 0.1
SIGMA_ACCURATE_MAX = 1e4
#: Below this q, fractional orders of the sampled Gaussian use the chord bound (see above).
Q_SERIES_MIN = 1e-100
#: Largest order (alpha for dp.rdp, lam + 1 for dp.log_moment) of the exact sampled-Gaussian evaluator.
MAX_EXACT_ORDER = 1e4
