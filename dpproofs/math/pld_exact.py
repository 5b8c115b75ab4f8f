"""Exact reference for the tight delta(epsilon) of the T-fold Poisson-subsampled Gaussian (mpmath).

No discretisation of the privacy loss: the hockey stick of the T-fold composition is the inverse
two-sided Laplace transform of the loss's moment generating function. With ``L`` the T-fold
privacy loss under P and ``f(x) = (1 - e^{eps - x})_+``,

    int f(x) e^{-s x} dx = e^{-s eps} / (s (s + 1))            (Re s > 0),

so, for any ``c > 0`` where the moment generating function ``M(s) = E_P[e^{s L_1}]`` of one step is
finite (all ``c`` here: Gaussian tails),

    delta(eps) = E f(L) = (1 / pi) int_0^inf Re[ M(c + i t)^T e^{-(c + i t) eps} / ((c + i t)(c + i t + 1)) ] dt

(Bromwich inversion; the integrand is Hermitian in t). One step, both directions, with
``r(z) = 1 - q + q e^{(2z - 1) / (2 s^2)}`` and ``z ~ N(0, s^2)`` under the base measure:

* add    (P = (1-q) N(0,s^2) + q N(1,s^2), Q = N(0,s^2)):  M(s) = E_{N(0,s^2)}[ r(z)^{1 + s} ];
* remove (P = N(0,s^2), Q = the mixture):                   M(s) = E_{N(0,s^2)}[ r(z)^{-s} ].

``c`` is the saddle point of the integrand's modulus on the real axis (then the integrand is
smooth and decays like a Gaussian in t for large T). Both the inner (z) and the outer (t) integral
are mpmath tanh-sinh quadratures with breakpoints; the result is accepted only if it agrees with
itself along a second contour (Re s = 1.25 c; the exact integral does not depend on c) to within
``rtol`` (else :class:`NumericalError`). Each call
costs seconds (tens of inner integrals): it is the oracle, not the accountant.

Self-checks (tests/test_pld.py): ``q = 1`` (the Gaussian, T-fold closed form
:func:`dpproofs.math.precise.delta_gaussian` at ``sigma / sqrt(T)``), and ``T = 1`` against the
closed form :func:`dpproofs.math.precise.delta_sampled_gaussian` (T = 2 there: at T = 1 the
integrand decays only like 1/t^2, so the one-step check uses the T = 2 value's bound
delta_2(eps) >= delta_1(eps), and the Gaussian checks the machinery at any T).
"""

from mpmath import mp

from dpproofs.errors import NumericalError
from dpproofs.math.roots import golden_section_on_log, illinois

__all__ = ["delta_sampled_gaussian_composed", "epsilon_sampled_gaussian_composed", "log_mgf"]


def _mgf(s, q, sigma, direction):
    """``M(s)`` of one step (complex ``s``), by quadrature over z."""
    s2 = sigma * sigma
    if q == 1:  # the Gaussian: L ~ N(mu, 2 mu) under P with mu = 1/(2 s^2); M(s) in closed form
        return mp.exp(s * (1 + s) / (2 * s2)) if direction == "add" else mp.exp(-s * (1 - s) / (2 * s2))

    def log_r(z):
        t = (2 * z - 1) / (2 * s2)
        if q == 1:
            return t
        return mp.log1p(q * mp.expm1(t)) if t < 50 else mp.log(q) + t + mp.log1p((1 - q) * mp.exp(-t) / q)

    power = (1 + s) if direction == "add" else -s
    norm = 1 / (sigma * mp.sqrt(2 * mp.pi))

    def integrand(z):
        return norm * mp.exp(-z * z / (2 * s2) + power * log_r(z))

    # the modulus peaks where z / s^2 ~ Re(power) d/dz log r: between 0 and Re(power) (+1)
    peak = mp.re(power)
    points = sorted({-12 * sigma, mp.mpf(0), min(peak, 0) - 1, max(peak, 0) + 1, max(peak, 0) + 12 * sigma})
    return mp.quad(integrand, [-mp.inf] + points + [mp.inf])


def log_mgf(s, q, sigma, *, direction="add", dps=30):
    """``log M(s)`` of one sampled-Gaussian step at a real ``s`` (mpmath, ``dps`` digits)."""
    with mp.workdps(dps + 10):
        return mp.log(_mgf(mp.mpf(s), mp.mpf(q), mp.mpf(sigma), direction))


def _saddle(epsilon, q, sigma, steps, direction):
    """The real c > 0 minimising log|integrand| = T log M(c) - c eps - log(c (c+1)) (golden
    section on log c), and the t scale 1 / sqrt(T (log M)''(c))."""
    eps = mp.mpf(epsilon)

    def log_modulus(c):
        return steps * mp.log(_mgf(c, q, sigma, direction)) - c * eps - mp.log(c * (c + 1))

    c = golden_section_on_log(log_modulus, mp.log(mp.mpf("1e-3")), mp.log(mp.mpf(300)), exp=mp.exp, steps=24)
    h = c * mp.mpf("1e-3")
    k2 = steps * (mp.log(_mgf(c + h, q, sigma, direction)) - 2 * mp.log(_mgf(c, q, sigma, direction))
                  + mp.log(_mgf(c - h, q, sigma, direction))) / (h * h)
    return c, 1 / mp.sqrt(abs(k2) + 1 / (c * c + 1))


def _delta_at(epsilon, q, sigma, steps, direction, c, scale):
    """The Bromwich integral along Re s = c (truncated at t = 40 scale, where the integrand of a
    T >= 2 composition is below e^{-T 800 / T}... checked by the two-contour agreement)."""
    eps = mp.mpf(epsilon)

    def integrand(t):
        s = c + 1j * t
        value = mp.exp(steps * mp.log(_mgf(s, q, sigma, direction)) - s * eps) / (s * (s + 1))
        return mp.re(value)

    points = [mp.zero] + [scale * k for k in (1, 2, 4, 8, 16, 40)]
    return mp.quad(integrand, points) / mp.pi


def delta_sampled_gaussian_composed(epsilon, q, sigma, steps, *, direction="max", dps=15, rtol=1e-7):
    """The exact tight delta at ``epsilon`` of ``steps`` (>= 2) sampled-Gaussian steps (max of the
    two directions unless ``direction`` is 'add' or 'remove'), as an mpf. Evaluated along two
    contours (Re s = c and 1.25 c); raises :class:`NumericalError` if they differ by more than
    ``rtol`` relative."""
    if direction not in ("add", "remove", "max"):
        raise ValueError(f"direction={direction!r} is not one of 'add', 'remove', 'max'")
    if q == 0:
        return mp.zero
    directions = ("add", "remove") if direction == "max" else (direction,)
    if q == 1:
        directions = ("add",)
    values = []
    with mp.workdps(dps + 5):
        for d in directions:
            c, scale = _saddle(epsilon, mp.mpf(q), mp.mpf(sigma), int(steps), d)
            # the integral does not depend on the contour: two contours must agree
            a = _delta_at(epsilon, mp.mpf(q), mp.mpf(sigma), int(steps), d, c, scale)
            b = _delta_at(epsilon, mp.mpf(q), mp.mpf(sigma), int(steps), d, c * mp.mpf("1.25"), scale)
            if abs(a - b) > rtol * abs(b):
                raise NumericalError(f"inversion unconverged for {d}: {a} vs {b}")
            values.append(max(mp.zero, b))
    return max(values)


def epsilon_sampled_gaussian_composed(delta, q, sigma, steps, *, bracket, dps=20, rtol=1e-8, xtol=1e-9):
    """The exact tight epsilon at ``delta`` (bisection on :func:`delta_sampled_gaussian_composed`
    inside ``bracket = (low, high)``, which must contain it), as an mpf interval midpoint with
    absolute accuracy ``xtol``."""
    low, high = (mp.mpf(x) for x in bracket)
    target = mp.mpf(delta)
    f_low = delta_sampled_gaussian_composed(low, q, sigma, steps, dps=dps, rtol=rtol)
    f_high = delta_sampled_gaussian_composed(high, q, sigma, steps, dps=dps, rtol=rtol)
    if not (f_low >= target >= f_high):
        raise NumericalError(f"bracket {bracket!r} does not contain epsilon: delta {f_low}, {f_high} vs {target}")
    while high - low > xtol:
        mid = (low + high) / 2
        if delta_sampled_gaussian_composed(mid, q, sigma, steps, dps=dps, rtol=rtol) > target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


# =============================================================================================
# Vectorised Bromwich inversion (float64/complex128) with its own self-check
# =============================================================================================
#
# The same inversion formula, evaluated with numpy instead of nested mpmath quadratures (seconds
# instead of tens of minutes): the grid of benchmarks/pld_grid.py needs the exact tight epsilon
# of twenty configurations to ~1e-7 relative, not 1e-15.
#
# * inner integral M(s) - 1 = E_{N(0, s^2)}[expm1(p(s) log r(z))] (p = 1 + s add, -s remove):
#   trapezoidal rule in z. The integrand is analytic in the strip |Im z| < pi sigma^2 (the
#   zeros of r), decays like a Gaussian, so the rule converges geometrically, like
#   exp(-2 pi d / h) for a usable strip half-width d (Trefethen & Weideman 2014, SIAM Review
#   56(3), Theorem 5.1); h is chosen from d = min(pi sigma^2 / 2, 3 sigma) and the oscillation
#   |t| / sigma^2 of the integrand, with the range covering every peak +- 14 sigma;
# * outer integral over t >= 0: the exp-sinh rule t = tau exp((pi/2) sinh u) (trapezoid in u),
#   tau the saddle point's t scale;
# * M^T = exp(T Log M) for integer T whatever the branch of Log.
#
# Self-check: the value does not depend on the contour Re s = c nor on the quadrature steps;
# the result is the value at (c, h); it is accepted only if the value along Re s = 0.85 c (below the saddle: past it M(c) may explode, e.g. q = 1e-4, sigma = 1) with
# the inner and outer steps refined (2/3 h) agrees within ``rtol`` (else NumericalError).

import math as _math

#: Largest number of inner (z) quadrature nodes per s value.
MAX_Z_NODES = 2_000_000
#: Relative bound allowed on the truncated t tail of the Bromwich integral (rigorous envelope).
TAIL_RTOL = 1e-9
#: The t integration also stops after two consecutive panels whose envelope (max modulus times
#: width) is below this share of the sum: past the decay of |M(c+it)|^T the envelope falls
#: faster than geometrically (checked by the second contour, which has its own envelope).
ENVELOPE_RTOL = 1e-13

import numpy as _np


def _log_r(z, q, sigma):
    """log r(z), r = 1 - q + q e^{(2z - 1)/(2 sigma^2)} (real or complex z, vectorised)."""
    t = (2 * z - 1) / (2 * sigma * sigma)
    if q == 1:
        return t
    with _np.errstate(over="ignore", invalid="ignore"):
        small = _np.log1p(q * _np.expm1(_np.where(_np.real(t) < 30, t, 0)))
        large = _math.log(q) + t + _np.log1p((1 - q) / q * _np.exp(-_np.where(_np.real(t) >= 30, t, 30)))
    return _np.where(_np.real(t) < 30, small, large)


def _z_nodes(q, sigma, power_re, t_max, refine=1.0):
    """Trapezoid nodes and weights (Gaussian density included) for E_{N(0, sigma^2)} with a
    tilt of real part ``power_re`` and oscillation up to |Im p| = ``t_max``."""
    # in the strip |Im z| <= d the integrand grows at most by e^{growth}: |Im p| d / sigma^2 from
    # the phase (|(log r)'| <= 1/sigma^2), d^2 / (2 sigma^2) from the Gaussian, and
    # Re(p) d^2 / (8 sigma^4) from (log r)'' <= 1 / (4 sigma^4); the rule's error is about
    # exp(-2 pi d / h + growth): h = 2 pi d / (40 + growth), with the best d below pi sigma^2 / 2
    s2 = sigma * sigma
    best = 0.0
    d = _math.pi * s2 / 2
    for _ in range(40):
        growth = d * (t_max + 1) / s2 + d * d / (2 * s2) + abs(power_re) * d * d / (8 * s2 * s2)
        best = max(best, 2 * _math.pi * d / (40 + growth))
        d /= 1.5
    h = min(best, sigma / 4) / refine
    peak = max(power_re, 0.0) + 1.0
    lo = min(0.0, power_re) - 14 * sigma - 1
    hi = peak + 14 * sigma
    n = int(_math.ceil((hi - lo) / h)) + 1
    if not n <= MAX_Z_NODES:
        raise NumericalError(f"inner quadrature needs {n} nodes (more than {MAX_Z_NODES}): |Im s| = {t_max!r}")
    z = _np.linspace(lo, hi, n)
    w = _np.full(n, (hi - lo) / (n - 1)) / (sigma * _math.sqrt(2 * _math.pi))
    w = w * _np.exp(-z * z / (2 * sigma * sigma))
    keep = w > 0  # nodes whose Gaussian weight underflows contribute nothing (and inf * 0 = nan)
    return z[keep], w[keep]


def _log_mgf_vec(s, q, sigma, direction, refine=1.0):
    """Log M(s) for an array of complex s sharing one real part (complex128)."""
    s = _np.asarray(s, dtype=_np.complex128)
    power = (1 + s) if direction == "add" else -s
    if q == 1:
        mu = 1 / (2 * sigma * sigma)
        return s * (1 + s) * mu if direction == "add" else -s * (1 - s) * mu
    z, w = _z_nodes(q, sigma, float(_np.real(power).max()), float(_np.abs(_np.imag(power)).max()), refine)
    log_r = _log_r(z, q, sigma)
    with _np.errstate(divide="ignore"):
        log_w = _np.log(w)
    out = _np.empty(len(s), dtype=_np.complex128)
    block = max(1, int(2e6 // len(z)))  # s values per block (memory)
    for start in range(0, len(s), block):
        p = power[start:start + block, None]
        e = p * log_r[None, :]
        top = _np.max(_np.real(e) + log_w[None, :], axis=1)
        with _np.errstate(over="ignore", invalid="ignore", under="ignore"):
            # M - 1 = E[expm1(p log r)] keeps the relative precision of a small log M; once a
            # term exceeds 1 (large real parts of p) log-sum-exp avoids the overflow
            m1 = _np.expm1(e) @ w
            lse = top + _np.log(_np.exp(e + log_w[None, :] - top[:, None]).sum(axis=1))
        out[start:start + block] = _np.where((top < -1.0) & _np.isfinite(m1), _np.log1p(m1), lse)
    return out


def _saddle_vec(epsilon, q, sigma, steps, direction):
    """The real c > 0 minimising T log M(c) - c eps - log(c (c + 1)) and the t scale there."""
    def f(c):
        return steps * float(_np.real(_log_mgf_vec([c], q, sigma, direction)[0])) - c * epsilon - _math.log(c * (c + 1))

    c = golden_section_on_log(f, _math.log(1e-4), _math.log(2e3), exp=_math.exp, steps=60, tolerance=1e-6)
    e = c * 1e-3
    k2 = (f(c + e) - 2 * f(c) + f(c - e)) / (e * e)
    return c, 1 / _math.sqrt(abs(k2) + 1e-12)


def _bromwich_vec(epsilon, q, sigma, steps, direction, c, tau, refine=1.0):
    """(1/pi) int_0^inf Re[M(c+it)^T e^{-(c+it) eps} / ((c+it)(c+it+1))] dt: Gauss-Legendre
    panels [0, tau], [tau, 2 tau], [2 tau, 4 tau], ... until two consecutive panels add less than
    ENVELOPE_RTOL of the sum, or the rigorous tail bound is below TAIL_RTOL of it."""
    nodes, weights = _np.polynomial.legendre.leggauss(int(48 * refine))
    total, quiet = 0.0, 0
    a, b = 0.0, tau
    # past t = b the integrand is at most M(c)^T e^{-c eps} / t^2: the tail is <= that / b
    log_peak = steps * float(_np.real(_log_mgf_vec([c], q, sigma, direction)[0])) - c * epsilon
    for _ in range(80):
        t = (a + b) / 2 + (b - a) / 2 * nodes
        s = c + 1j * t
        log_m = _log_mgf_vec(s, q, sigma, direction, refine)
        with _np.errstate(over="ignore", under="ignore", invalid="ignore"):
            log_v = steps * log_m - s * epsilon - _np.log(s * (s + 1))
            v = _np.real(_np.exp(log_v))
        part = float(_np.sum(v * weights) * (b - a) / 2)
        envelope = float(_np.max(_np.exp(_np.real(log_v)))) * (b - a)
        total += part
        quiet = quiet + 1 if envelope <= ENVELOPE_RTOL * abs(total) else 0
        if quiet >= 2 or _math.exp(min(log_peak, 700.0)) / b <= TAIL_RTOL * abs(total):
            break
        a, b = b, 2 * b
    else:
        raise NumericalError(f"Bromwich integral not converged by t = {b!r}")
    return total / _math.pi


def bromwich_delta(epsilon, q, sigma, steps, *, direction="max", rtol=1e-6, with_agreement=False):
    """The exact tight delta at ``epsilon`` of ``steps`` (>= 2) sampled-Gaussian steps, float64
    (max of both directions unless ``direction`` is 'add' or 'remove'); see the section comment.
    Raises NumericalError if the two contours / step sizes disagree by more than ``rtol``
    relative; ``with_agreement=True`` returns ``(delta, largest relative disagreement)``. Where
    the integrand cancels heavily (small q, the answer carried by rare large losses) the
    agreement is ~1e-5, not 1e-12: ask for the rtol you need."""
    if direction not in ("add", "remove", "max"):
        raise ValueError(f"direction={direction!r} is not one of 'add', 'remove', 'max'")
    if q == 0:
        return 0.0
    directions = ("add",) if q == 1 or direction == "add" else ("remove",) if direction == "remove" else ("add", "remove")
    values, agreement = [], 0.0
    saddles = {d: _saddle_vec(float(epsilon), float(q), float(sigma), int(steps), d) for d in directions}

    def chernoff(d):  # (1 - e^{-y})_+ <= e^{c y} / (c + 1): delta <= M(c)^T e^{-c eps} / (c + 1)
        c = saddles[d][0]
        log_m = float(_np.real(_log_mgf_vec([c], float(q), float(sigma), d)[0]))
        return _math.exp(min(int(steps) * log_m - c * float(epsilon) - _math.log1p(c), 700.0))

    for d in sorted(directions, key=chernoff, reverse=True):
        if values and chernoff(d) <= rtol * max(values):
            continue  # this direction cannot change the maximum by rtol
        c, tau = saddles[d]
        a = _bromwich_vec(float(epsilon), float(q), float(sigma), int(steps), d, c, tau)
        b = _bromwich_vec(float(epsilon), float(q), float(sigma), int(steps), d, 0.85 * c, tau, refine=1.5)
        if not abs(a - b) <= rtol * abs(a):
            raise NumericalError(f"inversion unconverged for {d}: {a!r} vs {b!r} (rtol {rtol})")
        values.append(max(0.0, a))
        agreement = max(agreement, abs(a - b) / abs(a))
    return (max(values), agreement) if with_agreement else max(values)


def bromwich_epsilon(delta, q, sigma, steps, *, bracket, rtol=1e-6, xtol=1e-9):
    """The exact tight epsilon at ``delta``: regula falsi (Illinois) on log delta(eps) inside
    ``bracket = (low, high)`` (which must contain it), to relative ``xtol``; returns
    ``(epsilon, low, high, agreement)`` with ``delta(low) > delta >= delta(high)`` checked and the
    largest relative disagreement of the two contours met on the way."""
    target = _math.log(delta)
    low, high = (float(x) for x in bracket)

    worst = [0.0]

    def g(eps):
        value, agreement = bromwich_delta(eps, q, sigma, steps, rtol=rtol, with_agreement=True)
        worst[0] = max(worst[0], agreement)
        return _math.log(value) - target

    g_low, g_high = g(low), g(high)
    if not (g_low > 0 >= g_high):
        raise NumericalError(f"bracket {bracket!r} does not contain epsilon (log-delta gaps {g_low}, {g_high})")
    low, high = illinois(g, low, high, g_low, g_high, converged=lambda lo, hi: hi - lo <= xtol * hi,
                         clamp=0.01, max_steps=100)
    return (low + high) / 2, low, high, worst[0]
