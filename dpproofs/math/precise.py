"""The reference evaluator: every exact quantity of docs/math.md#exact-quantities, in mpmath.

Every function takes plain numbers (int, float, str or mpf; floats are converted exactly),
a keyword ``dps`` (decimal digits wanted in the result), and returns an ``mpf``. Work is done
inside ``mp.workdps`` with guard digits, never by mutating the global precision. Arguments are
*not* validated here beyond what the mathematics needs: the public facade (``dp.rdp``, the
mechanisms, the claims) validates first.

Accuracy contract: a returned value is correct to about ``dps`` significant digits. Where that
cannot be delivered (an integral whose error estimate is too large, a cancellation that would need
more than ``MAX_DPS`` digits) a :class:`~dpproofs.errors.NumericalError` is raised instead.

The closed forms are written once, in :mod:`dpproofs.math.formulas`, against an arithmetic
context; here they run in the mpmath one (:class:`Mp`). What stays here is mpmath's own algorithm:
the quadratures of ``A_alpha`` and ``B_alpha``, the MTZ19 series, finite distributions.

Conventions: sensitivity 1; natural logarithms; neighbours by add/remove of one record.
"""

import fractions
import functools
import math

import mpmath
from mpmath import mp

from dpproofs.errors import NumericalError
from dpproofs.math import formulas
from dpproofs.math.stop import check

__all__ = [
    "DEFAULT_DPS",
    "MAX_DPS",
    "to_mpf",
    "normal_sf",
    "log_a",
    "log_a_series",
    "log_a_integral",
    "log_b",
    "Mp",
    "entry",
    "rdp_finite",
    "delta_finite",
    *formulas.CLOSED_FORMS,
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


class Mp:
    """The mpmath arithmetic context of :mod:`dpproofs.math.formulas`: results to about ``dps``
    digits, computed at the current working precision (``dps + GUARD_DPS`` inside an entry point)."""

    exp, log, log1p, expm1, erfc, sqrt, tanh, log10 = (
        staticmethod(f) for f in (mp.exp, mp.log, mp.log1p, mp.expm1, mp.erfc, mp.sqrt, mp.tanh, mp.log10)
    )
    max = staticmethod(lambda *values: max(values))

    def __init__(self, dps=DEFAULT_DPS):
        self.dps = dps

    @property
    def zero(self):
        return mp.zero

    @property
    def two(self):
        return mp.mpf(2)

    @staticmethod
    def fsum(values):
        return mp.fsum(values)

    @staticmethod
    def binomial(n, k):
        return mp.binomial(n, k)

    @staticmethod
    def log_binomial(n, k):
        return mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1)

    @staticmethod
    def integer(x):
        if not _is_integer(x):
            raise ValueError(f"{x} must be an integer here")
        return int(x)

    @staticmethod
    def is_exactly(x, value):
        return x == value

    @staticmethod
    def certainly_nonnegative(x):
        return x >= 0

    @staticmethod
    def positive_part(x):
        return max(mp.zero, x)

    @staticmethod
    def sign(x):
        return 1 if x > 0 else -1

    def positive_difference(self, terms):
        return _positive_difference(terms, self.dps)

    @staticmethod
    def extra_digits(count):
        return mp.extradps(count())

    def log_a(self, alpha, q, sigma):
        return log_a(alpha, q, sigma, dps=self.dps + GUARD_DPS)

    def log_b(self, alpha, q, sigma):
        return log_b(alpha, q, sigma, dps=self.dps + GUARD_DPS)


def entry(formula):
    """``f(*args, dps=DEFAULT_DPS, **options)``: ``formula`` of :mod:`dpproofs.math.formulas` in
    the :class:`Mp` context, at ``dps + GUARD_DPS`` digits, arguments converted to mpf exactly."""

    @functools.wraps(formula)
    def entry(*args, dps=DEFAULT_DPS, **options):
        with mp.workdps(dps + GUARD_DPS):
            return formula(Mp(dps), *(to_mpf(a) for a in args), **options)

    return entry


def normal_sf(x):
    """Standard normal survival function ``1 - Phi(x)`` at the current precision (no cancellation
    for large x)."""
    return formulas.normal_sf(Mp, x)


# --- the closed forms: written and cited once, in dpproofs.math.formulas ------------------------
#
# rdp_gaussian, rdp_laplace, rdp_randomized_response, rdp_kary_randomized_response(_special), rdp_composed_pure, delta_gaussian,
# delta_laplace, delta_randomized_response, delta_composed_pure, log_a_integer,
# rdp_sampled_gaussian(_add), log_moment_sampled_gaussian, delta_sampled_gaussian(_add): each
# formulas.f run in the mpmath context by ``entry``.

globals().update({name: entry(getattr(formulas, name)) for name in formulas.CLOSED_FORMS})


# --- Poisson-subsampled Gaussian ------------------------------------------------------------
#
# mu0 = N(0, s^2), mu1 = N(1, s^2), mu = (1-q) mu0 + q mu1, r(z) = mu(z)/mu0(z)
#     = 1 - q + q exp((2z - 1)/(2 s^2)).
# A_a = E_{mu0}[r^a] (add direction), B_a = E_{mu}[(mu0/mu)^a] = E_{mu0}[r^{1-a}] (remove).


def _is_integer(x):
    return x == mp.floor(x)


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
        check("an mpmath integral")
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
        check("an mpmath integral")
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
