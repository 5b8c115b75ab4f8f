"""The float64 twin of :mod:`dpproofs.math.precise`, vectorised over an array of orders.

This is the accountant's hot path. Every function takes an array-like of Rényi orders
``alpha > 1`` (integer or fractional, in any order, duplicates allowed) and the mechanism's
parameters as floats, and returns a new float64 array of the same shape. Arguments are *not*
validated here (the accountant and the mechanisms do that); the functions only assume
``alpha > 1`` and parameters inside the mathematical domain.

Accuracy contract (one tolerance, :data:`RTOL`, held against ``precise`` by
``tests/math/test_fast.py``). Inside the documented domain

* sampled Gaussian: ``q`` in ``[0, 1]``, ``sigma`` in ``[0.1, 1e4]``, ``alpha`` in
  ``[1 + 1e-6, 1e4]`` (integer and fractional);
* Gaussian: ``sigma > 0``; Laplace: ``scale`` in ``[1e-2, 1e4]``; randomized response:
  ``epsilon`` in ``[1e-4, 50]``; k-ary randomized response (both pairs): ``p`` in
  ``[1e-300, 1 - 2^-53]``, any integer ``k >= 2`` (tests/test_mechanism_kary_randomized_response.py);
  ``alpha`` in ``[1 + 1e-6, 1e4]``,

every returned value ``v`` satisfies ``|v - exact| <= RTOL * exact`` whenever
``exact >= TINY``; an exact value below ``TINY`` (it underflows float64) is returned as ``TINY``,
which is an upper bound. Outside the domain a value is either within the same tolerance or an
upper bound (when no method here reaches the tolerance, e.g. a series that does not converge and a
quadrature that fails its self-check): ``+inf``, the Gaussian bound at huge ``sigma``, or the
convexity chord between integer orders, as :mod:`dpproofs.math.limits` states and justifies. Every
float64 input (any ``sigma > 0``, ``q`` in ``[0, 1]``, ``alpha`` in ``(1, 1e4]``) is answered in
bounded time and memory (the size caps are listed there too). A returned value is never
negative, never nan, never lower than the tolerance allows, and no order is ever dropped.

:func:`delta_gaussian_bounds` (the Gaussian privacy profile, for the privacy curve's GDP bracket)
is not a value within ``RTOL`` but an enclosure ``(lower, upper)`` of the exact value, with its own
error bound stated beside it (tests: tests/math/test_fast.py, tests/test_privacy_curve.py).

Why one module of about 960 lines (over the project's 700): it is the hot path, and most of it is
one quantity, the sampled Gaussian's ``log A_alpha``, computed by four methods that hand orders to
each other (integer binomial sums, the signed series in rounds, the self-checked quadrature, the
convexity chord and the precise fallback) under the single tolerance argument above; the dispatcher
:func:`log_a` and the plans and caches the methods share (term counts, binomial matrices,
Gauss-Legendre nodes) are read together when the tolerance is checked. The simple mechanisms
(Gaussian, Laplace, randomized response) take about 80 of the lines.
"""

import decimal
import fractions
import functools
import math

import numpy as np
from scipy import special as _special

from dpproofs.math import limits as domain
from dpproofs.errors import NumericalError

__all__ = [
    "RTOL",
    "TINY",
    "rdp_gaussian",
    "rdp_branch_mixture",
    "rdp_mixture_of_gaussians",
    "rdp_laplace",
    "rdp_randomized_response",
    "fraction_rounded_up",
    "kary_randomized_response_log_ratio",
    "log_rounded_up",
    "rdp_kary_randomized_response",
    "rdp_kary_randomized_response_special",
    "log_a",
    "rdp_sampled_gaussian",
    "log_erfc",
    "delta_gaussian_bounds",
]

#: Relative tolerance of every function here against its twin in ``precise``.
#: Justification: every sum below is of non-negative terms done in log space, or is a signed series
#: accepted only when its own rounding-error bound is below ``RTOL / 10`` relative (and otherwise
#: replaced by a self-checked quadrature or the precise evaluator). The remaining error is
#: float64 rounding of the log-terms: ``2**-52`` times the size of their largest component
#: (``|k log q|``, ``log C(alpha, k)``, ``k^2/(2 sigma^2)``), at most about ``1e5`` relative to the
#: result inside the domain, i.e. about ``1e-11``. ``1e-10`` leaves a factor 10 of headroom, and the
#: accountant's 1e-9 requirement a further factor 10.
RTOL = 1e-10

#: Smallest normal float64: exact values below it are returned as ``TINY`` (an upper bound).
TINY = float(np.finfo(np.float64).tiny)

_LOG_2 = math.log(2.0)
#: The signed series is accepted only when its error bound is below this, relative to A - 1.
_SERIES_RTOL = RTOL / 10
#: Absolute accuracy of :func:`log_erfc` and :func:`_log_ndtr`, relative to ``max(1, |value|)``
#: (scipy.special: measured at most 9e-16 against mpmath on [-1e4, 1e3]; see
#: tests/math/test_fast.py): a factor 2 of headroom.
_ERFC_RTOL = 2e-15
#: Relative agreement required between the two quadrature rules of the float fallback.
_QUAD_RTOL = RTOL / 100
#: Most Gauss-Legendre panels the float quadrature may use before handing over to ``precise``.
_QUAD_MAX_PANELS = 4000
#: Digits asked of the precise evaluator when it is the fallback (float64 needs ~17).
_PRECISE_FALLBACK_DPS = 20


def _orders(orders):
    return np.asarray(orders, dtype=np.float64)


def _floor_positive(values):
    """Values that underflowed to 0 (or below) become ``TINY``, an upper bound; nan cannot occur."""
    return np.maximum(values, TINY)


# --- elementary helpers (float64, log space) -------------------------------------------------


def log_erfc(x):
    """``log(erfc(x))`` for a float array, to ``_ERFC_RTOL`` absolute, without underflow.

    ``x >= 0``: ``log(erfcx(x)) - x^2`` (``scipy.special.erfcx``, the scaled complementary error
    function of the Faddeeva package, a few ulp); ``x < 0``: ``log(erfc(x))``, with erfc in
    ``[1, 2]`` (no cancellation).
    """
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return np.where(x >= 0, np.log(_special.erfcx(np.maximum(x, 0.0))) - x * x, np.log(_special.erfc(np.minimum(x, 0.0))))


def _log_ndtr(y):
    """``log Phi(y)`` (standard normal CDF): ``scipy.special.log_ndtr`` (measured within
    ``4.4e-16 max(1, |log Phi|)`` of mpmath on ``[-1e4, 1e3]``, well inside ``_ERFC_RTOL``)."""
    return _special.log_ndtr(y)


def _log_expm1(x):
    """``log(e^x - 1)`` for ``x > 0`` (``-inf`` at 0), without overflow."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        return np.where(x > 1.0, x + np.log1p(-np.exp(-np.maximum(x, 1.0))), np.log(np.expm1(np.minimum(x, 1.0))))


#: ``1/m`` for ``m = 1..40`` (for :func:`_series_tail`).
_INVERSES = 1.0 / np.arange(1.0, 41.0)


def _tail_length(y_max, order):
    """Terms ``k = order .. order + n - 1`` of ``sum_k y^k/k!`` (``|y| <= y_max <= 1/2``) after which
    the remainder, relative to the first term, is below ``2 y_max^n order!/(order + n)! <= 1e-20``
    (at most 30: at ``y_max = 1/2`` the bound is then below ``1e-40``)."""
    n, bound = 1, 2.0 * y_max / (order + 1)
    while n < 30 and not bound <= 1e-20:
        n += 1
        bound *= y_max / (order + n)
    return n


def _series_tail(y, order):
    """``sum_{k>=order} y^k / k!`` for ``|y| <= 0.5`` (30 terms: remainder below 1e-40).

    Short arrays: every power at once (one 2-D operation: fewer numpy calls); long arrays (the
    quadrature's): term by term, in place of a large 2-D array.
    """
    if y.size <= 256:  # y^k / k! = prod_{m <= k} (y / m): one cumulative product
        terms = np.cumprod(y[..., None] * _INVERSES[: order + 29], axis=-1)
        return np.sum(terms[..., order - 1 :], axis=-1)
    # terms k = order .. order + n - 1: relative to the first, the remainder is below
    # 2 y_max^n order!/(order + n)! for |y| <= y_max <= 1/2; stop once that is below 1e-20
    n = _tail_length(float(np.max(np.abs(y))) if y.size else 0.0, order)
    term = y**order / math.factorial(order)
    total = term.copy()
    for k in range(order + 1, order + n):
        term = term * y / k
        total = total + term
    return total


def _log_phi2(y):
    """``log(e^y - 1 - y)`` (non-negative for every real ``y``), stable for small and large ``y``."""
    y = np.asarray(y, dtype=np.float64)
    small = np.abs(y) <= 0.5
    if small.all():  # the common case in the series (|(alpha - 1) log(1 - q)| <= 1/2): one branch
        return np.log(_series_tail(y, 2))
    out = np.empty_like(y)
    huge = y > 30.0
    middle = ~small & ~huge
    with np.errstate(divide="ignore"):
        out[small] = np.log(_series_tail(y[small], 2))
        out[huge] = y[huge] + np.log1p(-(1.0 + y[huge]) * np.exp(-y[huge]))
        out[middle] = np.log(np.expm1(y[middle]) - y[middle])
    return out


def _log_psi(L):
    """``log(e^{-L} - 1 + L)`` (non-negative for every real ``L``), stable for all ``L``."""
    L = np.asarray(L, dtype=np.float64)
    small = np.abs(L) <= 0.5
    if small.all():  # one branch
        return np.log(_series_tail(-L, 2))
    out = np.empty_like(L)
    very_negative = L < -30.0
    middle = ~small & ~very_negative
    with np.errstate(divide="ignore"):
        out[small] = np.log(_series_tail(-L[small], 2))
        v = L[very_negative]
        out[very_negative] = -v + np.log1p((v - 1.0) * np.exp(v))
        out[middle] = np.log(np.expm1(-L[middle]) + L[middle])
    return out


def _log_g(L, eps):
    """``log((1+u)^a - 1 - a u)`` with ``L = log(1+u)``, ``eps = a - 1 > 0``.

    Identity: ``(1+u)^a - 1 - a u = e^L [eps psi(L) + phi2(eps L)]`` with
    ``psi(L) = e^{-L} - 1 + L >= 0`` and ``phi2(y) = e^y - 1 - y >= 0``: a sum of two non-negative
    terms, so no cancellation, even for ``a -> 1`` or ``u -> 0``.
    """
    L = np.asarray(L, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return L + np.logaddexp(np.log(eps) + _log_psi(L), _log_phi2(eps * L))


# --- elementary mechanisms ---------------------------------------------------------------------


def rdp_gaussian(orders, sigma):
    """``alpha / (2 sigma^2)`` (Mironov 2017, arXiv 1702.07476v3, Prop. 7). Twin: ``precise.rdp_gaussian``.

    Three roundings: within 3 ulp. Underflow (``sigma > 1e150``) gives ``TINY``; overflow (tiny
    ``sigma``) ``+inf``. (``alpha / (2 sigma) / sigma``: no ``sigma**2`` that could overflow.)
    """
    alpha = _orders(orders)
    sigma = float(sigma)
    with np.errstate(over="ignore", divide="ignore", under="ignore"):
        return _floor_positive(alpha / (2.0 * sigma) / sigma)


def rdp_branch_mixture(orders, weights, curves):
    """``log(sum_b w_b e^{(a-1) r_b(a)}) / (a - 1)`` at each order: the Rényi divergence of a
    branch-revealed mixture from upper bounds ``curves[b]`` (arrays over ``orders``) on its branches'
    divergences and upper bounds ``weights`` on their probabilities; an upper bound (the formula and
    its citation: ``formulas.rdp_branch_mixture``, its twin in arb).

    Float64 in log space (``m + log sum_b w_b e^{x_b - m}``, ``m = max x_b``, ``x_b = (a-1) r_b``):
    each exponent carries <= 5 roundings (<= 5 u m), the exponentials, the sum of n terms and the log
    (n + 4) u more; the result is raised by 16 u (m + n + 4) before the division (1 ulp, raised by
    4 u more). Overflow gives ``+inf``; underflow ``TINY``."""
    alpha = _orders(orders)
    w = np.asarray(weights, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        x = (alpha - 1)[..., None] * np.stack([np.broadcast_to(np.asarray(c, dtype=np.float64), alpha.shape)
                                               for c in curves], axis=-1)
        m = np.max(np.where(w > 0, x, -np.inf), axis=-1)
        finite = np.isfinite(m)
        shifted = np.where(finite[..., None], x - np.where(finite, m, 0.0)[..., None], 0.0)
        total = np.sum(np.where(w > 0, w * np.exp(shifted), 0.0), axis=-1)
        value = m + np.log(total) + 16 * 2.0**-53 * (np.abs(m) + len(w) + 4)
        value = np.where(finite, value / (alpha - 1) * (1 + 4 * 2.0**-53), np.inf)
    return _floor_positive(value)


def rdp_mixture_of_gaussians(orders, sigma, sensitivities, weights):
    """An upper bound on the Rényi divergence, in either order, between ``N(0, s^2)`` and
    ``sum_i w_i N(c_i, s^2)`` (``weights`` summing to 1): :func:`rdp_branch_mixture` of the Gaussian
    curves ``a c_i^2 / (2 s^2)`` (``formulas.rdp_mixture_of_gaussians_bound``, its twin in arb); each
    curve's <= 4 roundings are within the branch mixture's allowance of 5 per exponent."""
    alpha = _orders(orders)
    sigma = float(sigma)
    with np.errstate(over="ignore", invalid="ignore"):
        curves = [alpha / (2.0 * sigma) / sigma * (c * c) for c in np.asarray(sensitivities, dtype=np.float64)]
    return rdp_branch_mixture(alpha, weights, curves)


def rdp_laplace(orders, scale):
    """Laplace(scale b), Mironov 2017 (arXiv 1702.07476v3) Prop. 6. Twin: ``precise.rdp_laplace``.

    With ``e = alpha - 1`` and ``x = 1/b``, the inner sum minus 1 is
    ``D = [(1+e) expm1(e x) + e expm1(-(1+e) x)] / (1+2e)``, and the result is ``log1p(D)/e``.
    Three regimes, none cancelling by more than a factor 4: ``(1+e) x <= 1/2``: the power series
    ``D = sum_{k>=2} x^k/k! [(1+e) e^k + (-1)^k e (1+e)^k] / (1+2e)`` (the k = 1 term vanishes;
    40 terms); ``e x <= 1``: the ``expm1`` form; otherwise the log-sum-exp of the two terms.
    """
    alpha = _orders(orders)
    b = float(scale)
    x = 1.0 / b
    e = alpha - 1.0
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        series = (1.0 + e) * x <= 0.5
        es = np.where(series, e, 0.0)
        first = (1.0 + es) * np.ones_like(es)  # (1+e) (e x)^k / k!
        second = es * np.ones_like(es)  # e (-(1+e) x)^k / k!
        total = np.zeros_like(es)
        for k in range(1, 41):
            first = first * (es * x) / k
            second = second * (-(1.0 + es) * x) / k
            if k >= 2:
                total = total + first + second
        log_inner_series = np.log1p(total / (1.0 + 2.0 * es))
        near = ~series & (e * x <= 1.0)
        ee = np.where(near, e, 0.0)
        inner_minus_1 = ((1.0 + ee) * np.expm1(ee * x) + ee * np.expm1(-(1.0 + ee) * x)) / (1.0 + 2.0 * ee)
        log_inner_near = np.log1p(inner_minus_1)
        log_inner_far = np.logaddexp(
            np.log(alpha / (2.0 * alpha - 1.0)) + e * x,
            np.log(e / (2.0 * alpha - 1.0)) - alpha * x,
        )
        log_inner = np.where(series, log_inner_series, np.where(near, log_inner_near, log_inner_far))
        values = log_inner / e
    # the exact value is at most 1/b (the Laplace mechanism is (1/b)-DP): a cap, never below it
    return _floor_positive(np.where(np.isnan(values), x, np.minimum(values, x)))


def rdp_randomized_response(orders, epsilon):
    """epsilon-randomized response, Mironov 2017 (arXiv 1702.07476v3) Prop. 5. Twin: ``precise``.

    With ``p = e^eps/(1+e^eps)`` and ``y = (alpha-1) eps``, the inner sum is
    ``p e^y + (1-p) e^{-y}``, and inner - 1 factors exactly as
    ``expm1(y) expm1(eps + y) e^{-y} / (1 + e^eps)``: a product of positives, done in log space.
    The exact value is at most ``eps`` (pure ``eps``-DP: ``D_alpha <= D_inf``), so the result is
    capped there; that cap also answers a huge ``eps`` whose ``(alpha - 1) eps`` overflows.
    """
    alpha = _orders(orders)
    eps = float(epsilon)
    with np.errstate(over="ignore", invalid="ignore"):
        y = (alpha - 1.0) * eps
        log_inner_minus_1 = _log_expm1(y) + _log_expm1(eps + y) - y - np.logaddexp(0.0, eps)
        values = np.logaddexp(0.0, log_inner_minus_1) / (alpha - 1.0)
    return _floor_positive(np.where(np.isnan(values), eps, np.minimum(values, eps)))


#: Digits of the decimal logarithm in :func:`log_rounded_up` (its argument is divided to 20 more).
_LOG_DIGITS = 60
#: Below this, ``log(1 + x)`` is bounded by ``x`` itself (relative gap ``x/2 < 5e-21``).
_LOG1P_LINEAR = fractions.Fraction(1, 10**20)


def fraction_rounded_up(value):
    """The smallest float at least the exact rational ``value`` (a ``Fraction`` or an int; ``inf``
    above the float range)."""
    value = fractions.Fraction(value)
    try:
        nearest = float(value)
    except OverflowError:
        return math.inf
    return nearest if fractions.Fraction(nearest) >= value else math.nextafter(nearest, math.inf)


@functools.lru_cache(maxsize=1024)
def log_rounded_up(ratio):
    """A float at least ``log(ratio)`` and at most one float above the correctly rounded value,
    for a rational ``ratio >= 1`` (a ``Fraction`` or an int, any size).

    ``decimal``'s ``ln`` is correctly rounded (the General Decimal Arithmetic specification), here
    at :data:`_LOG_DIGITS` digits of the ratio divided to 20 more; the nearest float is kept only
    when it lies above that value by more than its possible error (``1e-55`` relative), else the
    next float up is returned. For ``ratio - 1 < 1e-20`` the bound ``log(1 + x) <= x`` is used
    (``x`` rounded up), which the division would lose."""
    ratio = fractions.Fraction(ratio)
    if ratio < 1:
        raise ValueError(f"ratio={ratio} must be >= 1")
    excess = ratio - 1
    if excess < _LOG1P_LINEAR:
        return fraction_rounded_up(excess)
    with decimal.localcontext() as context:
        context.prec = _LOG_DIGITS + 20
        argument = decimal.Decimal(ratio.numerator) / decimal.Decimal(ratio.denominator)
        context.prec = _LOG_DIGITS
        log = argument.ln()
        candidate = float(log)
        if decimal.Decimal(candidate) <= log * (1 + decimal.Decimal(10) ** -55):
            candidate = math.nextafter(candidate, math.inf)
    return candidate


def kary_randomized_response_log_ratio(p, k):
    """``t = log(1 + k (1 - p) / p)`` in float64 (a few ulps), the log-ratio of the two largest to
    smallest output probabilities of k-ary randomized response (``0 < p < 1``, integer ``k >= 2``;
    any size of ``k``: beyond ``2**1000`` it is ``log k + log((1 - p)/p)``, where ``1/k`` is below
    the ulp of the result)."""
    if k < 2**1000:
        return math.log1p(k * (1.0 - p) / p)
    return math.log(k) + math.log((1.0 - p) / p)


def rdp_kary_randomized_response(orders, p, k):
    """k-ary randomized response between two inputs (``formulas.rdp_kary_randomized_response``,
    the twin in ``precise``): with ``y = (alpha - 1) t``, ``S - 1 = (1-p) expm1(y) + (p/k)
    expm1(y)^2 e^{-y}``, both terms positive, added in log space (``log(p/k) = log p - log k``,
    any size of ``k``). The exact value is at most ``t`` (``D_alpha <= D_inf = t``), so the result
    is capped there; that cap also answers an order whose ``(alpha - 1) t`` overflows."""
    alpha = _orders(orders)
    p = float(p)
    t = kary_randomized_response_log_ratio(p, k)
    log_b = math.log(p) - math.log(k)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        y = (alpha - 1.0) * t
        log_e = _log_expm1(y)
        log_inner_minus_1 = np.logaddexp(math.log1p(-p) + log_e, log_b + 2.0 * log_e - y)
        values = np.logaddexp(0.0, log_inner_minus_1) / (alpha - 1.0)
    return _floor_positive(np.where(np.isnan(values), t, np.minimum(values, t)))


#: ``|x|`` below which :func:`_phi` sums its series (20 terms: the first omitted
#: one is below ``0.5^22 / 22! < 1e-27`` of the sum); above it ``expm1(x) - x`` loses at most a
#: factor 5 to cancellation (at ``x = -0.5``), a few ulps.
_SERIES_CUT = 0.5
_SERIES_N = np.arange(2.0, 22.0)
_SERIES_FACT = np.array([math.factorial(int(n)) for n in _SERIES_N], dtype=np.float64)


def _phi(x):
    """``e^x - 1 - x >= 0`` without cancellation (series near 0)."""
    x = np.asarray(x, dtype=np.float64)
    small = np.abs(x) < _SERIES_CUT
    xs = np.where(small, x, 0.0)[..., None]
    series = np.sum(xs**_SERIES_N / _SERIES_FACT, axis=-1)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(small, series, np.expm1(x) - x)


def _log_phi(x):
    """``log(e^x - 1 - x)`` for ``x > 0`` without overflow (``x + log1p(-(1 + x) e^{-x})`` above 30)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        big = x + np.log1p(-(1.0 + x) * np.exp(-np.maximum(x, 30.0)))
        return np.where(x > 30.0, big, np.log(_phi(np.minimum(x, 30.0))))


def rdp_kary_randomized_response_special(orders, p, k):
    """k-ary randomized response against the uniform output of a special input, the larger of both
    orders (``formulas.rdp_kary_randomized_response_special``, the twin in ``precise``).

    With ``c = alpha - 1`` and, under the uniform ``U``, the ratio ``y = e^L`` (``L1 = log r1`` on
    mass ``1/k``, ``L2 = log p`` on ``(k-1)/k``), ``E_U[y] = 1`` gives ``S - 1 = E_U[g(L)]`` with
    terms that are sums of non-negatives, no cancellation:

    * first order (``b = alpha``): ``g = e^L (phi(c L) + c phi(-L))``,
    * second order (``b = 1 - alpha``): ``g = phi(-c L) + c phi(L)``,

    ``phi(x) = e^x - 1 - x``. ``D = log1p(S - 1) / c`` where
    ``S - 1 <= 1``; above, ``log S`` by log-sum-exp (no cancellation there, ``log S >= log 2``).
    Capped at ``max(L1, -L2)`` (``D_alpha <= D_inf``), which also answers an overflow.
    """
    alpha = _orders(orders)
    p = float(p)
    if k < 2**1000:
        log_r1 = math.log1p((k - 1) * (1.0 - p))
        w2, log_w2 = 1.0 - 1.0 / k, math.log1p(-1.0 / k)
    else:  # r1 = k (1-p) + p: log k + log(1-p) + log1p(p / (k (1-p))), the last term below 2**-900
        log_r1 = math.log(k) + math.log1p(-p)
        w2, log_w2 = 1.0, 0.0  # 1 - 1/k: 1/k is below 2**-1000 (the 1/k atom is taken in log space below)
    log_p, log_k = math.log(p), math.log(k)
    cap = max(log_r1, -log_p)
    c = alpha - 1.0
    values = np.zeros(alpha.shape)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        # the 1/k atom in log space (r1 and phi(L1) may overflow, 1/k underflow, for a huge k):
        # first: r1 (phi(c L1) + c phi(-L1)) / k; second: (phi(-c L1) + c phi(L1)) / k
        first = (np.exp(log_r1 - log_k + np.log(_phi(c * log_r1) + c * _phi(-log_r1)))
                 + w2 * p * (_phi(c * log_p) + c * _phi(-log_p)))
        second = (np.exp(np.logaddexp(np.log(_phi(-c * log_r1)), np.log(c) + _log_phi(log_r1)) - log_k)
                  + w2 * (_phi(-c * log_p) + c * _phi(log_p)))
        for excess, b in ((first, alpha), (second, 1.0 - alpha)):
            log_s = np.where(excess <= 1.0, np.log1p(excess),
                             np.logaddexp(b * log_r1 - log_k, b * log_p + log_w2))
            values = np.maximum(values, log_s / c)
    values = np.where(np.isnan(values), cap, np.minimum(values, cap))
    return _floor_positive(values)


# --- Poisson-subsampled Gaussian: integer orders ----------------------------------------------


_LOG_FACTORIAL = np.zeros(1)


def _log_factorials(n):
    """``log k!`` for ``k = 0..n`` (cached, grown on demand; ``math.lgamma`` is correctly rounded
    to within a few ulp)."""
    global _LOG_FACTORIAL
    if len(_LOG_FACTORIAL) <= n:
        size = max(n + 1, 2 * len(_LOG_FACTORIAL))
        _LOG_FACTORIAL = np.array([math.lgamma(k + 1.0) for k in range(size)])
    return _LOG_FACTORIAL


@functools.lru_cache(maxsize=8)
def _integer_plan(orders):
    """Flat arrays of the terms ``k = 2..a`` of every integer order ``a`` in ``orders`` (the bytes
    of a float64 array of integer values)."""
    orders = [int(a) for a in np.frombuffer(orders, dtype=np.float64)]
    log_fact = _log_factorials(max(orders))
    ks, alphas = [], []
    for a in orders:
        ks.append(np.arange(2, a + 1, dtype=np.int64))
        alphas.append(np.full(a - 1, a, dtype=np.int64))
    k = np.concatenate(ks)
    a = np.concatenate(alphas)
    lengths = np.array([order - 1 for order in orders])
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    log_binom = log_fact[a] - log_fact[k] - log_fact[a - k]
    plan = {
        "k": k.astype(np.float64),
        "a_minus_k": (a - k).astype(np.float64),
        "k_int": k,
        "k_max": np.arange(int(k.max()) + 1, dtype=np.float64),
        "log_binom": log_binom,
        "starts": starts,
        "segment": np.repeat(np.arange(len(orders)), lengths),
    }
    for value in plan.values():
        value.setflags(write=False)
    return plan


@functools.lru_cache(maxsize=16)
def _integer_base(orders, q):
    """``log C(a,k) + k log q + (a-k) log(1-q)`` on the flat plan of ``orders`` (cached per q)."""
    plan = _integer_plan(orders)
    base = plan["log_binom"] + plan["k"] * math.log(q) + plan["a_minus_k"] * math.log1p(-q)
    base.setflags(write=False)
    return base


def _log_a_minus_1_integer(orders, q, sigma):
    """``log(A_a - 1)`` for integer orders ``a >= 2``, ``0 < q < 1`` (docs/math.md#integer-orders).

    ``A_a - 1 = sum_{k=2}^{a} C(a,k) (1-q)^{a-k} q^k expm1((k^2-k)/(2 s^2))`` (the ``k <= 1`` terms
    vanish because ``sum_k C(a,k)(1-q)^{a-k} q^k = 1``): every term is non-negative, so a
    segmented log-sum-exp keeps relative accuracy even when ``A - 1 ~ 1e-300``.
    ``log expm1(c) = c + log(-expm1(-c))`` (no cancellation for ``c > 0``); the factor ``log expm1(c_k)`` depends on
    ``k`` alone and is evaluated once per ``k``.
    """
    key = np.ascontiguousarray(orders, dtype=np.float64).tobytes()
    plan = _integer_plan(key)
    k = plan["k_max"]
    c = (k * k - k) * (1.0 / (2.0 * sigma * sigma))  # c_k >= 1/s^2 > 0 for k >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        log_expm1_c = c + np.log(-np.expm1(-c))  # log expm1(c_k), -inf at k = 0, 1 (never gathered)
        log_terms = _integer_base(key, q) + log_expm1_c[plan["k_int"]]
        starts = plan["starts"]
        top = np.maximum.reduceat(log_terms, starts)
        shifted = log_terms - top[plan["segment"]]
        sums = np.add.reduceat(np.exp(shifted), starts)  # nan only where top = +-inf (masked below)
        # top = +inf: some term overflows float64 (tiny sigma), so A - 1 = +inf is the upper bound
        return np.where(np.isfinite(top), top + np.log(sums), np.where(top > 0, np.inf, -np.inf))


# --- Poisson-subsampled Gaussian: fractional orders ------------------------------------------


#: The error of :func:`_log_abs_binomial_matrix` is below this times ``2^-52`` times the sum of the
#: magnitudes of its parts (measured at most 4.6: a factor 2 of headroom, rounded up).
_BINOMIAL_ERROR_FACTOR = 8.0
_LOG_PI = math.log(math.pi)


def _log_abs_binomial_matrix(alphas, n):
    """``(log|C(alpha, i)|, sign C(alpha, i), size)`` for fractional ``alphas`` (rows) and ``i = 0..n-1``.

    ``log|C| = lgamma(a+1) - lgamma(i+1) - log|Gamma(a-i+1)|``. While ``a - i + 1 > 0`` the
    argument is exact in float (an integer subtracted from ``a`` with a result of at most ``a``).
    Past it, ``|Gamma(a-i+1)| = pi / (sin(pi f) Gamma(i-a))`` with ``f = a - floor(a)`` exact
    (reflection): only ``Gamma`` at the positive ``i - a`` (one rounding, ``2^-53 i``, i.e. an
    error of ``2^-53 i log i``, below the size ``lgamma(i+1)``) and ``sin(pi min(f, 1-f))`` are evaluated,
    instead of ``lgamma`` a tiny distance ``f`` from a pole, whose rounded argument loses digits.
    The sign is ``(-1)^(i - floor(a) - 1)`` for ``i >= floor(a) + 2`` and ``+1`` before: the
    generalised binomial alternates past ``alpha + 1``. ``size``: ``2^-52 size`` bounds the error
    of ``log|C|`` (:data:`_BINOMIAL_ERROR_FACTOR` times the sum of the magnitudes of its parts).
    """
    a = np.asarray(alphas, dtype=np.float64)[:, None]
    i = np.arange(n, dtype=np.float64)[None, :]
    floor = np.floor(a)
    frac = a - floor
    distance = np.minimum(frac, 1.0 - frac)  # exact; sin(pi f) = sin(pi (1 - f)) without cancellation
    before = i <= floor + 1  # a - i + 1 > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        log_gamma_before = _special.gammaln(np.where(before, a - i + 1.0, 1.0))
        log_sin = np.log(np.sin(math.pi * distance))
        log_gamma_after = _special.gammaln(np.where(before, 1.0, i - a))
    log_gamma_low = np.where(before, log_gamma_before, _LOG_PI - log_sin - log_gamma_after)
    head = _special.gammaln(a + 1.0)
    log_fact = _special.gammaln(i + 1.0)
    log_abs = head - log_fact - log_gamma_low
    negatives = np.maximum(i - floor - 1, 0)
    sign = np.where(negatives % 2 == 0, 1.0, -1.0)
    # sum of the magnitudes of the parts: the error of log_abs is below 8 * 2^-52 times this
    # (measured: at most 4.6 times, against mpmath, orders 1 + 1e-6 .. 1e4 and i < 8200)
    components = np.abs(head) + log_fact + np.where(before, np.abs(log_gamma_before), _LOG_PI - log_sin + np.abs(log_gamma_after)) + 1.0
    return log_abs, sign, _BINOMIAL_ERROR_FACTOR * components


#: Terms of the power series of ``phi2`` in :func:`_log_g_of_log_1mq` (``k = 2 .. 31``): the
#: remainder is below ``1e-23`` of the first term when ``|y| <= 1/2``.
_PHI2_TERMS = 30


def _log_g_of_log_1mq(L, eps, eps_powers, log_eps, eps_max):
    """:func:`_log_g` at one ``L = log(1-q)`` for many ``eps = alpha - 1``, as the series needs it.

    When every ``|eps L| <= 1/2`` (and ``|L| <= 1/2``), ``phi2(eps L) = sum_k eps^k L^k/k!`` is one
    matrix-vector product with the cached powers ``eps^k`` (``eps_powers``, ``k = 2..31``), and
    ``psi(L)`` the same sum with ``eps = -1``: sums of terms whose ratio is at most ``1/6``, so a few
    ulp. Otherwise :func:`_log_g`.
    """
    if abs(L) > 0.5 or abs(L) * eps_max > 0.5:
        return _log_g(L, eps)
    term, terms, psi = L * L / 2.0, [], 0.0  # L^k / k!, k = 2 .. 31 (scalars: cheaper than numpy)
    for k in range(2, 2 + _PHI2_TERMS):
        terms.append(term)
        psi += term if k % 2 == 0 else -term  # sum (-L)^k / k!
        term = term * L / (k + 1)
    phi2 = eps_powers @ np.array(terms)
    return L + np.logaddexp(log_eps + math.log(psi), np.log(phi2))


@functools.lru_cache(maxsize=128)
def _series_plan(alphas_key, lengths_key):
    """The parts of the series that depend on the orders and their lengths only (cached).

    Ragged layout: the terms ``i = 0 .. n_r - 1`` of every order ``r`` are laid end to end in one
    flat array (``starts``: where each order begins), so that orders summed to different lengths
    share every numpy call. Holds the binomials, their signs and error sizes, ``j = a - i`` and
    its powers, the additive masks (``0`` or ``-inf``) of the two sums' bodies (first sum
    ``2 <= i <= n-2``, second ``i <= n-2``), and the flat indices of each order's last four terms.
    Read-only arrays.
    """
    alphas = np.frombuffer(alphas_key, dtype=np.float64)
    lengths = np.frombuffer(lengths_key, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    row = np.repeat(np.arange(len(alphas)), lengths)
    i_int = np.arange(int(lengths.sum())) - starts[row]
    i = i_int.astype(np.float64)
    a = alphas[row]
    j = a - i
    n_max = int(lengths.max())
    log_binom, sign, binomial_size = (part[row, i_int] for part in _log_abs_binomial_matrix(alphas, n_max))
    n = lengths[row]
    j_unique, j_inverse = np.unique(j, return_inverse=True)  # exact duplicates only (a - i shared)
    plan = {
        "j_unique": j_unique,
        "j_inverse": j_inverse,
        "alphas": alphas,
        "row": row,
        "starts": starts,
        "i_int": i_int,
        "i_max": np.arange(n_max, dtype=np.float64),
        "i": i,
        "j": j,
        "jj": j * j - j,
        "abs_j": np.abs(j),
        "basis1": np.ascontiguousarray(np.stack([np.abs(j), j * j, i, np.ones_like(i)], axis=1)),
        "basis0_max": np.ascontiguousarray(np.stack([np.arange(n_max, dtype=np.float64), np.arange(n_max, dtype=np.float64) ** 2, np.ones(n_max)], axis=1)),
        "log_binom": log_binom,
        "binomial_error": 2.0**-52 * binomial_size,
        "extra_signs": np.array([1.0, -1.0, 0.0, -1.0])[:, None] * np.ones(len(alphas)),
        "sign": sign,
        "mask0": np.where((i_int >= 2) & (i_int <= n - 2), 0.0, -np.inf),
        "mask1": np.where(i_int <= n - 2, 0.0, -np.inf),
        "last4": starts[None, :] + lengths[None, :] + np.arange(-4, 0)[:, None],  # rows n-4 .. n-1
        "tail_sign": sign[starts + lengths - 1],
        "log2_length": np.log2(lengths.astype(np.float64)),
        "past": np.floor(alphas) + 2 <= lengths - 4,
        "log_alpha": np.log(alphas),
        "eps": alphas - 1.0,
        "log_eps": np.log(alphas - 1.0),
        "eps_max": float(np.max(alphas - 1.0)),
        "eps_powers": (alphas - 1.0)[:, None] ** np.arange(2, 2 + _PHI2_TERMS),
    }
    for value in plan.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return plan


@np.errstate(divide="ignore", invalid="ignore", over="ignore")
def _series_log_a_minus_1(alphas, q, sigma, n_terms):
    """``(log(A-1), converged, hopeless)`` arrays, by the signed series of Mironov, Talwar & Zhang 2019.

    (arXiv 1908.10530 section 3.3; the mpmath twin is ``precise.log_a_series``.) ``alphas`` are
    fractional orders, each summed to ``i < n_terms`` (an integer, or one per order). With
    ``z0 = s^2 log(1/q - 1) + 1/2`` and ``j = a - i``:
    ``A = sum_i C(a,i) [q^i (1-q)^j e^{(i^2-i)/(2s^2)} Phi((z0-i)/s)
    + q^j (1-q)^i e^{(j^2-j)/(2s^2)} Phi((j-z0)/s)]``.
    Subtracting ``1 = E[1 + a(r-1)]`` split at ``z0`` removes the O(1) and O(q) parts
    analytically: the i = 0, 1 terms of the first sum combine into
    ``g(-q) Phi(z0/s) - a q (1 - (1-q)^{a-1}) Phi((z0-1)/s)`` with ``g(u) = (1+u)^a - 1 - a u``
    (:func:`_log_g`), and ``-(1 - a q) Phi(-z0/s) - a q Phi((1-z0)/s)`` is added. What remains is
    ``A - 1`` as a signed sum, accumulated after scaling by its largest term. The order-free
    factor ``Phi((z0-i)/s)`` is evaluated once for all orders; everything that depends on the
    orders and lengths alone comes from a cache (:func:`_series_plan`), and all orders go through
    one flat (ragged) array.

    Convergence criterion. Past ``i = floor(a) + 1`` the binomials alternate in sign and the two
    terms of index ``i`` share that sign; write ``m_i`` for their combined magnitude. If the last
    four ``m_i`` decrease and are convex (differences decrease), the remainder after index
    ``n - 2`` lies between ``m_{n-1}/2`` and ``m_{n-2}/2`` (the classical bound for alternating
    series with convex terms), so we add the midpoint ``sign * (m_{n-2} + m_{n-1})/4`` to the sum
    over ``i <= n - 2`` and carry ``(m_{n-2} - m_{n-1})/4`` as the truncation error.
    (Why four terms speak for the whole tail, whatever the length: on ``i > a`` both parts of
    ``m_i`` are log-convex in ``i`` -- ``|C(a,i)| = Gamma(i-a)/(|Gamma(-a)| Gamma(i+1))`` has
    second log-derivative ``psi'(i-a) - psi'(i+1) > 0``, and ``e^{(i^2-i)/(2s^2)} Phi((z0-i)/s)``
    and its mirror are Gaussian moment generating functions restricted to a half-line -- so
    ``m_{i+1}/m_i`` never decreases, and a convergent ``m`` that decreases once keeps decreasing,
    convexly; checking the last four guards the float evaluation.) The result is accepted when
    truncation error + rounding bound, as a relative error of ``log A`` (a relative error ``r`` of
    ``D = A - 1`` is ``r D/((1+D) log1p(D)) <= r`` in ``log A``), is below ``_SERIES_RTOL``, and
    the result is positive. Rounding bound: each term's log is a sum of components whose rounding
    is ``2^-52`` times their size (the binomial's own bound from :func:`_log_abs_binomial_matrix`),
    plus ``_ERFC_RTOL (1 + |log Phi|)`` for :func:`_log_ndtr`; exponentiation turns that into a
    relative error of the term; summation adds ``(log2(n) + 4) 2^-52 sum|terms|`` (pairwise:
    ``np.add.reduceat`` sums each segment with numpy's pairwise loop; tests/math/test_fast.py
    checks it). Otherwise ``converged`` is False and the caller falls back (more terms, then
    quadrature, then ``precise``).
    """
    alphas = np.ascontiguousarray(alphas, dtype=np.float64)
    if np.ndim(n_terms) == 0:
        lengths = np.full(len(alphas), int(n_terms), dtype=np.int64)
    else:
        lengths = np.ascontiguousarray(n_terms, dtype=np.int64)
    # plans of long calls are not kept: the cache holds at most 128 plans of <= _CACHED_TERMS terms
    planner = _series_plan if int(lengths.sum()) <= _CACHED_TERMS else _series_plan.__wrapped__
    plan = planner(alphas.tobytes(), lengths.tobytes())
    i, j, row, starts = plan["i"], plan["j"], plan["row"], plan["starts"]
    log_q, log_1mq = math.log(q), math.log1p(-q)
    s2 = sigma * sigma
    half_inv_s2 = 1.0 / (2.0 * s2)
    z0 = s2 * (log_1mq - log_q) + 0.5
    # Phi((z0 - i)/s) does not depend on the order: computed once per i, then gathered
    i_max = plan["i_max"]
    ndtr0_max = _log_ndtr((z0 - i_max) / sigma)
    shared_max = i_max * log_q + (i_max * i_max - i_max) * half_inv_s2 + ndtr0_max
    # per-term log error, except the binomial's: components' size * 2^-52 and log_ndtr's error
    # (2^-52 (i |log q| + i^2/(2 s^2) + |log Phi| + 8) + _ERFC_RTOL (1 + |log Phi|), as one product)
    err0_max = plan["basis0_max"] @ np.array([2.0**-52 * abs(log_q), 2.0**-52 * half_inv_s2, 2.0**-52 * 8.0 + _ERFC_RTOL])
    err0_max += (2.0**-52 + _ERFC_RTOL) * np.abs(ndtr0_max)
    i_int = plan["i_int"]
    log_t0 = (plan["log_binom"] + shared_max[i_int]) + j * log_1mq
    ndtr1 = _log_ndtr((plan["j_unique"] - z0) / sigma)[plan["j_inverse"]]  # once per distinct j
    log_t1 = (plan["log_binom"] + ndtr1) + (j * log_q + plan["jj"] * half_inv_s2) + i * log_1mq
    eps = plan["eps"]
    edge = _log_ndtr(np.array([z0, z0 - 1.0, -z0, 1.0 - z0]) / sigma)
    log_alpha_q = plan["log_alpha"] + log_q
    one_minus_aq = 1.0 - alphas * q
    # the four edge terms of every order, one row each (rows: reductions over axis 0 are elementwise)
    extra_logs = np.empty((4, len(alphas)))
    extra_logs[0] = _log_g_of_log_1mq(log_1mq, eps, plan["eps_powers"], plan["log_eps"], plan["eps_max"])
    extra_logs[1] = log_alpha_q + np.log(-np.expm1(eps * log_1mq))
    extra_logs[2] = np.log(np.abs(one_minus_aq))
    extra_logs[3] = log_alpha_q
    extra_logs += edge[:, None]
    extra_signs = plan["extra_signs"].copy()
    extra_signs[2] = -np.sign(one_minus_aq)
    extra_err = 2.0**-52 * (np.abs(extra_logs) + 16.0) + (_ERFC_RTOL * (1.0 + np.abs(edge)))[:, None]
    # bodies: terms i = 2 .. n-2 of the first sum and 0 .. n-2 of the second; index n-1 is the tail
    body0 = log_t0 + plan["mask0"]
    body1 = log_t1 + plan["mask1"]
    top = np.maximum(np.maximum.reduceat(np.maximum(body0, body1), starts), extra_logs.max(axis=0))
    finite = np.isfinite(top)
    top = np.where(finite, top, 0.0)
    top_flat = top[row]
    scaled0 = np.exp(body0 - top_flat)
    scaled1 = np.exp(body1 - top_flat)
    combined = scaled0 + scaled1
    scaled_extra = np.exp(extra_logs - top)
    total = np.add.reduceat(plan["sign"] * combined, starts) + (extra_signs * scaled_extra).sum(axis=0)
    absolute = np.add.reduceat(combined, starts) + scaled_extra.sum(axis=0)
    # rounding of each term: its relative error is the absolute error of its log
    # (2^-52 + _ERFC_RTOL) |log Phi| + 2^-52 (|j| |log q| + j^2/(2 s^2) + i |log(1-q)| + 8) + _ERFC_RTOL
    err1 = plan["basis1"] @ np.array([2.0**-52 * abs(log_q), 2.0**-52 * half_inv_s2, 2.0**-52 * abs(log_1mq), 2.0**-52 * 8.0 + _ERFC_RTOL])
    err1 += (2.0**-52 + _ERFC_RTOL) * np.abs(ndtr1)
    err0 = err0_max[i_int] + 2.0**-52 * (plan["abs_j"] * abs(log_1mq))
    term_errors = combined * plan["binomial_error"] + scaled0 * err0 + scaled1 * err1
    # shape of the tail, checked in log space (the scaled magnitudes may underflow)
    last4 = plan["last4"]
    last = np.logaddexp(log_t0[last4], log_t1[last4])  # rows: combined magnitudes m_{n-4} .. m_{n-1}
    steps = last[1:] - last[:-1]  # log(m_{k+1}/m_k) < 0: decreasing
    log_drops = last[:-1] + np.log(-np.expm1(steps))  # log(m_k - m_{k+1}); nan if not decreasing
    convex = (log_drops[1:] - log_drops[:-1]).max(axis=0) < 0  # False on nan
    tail_shape_ok = (steps.max(axis=0) < 0) & convex
    m = np.exp(last - top)  # m_{n-4} .. m_{n-1}, scaled
    total = total + plan["tail_sign"] * (m[-2] + m[-1]) / 4
    truncation = (m[-2] - m[-1]) / 4
    rounding = (
        np.add.reduceat(term_errors, starts)
        + (scaled_extra * extra_err).sum(axis=0)
        + (plan["log2_length"] + 4) * 2.0**-52 * (absolute + m[-2])
    )
    positive_total = np.where(total > 0, total, 1.0)
    log_am1 = top + np.log(positive_total)
    # a relative error r of D = A - 1 is a relative error r D / ((1 + D) log1p(D)) <= r of log A
    log_a = np.logaddexp(0.0, log_am1)
    damping = np.exp(log_am1 - log_a) / np.where(log_a > 0, log_a, 1.0)
    damping = np.where(log_a > 0, np.minimum(damping, 1.0), 1.0)
    relative_error = (truncation + rounding) / positive_total * damping
    converged = finite & plan["past"] & tail_shape_ok & (total > 0) & (relative_error <= _SERIES_RTOL)
    # more terms cannot help when rounding alone is too large (A - 1 cancels too much)
    hopeless = ~finite | (total <= 0) | (rounding / positive_total * damping > _SERIES_RTOL / 2)
    log_am1 = np.where(converged, log_am1, -np.inf)
    return log_am1, converged, hopeless


@functools.lru_cache(maxsize=8)
def _gauss_legendre(n):
    nodes, weights = np.polynomial.legendre.leggauss(n)
    return nodes, weights


#: Most float64 elements of one 2-D (orders x nodes) block of the quadrature (8 MiB): bounds memory.
_QUAD_BLOCK = 2**20


def _quad_moment_part(order_free, L, eps):
    """``log sum_nodes e^{order_free} g(e^L - 1)`` for every ``eps = a - 1`` (1-D), when every
    ``|L| <= 1/2`` and ``|eps L| <= 1/2``: ``g = e^L [eps psi(L) + phi2(eps L)]`` with
    ``phi2(eps L) = sum_k eps^k L^k/k!``, so the sum over nodes is ``eps`` times an order-free sum
    plus a sum over ``k`` of ``eps^k`` times order-free moments ``M_k = sum_nodes e^{.} L^k/k!``: no
    (orders x nodes) array. Every ``|eps^k L^k/k!|`` is at most ``2^-(k-2) 2/k!`` of the one-signed
    ``k = 2`` term, so the moments' rounding stays a few ulp of the ``k = 2`` sum. ``nan`` where the
    float sum is not positive (rounding only: the exact one is)."""
    log_weight = order_free + L
    peak = float(np.max(log_weight))
    weight = np.exp(log_weight - peak)
    psi_sum = float(weight @ _series_tail(-L, 2))
    n_terms = _tail_length(float(eps.max()) * float(np.max(np.abs(L))), 2)
    powers = np.arange(2, 2 + n_terms)
    moments = np.empty(n_terms)
    power = L * L
    for index in range(n_terms):
        moments[index] = float(weight @ power) / math.factorial(int(powers[index]))
        power = power * L
    linear = eps * psi_sum + (eps[:, None] ** powers[None, :]) @ moments
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(linear > 0, peak + np.log(np.where(linear > 0, linear, 1.0)), np.nan)


def _quad_log_part(order_free, L, eps):
    """``log sum_nodes e^{order_free} g(e^L - 1)`` for every ``eps`` (a column), in log space
    (:func:`_log_g`), in blocks of at most ``_QUAD_BLOCK`` elements; ``nan`` where not finite."""
    rows = max(1, _QUAD_BLOCK // len(L))
    values = np.empty(len(eps))
    for begin in range(0, len(eps), rows):
        log_f = order_free + _log_g(L, eps[begin : begin + rows])
        top = np.max(log_f, axis=1)
        finite = np.isfinite(top)
        safe_top = np.where(finite, top, 0.0)
        total = np.sum(np.exp(log_f - safe_top[:, None]), axis=1)
        with np.errstate(divide="ignore"):
            values[begin : begin + rows] = np.where(finite, safe_top + np.log(total), np.nan)
    return values


def _quad_log_a_minus_1(alphas, q, sigma, panel=0.5):
    """``log(A-1)`` at each of ``alphas`` by float Gauss-Legendre quadrature of ``E_{mu0}[g(r - 1)]``;
    ``nan`` where the quadrature fails its self-check (all ``nan`` if the grid is too large).

    ``A - 1 = E_{mu0}[r^a - 1 - a (r - 1)]`` because ``E_{mu0}[r] = 1``; the integrand
    ``g(u) = (1+u)^a - 1 - a u`` is non-negative and computed without cancellation (:func:`_log_g`),
    so the quadrature sum keeps relative accuracy. Variable ``t = z/s`` on
    ``[-40, max(2, a_max)/s + 40]`` (one grid for all the orders: past ``a/s + 40`` the integrand of
    order ``a`` is below ``e^{-800}`` of its peak, so a longer range changes nothing): panels of
    width ``panel`` (1/2; first 2 when ``s >= 1``, the self-check deciding), and of width ``s/2`` within ``20 s`` of the logistic transition at ``t0 = z0/s``
    (its complex poles are ``pi s`` away). The order-free parts (nodes, ``log r``, ``psi``) are
    computed once; nodes with small ``|(a-1) log r|`` take :func:`_quad_moment_part` (no 2-D
    array), the others :func:`_quad_log_part` (blocks of at most ``_QUAD_BLOCK`` elements).
    Self-check: 20- and 14-point rules on every panel must agree to ``_QUAD_RTOL``; all ``nan`` if
    more than ``_QUAD_MAX_PANELS`` panels would be needed (counted before any array is built).
    """
    alphas = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    out = np.full(len(alphas), np.nan)
    log_q, log_1mq = math.log(q), math.log1p(-q)
    s2 = sigma * sigma
    z0 = s2 * (log_1mq - log_q) + 0.5
    t_low, t_high = -40.0, max(2.0, float(alphas.max())) / sigma + 40.0
    t0 = z0 / sigma
    fine_low, fine_high = max(t_low, t0 - 20 * sigma), min(t_high, t0 + 20 * sigma)
    # count the panels before building them: tiny sigma would ask for ~alpha/sigma of them
    if not math.isfinite(t_high) or (t_high - t_low) / panel > _QUAD_MAX_PANELS:
        return out
    edges = list(np.arange(t_low, t_high, panel)) + [t_high]
    if fine_low < fine_high and sigma < 1:
        edges = [e for e in edges if not fine_low < e < fine_high]
        edges += list(np.arange(fine_low, fine_high, sigma / 2)) + [fine_high]
    edges = np.unique(np.array(edges))
    if len(edges) - 1 > _QUAD_MAX_PANELS:
        return out
    left, width = edges[:-1], np.diff(edges)
    eps = (alphas - 1.0)[:, None]
    results = []
    for n in (20, 14):
        nodes, weights = _gauss_legendre(n)
        t = (left[:, None] + width[:, None] * (nodes[None, :] + 1) / 2).ravel()
        w = (width[:, None] * weights[None, :] / 2).ravel()
        x = (2 * sigma * t - 1) / (2 * s2)
        with np.errstate(over="ignore"):
            L = np.where(
                x < 700, np.log1p(q * np.expm1(np.minimum(x, 700.0))), np.logaddexp(log_1mq, log_q + x)
            )
        order_free = -t * t / 2 + np.log(w)
        # nodes where every |eps L| <= 1/2 (most of them when u is small: small q, large sigma)
        # take the moment form; the others the 2-D log-space form; the two parts add in log space
        small = np.abs(L) * max(1.0, float(eps.max())) <= 0.5
        values = np.full(len(alphas), -np.inf)
        if small.any():
            values = np.logaddexp(values, _quad_moment_part(order_free[small], L[small], eps[:, 0]))
        if not small.all():
            values = np.logaddexp(values, _quad_log_part(order_free[~small], L[~small], eps))
        results.append(values - 0.5 * math.log(2 * math.pi))
    # the difference of the two logs is the relative difference of A - 1, which bounds that of log A
    agree = np.abs(results[0] - results[1]) <= _QUAD_RTOL  # False on nan
    out[agree] = results[0][agree]
    return out


def _precise_log_a(alpha, q, sigma):
    """Last resort: ``precise.log_a_integral`` at 20 digits, rounded up; ``+inf`` if it raises."""
    from dpproofs.math import precise  # imported lazily: only the rare corner cases need mpmath

    try:
        value = precise.log_a_integral(alpha, q, sigma, dps=_PRECISE_FALLBACK_DPS)
    except NumericalError:
        return math.inf
    return math.nextafter(float(value), math.inf)


def _in_accuracy_domain(q, sigma):
    """Whether ``(q, sigma)`` is where fractional orders are held to :data:`RTOL` (and the precise
    fallback is affordable); outside it the last resort is :func:`_chord_log_a` (an upper bound)."""
    return domain.SIGMA_ACCURATE_MIN <= sigma <= domain.SIGMA_ACCURATE_MAX and q >= domain.Q_SERIES_MIN


def _chord_log_a(alphas, q, sigma):
    """Upper bound on ``log A`` at fractional orders: the chord of the convex ``a -> log A_a``
    between ``n = floor(a)`` and ``n + 1`` (``log A_1 = 0``), from the exact integer sums
    (``A_a = E_{mu0}[r^a]`` is a moment generating function in ``a``, so ``log A`` is convex: Hölder).
    Exact integer values are within ``RTOL`` and the chord lies above the exact value; the result
    is raised by ``RTOL`` relative so that it stays above it after the integer sums' rounding.
    Cost: ``O(max a)`` time and memory (dpproofs.math.limits)."""
    alphas = np.asarray(alphas, dtype=np.float64)
    low = np.floor(alphas)
    needed = np.unique(np.concatenate([low, low + 1.0]))
    needed = needed[needed >= 2.0]
    log_at = {1.0: 0.0}
    if len(needed):
        values = np.logaddexp(0.0, _log_a_minus_1_integer(needed, q, sigma))
        log_at.update(zip(needed.tolist(), values.tolist()))
    log_low = np.array([log_at[a] for a in low.tolist()])
    log_high = np.array([log_at[a + 1.0] for a in low.tolist()])
    t = alphas - low
    with np.errstate(invalid="ignore"):
        chord = (1.0 - t) * log_low + t * log_high
    chord = np.where(np.isnan(chord), np.inf, chord)  # only from inf * 0, which cannot occur (0 < t < 1)
    return chord * (1.0 + RTOL)


def _initial_terms(alphas):
    """Series length to try first: ``(2e5)^(1/(alpha+1))`` (the tail decays like ``i^-(alpha+2)``,
    so orders near 1 need the most terms; measured at q = 0.01, sigma = 1.1: 116 terms at
    alpha = 1.1, 72 at 1.5, 40 at 1.9, 24 to 36 from 2.1 to 2.9), at least 32 and four terms past
    the sign change at ``floor(alpha) + 1``, rounded up to a multiple of 8."""
    base = np.maximum(np.maximum(np.ceil(2e5 ** (1.0 / (alphas + 1.0))), 32), np.floor(alphas) + 6)
    return (8 * np.ceil(base / 8)).astype(np.int64)


#: The envelope of :func:`_predicted_terms` is examined on ``i < 64`` (a first length past it
#: gains little over :func:`_initial_terms`).
_PREDICTION_HORIZON = 64
_PREDICTION_I = np.arange(_PREDICTION_HORIZON, dtype=np.float64)


@functools.lru_cache(maxsize=128)
def _order_lengths(alphas_key):
    """``(_initial_terms, _term_limits, floor(a) + 7)`` of the orders (bytes of a float64 array),
    cached: they depend on the orders alone. Read-only arrays."""
    alphas = np.frombuffer(alphas_key, dtype=np.float64)
    parts = (_initial_terms(alphas), _term_limits(alphas), np.floor(alphas) + 7)
    for part in parts:
        part.setflags(write=False)
    return parts


def _predicted_terms(alphas, q, sigma, base, floor_plus_7):
    """A shorter first length when the order-free part of the terms makes the tail negligible.

    The terms past ``i = 2`` carry the order-free factor ``E(i) = q^i e^{(i^2-i)/(2s^2)}
    Phi((z0-i)/s)`` (and the second sum tends to the same level for large ``i``); the binomials
    grow by at most ``2^a`` relative to ``C(a, 2)``. The first length is the smallest ``n`` past
    which ``E`` stays ``e^{-40} 2^{-a} / (1 + s^2)`` below ``E(2)`` (plus 3 terms for the tail
    check, at least ``floor(a) + 7``, a multiple of 8), computed on ``i < min(max(base), 64)``;
    where no such ``n`` exists there, ``base``. Only the speed depends on this guess: convergence is still
    decided by the series' own criterion, and an unconverged order is retried with ``base``.
    """
    horizon = min(int(base.max()), _PREDICTION_HORIZON)
    if not 0.0 < q < 0.5 or horizon < 8:
        return base
    i = _PREDICTION_I[:horizon]
    s2 = sigma * sigma
    z0 = s2 * (math.log1p(-q) - math.log(q)) + 0.5
    envelope = i * math.log(q) + (i * i - i) / (2.0 * s2) + _log_ndtr((z0 - i) / sigma)
    tail_max = np.maximum.accumulate(envelope[::-1])[::-1]  # max over i' >= i: non-increasing
    # first i with tail_max < envelope[2] - 40 - a log 2 - log(1 + s^2), per order
    first_below = np.searchsorted(-tail_max, alphas * _LOG_2 + (40.0 + math.log1p(s2) - envelope[2]), side="right")
    short = (8 * ((np.maximum(first_below + 3, floor_plus_7) + 7) // 8)).astype(np.int64)
    return np.where(first_below < horizon, np.minimum(short, base), base)


def _term_limits(alphas):
    """Longest series tried before the quadrature: 8192 below 1.5, 4096 below 2.5, else
    ``32 * 2^ceil(log2(floor(a) + 64))``."""
    base = np.where(alphas < 1.5, 256, np.where(alphas < 2.5, 128, np.floor(alphas) + 64))
    return 32 * (2 ** np.ceil(np.log2(base))).astype(np.int64)


#: Panel width (in t = z/sigma) of the quadrature's first try when sigma >= 1 (no fine panels).
_WIDE_PANEL = 2.0

#: Factor by which an unconverged series is lengthened.
_GROWTH = 4


#: Terms of one call of the ragged series (its arrays hold ~15 float64 per term: ~120 MB here);
#: longer rounds are split into calls of at most this many terms, so memory is bounded whatever
#: the number and size of the orders (a single order needs at most 32 * 2^15 terms).
_ROUND_TERMS = 1 << 20
#: Series plans of at most this many terms are cached (128 of them: <= ~1 GB in the worst case).
_CACHED_TERMS = 1 << 16


def _series_in_rounds(alphas, q, sigma, sizes):
    """:func:`_series_log_a_minus_1` over consecutive groups of orders of at most
    :data:`_ROUND_TERMS` terms each (one group per order that alone is longer)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if int(sizes.sum()) <= _ROUND_TERMS:
        return _series_log_a_minus_1(alphas, q, sigma, sizes)
    parts, start, total = [], 0, 0
    for index, size in enumerate(sizes.tolist()):
        if total and total + size > _ROUND_TERMS:
            parts.append((start, index))
            start, total = index, 0
        total += size
    parts.append((start, len(sizes)))
    outputs = [_series_log_a_minus_1(alphas[a:b], q, sigma, sizes[a:b]) for a, b in parts]
    return tuple(np.concatenate([o[k] for o in outputs]) for k in range(3))


def _log_a_fractional(alphas, q, sigma):
    """``log A`` for fractional orders, ``0 < q < 1``: series, then quadrature, then precise.

    Every round sums all pending orders in one call, each to its own length, starting from
    :func:`_initial_terms`; an unconverged order is retried with ``_GROWTH`` times as many terms,
    up to :func:`_term_limits` (unless the series says more terms cannot help), then handed to
    the float quadrature, then to ``precise``.
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    if q < domain.Q_SERIES_MIN:  # the series' powers of q underflow (dpproofs.math.limits)
        return _chord_log_a(alphas, q, sigma)
    out = np.full(len(alphas), np.nan)
    base, limits, floor_plus_7 = _order_lengths(alphas.tobytes())
    sizes = np.array(_predicted_terms(alphas, q, sigma, base, floor_plus_7))  # a writable copy
    log_am1, converged, hopeless = _series_in_rounds(alphas, q, sigma, sizes)
    if converged.all():  # the usual case: one round
        return np.logaddexp(0.0, log_am1)
    limits = limits.copy()
    pending = np.arange(len(alphas))
    first = True
    while len(pending):
        if not first:
            log_am1, converged, hopeless = _series_in_rounds(alphas[pending], q, sigma, sizes[pending])
        first = False
        out[pending[converged]] = np.logaddexp(0.0, log_am1[converged])
        short = sizes[pending] < base[pending]
        limits[pending[hopeless & ~short]] = 0  # a short first guess is retried at its base length
        retry = pending[~converged]
        grow = sizes[retry] < limits[retry]
        grown = np.where(sizes[retry] < base[retry], base[retry], sizes[retry] * _GROWTH)
        sizes[retry[grow]] = np.minimum(grown[grow], limits[retry[grow]])
        done = retry[~grow]
        if len(done):  # every order the series gave up on: one quadrature for all of them
            if sigma >= 1:  # smooth on the scale of t: wide panels first, the self-check decides
                quad = _quad_log_a_minus_1(alphas[done], q, sigma, panel=_WIDE_PANEL)
                retry_narrow = np.isnan(quad)
                if retry_narrow.any():
                    quad[retry_narrow] = _quad_log_a_minus_1(alphas[done[retry_narrow]], q, sigma)
            else:
                quad = _quad_log_a_minus_1(alphas[done], q, sigma)
            ok = ~np.isnan(quad)
            out[done[ok]] = np.logaddexp(0.0, quad[ok])
            failed = done[~ok]
            if len(failed) and _in_accuracy_domain(q, sigma):
                for row in failed:
                    out[row] = _precise_log_a(float(alphas[row]), q, sigma)
            elif len(failed):  # bounded time outside the accuracy domain: the convexity bound (dpproofs.math.limits)
                out[failed] = _chord_log_a(alphas[failed], q, sigma)
        pending = retry[grow]
    return out


def _unique(values):
    """``np.unique(values, return_inverse=True)``, with a fast path for strictly increasing input
    (the usual order grids): the values themselves and ``inverse=slice(None)``."""
    if len(values) < 2 or bool(np.all(values[1:] > values[:-1])):
        return values, slice(None)
    return np.unique(values, return_inverse=True)


@functools.lru_cache(maxsize=128)
def _order_split(orders_key):
    """Positions and distinct values (with inverse) of the integer and of the fractional orders
    among ``orders`` (bytes of a float64 array), cached: they depend on the orders alone."""
    flat = np.frombuffer(orders_key, dtype=np.float64)
    is_integer = flat == np.floor(flat)
    parts = []
    for at in (np.flatnonzero(is_integer), np.flatnonzero(~is_integer)):
        unique, inverse = _unique(flat[at])
        parts += [at, np.ascontiguousarray(unique), inverse]
    return tuple(parts)


def log_a(orders, q, sigma):
    """``log A_alpha`` of the Poisson-subsampled Gaussian at every order (docs/math.md#poisson-subsampled-gaussian).

    Twin: ``precise.log_a`` (``precise.log_a_integer`` at integer orders, the integral otherwise).
    Integer orders: the exact sum of non-negative terms, ``log A = log1p(A - 1)`` (see
    :func:`_log_a_minus_1_integer`). Fractional orders: the MTZ19 signed series with its convergence
    and rounding criterion, else a self-checked float quadrature, else ``precise`` at 20 digits.
    """
    alpha = _orders(orders)
    q, sigma = float(q), float(sigma)
    flat = alpha.ravel()
    out = np.empty_like(flat)
    if q == 0.0:
        out[:] = 0.0
        return out.reshape(alpha.shape)
    if q == 1.0 or sigma > domain.SIGMA_HUGE:
        # q = 1: the Gaussian, exactly; huge sigma: the Gaussian's value is an upper bound
        # (quasi-convexity, dpproofs.math.limits), floored at TINY (alpha - 1) so RDP is at least TINY
        with np.errstate(over="ignore", under="ignore"):
            gaussian = (flat - 1.0) * (flat / (2.0 * sigma) / sigma)
        out[:] = gaussian if q == 1.0 else np.maximum(gaussian, TINY * (flat - 1.0))
        return out.reshape(alpha.shape)
    if sigma < domain.SIGMA_TINY:  # RDP > 1e299 at every order: +inf is the bound (dpproofs.math.limits)
        out[:] = np.inf
        return out.reshape(alpha.shape)
    integer_at, integer_unique, integer_inverse, fractional_at, fractional_unique, fractional_inverse = _order_split(
        np.ascontiguousarray(flat).tobytes()
    )
    if len(integer_at):
        log_am1 = _log_a_minus_1_integer(integer_unique, q, sigma)
        out[integer_at] = np.logaddexp(0.0, log_am1)[integer_inverse]
    if len(fractional_at):
        out[fractional_at] = _log_a_fractional(fractional_unique, q, sigma)[fractional_inverse]
    return out.reshape(alpha.shape)


def rdp_sampled_gaussian(orders, q, sigma):
    """RDP of one Poisson-subsampled Gaussian step, add direction: ``log A_alpha / (alpha - 1)``.

    Current accountants use the add direction alone on the strength of Mironov, Talwar & Zhang
    2019 (arXiv 1908.10530) Thm 5 (``A_alpha >= B_alpha``); dpproofs checks that claim separately.
    Twin: ``precise.rdp_sampled_gaussian(..., direction="add")``. ``q = 0`` gives exactly 0 (the
    true value); ``q = 1`` the Gaussian ``alpha/(2 s^2)``; positive exact values below ``TINY`` give
    ``TINY``.
    """
    alpha = _orders(orders)
    if float(q) == 0.0:
        return np.zeros_like(alpha)
    values = log_a(alpha, q, sigma) / (alpha - 1.0)
    return _floor_positive(values)


# --- the Gaussian privacy profile (for the privacy curve's GDP bracket) ----------------------


def delta_gaussian_bounds(epsilon, sigma):
    """A float64 enclosure ``(lower, upper)`` of the exact Gaussian privacy profile
    ``Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s)`` (twin of ``precise.delta_gaussian``; Balle &
    Wang 2018, arXiv 1805.06530v2, Thm 8), vectorised over ``epsilon >= 0`` and ``sigma > 0``
    (arrays that broadcast together). With ``sigma = 1/mu`` it is the mu-GDP profile of Dong, Roth & Su 2022
    (arXiv 1905.02383v3, Cor. 2.13).

    Evaluated in log space as ``log Phi(a) + log(-expm1(x))``, ``x = eps + log Phi(b) - log Phi(a)``
    (no cancellation in the difference). Error: each ``log Phi`` is within ``_ERFC_RTOL max(1, |.|)``
    absolute (tests/math/test_fast.py), the sum ``x`` adds ``4 u (|eps| + |log Phi(a)| + |log Phi(b)|)``;
    ``|d log(-expm1(x)) / dx| <= max(1, 1/|x|)`` for ``x < 0``. The enclosure is the value times
    ``exp(-+r)`` with ``r`` that bound (plus 8 ulp), so the exact value lies inside; where ``r`` exceeds
    ``1e-6`` (``x`` near 0: sigma above ~1e6) the precise evaluator at 30 digits gives the value and
    ``1e-20`` relative is allowed. Values below ``TINY`` give lower ``0`` and upper ``TINY``.
    """
    eps, sigma = np.broadcast_arrays(np.atleast_1d(np.asarray(epsilon, dtype=np.float64)),
                                     np.asarray(sigma, dtype=np.float64))
    a = 1.0 / (2.0 * sigma) - eps * sigma
    b = -1.0 / (2.0 * sigma) - eps * sigma
    la, lb = _log_ndtr(a), _log_ndtr(b)
    # log Phi(b) = -inf (|b| beyond 1e154): the second term is 0 and x = -inf, exactly
    lb_finite = np.isfinite(lb)
    lb_used = np.where(lb_finite, lb, 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        x = np.where(lb_finite, eps + lb_used - la, -np.inf)
        err_x = np.where(lb_finite, _ERFC_RTOL * (np.maximum(1.0, np.abs(la)) + np.maximum(1.0, np.abs(lb_used)))
                         + 4 * 2.0**-53 * (np.abs(eps) + np.abs(la) + np.abs(lb_used)), 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_value = la + np.log(-np.expm1(np.minimum(x, 0.0)))
        r = err_x * np.maximum(1.0, 1.0 / np.abs(x)) + _ERFC_RTOL * np.maximum(1.0, np.abs(la)) + 8 * 2.0**-53
        value = np.exp(log_value)
        lower = np.where(r < 1e-6, value * np.exp(-r), 0.0)
        upper = np.where(r < 1e-6, value * np.exp(r), 1.0)
    underflow = la == -np.inf  # Phi(a) below float range: 0 <= delta <= Phi(a) < TINY
    lower, upper, r = np.where(underflow, 0.0, lower), np.where(underflow, TINY, upper), np.where(underflow, 0.0, r)
    for i in np.flatnonzero(~(r < 1e-6) | ~np.isfinite(lower) | ~np.isfinite(upper)):
        from dpproofs.math import precise  # rare (sigma above ~1e6): the reference at 30 digits

        exact = float(precise.delta_gaussian(float(eps[i]), float(sigma[i]), dps=30))
        lower[i], upper[i] = exact * (1 - 1e-15), exact * (1 + 1e-15)
    lower = np.clip(np.nan_to_num(lower, nan=0.0), 0.0, 1.0)
    upper = np.clip(np.maximum(np.nan_to_num(upper, nan=1.0), TINY), 0.0, 1.0)
    return lower, upper
