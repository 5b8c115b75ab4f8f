"""The float64 twin of :mod:`dpproofs.evaluator.precise`, vectorised over an array of orders.

This is the accountant's hot path. Every function takes an array-like of Rényi orders
``alpha > 1`` (integer or fractional, in any order, duplicates allowed) and the mechanism's
parameters as floats, and returns a new float64 array of the same shape. Arguments are *not*
validated here (the accountant and the mechanisms do that); the functions only assume
``alpha > 1`` and parameters inside the mathematical domain.

Accuracy contract (one tolerance, :data:`RTOL`, held against ``precise`` by
``tests/evaluator/test_fast.py``). Inside the documented domain

* sampled Gaussian: ``q`` in ``[0, 1]``, ``sigma`` in ``[0.1, 1e4]``, ``alpha`` in
  ``[1 + 1e-6, 1e4]`` (integer and fractional);
* Gaussian: ``sigma > 0``; Laplace: ``scale`` in ``[1e-2, 1e4]``; randomized response:
  ``epsilon`` in ``[1e-4, 50]``; ``alpha`` in ``[1 + 1e-6, 1e4]``,

every returned value ``v`` satisfies ``|v - exact| <= RTOL * exact`` whenever
``exact >= TINY``; an exact value below ``TINY`` (it underflows float64) is returned as ``TINY``,
which is an upper bound. Outside the domain a value is either within the same tolerance or
``+inf`` (when no method here reaches the tolerance, e.g. a series that does not converge and a
quadrature that fails its self-check, or a precise fallback that raises). A returned value is never
negative, never nan, never lower than the tolerance allows, and no order is ever dropped.
"""

import functools
import math

import numpy as np

from dpproofs.errors import NumericalError

__all__ = [
    "RTOL",
    "TINY",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_randomized_response",
    "log_a",
    "rdp_sampled_gaussian",
    "log_erfc",
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
_LOG_SQRT_PI = 0.5 * math.log(math.pi)
_SQRT_2 = math.sqrt(2.0)
#: The signed series is accepted only when its error bound is below this, relative to A - 1.
_SERIES_RTOL = RTOL / 10
#: Relative accuracy of :func:`log_erfc` (measured max 2.4e-14 against mpmath on [-30, 30] and
#: log-spaced points to 1e3; see tests/evaluator/test_fast.py).
_ERFC_RTOL = 5e-14
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

    ``|x| < 2``: erf by its positive series ``2/sqrt(pi) e^{-x^2} sum 2^n x^{2n+1}/(2n+1)!!``
    (40 terms); ``|x| >= 2``: Laplace's continued fraction for ``e^{x^2} erfc(x)`` (52 levels at
    ``x = 2`` down to 8 past ``x = 20``);
    negative ``x`` by ``erfc(x) = 2 - erfc(-x)`` (no cancellation: the result is in [1, 2]).
    Small arrays use :func:`_log_erfc_scalar` element by element instead.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.size <= _SMALL_ARRAY:
        return np.array([_log_erfc_scalar(v) for v in x.ravel().tolist()]).reshape(x.shape)
    a = np.abs(x)
    small = a < 2.0
    log_erfc_abs = np.empty_like(a)
    erf_abs = np.empty_like(a)
    if small.any():
        s = a[small]
        term = s.copy()
        total = s.copy()
        two_s2 = 2.0 * s * s
        for n in range(1, 40):
            term = term * two_s2 / (2 * n + 1)
            total = total + term
        e = (2.0 / math.sqrt(math.pi)) * np.exp(-s * s) * total
        erf_abs[small] = e
        log_erfc_abs[small] = np.log1p(-e)
    # continued-fraction depth for 2e-16 relative, measured against mpmath: 49 levels at x = 2,
    # 26 at 3, 17 at 4, 9 at 8, 5 at 20
    for low, high, depth in ((2.0, 3.0, 52), (3.0, 4.0, 30), (4.0, 8.0, 20), (8.0, 20.0, 12), (20.0, math.inf, 8)):
        band = (a >= low) & (a < high)
        if band.any():
            s = a[band]
            f = s.copy()
            for k in range(depth, 0, -1):
                f = s + (0.5 * k) / f
            values = -s * s - _LOG_SQRT_PI - np.log(f)
            log_erfc_abs[band] = values
            erf_abs[band] = -np.expm1(values)
    with np.errstate(divide="ignore"):
        return np.where(x >= 0, log_erfc_abs, np.log1p(erf_abs))


#: Arrays up to this size go through :func:`_log_erfc_scalar` (less overhead than numpy).
_SMALL_ARRAY = 512


def _log_erfc_scalar(x):
    """``log(erfc(x))`` for one float: ``math.erfc`` (glibc, ~1 ulp) while ``x < 25``, else the
    continued fraction of :func:`log_erfc` (6 levels: 5 suffice for 2e-16 past 20)."""
    if x < 25.0:
        return math.log(math.erfc(x))
    f = x + 3.0 / x  # 6 levels, unrolled
    f = x + 2.5 / f
    f = x + 2.0 / f
    f = x + 1.5 / f
    f = x + 1.0 / f
    f = x + 0.5 / f
    return -x * x - _LOG_SQRT_PI - math.log(f)


def _log_ndtr(y):
    """``log Phi(y)`` (standard normal CDF)."""
    return log_erfc(-np.asarray(y, dtype=np.float64) / _SQRT_2) - _LOG_2


def _log_expm1(x):
    """``log(e^x - 1)`` for ``x > 0`` (``-inf`` at 0), without overflow."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        return np.where(x > 1.0, x + np.log1p(-np.exp(-np.maximum(x, 1.0))), np.log(np.expm1(np.minimum(x, 1.0))))


def _series_tail(y, order):
    """``sum_{k>=order} y^k / k!`` for ``|y| <= 0.5`` (30 terms: remainder below 1e-40)."""
    term = y**order / math.factorial(order)
    total = term.copy()
    for k in range(order + 1, order + 30):
        term = term * y / k
        total = total + term
    return total


def _log_phi2(y):
    """``log(e^y - 1 - y)`` (non-negative for every real ``y``), stable for small and large ``y``."""
    y = np.asarray(y, dtype=np.float64)
    out = np.empty_like(y)
    small = np.abs(y) <= 0.5
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
    out = np.empty_like(L)
    small = np.abs(L) <= 0.5
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
    with np.errstate(divide="ignore"):
        return L + np.logaddexp(np.log(eps) + _log_psi(L), _log_phi2(eps * L))


# --- elementary mechanisms ---------------------------------------------------------------------


def rdp_gaussian(orders, sigma):
    """``alpha / (2 sigma^2)`` (Mironov 2017, arXiv 1702.07476v3, Prop. 7). Twin: ``precise.rdp_gaussian``.

    Two roundings: within 2 ulp. Underflow (``sigma > 1e150``) gives ``TINY``.
    """
    alpha = _orders(orders)
    return _floor_positive(alpha / (2.0 * float(sigma) ** 2))


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
        return _floor_positive(log_inner / e)


def rdp_randomized_response(orders, epsilon):
    """epsilon-randomized response, Mironov 2017 (arXiv 1702.07476v3) Prop. 5. Twin: ``precise``.

    With ``p = e^eps/(1+e^eps)`` and ``y = (alpha-1) eps``, the inner sum is
    ``p e^y + (1-p) e^{-y}``, and inner - 1 factors exactly as
    ``expm1(y) expm1(eps + y) e^{-y} / (1 + e^eps)``: a product of positives, done in log space.
    """
    alpha = _orders(orders)
    eps = float(epsilon)
    y = (alpha - 1.0) * eps
    log_inner_minus_1 = _log_expm1(y) + _log_expm1(eps + y) - y - np.logaddexp(0.0, eps)
    return _floor_positive(np.logaddexp(0.0, log_inner_minus_1) / (alpha - 1.0))


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


@functools.lru_cache(maxsize=256)
def _integer_plan(orders):
    """Flat arrays of the terms ``k = 2..a`` of every integer order ``a`` in ``orders`` (a tuple)."""
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
        "k2_minus_k": (k * k - k).astype(np.float64),
        "log_binom": log_binom,
        "starts": starts,
        "segment": np.repeat(np.arange(len(orders)), lengths),
    }
    for value in plan.values():
        value.setflags(write=False)
    return plan


@functools.lru_cache(maxsize=256)
def _integer_base(orders, q):
    """``log C(a,k) + k log q + (a-k) log(1-q)`` on the flat plan of ``orders`` (cached per q)."""
    plan = _integer_plan(orders)
    base = plan["log_binom"] + plan["k"] * math.log(q) + plan["a_minus_k"] * math.log1p(-q)
    base.setflags(write=False)
    return base


def _log_a_minus_1_integer(orders, q, sigma):
    """``log(A_a - 1)`` for integer orders ``a >= 2``, ``0 < q < 1`` (THEOREMS.md section 2).

    ``A_a - 1 = sum_{k=2}^{a} C(a,k) (1-q)^{a-k} q^k expm1((k^2-k)/(2 s^2))`` (the ``k <= 1`` terms
    vanish because ``sum_k C(a,k)(1-q)^{a-k} q^k = 1``): every term is non-negative, so a
    segmented log-sum-exp keeps relative accuracy even when ``A - 1 ~ 1e-300``.
    ``log expm1(c) = c + log1p(-e^{-c})`` is taken as ``c`` when ``c >= 40`` (relative change
    below ``5e-18``); terms more than 50 below their order's largest are left out of the sum
    (together below ``1e4 e^{-50} < 2e-18`` of it).
    """
    key = tuple(int(a) for a in orders)
    plan = _integer_plan(key)
    c = plan["k2_minus_k"] * (1.0 / (2.0 * sigma * sigma))
    log_terms = _integer_base(key, q) + c
    small = c < 40.0
    if small.any():
        log_terms[small] += _log_expm1(c[small]) - c[small]
    starts = plan["starts"]
    top = np.maximum.reduceat(log_terms, starts)
    shifted = log_terms - top[plan["segment"]]
    keep = shifted > -50.0
    sums = np.bincount(plan["segment"][keep], weights=np.exp(shifted[keep]), minlength=len(starts))
    with np.errstate(divide="ignore"):
        return np.where(np.isfinite(top), top + np.log(sums), -np.inf)


# --- Poisson-subsampled Gaussian: fractional orders ------------------------------------------


@functools.lru_cache(maxsize=4096)
def _log_abs_binomials(alpha, n):
    """``(log|C(alpha, i)|, sign C(alpha, i))`` for ``i = 0..n-1``, fractional ``alpha`` (cached).

    ``log|C| = lgamma(a+1) - lgamma(i+1) - lgamma(a-i+1)`` (``math.lgamma`` returns ``log|Gamma|``
    for negative non-integers); the sign is ``(-1)^(i - floor(a) - 1)`` for ``i >= floor(a) + 2``
    and ``+1`` before: the generalised binomial alternates past ``alpha + 1``.
    """
    head = math.lgamma(alpha + 1.0)
    log_abs = np.array([head - math.lgamma(i + 1.0) - math.lgamma(alpha - i + 1.0) for i in range(n)])
    i = np.arange(n)
    negatives = np.maximum(i - math.floor(alpha) - 1, 0)
    sign = np.where(negatives % 2 == 0, 1.0, -1.0)
    log_abs.setflags(write=False)
    sign.setflags(write=False)
    return log_abs, sign


def _scalar_log_ndtr(y):
    """``log Phi(y)`` for one float."""
    return _log_erfc_scalar(-y / _SQRT_2) - _LOG_2


def _series_log_a_minus_1(alphas, q, sigma, n_terms):
    """``(log(A-1), converged, hopeless)`` arrays, by the signed series of Mironov, Talwar & Zhang 2019.

    (arXiv 1908.10530 section 3.3; the mpmath twin is ``precise.log_a_series``.) ``alphas`` are
    fractional orders, all summed to ``i < n_terms``. With ``z0 = s^2 log(1/q - 1) + 1/2`` and
    ``j = a - i``: ``A = sum_i C(a,i) [q^i (1-q)^j e^{(i^2-i)/(2s^2)} Phi((z0-i)/s)
    + q^j (1-q)^i e^{(j^2-j)/(2s^2)} Phi((j-z0)/s)]``.
    Subtracting ``1 = E[1 + a(r-1)]`` split at ``z0`` removes the O(1) and O(q) parts
    analytically: the i = 0, 1 terms of the first sum combine into
    ``g(-q) Phi(z0/s) - a q (1 - (1-q)^{a-1}) Phi((z0-1)/s)`` with ``g(u) = (1+u)^a - 1 - a u``
    (:func:`_log_g`), and ``-(1 - a q) Phi(-z0/s) - a q Phi((1-z0)/s)`` is added. What remains is
    ``A - 1`` as a signed sum, accumulated after scaling by its largest term.

    Convergence criterion. Past ``i = floor(a) + 1`` the binomials alternate in sign and the two
    terms of index ``i`` share that sign; write ``m_i`` for their combined magnitude. If the last
    four ``m_i`` decrease and are convex (differences decrease), the remainder after index
    ``n - 2`` lies between ``m_{n-1}/2`` and ``m_{n-2}/2`` (the classical bound for alternating
    series with convex terms), so we add the midpoint ``sign * (m_{n-2} + m_{n-1})/4`` to the sum
    over ``i <= n - 2`` and carry ``(m_{n-2} - m_{n-1})/4`` as the truncation error. The result is
    accepted when truncation error + rounding bound, as a relative error of ``log A`` (a relative
    error ``r`` of ``D = A - 1`` is ``r D/((1+D) log1p(D)) <= r`` in ``log A``), is below
    ``_SERIES_RTOL``, and the result is positive. Rounding bound: each term's log is a sum of components whose rounding
    is ``2^-52`` times their size, plus ``_ERFC_RTOL`` for :func:`log_erfc`; exponentiation turns
    that into a relative error of the term; pairwise summation adds ``log2(n) 2^-52 sum|terms|``. Otherwise ``converged`` is False and the caller falls back (more terms, then
    quadrature, then ``precise``).
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    log_q, log_1mq = math.log(q), math.log1p(-q)
    s2 = sigma * sigma
    z0 = s2 * (log_1mq - log_q) + 0.5
    root = _SQRT_2 * sigma
    i = np.arange(n_terms, dtype=np.float64)
    log_binom = np.empty((len(alphas), n_terms))
    sign = np.empty((len(alphas), n_terms))
    for row, alpha in enumerate(alphas):
        log_binom[row], sign[row] = _log_abs_binomials(float(alpha), n_terms)
    a = alphas[:, None]
    j = a - i[None, :]
    # Phi((z0 - i)/s) does not depend on the order: computed once
    erfc0 = log_erfc((i - z0) / root)
    shared = (i * log_q + (i * i - i) / (2 * s2) + erfc0 - _LOG_2)[None, :]
    log_t0 = log_binom + shared + j * log_1mq
    erfc1 = log_erfc((z0 - j) / root)
    log_t1 = log_binom + j * log_q + i[None, :] * log_1mq + (j * j - j) / (2 * s2) + erfc1 - _LOG_2
    # size of the components of each log-term: its rounding error is 2^-52 times this
    size0 = np.abs(log_binom) + (np.abs(i * log_q) + (i * i) / (2 * s2) + np.abs(erfc0))[None, :] + np.abs(j * log_1mq)
    size1 = np.abs(log_binom) + np.abs(j * log_q) + np.abs(i * log_1mq)[None, :] + (j * j) / (2 * s2) + np.abs(erfc1)
    eps = alphas - 1.0
    with np.errstate(divide="ignore"):
        log_alpha_q = np.log(alphas) + log_q
        one_minus_aq = 1.0 - alphas * q
        extra_logs = np.stack([
            _log_g(np.full(len(alphas), log_1mq), eps) + _scalar_log_ndtr(z0 / sigma),
            log_alpha_q + np.log(-np.expm1(eps * log_1mq)) + _scalar_log_ndtr((z0 - 1) / sigma),
            np.log(np.abs(one_minus_aq)) + _scalar_log_ndtr(-z0 / sigma),
            log_alpha_q + _scalar_log_ndtr((1 - z0) / sigma),
        ], axis=1)
    extra_signs = np.stack([
        np.ones_like(eps), -np.ones_like(eps), -np.sign(one_minus_aq), -np.ones_like(eps)
    ], axis=1)
    # terms i = 2 .. n-2 of the first sum and 0 .. n-2 of the second; the last index is the tail
    log_m = np.logaddexp(log_t0, log_t1)  # combined magnitude of index i (same sign)
    body_logs = np.concatenate([log_t0[:, 2:-1], log_t1[:, :-1], extra_logs], axis=1)
    body_signs = np.concatenate([sign[:, 2:-1], sign[:, :-1], extra_signs], axis=1)
    top = np.max(body_logs, axis=1)
    finite = np.isfinite(top)
    top = np.where(finite, top, 0.0)
    scaled = np.exp(body_logs - top[:, None])
    total = np.sum(body_signs * scaled, axis=1)
    absolute = np.sum(scaled, axis=1)
    # shape of the tail, checked in log space (the scaled magnitudes may underflow)
    last = log_m[:, -4:]
    steps = np.diff(last, axis=1)  # log(m_{k+1}/m_k) < 0: decreasing
    with np.errstate(divide="ignore", invalid="ignore"):
        log_drops = last[:, :-1] + np.log(-np.expm1(np.minimum(steps, 0.0)))  # log(m_k - m_{k+1})
    tail_shape_ok = np.all(steps < 0, axis=1) & np.all(np.diff(log_drops, axis=1) < 0, axis=1)
    m = np.exp(last - top[:, None])  # m_{n-4} .. m_{n-1}, scaled
    past = np.floor(alphas) + 2 <= n_terms - 4
    tail_sign = sign[:, -1]  # sign of index n-1, the first term left to the tail
    total = total + tail_sign * (m[:, -2] + m[:, -1]) / 4
    truncation = (m[:, -2] - m[:, -1]) / 4
    sizes = np.concatenate([size0[:, 2:-1], size1[:, :-1], np.abs(extra_logs) + 8.0], axis=1)
    rounding = np.sum(scaled * (_ERFC_RTOL + 2.0**-52 * (sizes + 8.0)), axis=1) + (
        math.log2(n_terms) + 4
    ) * 2.0**-52 * (absolute + m[:, -2])
    with np.errstate(divide="ignore", invalid="ignore"):
        log_am1 = top + np.log(np.where(total > 0, total, 1.0))
        # a relative error r of D = A - 1 is a relative error r D / ((1 + D) log1p(D)) <= r of log A
        log_a = np.logaddexp(0.0, log_am1)
        damping = np.exp(log_am1 - log_a) / np.where(log_a > 0, log_a, 1.0)
        damping = np.where(log_a > 0, np.minimum(damping, 1.0), 1.0)
    positive_total = np.where(total > 0, total, 1.0)
    relative_error = (truncation + rounding) / positive_total * damping
    converged = finite & past & tail_shape_ok & (total > 0) & (relative_error <= _SERIES_RTOL)
    # more terms cannot help when rounding alone is too large (A - 1 cancels too much)
    hopeless = ~finite | (total <= 0) | (rounding / positive_total * damping > _SERIES_RTOL / 2)
    log_am1 = np.where(converged, log_am1, -np.inf)
    return log_am1, converged, hopeless


@functools.lru_cache(maxsize=8)
def _gauss_legendre(n):
    nodes, weights = np.polynomial.legendre.leggauss(n)
    return nodes, weights


def _quad_log_a_minus_1(alpha, q, sigma):
    """``log(A-1)`` by float Gauss-Legendre quadrature of ``E_{mu0}[g(r - 1)]``, or None.

    ``A - 1 = E_{mu0}[r^a - 1 - a (r - 1)]`` because ``E_{mu0}[r] = 1``; the integrand
    ``g(u) = (1+u)^a - 1 - a u`` is non-negative and computed without cancellation (:func:`_log_g`),
    so the quadrature sum keeps relative accuracy. Variable ``t = z/s`` on
    ``[-40, max(2, a)/s + 40]``: panels of width 1/2, and of width ``s/2`` within ``20 s`` of the
    logistic transition at ``t0 = z0/s`` (its complex poles are ``pi s`` away). Self-check: 20- and
    14-point rules on every panel must agree to ``_QUAD_RTOL``; None if not, or if more than
    ``_QUAD_MAX_PANELS`` panels would be needed.
    """
    log_q, log_1mq = math.log(q), math.log1p(-q)
    s2 = sigma * sigma
    z0 = s2 * (log_1mq - log_q) + 0.5
    t_low, t_high = -40.0, max(2.0, alpha) / sigma + 40.0
    edges = list(np.arange(t_low, t_high, 0.5)) + [t_high]
    t0 = z0 / sigma
    fine_low, fine_high = max(t_low, t0 - 20 * sigma), min(t_high, t0 + 20 * sigma)
    if fine_low < fine_high and sigma < 1:
        edges = [e for e in edges if not fine_low < e < fine_high]
        edges += list(np.arange(fine_low, fine_high, sigma / 2)) + [fine_high]
    edges = np.unique(np.array(edges))
    if len(edges) - 1 > _QUAD_MAX_PANELS:
        return None
    left, width = edges[:-1], np.diff(edges)
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
        log_f = -t * t / 2 + _log_g(L, alpha - 1.0) + np.log(w)
        top = float(np.max(log_f))
        if not math.isfinite(top):
            return None
        results.append(top + math.log(float(np.sum(np.exp(log_f - top)))) - 0.5 * math.log(2 * math.pi))
    # the difference of the two logs is the relative difference of A - 1, which bounds that of log A
    if abs(results[0] - results[1]) > _QUAD_RTOL:
        return None
    return results[0]


def _precise_log_a(alpha, q, sigma):
    """Last resort: ``precise.log_a_integral`` at 20 digits, rounded up; ``+inf`` if it raises."""
    from dpproofs.evaluator import precise  # imported lazily: only the rare corner cases need mpmath

    try:
        value = precise.log_a_integral(alpha, q, sigma, dps=_PRECISE_FALLBACK_DPS)
    except NumericalError:
        return math.inf
    return math.nextafter(float(value), math.inf)


def _initial_terms(alphas):
    """Series length to try first, a power of two: the tail decays like ``i^-(alpha+2)``, so
    orders near 1 need the most terms (measured: 256 suffice for alpha = 1.01 at q <= 0.1)."""
    base = np.where(alphas < 1.5, 256, np.where(alphas < 2.5, 128, np.floor(alphas) + 64))
    return (2 ** np.ceil(np.log2(base))).astype(np.int64)


def _log_a_fractional(alphas, q, sigma):
    """``log A`` for fractional orders, ``0 < q < 1``: series, then quadrature, then precise.

    Orders are batched by the series length they are tried with first (:func:`_initial_terms`);
    an unconverged order is retried with twice as many terms, up to 32 times its first length
    (unless the series says more terms cannot help), then handed to the float quadrature, then to ``precise``.
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    out = np.full(len(alphas), np.nan)
    sizes = _initial_terms(alphas)
    limits = 32 * sizes
    pending = np.arange(len(alphas))
    while len(pending):
        retry = []
        for size in np.unique(sizes[pending]):
            rows = pending[sizes[pending] == size]
            log_am1, converged, hopeless = _series_log_a_minus_1(alphas[rows], q, sigma, int(size))
            out[rows[converged]] = np.logaddexp(0.0, log_am1[converged])
            limits[rows[hopeless]] = 0
            retry.extend(rows[~converged].tolist())
        pending = []
        for row in retry:
            sizes[row] *= 2
            if sizes[row] <= limits[row]:
                pending.append(row)
                continue
            alpha = float(alphas[row])
            quad = _quad_log_a_minus_1(alpha, q, sigma)
            out[row] = float(np.logaddexp(0.0, quad)) if quad is not None else _precise_log_a(alpha, q, sigma)
        pending = np.array(pending, dtype=np.int64)
    return out


def log_a(orders, q, sigma):
    """``log A_alpha`` of the Poisson-subsampled Gaussian at every order (THEOREMS.md section 2).

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
    if q == 1.0:
        out[:] = (flat * flat - flat) / (2.0 * sigma * sigma)
        return out.reshape(alpha.shape)
    is_integer = flat == np.floor(flat)
    if is_integer.any():
        integer_orders = flat[is_integer]
        unique, inverse = np.unique(integer_orders, return_inverse=True)
        log_am1 = _log_a_minus_1_integer(unique, q, sigma)
        out[is_integer] = np.logaddexp(0.0, log_am1)[inverse]
    if not is_integer.all():
        fractional = flat[~is_integer]
        unique, inverse = np.unique(fractional, return_inverse=True)
        out[~is_integer] = _log_a_fractional(unique, q, sigma)[inverse]
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
