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
:func:`dpproofs.evaluator.precise.delta_gaussian` at ``sigma / sqrt(T)``), and ``T = 1`` against the
closed form :func:`dpproofs.evaluator.precise.delta_sampled_gaussian` (T = 2 there: at T = 1 the
integrand decays only like 1/t^2, so the one-step check uses the T = 2 value's bound
delta_2(eps) >= delta_1(eps), and the Gaussian checks the machinery at any T).
"""

from mpmath import mp

from dpproofs.errors import NumericalError

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

    lo, hi = mp.log(mp.mpf("1e-3")), mp.log(mp.mpf(300))
    g = (mp.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = log_modulus(mp.exp(a)), log_modulus(mp.exp(b))
    for _ in range(24):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = log_modulus(mp.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = log_modulus(mp.exp(b))
    c = mp.exp((lo + hi) / 2)
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
