"""Certified enclosures (python-flint ``arb`` balls) of the quantities of docs/math.md#exact-quantities.

Every function takes plain numbers (int, float, Fraction, mpf, arb; floats are exact dyadic
rationals, decimal strings become tight enclosures) and a keyword ``prec`` (bits of working
precision) and returns an ``arb`` ball guaranteed to contain the true value. Balls are never
compared with ``<``/``>=`` here or elsewhere: use :mod:`dpproofs.checker.decide`.

Integrals (fractional-order ``A_alpha``, every ``B_alpha``) use arb's rigorous integration on a
finite interval plus a rigorous bound on the two Gaussian tails, so they are enclosures too.
"""

import contextlib
import fractions
import functools
import math

import mpmath
from flint import acb, arb, ctx

from dpproofs.errors import NumericalError
from dpproofs.math import formulas
from dpproofs.math.stop import check, stopped

__all__ = [
    "DEFAULT_PREC",
    "to_arb",
    "precision",
    "positive_part",
    "normal_sf",
    "log_a_integral",
    "log_a",
    "log_b",
    "Arb",
    "entry",
    *formulas.CLOSED_FORMS,
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


#: From this argument up, :func:`erfc` also encloses by the Mills-ratio bounds (relative radius
#: about 0.09 / x^2) and keeps the ball of more relative accuracy: on a ball of radius 1e-32 at x = 7e5, arb's own
#: ``erfc`` answered ``[+/- 3.4e-217149303769]`` (no relative accuracy left), which times ``e^eps``
#: in the Gaussian profile at mu = 1e6 gave ``[+/- 4.7e1568]``. Below 32 it is not computed: there the
#: Mills enclosure is wide (at x = 10, 20, 32, at 53 bits: 9-12 bits of relative accuracy against
#: arb's 56-58).
ERFC_MILLS_FROM = 32


def erfc(x):
    """Enclosure of ``erfc(x)``: arb's, or for ``x >= ERFC_MILLS_FROM`` the relatively narrower of
    arb's and the one from Abramowitz & Stegun (1964) 7.1.13,
    ``1/(x + sqrt(x^2 + 2)) < e^{x^2} int_x^inf e^{-t^2} dt <= 1/(x + sqrt(x^2 + 4/pi))`` for x >= 0.
    Both bounds decrease in x, so evaluated on the ball they enclose their values at each point of
    it, and the hull of the two encloses ``erfc`` there."""
    x = to_arb(x)
    own = x.erfc()
    if not x.lower() >= ERFC_MILLS_FROM:
        return own
    square = x * x
    lower = 1 / (x + (square + 2).sqrt())
    upper = 1 / (x + (square + 4 / arb.pi()).sqrt())
    mills = 2 / arb.pi().sqrt() * (-square).exp() * lower.union(upper)
    return mills if mills.rel_accuracy_bits() > own.rel_accuracy_bits() else own  # integers, not balls


class Arb:
    """The arb arithmetic context of :mod:`dpproofs.math.formulas`: enclosures at the current
    flint precision (``prec`` bits inside an entry point)."""

    def __init__(self, prec=DEFAULT_PREC):
        self.prec = prec

    zero = property(lambda self: arb(0))
    two = property(lambda self: arb(2))

    exp = staticmethod(lambda x: to_arb(x).exp())
    log = staticmethod(lambda x: to_arb(x).log())
    log1p = staticmethod(lambda x: to_arb(x).log1p())
    expm1 = staticmethod(lambda x: to_arb(x).expm1())
    erfc = staticmethod(lambda x: erfc(x))
    sqrt = staticmethod(lambda x: to_arb(x).sqrt())
    tanh = staticmethod(lambda x: to_arb(x).tanh())
    log10 = staticmethod(lambda x: to_arb(x).log() / arb(10).log())

    @staticmethod
    def max(*values):
        top = values[0]
        for other in values[1:]:
            top = top.max(other)
        return top

    @staticmethod
    def fsum(values):
        return sum(values, arb(0))

    @staticmethod
    def binomial(n, k):
        return arb.bin_uiui(n, k)

    @staticmethod
    def log_binomial(n, k):
        return arb.bin_uiui(n, k).log()

    @staticmethod
    def integer(x):
        value = x.unique_fmpz() if isinstance(x, arb) else x
        if value is None or int(value) != value:
            raise ValueError(f"{x} must be an exact integer here")
        return int(value)

    @staticmethod
    def is_exactly(x, value):
        return x.is_exact() and x == value

    @staticmethod
    def certainly_nonnegative(x):
        return x.lower() >= 0

    positive_part = staticmethod(positive_part)

    @staticmethod
    def sign(x):
        if x.upper() <= 0:
            return -1
        if x.lower() > 0:
            return 1
        raise NumericalError(f"the sign of {x} is not certain (the ball straddles 0)")

    @staticmethod
    def positive_difference(terms):
        a, b = terms()
        return positive_part(a - b)  # the true value is positive; clip the ball's negative part

    @staticmethod
    @contextlib.contextmanager
    def extra_digits(count):
        """Raise the precision by ``count()`` digits (a ball encloses its value at any precision:
        the bits only keep it tight; a count that cannot be computed on these balls adds none)."""
        try:
            bits = max(0, int(3.33 * count()) + 1)
        except (ValueError, OverflowError, TypeError):
            bits = 0
        with precision(ctx.prec + bits):
            yield

    def log_a(self, alpha, q, sigma):
        return log_a(alpha, q, sigma, prec=self.prec)

    def log_b(self, alpha, q, sigma):
        return log_b(alpha, q, sigma, prec=self.prec)


def entry(formula):
    """``f(*args, prec=DEFAULT_PREC, **options)``: ``formula`` of :mod:`dpproofs.math.formulas` in
    the :class:`Arb` context at ``prec`` bits, arguments converted to balls."""

    @functools.wraps(formula)
    def entry(*args, prec=DEFAULT_PREC, **options):
        with precision(prec):
            return formula(Arb(prec), *(to_arb(a) for a in args), **options)

    return entry


def normal_sf(x):
    """Enclosure of ``1 - Phi(x)``."""
    return formulas.normal_sf(Arb, x)


# --- the closed forms: written and cited once, in dpproofs.math.formulas ------------------------
#
# rdp_gaussian, rdp_laplace, rdp_randomized_response, rdp_kary_randomized_response(_special), rdp_composed_pure, delta_gaussian,
# delta_laplace, delta_randomized_response, delta_composed_pure, log_a_integer,
# rdp_sampled_gaussian(_add), log_moment_sampled_gaussian, delta_sampled_gaussian(_add): each
# formulas.f run in the arb context by ``entry``.

globals().update({name: entry(getattr(formulas, name)) for name in formulas.CLOSED_FORMS})


# --- Poisson-subsampled Gaussian ------------------------------------------------------------


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
        if stopped():
            return acb(0)  # converges at once (a nan ball makes flint subdivide to its limits); discarded: SafetyStop below
        return (-(z**2) / scale + power * _log_r(z, acb(q), acb(sigma), analytic) - peak).exp()

    # find the peak of the log-integrand on a coarse real grid so the integral is O(1)
    grid = [low + (high - low) * i / 400 for i in range(401)]
    values = []
    for z in grid:
        check("the peak search of an arb integral")
        values.append((-(arb(z) ** 2) / scale + power * _log_r(acb(z), acb(q), acb(sigma), False).real).mid())
    peak = arb(max(values))
    core = acb.integral(integrand, arb(low), arb(high), rel_tol=arb(2) ** (-prec + 20))
    check(f"an arb integral (power={power}, q={q}, sigma={sigma})")
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
