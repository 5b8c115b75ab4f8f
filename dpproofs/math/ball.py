"""Certified enclosures (python-flint ``arb`` balls) of the quantities of docs/math.md#exact-quantities.

Every function takes plain numbers (int, float, Fraction, mpf, arb; floats are exact dyadic
rationals, decimal strings become tight enclosures) and a keyword ``prec`` (bits of working
precision) and returns an ``arb`` ball guaranteed to contain the true value. Balls are never
compared with ``<``/``>=`` here or elsewhere: use :mod:`dpproofs.checker.decide`.

Integrals (fractional-order ``A_alpha``, every ``B_alpha``) use arb's rigorous integration on a
finite interval plus a rigorous bound on the two Gaussian tails, so they are enclosures too.
"""

import fractions
import math

import mpmath
from flint import acb, arb, ctx

from dpproofs.errors import NumericalError

__all__ = [
    "DEFAULT_PREC",
    "to_arb",
    "precision",
    "positive_part",
    "normal_sf",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_randomized_response",
    "rdp_composed_pure",
    "delta_gaussian",
    "delta_laplace",
    "delta_randomized_response",
    "delta_composed_pure",
    "log_a_integer",
    "log_a_integral",
    "log_a",
    "log_b",
    "rdp_sampled_gaussian",
    "log_moment_sampled_gaussian",
    "delta_sampled_gaussian",
]

DEFAULT_PREC = 256


class precision:
    """Context manager setting flint's working precision (bits) and restoring it on exit."""

    def __init__(self, prec):
        self.prec = int(prec)

    def __enter__(self):
        self.saved = ctx.prec
        ctx.prec = self.prec
        return self

    def __exit__(self, *exc):
        ctx.prec = self.saved
        return False


def to_arb(value):
    """Convert a number to an arb ball containing it (exactly for ints, floats, rationals, mpf)."""
    if isinstance(value, arb):
        return value
    if isinstance(value, bool):
        raise TypeError(f"value={value!r} is a bool, not a number")
    if isinstance(value, int):
        return arb(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"value={value!r} is not finite")
        numerator, denominator = value.as_integer_ratio()
        return arb(numerator) / denominator  # denominator is a power of two: exact
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"value={value!r} is not finite")
        sign, mantissa, exponent, bits = value._mpf_  # man_exp drops the sign: use the raw tuple
        with precision(max(ctx.prec, int(bits) + 16)):  # the product must not round the mantissa
            return (-1) ** sign * arb(int(mantissa)) * arb(2) ** int(exponent)
    if isinstance(value, fractions.Fraction) or hasattr(value, "denominator"):
        return arb(int(value.numerator)) / arb(int(value.denominator))
    if isinstance(value, str):
        return arb(value)
    raise TypeError(f"value={value!r} of type {type(value).__name__} cannot be made a ball")


def _balls(function):
    """Convert positional arguments to arb and run at ``prec`` bits."""

    def wrapper(*args, prec=DEFAULT_PREC, **kwargs):
        with precision(prec):
            return function(*(to_arb(a) for a in args), prec=prec, **kwargs)

    wrapper.__name__ = function.__name__
    wrapper.__qualname__ = function.__qualname__
    wrapper.__doc__ = function.__doc__
    return wrapper


def positive_part(x):
    """Enclosure of ``max(x, 0)``."""
    if x.lower() >= 0:
        return x
    if x.upper() <= 0:
        return arb(0)
    return arb(0).union(arb(x.upper()))


def normal_sf(x):
    """Enclosure of ``1 - Phi(x)``."""
    return (x / arb(2).sqrt()).erfc() / 2


def _log_sum_exp(log_terms):
    top = max(log_terms, key=lambda t: t.mid())
    return top + sum((t - top).exp() for t in log_terms).log()


@_balls
def rdp_gaussian(alpha, sigma, *, prec):
    """``alpha / (2 sigma^2)`` (Mironov 2017, arXiv 1702.07476v3, Prop. 7)."""
    return alpha / (2 * sigma**2)


@_balls
def rdp_laplace(alpha, b, *, prec):
    """Mironov 2017 v3 Prop. 6 (see precise.rdp_laplace), for alpha > 1."""
    inner = alpha / (2 * alpha - 1) * ((alpha - 1) / b).exp() + (alpha - 1) / (2 * alpha - 1) * (
        -alpha / b
    ).exp()
    return inner.log() / (alpha - 1)


@_balls
def rdp_randomized_response(alpha, epsilon, *, prec):
    """Mironov 2017 v3 Prop. 5 (see precise.rdp_randomized_response), for alpha > 1."""
    log_p = -((-epsilon).exp().log1p())
    log_1mp = -(epsilon.exp().log1p())
    first = alpha * log_p + (1 - alpha) * log_1mp
    second = alpha * log_1mp + (1 - alpha) * log_p
    return _log_sum_exp([first, second]) / (alpha - 1)


@_balls
def rdp_composed_pure(alpha, epsilon, n, *, prec):
    """``n`` times :func:`rdp_randomized_response`."""
    return n * rdp_randomized_response(alpha, epsilon, prec=prec)


@_balls
def delta_gaussian(epsilon, sigma, *, prec):
    """Balle & Wang 2018 Thm 8: ``Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s)``."""
    value = normal_sf(epsilon * sigma - 1 / (2 * sigma)) - epsilon.exp() * normal_sf(
        epsilon * sigma + 1 / (2 * sigma)
    )
    return positive_part(value)  # the true value is positive; clip the ball's negative part


@_balls
def delta_laplace(epsilon, b, *, prec):
    """``(1 - e^{(eps - 1/b)/2})_+``."""
    return positive_part(-(((epsilon - 1 / b) / 2).expm1()))


@_balls
def delta_randomized_response(epsilon_prime, epsilon, *, prec):
    """``(e^eps - e^eps')_+ / (1 + e^eps)``."""
    return positive_part(-((epsilon_prime - epsilon).expm1())) / (1 + (-epsilon).exp())


@_balls
def delta_composed_pure(epsilon_prime, epsilon, n, *, prec):
    """Kairouz, Oh & Viswanath 2015 Thm 3.3, every term an enclosure of its positive part."""
    n_int = int(n.unique_fmpz())
    log_norm = n * epsilon.exp().log1p()
    total = arb(0)
    for ell in range(n_int + 1):
        gap = epsilon_prime + ell * epsilon - (n_int - ell) * epsilon
        if gap.lower() >= 0:
            break
        log_term = arb.bin_uiui(n_int, ell).log() + (n_int - ell) * epsilon - log_norm
        total += log_term.exp() * positive_part(-gap.expm1())
    return total


# --- Poisson-subsampled Gaussian ------------------------------------------------------------


@_balls
def log_a_integer(alpha, q, sigma, *, prec):
    """Enclosure of ``log A_alpha`` for integer alpha: the exact binomial sum (docs/math.md#integer-orders)."""
    a = int(alpha.unique_fmpz())
    if q.is_zero():
        return arb(0)
    if q == 1:
        return (alpha**2 - alpha) / (2 * sigma**2)
    # A - 1 as a sum of non-negative terms (see precise.log_a_integer): tight balls for tiny q
    log_q, log_1mq = q.log(), (-q).log1p()
    excess = sum(
        (
            (arb.bin_uiui(a, k).log() + (a - k) * log_1mq + k * log_q).exp()
            * ((k * k - k) / (2 * sigma**2)).expm1()
            for k in range(2, a + 1)
        ),
        arb(0),
    )
    return excess.log1p()


def _log_r(z, q, sigma, analytic):
    """``log(1 - q + q exp((2z-1)/(2 s^2)))`` on a complex ball, analytic-checked."""
    return (1 - q + q * ((2 * z - 1) / (2 * sigma**2)).exp()).log(analytic=analytic)


def _log_integral(power, q, sigma, centre, half_width, prec):
    """Enclosure of ``log E_{mu0}[r^power]``: arb integral on ``centre +- half_width`` + tails.

    Tails (for the interval ``[L, R]`` with ``L <= 1/2 <= R``): on ``z <= L``, ``r <= 1`` so
    ``r^power <= max(1, (1-q)^power)``; on ``z >= R``, ``1 <= r <= e^{(2z-1)/(2s^2)}`` so
    ``r^power <= max(1, e^{power (2z-1)/(2s^2)})`` whose Gaussian integral is closed-form.
    """
    low, high = centre - half_width, centre + half_width
    if not (low <= 0.5 <= high):
        raise ValueError("the integration interval must contain 1/2")
    scale = 2 * sigma**2
    # integrand divided by the constant sigma sqrt(2 pi); shifted by `peak` for representability
    peak = arb(0)

    def integrand(z, analytic):
        return (-(z**2) / scale + power * _log_r(z, acb(q), acb(sigma), analytic) - peak).exp()

    # find the peak of the log-integrand on a coarse real grid so the integral is O(1)
    grid = [low + (high - low) * i / 400 for i in range(401)]
    values = [
        (-(arb(z) ** 2) / scale + power * _log_r(acb(z), acb(q), acb(sigma), False).real).mid()
        for z in grid
    ]
    peak = arb(max(values))
    core = acb.integral(integrand, arb(low), arb(high), rel_tol=arb(2) ** (-prec + 20))
    core = core.real
    sqrt_2pi_sigma = sigma * (2 * arb.pi()).sqrt()
    left_factor = arb(1).union((1 - q) ** power) if power.upper() > 0 else (1 - q) ** power
    left_tail = left_factor * normal_sf(-arb(low) / sigma)
    right_gauss = ((power**2 - power) / scale).exp() * normal_sf((arb(high) - power) / sigma)
    right_tail = normal_sf(arb(high) / sigma).union(right_gauss) if power.lower() > 0 else normal_sf(
        arb(high) / sigma
    )
    tails = arb(0).union(left_tail.upper() + right_tail.upper())
    total = core / sqrt_2pi_sigma + tails * (-peak).exp()
    if not (total.lower() > 0 and total.is_finite()):
        raise NumericalError(
            f"arb integral of E[r^power] could not be enclosed (power={power}, q={q}, sigma={sigma})"
        )
    return peak + total.log()


def _window(power, q, sigma):
    """Integration window ``centre +- half_width`` (floats) holding the mass of the integrand."""
    from dpproofs.math import precise  # the float mode finder lives in precise

    with mpmath.mp.workdps(20):
        modes = precise._modes(mpmath.mpf(power.mid()), mpmath.mpf(q.mid()), mpmath.mpf(sigma.mid()))
    s = float(sigma.mid())
    low = min(min(modes) - 40 * s, -1.0)
    high = max(max(modes) + 40 * s, 2.0)
    return (low + high) / 2, (high - low) / 2


@_balls
def log_a_integral(alpha, q, sigma, *, prec):
    """Enclosure of ``log A_alpha`` for any real alpha > 1, by rigorous integration."""
    if q.is_zero():
        return arb(0)
    if q == 1:
        return (alpha**2 - alpha) / (2 * sigma**2)
    centre, half_width = _window(alpha, q, sigma)
    return _log_integral(alpha, q, sigma, centre, half_width, prec)


@_balls
def log_a(alpha, q, sigma, *, prec):
    """``log A_alpha``: exact sum at integer orders, rigorous integral otherwise."""
    if alpha.is_exact() and alpha.is_integer():
        return log_a_integer(alpha, q, sigma, prec=prec)
    return log_a_integral(alpha, q, sigma, prec=prec)


@_balls
def log_b(alpha, q, sigma, *, prec):
    """Enclosure of ``log B_alpha = log E_{mu0}[r^{1-alpha}]`` by rigorous integration."""
    if q.is_zero():
        return arb(0)
    if q == 1:
        return (alpha**2 - alpha) / (2 * sigma**2)
    power = 1 - alpha
    centre, half_width = _window(power, q, sigma)
    return _log_integral(power, q, sigma, centre, half_width, prec)


@_balls
def rdp_sampled_gaussian(alpha, q, sigma, *, prec, direction="max"):
    """Enclosure of the sampled-Gaussian RDP at alpha > 1 (see precise.rdp_sampled_gaussian)."""
    values = []
    if direction in ("add", "max"):
        values.append(log_a(alpha, q, sigma, prec=prec))
    if direction in ("remove", "max"):
        values.append(log_b(alpha, q, sigma, prec=prec))
    top = values[0] if len(values) == 1 else values[0].max(values[1])
    return positive_part(top) / (alpha - 1)


@_balls
def log_moment_sampled_gaussian(lam, q, sigma, *, prec):
    """Enclosure of Abadi et al. 2016 Eqs. 3-4: ``log max(E1, E2)``."""
    return positive_part(log_a(lam + 1, q, sigma, prec=prec).max(log_b(lam + 1, q, sigma, prec=prec)))


@_balls
def delta_sampled_gaussian(epsilon, q, sigma, *, prec, direction="max"):
    """Enclosure of the closed-form sampled-Gaussian privacy profile (see precise)."""
    if q.is_zero():
        return arb(0)
    results = []
    if direction in ("add", "max"):
        z_star = sigma**2 * ((epsilon.expm1() + q) / q).log() + arb(1) / 2
        results.append(
            positive_part(
                q * normal_sf((z_star - 1) / sigma) - (epsilon.expm1() + q) * normal_sf(z_star / sigma)
            )
        )
    if direction in ("remove", "max"):
        inner = (-epsilon).expm1() + q
        if inner.upper() <= 0:
            results.append(arb(0))
        elif inner.lower() > 0:
            z_plus = sigma**2 * (inner / q).log() + arb(1) / 2
            results.append(
                positive_part(
                    (1 - epsilon.exp() * (1 - q)) * normal_sf(-z_plus / sigma)
                    - epsilon.exp() * q * normal_sf((1 - z_plus) / sigma)
                )
            )
        else:
            raise NumericalError("the remove-direction set boundary is not separated from empty")
    top = results[0]
    for other in results[1:]:
        top = top.max(other)
    return top


# --- Mironov 2017 quantities ------------------------------------------------------------------


def rdp_sampled_gaussian_add(alpha, q, sigma, *, prec):
    """Enclosure of precise.rdp_sampled_gaussian_add."""
    return rdp_sampled_gaussian(alpha, q, sigma, prec=prec, direction="add")


# --- Abadi et al. 2016 quantities ---------------------------------------------------------------
#
# Enclosures of the functions of the same block in precise.py. The two quadratures there
# (eq5_moment_remove, gaussian_ratio_moment) have no enclosure: the vocabulary says so.


@_balls
def log_moment_add(lam, q, sigma, *, prec):
    """Enclosure of ``log A_{lam+1}`` (exact sum when lam is an exact integer, integral otherwise)."""
    return log_a(lam + 1, q, sigma, prec=prec)


@_balls
def log_moment_remove(lam, q, sigma, *, prec):
    """Enclosure of ``log B_{lam+1}`` (rigorous integral)."""
    return log_b(lam + 1, q, sigma, prec=prec)


@_balls
def eq5_moment_add(t, q, sigma, *, prec):
    """Enclosure of ``q^t M_t`` (see precise.eq5_moment_add); ``4 t + 64`` extra bits for the
    alternating sum, whose enclosure is rigorous however much it cancels."""
    t = int(t.unique_fmpz())
    with precision(prec + 4 * t + 64):
        s2 = 2 * sigma**2
        moment = sum((arb.bin_uiui(t, j) * (-1) ** (t - j) * (arb(j * (j - 1)) / s2).exp() for j in range(t + 1)),
                     arb(0))
        return q**t * moment


@_balls
def eq5_series_add(lam, q, sigma, *, prec):
    """Enclosure of ``sum_{t=0}^{lam+1} C(lam+1, t) q^t M_t`` (integer lam)."""
    n = int(lam.unique_fmpz()) + 1
    return sum((arb.bin_uiui(n, t) * eq5_moment_add(t, q, sigma, prec=prec) for t in range(n + 1)), arb(0))


def _monotone_corners(function, args, directions, prec):
    """Enclosure of ``function`` over a box of balls, as the union of its values at the two extreme
    corners: valid only for a function non-decreasing (+1) or non-increasing (-1) in each argument
    on its whole domain (the caller states why)."""
    if all(value.is_exact() for value in args):
        return function(*args, prec=prec)
    low, high = [], []
    for value, sign in zip(args, directions):
        a, b = (value, value) if value.is_exact() else (arb(value.lower()), arb(value.upper()))
        low.append(a if sign > 0 else b)
        high.append(b if sign > 0 else a)
    return function(*low, prec=prec).union(function(*high, prec=prec))


@_balls
def log_moment_randomized_response(lam, epsilon, *, prec):
    """Enclosure of ``lam D_{lam+1}(RR_eps)``. Over a box it is the union of the values at the
    corners: the function is non-decreasing in lam (D_alpha >= 0 is non-decreasing in alpha,
    Mironov 2017 v3 Prop. 9) and in eps (RR_eps is a post-processing of RR_eps' for eps' > eps);
    plain interval evaluation of the log-sum-exp over a box is far too wide to certify with."""
    return _monotone_corners(
        lambda l, e, prec: l * rdp_randomized_response(l + 1, e, prec=prec), (lam, epsilon), (1, 1), prec
    )


@_balls
def loss_mean_randomized_response(epsilon, *, prec):
    """Enclosure of ``eps tanh(eps/2)`` (both factors increasing and >= 0: tight over intervals)."""
    return epsilon * (epsilon / 2).tanh()


@_balls
def delta_sampled_gaussian_add(epsilon, q, sigma, *, prec):
    """Enclosure of the privacy profile of the pair (mu, mu0) alone."""
    return delta_sampled_gaussian(epsilon, q, sigma, prec=prec, direction="add")
