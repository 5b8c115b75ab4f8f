"""Random allocation of one record to 1 of ``t`` Gaussian steps (balls-in-bins): its Rényi divergences.

The pair (one epoch; sensitivity 1, noise multiplier ``sigma``; add/remove of one record). The
record's clipped gradient is added at exactly one step ``I``, uniform on ``{1..t}`` and hidden; the
other records are the same in both datasets and drop out. The epoch's outputs are then

    P = (1/t) sum_i N(e_i, sigma^2 I_t)   (record present),   Q = N(0, sigma^2 I_t)   (absent),

and every pair of datasets differing in one record is a post-processing of (P, Q) or (Q, P) (the
vector of the t noisy sums determines the run; a worst-case record has norm C along one direction:
the one-dimensional projection is the same pair with the other coordinates' noise). This is the
pair Feldman & Shenfeld (arXiv 2502.08202v4, Section 2 and their RDP section) and Chua et al.
(arXiv 2412.16802) analyse for balls-and-bins. Naming as :mod:`dpproofs.math.pairs`: "add" is
``D_alpha(P || Q)`` (the mixture first), "remove" is ``D_alpha(Q || P)``.

Add direction, exact at integer orders. ``P/Q (x) = (1/t) sum_i Y_i`` with ``Y_i = exp((x_i - 1/2)/s^2)``
independent under Q and ``E_Q[Y^a] = exp(a (a - 1) / (2 s^2))`` (the Gaussian's Rényi moment). The
multinomial expansion of ``((1/t) sum_i Y_i)^alpha`` gives

    E_Q[(P/Q)^alpha] = t^-alpha alpha! [x^alpha] g(x)^t,   g(x) = sum_{a >= 0} x^a e^{a(a-1)/(2 s^2)} / a!,

a finite sum (over the integer partitions of alpha into at most t parts). Writing
``g = e^x + r``, ``r(x) = sum_{a >= 2} x^a expm1(a(a-1)/(2 s^2)) / a!`` (positive coefficients), the
binomial theorem gives the excess over 1 as a sum of POSITIVE terms (no cancellation, also in
float64):

    E_Q[(P/Q)^alpha] - 1 = sum_{j=1}^{min(t, alpha/2)} C(t, j) sum_{m=2j}^{alpha} [x^m] r^j
                           * alpha! (t - j)^{alpha - m} / ((alpha - m)! t^alpha).

Remove direction, an upper bound (this project's derivation; Feldman & Shenfeld give no closed
form for it). ``Q/P = 1/S`` with ``S = (1/t) sum_i Y_i``, so ``e^{(alpha-1) D_alpha(Q||P)} = E[S^-b]``,
``b = alpha - 1 > 0``. With ``S^-b = Gamma(b)^-1 int_0^inf u^{b-1} e^{-u S} du`` (Euler's integral)
and independence, ``E[S^-b] = Gamma(b)^-1 int_0^inf u^{b-1} phi(u/t)^t du``, ``phi(v) = E[e^{-v Y}]``.
Any upper bound ``Phi >= phi`` bounds the divergence. We use ``Phi = min(phi_2, phi_T)``:

* ``phi_2(v) = 1 - v + v^2 m2 / 2`` (``e^-y <= 1 - y + y^2/2`` for ``y >= 0``; ``E Y = 1``,
  ``m2 = E Y^2 = e^{1/s^2}``): tight to second order, so the bound is tight to first order in 1/t;
* ``phi_T(v) = exp(-v c (1 - log c) + v c/(2 s^2) + v^2 c^2/(2 s^2))`` for any ``c > 0`` (the
  tangent ``e^w >= c (1 + w - log c)`` and the normal MGF of ``w = log Y ~ N(-1/(2s^2), 1/s^2)``),
  with ``c`` the minimiser (a Lambert-W expression): it decays like a power of v, so the integral
  converges.

Both exceed ``e^{-v}`` (Jensen), so ``E[S^-b] - 1 = Gamma(b)^-1 int u^{b-1} e^{-u} expm1(t l(u/t)) du``
with ``l(v) = log Phi(v) + v >= 0``: a positive integrand, computed without cancellation. The
result is min'd with the Gaussian's ``alpha / (2 s^2)`` (Rényi divergence is convex in its second
argument: van Erven & Harremoës 2014, arXiv 1206.2459v2, Thm 12), which is exact at t = 1. The
float64 value comes from adaptive quadrature (``scipy.integrate.quad``): within its tolerance of
the bound, NOT certified (there is no ball evaluator of this direction).
"""

import fractions
import functools
import math
import warnings

import numpy as np

__all__ = [
    "MAX_EXACT_ORDER",
    "add_excess_exact",
    "add_rdp_float",
    "remove_rdp_bound_float",
    "remove_log_moment_integrand",
    "gaussian_rdp",
]

#: Largest integer order at which the add direction is computed from its finite sum by the float
#: path (cost O(order^3) in numpy; 0.1-0.3 s at 256). Above it, the Gaussian's alpha/(2 sigma^2)
#: (quasi-convexity of Rényi divergence, van Erven & Harremoës 2014, arXiv 1206.2459v2, Thm 13).
MAX_EXACT_ORDER = 256

#: Relative allowance added to every float64 result for its rounding: the add path is a sum of
#: positive terms computed in log space (each log term within ~4e3 ulp absolute at order 256, t =
#: 1e6: |log| <= 1e4), i.e. within 1e-12 relative; the remove path carries the quadrature's own
#: tolerance (1e-12 relative). 1e-11 covers both with margin.
FLOAT_SLACK = 1e-11


def gaussian_rdp(alpha, sigma):
    """``alpha / (2 sigma^2)``: the Gaussian's RDP, an upper bound in both directions (module docstring)."""
    return alpha / (2.0 * sigma * sigma)


# --- add direction: the exact finite sum ---------------------------------------------------------


def add_excess_exact(alpha, t, sigma, expm1, number):
    """``E_Q[(P/Q)^alpha] - 1`` for an integer ``alpha >= 2`` (module docstring), in the arithmetic of
    ``expm1`` (mpmath's or arb's) and ``number`` (int/Fraction -> that arithmetic's number).
    Every term is positive. Cost O(alpha^3)."""
    alpha, t = int(alpha), int(t)
    two_s2 = 2 * number(sigma) ** 2
    rho = [number(0)] * (alpha + 1)
    for a in range(2, alpha + 1):
        rho[a] = expm1(number(a * (a - 1)) / two_s2) / number(math.factorial(a))
    total = number(0)
    power = [number(0)] * (alpha + 1)
    power[0] = number(1)  # r^0
    for j in range(1, min(t, alpha // 2) + 1):
        new = [number(0)] * (alpha + 1)
        for m in range(2 * j, alpha + 1):
            acc = number(0)
            for a in range(2, m - 2 * (j - 1) + 1):
                if m - a >= 2 * (j - 1):
                    acc += rho[a] * power[m - a]
            new[m] = acc
        power = new
        for m in range(2 * j, alpha + 1):
            weight = fractions.Fraction(
                math.comb(t, j) * (math.factorial(alpha) // math.factorial(alpha - m)) * (t - j) ** (alpha - m),
                t**alpha,
            )
            if weight:
                total += power[m] * number(weight)
    return total


def _log_convolve(u, v):
    """log of the coefficients of the product of two power series given by their logs (-inf = 0),
    truncated to ``len(u)`` terms."""
    n = len(u)
    matrix = u[:, None] + v[None, :]  # (i, k): term of degree i + k
    sheared = np.full((n, 2 * n), -np.inf)
    rows = np.repeat(np.arange(n), n)
    cols = rows + np.tile(np.arange(n), n)
    sheared[rows, cols] = matrix.ravel()
    sheared = sheared[:, :n]
    top = np.max(sheared, axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.where(np.isfinite(top), safe + np.log(np.sum(np.exp(sheared - safe), axis=0)), -np.inf)


@functools.lru_cache(maxsize=64)
def _add_log_excess_table(top, t, sigma):
    """``log(E_Q[(P/Q)^a] - 1)`` for the integer orders ``a = 0..top`` (entries below 2 are -inf),
    float64 in log space (the sum of positive terms of the module docstring)."""
    from scipy.special import gammaln

    a = np.arange(top + 1, dtype=np.float64)
    with np.errstate(divide="ignore", over="ignore"):
        log_rho = np.where(a >= 2, np.log(np.expm1(a * (a - 1) / (2.0 * sigma * sigma)) + 0.0) - gammaln(a + 1), -np.inf)
    # expm1 overflows only where a(a-1)/(2 s^2) > 709: use the exponent itself there
    big = a * (a - 1) / (2.0 * sigma * sigma) > 700
    log_rho = np.where(big, a * (a - 1) / (2.0 * sigma * sigma) - gammaln(a + 1), log_rho)
    log_t = math.log(t)
    log_fact_alpha = gammaln(a + 1)
    result = np.full(top + 1, -np.inf)
    power = np.full(top + 1, -np.inf)
    power[0] = 0.0
    for j in range(1, min(t, top // 2) + 1):
        power = _log_convolve(power, log_rho)
        log_choose = gammaln(t + 1.0) - gammaln(j + 1.0) - gammaln(t - j + 1.0)
        log_tj = math.log(t - j) if t > j else -np.inf
        m = np.arange(top + 1, dtype=np.float64)
        # term[alpha, m] = power[m] + log C(t,j) + log alpha! - log (alpha-m)! + (alpha-m) log(t-j) - alpha log t
        alpha_col = a[:, None]
        diff = alpha_col - m[None, :]
        valid = (diff >= 0) & np.isfinite(power)[None, :]
        with np.errstate(invalid="ignore"):
            if np.isfinite(log_tj):
                tail = diff * log_tj
            else:  # t == j: (t - j)^(alpha - m) is 1 at m = alpha and 0 otherwise
                tail = np.where(diff == 0, 0.0, -np.inf)
            terms = np.where(
                valid,
                power[None, :] + log_choose + log_fact_alpha[:, None] - gammaln(np.maximum(diff, 0) + 1) + tail
                - alpha_col * log_t,
                -np.inf,
            )
        top_term = np.max(terms, axis=1)
        finite = np.isfinite(top_term)
        safe = np.where(finite, top_term, 0.0)
        with np.errstate(divide="ignore"):
            block = np.where(finite, safe + np.log(np.sum(np.exp(terms - safe[:, None]), axis=1)), -np.inf)
        result = np.logaddexp(result, block)
    result.setflags(write=False)
    return result


def add_rdp_float(orders, t, sigma):
    """Float64 upper bound on ``D_alpha(P || Q)`` at each order (numpy array, orders > 1): the exact
    finite sum at the order rounded UP to an integer (Rényi divergence is nondecreasing in the
    order: van Erven & Harremoës 2014, arXiv 1206.2459v2, Thm 3), raised by :data:`FLOAT_SLACK`;
    above :data:`MAX_EXACT_ORDER` the Gaussian's ``alpha / (2 sigma^2)``. t = 1 is the Gaussian."""
    orders = np.asarray(orders, dtype=np.float64)
    out = np.empty_like(orders)
    ceil = np.ceil(orders)
    if t == 1:  # the Gaussian, raised for the rounding of its one division (found by add_float_upper)
        return gaussian_rdp(orders, sigma) * (1.0 + FLOAT_SLACK)
    exact = ceil <= MAX_EXACT_ORDER
    if np.any(exact):
        top = int(np.max(ceil[exact]))
        table = _add_log_excess_table(max(top, 2), int(t), float(sigma))
        idx = ceil[exact].astype(int)
        log_excess = table[idx]
        with np.errstate(over="ignore"):
            # log1p(E - 1) for E - 1 = exp(log_excess); where exp overflows, log E ~ log_excess
            values = np.where(log_excess > 700, log_excess, np.log1p(np.exp(np.minimum(log_excess, 700))))
        out[exact] = values / (idx - 1.0) * (1.0 + FLOAT_SLACK)
    out[~exact] = gaussian_rdp(orders[~exact], sigma)
    # the Gaussian's bound holds everywhere (quasi-convexity): never report more than it
    return np.minimum(out, gaussian_rdp(orders, sigma) * (1.0 + FLOAT_SLACK))


# --- remove direction: the upper bound ----------------------------------------------------------


def _log1p_minus_x(x):
    """``log1p(x) - x`` without cancellation for small |x| (x > -1)."""
    if abs(x) < 1e-3:
        # -x^2/2 + x^3/3 - ...: 9 terms leave < 1e-30 relative at |x| < 1e-3
        return sum((-1) ** (k + 1) * x**k / k for k in range(2, 12))
    return math.log1p(x) - x


def _tangent_log_phi_plus_v(v, sigma):
    """``log phi_T(v) + v`` at the minimising tangent point c (any c > 0 is a valid bound)."""
    from scipy.special import lambertw

    s2 = sigma * sigma
    z = (v / s2) * math.exp(-1.0 / (2.0 * s2))
    c = float(np.real(lambertw(z))) * s2 / v if v > 0 else 1.0
    if not (c > 0 and math.isfinite(c)):
        c = math.exp(-1.0 / (2.0 * s2))
    return v - v * c * (1.0 - math.log(c)) + v * c / (2.0 * s2) + v * v * c * c / (2.0 * s2)


def remove_log_moment_integrand(u, beta, t, sigma):
    """The integrand of ``E[S^-b] - 1`` (module docstring) at ``u > 0``, in float64:
    ``u^{b-1} e^{-u} expm1(t l(u/t)) / Gamma(b)``."""
    v = u / t
    m2 = math.exp(1.0 / (sigma * sigma))
    x = -v + v * v * m2 / 2.0
    quad_part = _log1p_minus_x(x) + v * v * m2 / 2.0  # log(1 - v + v^2 m2/2) + v
    ell = min(quad_part, _tangent_log_phi_plus_v(v, sigma))
    ell = max(ell, 0.0)  # >= 0 in exact arithmetic (Phi >= e^-v); guards rounding below 0
    log_weight = (beta - 1.0) * math.log(u) - u - math.lgamma(beta)
    growth = t * ell
    if growth > 700:
        return math.exp(log_weight + growth) if log_weight + growth < 700 else math.inf
    return math.exp(log_weight) * math.expm1(growth)


def _log_integrand(u, beta, t, sigma):
    """log of :func:`remove_log_moment_integrand` (-inf where it is 0), for locating its mass."""
    value = remove_log_moment_integrand(u, beta, t, sigma)
    if value > 0 and math.isfinite(value):
        return math.log(value)
    if value == math.inf:
        return math.inf
    return -math.inf


@functools.lru_cache(maxsize=4096)
def _remove_rdp_bound_cached(alpha, t, sigma):
    from scipy import integrate

    beta = alpha - 1.0
    gaussian = gaussian_rdp(alpha, sigma)
    if t == 1:
        return gaussian
    f = functools.partial(remove_log_moment_integrand, beta=beta, t=t, sigma=sigma)
    # Where the mass lies depends on (alpha, t, sigma) (for small t it can sit far beyond u = b): scan
    # the log-integrand on a wide log grid and split the quadrature at grid points around its peak.
    # A peak at the grid's top end means the integral is not under control: fall back to the Gaussian.
    grid = np.geomspace(1e-9 * max(beta, 1.0), 1e9 * max(beta, 1.0), 240)
    with np.errstate(all="ignore"):
        try:
            logs = np.array([_log_integrand(u, beta, t, sigma) for u in grid])
        except (OverflowError, ValueError, ZeroDivisionError):  # e^{1/s^2} beyond float range (s < ~0.038)
            return gaussian
    if not np.all(np.isfinite(logs) | (logs == -np.inf)) or int(np.argmax(logs)) >= len(grid) - 3:
        return gaussian
    keep = np.flatnonzero(logs >= np.max(logs) - 60.0)
    lo_index, hi_index = max(int(keep[0]) - 1, 0), min(int(keep[-1]) + 1, len(grid) - 1)
    inner = grid[lo_index:hi_index + 1]
    if len(inner) > 48:
        inner = inner[np.unique(np.linspace(0, len(inner) - 1, 48).round().astype(int))]
    points = [0.0, *map(float, inner)]
    total, error = 0.0, 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)  # its error estimate is added below
        try:
            for lo, hi in zip(points[:-1], points[1:]):
                value, err = integrate.quad(f, lo, hi, epsabs=0.0, epsrel=1e-12, limit=200)
                total, error = total + value, error + err
            value, err = integrate.quad(f, points[-1], math.inf, epsabs=0.0, epsrel=1e-12, limit=200)
            total, error = total + value, error + err
        except (OverflowError, ValueError, ZeroDivisionError):
            return gaussian
    if not (math.isfinite(total) and math.isfinite(error)) or total < 0:
        return gaussian
    excess = (total + error) * (1.0 + FLOAT_SLACK)
    bound = math.log1p(excess) / beta * (1.0 + FLOAT_SLACK)
    return min(bound, gaussian)


def remove_rdp_bound_float(orders, t, sigma):
    """Float64 upper bound on ``D_alpha(Q || P)`` at each order (numpy array of orders > 1): the
    module docstring's integral bound (adaptive quadrature, not certified), min'd with
    ``alpha / (2 sigma^2)``."""
    orders = np.asarray(orders, dtype=np.float64)
    flat = [_remove_rdp_bound_cached(float(a), int(t), float(sigma)) for a in orders.ravel()]
    return np.asarray(flat, dtype=np.float64).reshape(orders.shape)
