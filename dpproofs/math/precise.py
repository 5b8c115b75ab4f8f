"""The reference evaluator: every exact quantity of docs/math.md#exact-quantities, in mpmath.

Every function takes plain numbers (int, float, str or mpf; floats are converted exactly),
a keyword ``dps`` (decimal digits wanted in the result), and returns an ``mpf``. Work is done
inside ``mp.workdps`` with guard digits, never by mutating the global precision. Arguments are
*not* validated here beyond what the mathematics needs: the public facade (``dp.rdp``, the
mechanisms, the claims) validates first.

Accuracy contract: a returned value is correct to about ``dps`` significant digits. Where that
cannot be delivered (an integral whose error estimate is too large, a cancellation that would need
more than ``MAX_DPS`` digits) a :class:`~dpproofs.errors.NumericalError` is raised instead.

Conventions: sensitivity 1; natural logarithms; neighbours by add/remove of one record.
"""

import fractions
import functools
import math

import mpmath
from mpmath import mp

from dpproofs.errors import NumericalError

__all__ = [
    "DEFAULT_DPS",
    "MAX_DPS",
    "to_mpf",
    "normal_sf",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_randomized_response",
    "rdp_composed_pure",
    "delta_gaussian",
    "delta_laplace",
    "delta_randomized_response",
    "delta_composed_pure",
    "log_a",
    "log_a_integer",
    "log_a_series",
    "log_a_integral",
    "log_b",
    "rdp_sampled_gaussian",
    "log_moment_sampled_gaussian",
    "delta_sampled_gaussian",
    "rdp_finite",
    "delta_finite",
]

DEFAULT_DPS = 50
#: Guard digits carried beyond the requested ``dps`` in every computation.
GUARD_DPS = 15
#: Largest working precision the cancellation loops may climb to before giving up.
MAX_DPS = 20000


def to_mpf(value):
    """Convert a number (int, float, str, Fraction, mpf) to mpf exactly at the current precision."""
    if isinstance(value, mpmath.mpf):
        return value
    if isinstance(value, int):
        return mp.mpf(value)
    if isinstance(value, float):
        return mp.mpf(value)  # exact: a double is a dyadic rational
    try:
        numerator, denominator = value.numerator, value.denominator  # Fraction, sympy Rational
        return mp.mpf(int(numerator)) / int(denominator)
    except AttributeError:
        return mp.mpf(value)


def _precise(function):
    """Run ``function`` at ``dps + GUARD_DPS`` digits, converting positional arguments to mpf."""

    @functools.wraps(function)
    def wrapper(*args, dps=DEFAULT_DPS, **kwargs):
        with mp.workdps(dps + GUARD_DPS):
            return function(*(to_mpf(a) for a in args), dps=dps, **kwargs)

    return wrapper


def normal_sf(x):
    """Standard normal survival function ``1 - Phi(x)``, without cancellation for large x."""
    return mp.erfc(x / mp.sqrt(2)) / 2


def _positive_difference(terms, dps):
    """Evaluate ``terms()`` = (a, b) and return ``a - b`` to ``dps`` digits despite cancellation.

    ``terms`` is re-run at increasing precision until the difference keeps ``dps`` significant
    digits. A difference that is still non-positive at ``MAX_DPS`` digits raises: these callers
    compute quantities that are positive by construction, so a non-positive value is a bug or an
    unrepresentable result, never a value to return.
    """
    work = mp.dps
    while True:
        with mp.workdps(work):
            a, b = terms()
            difference = a - b
            scale = max(abs(a), abs(b))
            if scale == 0:
                return mp.zero
            if difference > 0:
                lost = float(mp.log10(scale / difference))
                if lost + dps + GUARD_DPS <= work:
                    return difference
                needed = int(lost) + dps + 2 * GUARD_DPS
            else:
                needed = 2 * work
        if needed > MAX_DPS:
            raise NumericalError(
                f"cancellation needs more than MAX_DPS={MAX_DPS} digits; the value is below "
                f"{mpmath.nstr(scale * mp.mpf(10) ** (-work), 5)}"
            )
        work = max(needed, work + GUARD_DPS)


# --- Rényi divergences of the elementary mechanisms ----------------------------------------


@_precise
def rdp_gaussian(alpha, sigma, *, dps):
    """``D_alpha(N(1, s^2) || N(0, s^2)) = alpha / (2 s^2)`` (Mironov 2017, arXiv 1702.07476v3, Prop. 7)."""
    return alpha / (2 * sigma**2)


@_precise
def rdp_laplace(alpha, b, *, dps):
    """Rényi divergence of Laplace(scale b), sensitivity 1 (Mironov 2017 v3, Prop. 6).

    ``1/(a-1) log[ a/(2a-1) e^{(a-1)/b} + (a-1)/(2a-1) e^{-a/b} ]`` for ``a > 1``; the ``a -> 1``
    limit (KL) is ``1/b + e^{-1/b} - 1``.
    """
    if alpha == 1:
        return 1 / b + mp.expm1(-1 / b)
    inner = alpha / (2 * alpha - 1) * mp.exp((alpha - 1) / b) + (alpha - 1) / (
        2 * alpha - 1
    ) * mp.exp(-alpha / b)
    return mp.log(inner) / (alpha - 1)


@_precise
def rdp_randomized_response(alpha, epsilon, *, dps):
    """Rényi divergence of epsilon-randomized response (Mironov 2017 v3, Prop. 5).

    With ``p = e^eps / (1 + e^eps)``: ``1/(a-1) log[p^a (1-p)^{1-a} + (1-p)^a p^{1-a}]``.
    This is the exact worst case over all epsilon-DP pairs. The ``a -> 1`` limit is
    ``eps tanh(eps/2)``.
    """
    if alpha == 1:
        return epsilon * mp.tanh(epsilon / 2)
    # The log-sum-exp below is O(1) - O(1) = O((a-1) eps^2): it loses about 2 log10(1/eps)
    # + log10(1/(a-1)) digits, which are added to the working precision first.
    extra = 10
    if epsilon < 1:
        extra += int(-2 * mp.log10(epsilon)) + 1
    if alpha - 1 < 1:
        extra += int(-mp.log10(alpha - 1)) + 1
    with mp.workdps(mp.dps + extra):
        return _rdp_randomized_response_log_sum(alpha, epsilon) / (alpha - 1)


def _rdp_randomized_response_log_sum(alpha, epsilon):
    log_p = -mp.log1p(mp.exp(-epsilon))
    log_1mp = -mp.log1p(mp.exp(epsilon))
    first = alpha * log_p + (1 - alpha) * log_1mp
    second = alpha * log_1mp + (1 - alpha) * log_p
    top = max(first, second)
    return top + mp.log(mp.exp(first - top) + mp.exp(second - top))


@_precise
def rdp_composed_pure(alpha, epsilon, n, *, dps):
    """Worst-case Rényi divergence of ``n``-fold composition of epsilon-DP: ``n`` times RR's."""
    return n * rdp_randomized_response(alpha, epsilon, dps=dps + GUARD_DPS)


# --- privacy profiles (hockey-stick divergences) ---------------------------------------------


@_precise
def delta_gaussian(epsilon, sigma, *, dps):
    """Exact privacy profile of the Gaussian mechanism (Balle & Wang 2018, Thm 8).

    ``Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s)``; the subtraction is redone at higher
    precision until the result keeps ``dps`` digits.
    """

    def terms():
        return (
            normal_sf(epsilon * sigma - 1 / (2 * sigma)),
            mp.exp(epsilon) * normal_sf(epsilon * sigma + 1 / (2 * sigma)),
        )

    return _positive_difference(terms, dps)


@_precise
def delta_laplace(epsilon, b, *, dps):
    """Exact privacy profile of Laplace(scale b): ``1 - e^{(eps - 1/b)/2}`` for eps < 1/b, else 0."""
    if epsilon >= 1 / b:
        return mp.zero
    return -mp.expm1((epsilon - 1 / b) / 2)


@_precise
def delta_randomized_response(epsilon_prime, epsilon, *, dps):
    """Exact privacy profile of epsilon-RR at epsilon_prime: ``(e^eps - e^eps')_+ / (1 + e^eps)``."""
    if epsilon_prime >= epsilon:
        return mp.zero
    return -mp.expm1(epsilon_prime - epsilon) / (1 + mp.exp(-epsilon))


@_precise
def delta_composed_pure(epsilon_prime, epsilon, n, *, dps):
    """Optimal n-fold composition of epsilon-DP (Kairouz, Oh & Viswanath 2015, Thm 3.3).

    ``sum_l C(n,l) [e^{(n-l)eps} - e^{eps' + l eps}]_+ / (1 + e^eps)^n``; only non-negative
    terms are summed, each in log space, so there is no cancellation.
    """
    n = int(n)
    total = mp.zero
    log_norm = n * mp.log1p(mp.exp(epsilon))
    for ell in range(n + 1):
        exponent_gap = epsilon_prime + ell * epsilon - (n - ell) * epsilon
        if exponent_gap >= 0:
            break  # terms are non-increasing in ell: every later bracket is <= 0 too
        log_term = (
            mp.loggamma(n + 1)
            - mp.loggamma(ell + 1)
            - mp.loggamma(n - ell + 1)
            + (n - ell) * epsilon
            - log_norm
        )
        total += mp.exp(log_term) * -mp.expm1(exponent_gap)
    return total


# --- Poisson-subsampled Gaussian ------------------------------------------------------------
#
# mu0 = N(0, s^2), mu1 = N(1, s^2), mu = (1-q) mu0 + q mu1, r(z) = mu(z)/mu0(z)
#     = 1 - q + q exp((2z - 1)/(2 s^2)).
# A_a = E_{mu0}[r^a] (add direction), B_a = E_{mu}[(mu0/mu)^a] = E_{mu0}[r^{1-a}] (remove).


def _is_integer(x):
    return x == mp.floor(x)


@_precise
def log_a_integer(alpha, q, sigma, *, dps):
    """``log A_alpha`` for integer alpha >= 0: the exact binomial sum (docs/math.md#integer-orders).

    ``A_a = sum_k C(a,k) (1-q)^{a-k} q^k exp((k^2-k)/(2 s^2))``. Because the binomial weights sum
    to 1, ``A - 1 = sum_{k>=2} C(a,k) (1-q)^{a-k} q^k expm1((k^2-k)/(2 s^2))``: non-negative
    terms, so ``log A = log1p(A - 1)`` keeps every digit even when ``A - 1`` is 1e-200 (tiny q).
    """
    if not _is_integer(alpha):
        raise ValueError(f"alpha={alpha} must be an integer here")
    a = int(alpha)
    if q == 0:
        return mp.zero
    if q == 1:
        return (alpha**2 - alpha) / (2 * sigma**2)
    log_q, log_1mq = mp.log(q), mp.log1p(-q)
    excess = mp.fsum(
        mp.exp(mp.log(mp.binomial(a, k)) + (a - k) * log_1mq + k * log_q)
        * mp.expm1((k * k - k) / (2 * sigma**2))
        for k in range(2, a + 1)
    )
    return mp.log1p(excess)


def _log_r(z, q, sigma):
    """``log r(z) = log(1 - q + q exp((2z-1)/(2 s^2)))`` computed without overflow."""
    x = mp.log(q) + (2 * z - 1) / (2 * sigma**2)
    y = mp.log1p(-q)
    top = max(x, y)
    return top + mp.log(mp.exp(x - top) + mp.exp(y - top))


def _modes(power, q, sigma):
    """Maxima (in float) of ``z -> -z^2/(2s^2) + power * log r(z)``, the log of the integrand.

    The derivative is ``(power * s(z) - z)/s^2`` with the logistic ``s(z) = u/r`` centred at
    ``z0 = s^2 log(1/q - 1) + 1/2``, so the maxima are the down-crossings of
    ``power * s(z) - z``: at most two for ``power > 0`` (a logistic against a line), exactly one
    for ``power <= 0``. They are located on a grid dense around ``z0`` and refined by bisection.
    """
    s2 = float(sigma) ** 2
    qf = float(q)
    z0 = s2 * (math.log1p(-qf) - math.log(qf)) + 0.5
    p = float(power)

    def h(z):
        # logistic(x) with x = log(q/(1-q)) + (2z-1)/(2 s^2), computed without overflow
        x = math.log(qf) - math.log1p(-qf) + (2 * z - 1) / (2 * s2)
        logistic = 1 / (1 + math.exp(-x)) if x > -700 else 0.0
        return p * logistic - z

    low, high = min(0.0, p) - 1.0, max(0.0, p) + 1.0
    band = [z0 + s2 * t for t in (-60, -30, -15, -8, -4, -2, -1, -0.5, 0, 0.5, 1, 2, 4, 8, 15, 30, 60)]
    grid = sorted({low, high, *[low + (high - low) * i / 512 for i in range(513)],
                   *[z for z in band if low < z < high]})
    crossings = []
    for left, right in zip(grid, grid[1:]):
        if h(left) > 0 >= h(right):
            for _ in range(200):
                middle = (left + right) / 2
                if middle in (left, right):
                    break
                if h(middle) > 0:
                    left = middle
                else:
                    right = middle
            crossings.append((left + right) / 2)
    return crossings or [0.0]


def _log_integral_of_r_power(power, q, sigma, dps):
    """``log E_{mu0}[r(Z)^power]`` by tanh-sinh quadrature, with its error estimate checked.

    Break points: each mode of the integrand +- multiples of sigma, and ``z0``. The integrand is
    scaled by its value at the highest mode so that huge values (e^{10^6}) stay representable.
    Raises NumericalError when the error estimate exceeds ``10^-(dps+2)`` relative.
    """
    sigma_f = float(sigma)
    modes = _modes(power, q, sigma)

    two_s2 = 2 * sigma**2
    one_minus_q = 1 - q

    def log_integrand(z):
        # r(z) is at most q e^{(2z-1)/(2s^2)} + 1: no overflow in mpmath's exponent range
        return -(z**2) / two_s2 + power * mp.log(one_minus_q + q * mp.exp((2 * z - 1) / two_s2))

    peak = max(log_integrand(mp.mpf(m)) for m in modes)
    offsets = (-40, -12, -6, -3, 0, 3, 6, 12, 40)
    points = {mp.mpf(m) + k * sigma_f for m in modes for k in offsets}
    s2 = float(sigma) ** 2
    points.add(mp.mpf(s2 * (math.log1p(-float(q)) - math.log(float(q))) + 0.5))
    points = [-mp.inf, *sorted(points), mp.inf]

    def integrand(z):
        return mp.exp(log_integrand(z) - peak)

    value, error = mp.quad(integrand, points, error=True, maxdegree=10)
    log_value = peak + mp.log(value) - mp.log(sigma * mp.sqrt(2 * mp.pi)) if value > 0 else mp.nan
    # the relative error of E[r^p] is the absolute error of its log: relative to the log, it is
    # that divided by |log E[r^p]|, which is large when E[r^p] is close to 1
    allowed = mp.mpf(10) ** (-(dps + 2))
    if value > 0 and error <= value * allowed * min(1, abs(log_value)):
        return log_value
    if value > 0 and error <= value * allowed:
        # E[r^p] is close to 1 and its log has lost digits: recompute it as 1 + excess.
        # (Found by the ci campaign of 2026-12-01: at alpha = 1.0000454, q = 1.9e-12,
        # sigma = 2981 the direct quadrature at 30 digits was 1.6e-10 relative off in
        # log A ~ 9e-36.)
        return mp.log1p(_excess_of_r_power(power, q, sigma, points, dps, mp.expm1(log_value)))
    raise NumericalError(
        f"quadrature of E[r^{mpmath.nstr(power, 8)}] (q={mpmath.nstr(q, 8)}, "
        f"sigma={mpmath.nstr(sigma, 8)}) has error estimate {mpmath.nstr(error, 3)} "
        f"against value {mpmath.nstr(value, 8)}"
    )


def _excess_of_r_power(power, q, sigma, points, dps, estimate):
    """``E_{mu0}[r^p] - 1 = E_{mu0}[(1+u)^p - 1 - p u]`` with ``u = r - 1``, for ``p > 1`` or ``p < 0``.

    ``E_{mu0}[u] = 0`` (``r`` is a likelihood ratio), and ``x -> x^p`` is convex for these
    ``p``, so the integrand is non-negative and the quadrature's error is checked relative to the
    excess itself (``10^-(dps+2)``), with no cancellation between positive and negative parts.
    The integrand is the binomial series ``sum_{k>=2} C(p,k) u^k`` while
    ``|u| max(1, (|p| + 2)/3) <= 1/50``: the ratio of consecutive terms is
    ``|(p - k) u / (k + 1)| <= |u| max(1, (|p| + 2)/3)``, so terms fall by at least a factor 50
    each. (The bound ``|p u| <= 1/100`` used before let ``|u|`` reach 4.5e13 at ``p = -2.2e-16``,
    alpha = 1 + 2^-52, where the series diverges: the loop never ended. Found by a time-budget
    test that took 15.7 s instead of 3 s under pytest-xdist, 2026-12-01.) Otherwise
    ``expm1(p log1p(u)) - p u`` at extra precision (it loses at most ``log10(200 |p/(p-1)|)``
    digits there). ``estimate``: the excess from the direct quadrature, used only to scale the
    integrand.
    """
    two_s2 = 2 * sigma**2
    extra = int(mp.log10(200 * abs(power / (power - 1)) + 1)) + 5
    # a unit of the size of the answer, so that the quadrature's absolute error floor (near
    # 2^-prec) is a relative one: the leading term p(p-1)/2 E[u^2] = p(p-1)/2 q^2 (e^{1/s^2} - 1)
    # (right when u is small; far too large at small sigma) or twice the direct ``estimate``
    # (right unless its digits were lost next to 1), whichever is smaller
    unit = power * (power - 1) / 2 * q**2 * mp.expm1(1 / sigma**2)
    if estimate > 0:
        unit = min(unit, 2 * estimate)
    norm = 1 / (sigma * mp.sqrt(2 * mp.pi) * unit)
    threshold = mp.mpf(10) ** (-(mp.dps + 2))

    series_reach = 1 / (50 * max(1, (abs(power) + 2) / 3))  # |u| up to this: terms fall 50-fold

    def remainder(u):
        if abs(u) <= series_reach:
            term, total, k = power * (power - 1) / 2 * u**2, mp.zero, 2
            while abs(term) > threshold * abs(total) or k == 2:  # at most ~dps/1.7 terms
                total += term
                term *= (power - k) * u / (k + 1)
                k += 1
            return total
        with mp.extradps(extra):
            return mp.expm1(power * mp.log1p(u)) - power * u

    def integrand(z):
        u = q * mp.expm1((2 * z - 1) / two_s2)
        return norm * mp.exp(-(z**2) / two_s2) * remainder(u)

    value, error = mp.quad(integrand, points, error=True, maxdegree=10)
    if not value > 0 or error > value * mp.mpf(10) ** (-(dps + 2)):
        raise NumericalError(
            f"quadrature of E[r^{mpmath.nstr(power, 8)}] - 1 (q={mpmath.nstr(q, 8)}, "
            f"sigma={mpmath.nstr(sigma, 8)}) has error estimate {mpmath.nstr(error, 3)} "
            f"against value {mpmath.nstr(value * unit, 8)}"
        )
    return value * unit


@_precise
def log_a_integral(alpha, q, sigma, *, dps):
    """``log A_alpha`` by 1-D quadrature of ``E_{mu0}[r^alpha]``: the arbiter for every order."""
    if q == 0:
        return mp.zero
    if q == 1:
        return (alpha**2 - alpha) / (2 * sigma**2)
    return _log_integral_of_r_power(alpha, q, sigma, dps)


@_precise
def log_a_series(alpha, q, sigma, *, dps, max_terms=None):
    """``log A_alpha`` for fractional alpha by the signed series of Mironov, Talwar & Zhang 2019.

    (arXiv 1908.10530, section 3.3.) With ``z0 = s^2 log(1/q - 1) + 1/2``:
    ``A = sum_i C(a,i) q^i (1-q)^{a-i} e^{(i^2-i)/(2s^2)} erfc((i-z0)/(sqrt2 s))/2
    + sum_i C(a,i) q^{a-i} (1-q)^i e^{((a-i)^2-(a-i))/(2s^2)} erfc((z0-(a-i))/(sqrt2 s))/2``.
    ``C(a,i)`` alternates in sign for ``i > a + 1``.

    Convergence criterion: past ``i > a + 1`` each series is alternating; once the magnitudes of
    its terms have decreased for 3 consecutive terms we stop when the next term is below
    ``10^-(dps+2)`` of ``min(A, A - 1)`` (the alternating-series remainder bound; ``A - 1`` so
    that ``log A`` keeps its digits when ``A`` is close to 1). Raises
    NumericalError if ``max_terms`` terms (default ``alpha + 2000``) do not reach that. The terms
    decay only like ``i^-(alpha+2)`` (the ``q^i`` factor and the Gaussian tail cancel), so at 50
    digits this converges in practice only for large orders or where the constant in front is
    tiny (small q with large sigma); callers use :func:`log_a_integral` otherwise, which is why
    :func:`log_a` never calls this. It is kept as the documented formula the fast evaluator
    accelerates, and is tested against the integral.
    """
    if max_terms is None:
        max_terms = int(alpha) + 2000
    if q == 0:
        return mp.zero
    if q == 1:
        return (alpha**2 - alpha) / (2 * sigma**2)
    z0 = sigma**2 * mp.log(1 / q - 1) + mp.mpf(1) / 2
    root2s = mp.sqrt(2) * sigma
    log_q, log_1mq = mp.log(q), mp.log1p(-q)
    total = mp.zero
    threshold = mp.mpf(10) ** (-(dps + 2))
    previous = [mp.inf, mp.inf]
    decreasing = [0, 0]
    for i in range(max_terms):
        binom = mp.binomial(alpha, i)
        j = alpha - i
        term0 = binom * mp.exp(i * log_q + j * log_1mq + (i * i - i) / (2 * sigma**2)) * mp.erfc(
            (i - z0) / root2s
        ) / 2
        term1 = binom * mp.exp(j * log_q + i * log_1mq + (j * j - j) / (2 * sigma**2)) * mp.erfc(
            (z0 - j) / root2s
        ) / 2
        total += term0 + term1
        if i > alpha + 1:
            converged = True
            for k, term in enumerate((term0, term1)):
                decreasing[k] = decreasing[k] + 1 if abs(term) < previous[k] else 0
                previous[k] = abs(term)
                # relative to A - 1 too: log A ~ A - 1 when A is close to 1
                converged &= decreasing[k] >= 3 and abs(term) <= threshold * min(abs(total), abs(total - 1))
            if converged:
                if total <= 0:
                    break
                return mp.log(total)
    raise NumericalError(
        f"MTZ19 series for alpha={mpmath.nstr(alpha, 10)}, q={mpmath.nstr(q, 8)}, "
        f"sigma={mpmath.nstr(sigma, 8)} did not converge in {max_terms} terms"
    )


@_precise
def log_a(alpha, q, sigma, *, dps):
    """``log A_alpha``: exact sum at integer orders, the 1-D integral (the arbiter) otherwise."""
    if _is_integer(alpha):
        return log_a_integer(alpha, q, sigma, dps=dps)
    return log_a_integral(alpha, q, sigma, dps=dps)


@_precise
def log_b(alpha, q, sigma, *, dps):
    """``log B_alpha = log E_{mu}[(mu0/mu)^alpha] = log E_{mu0}[r^{1-alpha}]`` by quadrature."""
    if q == 0:
        return mp.zero
    if q == 1:
        return (alpha**2 - alpha) / (2 * sigma**2)
    return _log_integral_of_r_power(1 - alpha, q, sigma, dps)


@_precise
def rdp_sampled_gaussian(alpha, q, sigma, *, dps, direction="max"):
    """Rényi divergence of one sampled-Gaussian step at order ``alpha > 1``.

    ``direction``: ``"add"`` gives ``log A / (a-1)``, ``"remove"`` gives ``log B / (a-1)``,
    ``"max"`` (the definition of (alpha, eps)-RDP under add/remove neighbours) the larger.
    """
    if direction not in ("add", "remove", "max"):
        raise ValueError(f"direction={direction!r} is not one of 'add', 'remove', 'max'")
    work = dps + GUARD_DPS
    values = []
    if direction in ("add", "max"):
        values.append(log_a(alpha, q, sigma, dps=work))
    if direction in ("remove", "max"):
        values.append(log_b(alpha, q, sigma, dps=work))
    return max(mp.zero, max(values)) / (alpha - 1)


@_precise
def log_moment_sampled_gaussian(lam, q, sigma, *, dps):
    """Abadi et al. 2016 (arXiv 1607.00133v2) Eqs. 3-4: ``alpha(lam) = log max(E1, E2)``.

    ``E2 = A_{lam+1}`` and ``E1 = B_{lam+1}`` (both directions of the neighbouring pair).
    """
    work = dps + GUARD_DPS
    return max(mp.zero, log_a(lam + 1, q, sigma, dps=work), log_b(lam + 1, q, sigma, dps=work))


@_precise
def delta_sampled_gaussian(epsilon, q, sigma, *, dps, direction="max"):
    """Exact privacy profile of one sampled-Gaussian step, in closed form.

    Add (P = mu, Q = mu0): the set where ``r > e^eps`` is ``z > z* = s^2 log((e^eps-1+q)/q) + 1/2``,
    so ``delta = q Phi_c((z*-1)/s) - (e^eps - 1 + q) Phi_c(z*/s)``.
    Remove (P = mu0, Q = mu): the set where ``e^eps r < 1`` is ``z < z+ = s^2 log((e^-eps-1+q)/q)
    + 1/2`` (empty unless ``e^-eps > 1-q``), so ``delta = (1 - e^eps (1-q)) Phi(z+/s) - e^eps q
    Phi((z+-1)/s)``. Both are checked against the 1-D integral in the tests.
    """
    if direction not in ("add", "remove", "max"):
        raise ValueError(f"direction={direction!r} is not one of 'add', 'remove', 'max'")
    if q == 0:
        return mp.zero
    results = []
    if direction in ("add", "max"):
        z_star = sigma**2 * mp.log((mp.expm1(epsilon) + q) / q) + mp.mpf(1) / 2

        def add_terms():
            return (
                q * normal_sf((z_star - 1) / sigma),
                (mp.expm1(epsilon) + q) * normal_sf(z_star / sigma),
            )

        results.append(_positive_difference(add_terms, dps))
    if direction in ("remove", "max"):
        inner = mp.expm1(-epsilon) + q
        if inner > 0:
            z_plus = sigma**2 * mp.log(inner / q) + mp.mpf(1) / 2

            def remove_terms():
                return (
                    (1 - mp.exp(epsilon) * (1 - q)) * normal_sf(-z_plus / sigma),
                    mp.exp(epsilon) * q * normal_sf((1 - z_plus) / sigma),
                )

            results.append(_positive_difference(remove_terms, dps))
        else:
            results.append(mp.zero)
    return max(results)


# --- finite distributions -------------------------------------------------------------------


def _ratio_minus_one(a, b):
    """``a/b - 1``, exact before rounding when both are rationals (ints or Fractions)."""
    if isinstance(a, (int, fractions.Fraction)) and isinstance(b, (int, fractions.Fraction)):
        return to_mpf(fractions.Fraction(a) / fractions.Fraction(b) - 1)
    a, b = to_mpf(a), to_mpf(b)
    return (a - b) / b


def rdp_finite(alpha, p, q, *, dps=DEFAULT_DPS):
    """``D_alpha(P || Q)`` for finite distributions given as sequences of probabilities.

    ``alpha = 1`` gives KL; ``alpha = mp.inf`` gives ``max log(p/q)``. Infinite when P is not
    absolutely continuous with respect to Q. Keeps ``dps`` digits even when ``P`` is close to
    ``Q`` (rational inputs give ``p/q - 1`` exactly; see the comment in the body).
    """
    # sum q (p/q)^a - 1 = sum q [expm1(a l) - a (p/q - 1)] with l = log(p/q) = log1p(p/q - 1),
    # because sum q (p/q - 1) = sum p - sum q = 0. Each bracket is >= 0 for a > 1 (convexity),
    # so there is no cancellation between terms, and log1p keeps the digits when P ~ Q. Inside a
    # bracket the two terms cancel to O(l^2): 30 extra digits cover |l| down to 1e-30.
    with mp.workdps(dps + GUARD_DPS + 30):
        alpha = alpha if alpha == mp.inf else to_mpf(alpha)
        terms = [(to_mpf(a), to_mpf(b), a, b) for a, b in zip(p, q, strict=True)]
        if any(a > 0 and b == 0 for a, b, _, _ in terms):
            return mp.inf
        support = [(a, b, _ratio_minus_one(ra, rb)) for a, b, ra, rb in terms if a > 0]
        if alpha == mp.inf:
            return max(mp.log1p(excess) for _, _, excess in support)
        if alpha == 1:
            return mp.fsum(a * mp.log1p(excess) for a, _, excess in support)
        total = mp.fsum(b * (mp.expm1(alpha * mp.log1p(x)) - alpha * x) for _, b, x in support)
        # outcomes with p = 0 < q contribute q [0 - 1 - a (0 - 1)] = q (a - 1) >= 0
        total += mp.fsum(b * (alpha - 1) for a, b, _, _ in terms if a == 0 and b > 0)
        return mp.log1p(total) / (alpha - 1)


def delta_finite(epsilon, p, q, *, dps=DEFAULT_DPS):
    """Hockey-stick divergence ``sum_i (p_i - e^eps q_i)_+`` of finite distributions."""
    with mp.workdps(dps + GUARD_DPS):
        factor = mp.exp(to_mpf(epsilon))
        return mp.fsum(max(mp.zero, to_mpf(a) - factor * to_mpf(b)) for a, b in zip(p, q, strict=True))


# --- Mironov 2017 quantities ------------------------------------------------------------------


def rdp_sampled_gaussian_add(alpha, q, sigma, *, dps):
    """``log A_alpha / (alpha - 1)``: the add direction (P = mu, Q = mu0) of one sampled-Gaussian step."""
    return rdp_sampled_gaussian(alpha, q, sigma, dps=dps, direction="add")


# --- Abadi et al. 2016 quantities ---------------------------------------------------------------
#
# Abadi et al. 2016 (arXiv 1607.00133v2), Lemma 3 and its proof (App. B). With
# X = mu1/mu0 (mu0 = N(0, s^2), mu1 = N(1, s^2)) and mu = (1-q) mu0 + q mu1, Eq. 5 expands
# E_{nu1}[(nu0/nu1)^{lam+1}] = sum_t C(lam+1, t) E_{nu1}[((nu0 - nu1)/nu1)^t] for the pairs
# (nu0, nu1) = (mu, mu0) ("add": E2 = A_{lam+1}) and (mu0, mu) ("remove": E1 = B_{lam+1}).


@_precise
def log_moment_add(lam, q, sigma, *, dps):
    """``log E2 = log A_{lam+1}``: the log moment of the pair (mu, mu0) (Abadi et al. 2016 Eq. 4)."""
    return log_a(lam + 1, q, sigma, dps=dps)


@_precise
def log_moment_remove(lam, q, sigma, *, dps):
    """``log E1 = log B_{lam+1}``: the log moment of the pair (mu0, mu) (Abadi et al. 2016 Eq. 3)."""
    return log_b(lam + 1, q, sigma, dps=dps)


@_precise
def eq5_moment_add(t, q, sigma, *, dps):
    """``E_mu0[((mu - mu0)/mu0)^t] = q^t M_t`` with ``M_t = E_mu0[(X-1)^t]
    = sum_j C(t,j) (-1)^{t-j} e^{j(j-1)/(2 s^2)}`` (integer t >= 0; exact sum).

    The alternating sum cancels about ``t log10(s^2)`` digits: ``t + 30`` extra digits cover it
    on the domains checked (t <= 13, sigma <= 64). ``M_0 = 1`` and ``M_1 = 0`` come out exactly.
    """
    t = int(t)
    with mp.workdps(mp.dps + t + 30):
        s2 = 2 * sigma**2
        moment = mp.fsum(mp.binomial(t, j) * (-1) ** (t - j) * mp.exp(j * (j - 1) / s2) for j in range(t + 1))
        return q**t * moment


@_precise
def eq5_series_add(lam, q, sigma, *, dps):
    """Eq. 5 for (mu, mu0): ``sum_{t=0}^{lam+1} C(lam+1, t) E_mu0[((mu - mu0)/mu0)^t]`` (integer lam)."""
    n = int(lam) + 1
    return mp.fsum(mp.binomial(n, t) * eq5_moment_add(t, q, sigma, dps=dps + GUARD_DPS) for t in range(n + 1))


@_precise
def eq5_moment_remove(t, q, sigma, *, dps):
    """``E_mu[((mu0 - mu)/mu)^t] = E_mu0[r^{1-t} (-q (X-1))^t]`` (r = mu/mu0) by tanh-sinh quadrature.

    An independent route to the remove direction (no closed form is used): the quadrature is split
    at ``0, 1/2, 1, +-2s, +-6s``, where the integrand changes shape.
    """
    t = int(t)
    with mp.workdps(mp.dps + 5):

        def integrand(x):
            u = mp.expm1((2 * x - 1) / (2 * sigma**2))  # X - 1
            return (1 + q * u) ** (1 - t) * (-q * u) ** t * mp.exp(-(x**2) / (2 * sigma**2))

        points = [-mp.inf, -6 * sigma, -2 * sigma, 0, mp.mpf(1) / 2, 1, 2 * sigma, 6 * sigma, mp.inf]
        return mp.quad(integrand, points) / (sigma * mp.sqrt(2 * mp.pi))


@_precise
def eq5_series_remove(lam, q, sigma, *, dps):
    """Eq. 5 for (mu0, mu): ``sum_{t=0}^{lam+1} C(lam+1, t) E_mu[((mu0 - mu)/mu)^t]`` (quadrature per term)."""
    n = int(lam) + 1
    return mp.fsum(mp.binomial(n, t) * eq5_moment_remove(t, q, sigma, dps=dps) for t in range(n + 1))


@_precise
def gaussian_ratio_moment(k, sigma, *, dps):
    """``E_mu0[(mu1/mu0)^k]`` by tanh-sinh quadrature of ``e^{k(2z-1)/(2s^2)}`` against N(0, s^2).

    Deliberately not the closed form ``e^{(k^2-k)/(2 s^2)}``: claims compare the two.
    """
    with mp.workdps(mp.dps + 5):
        value = mp.quad(lambda z: mp.exp(k * (2 * z - 1) / (2 * sigma**2) - z**2 / (2 * sigma**2)),
                        [-mp.inf, 0, k, mp.inf])
        return value / (sigma * mp.sqrt(2 * mp.pi))


@_precise
def log_moment_randomized_response(lam, epsilon, *, dps):
    """``alpha(lam) = lam D_{lam+1}(RR_eps)``: the log moment of eps-randomized response, the
    largest over every eps-DP pair (Mironov 2017, arXiv 1702.07476v3, Prop. 5 and its proof)."""
    return lam * rdp_randomized_response(lam + 1, epsilon, dps=dps + GUARD_DPS)


@_precise
def loss_mean_randomized_response(epsilon, *, dps):
    """``E[Z]`` of the privacy loss ``Z = +-eps`` of eps-RR: ``KL(RR_eps) = eps tanh(eps/2)``."""
    return epsilon * mp.tanh(epsilon / 2)


@_precise
def delta_sampled_gaussian_add(epsilon, q, sigma, *, dps):
    """The privacy profile of the pair (mu, mu0) alone (see :func:`delta_sampled_gaussian`)."""
    return delta_sampled_gaussian(epsilon, q, sigma, dps=dps, direction="add")
