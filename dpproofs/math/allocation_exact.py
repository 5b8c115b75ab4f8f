"""Exact one-epoch privacy profile of random allocation (balls-in-bins) with Gaussian noise, t <= 3.

The pair (Feldman & Shenfeld, arXiv 2502.08202v4, Section 2; Chua et al., arXiv 2412.16802; the
same pair as :mod:`dpproofs.math.allocation`): one epoch of ``t`` steps, sensitivity 1, noise
multiplier ``s``,

    P = (1/t) sum_i N(e_i, s^2 I_t)   (record present),   Q = N(0, s^2 I_t)   (absent).

With ``a = 1/s^2`` and, under Q, ``Y_i = exp(sqrt(a) Z_i - a/2)`` (``Z_i`` iid ``N(0, 1)``; each
``Y_i`` lognormal with ``E Y_i = 1``), the likelihood ratio is ``S = dP/dQ = (1/t) sum_i Y_i``, so
EXACTLY (the hockey stick written under Q)

    delta_add(eps)    = E_Q[(S - e^eps)_+]          (P vs Q),
    delta_remove(eps) = E_Q[(1 - e^eps S)_+]        (Q vs P),
    delta(eps)        = max(delta_add, delta_remove) (one epoch, add/remove).

Both are options on ``c * (Y_1 + ... + Y_t)`` with strike ``K0``: the add direction a call with
``c = 1/t``, ``K0 = e^eps``; the remove direction a put with ``c = e^eps / t``, ``K0 = 1``.

Innermost term, closed form (the lognormal call and put, "Black-Scholes"): for ``c > 0`` and real
``K``, with ``d1 = (log(c/K) + a/2) / sqrt(a)`` and ``d2 = d1 - sqrt(a)`` (for ``K > 0``),

    E[(c Y - K)_+] = c Phi(d1) - K Phi(d2)      (K > 0),      c - K   (K <= 0),
    E[(K - c Y)_+] = K Phi(-d2) - c Phi(-d1)    (K > 0),      0       (K <= 0).

(``log Y ~ N(-a/2, a)``: ``E[Y; Y > y] = Phi(d1)`` and ``P(Y > y) = Phi(d2)`` at ``y = K/c``, the
exponential tilt by ``Y`` shifting the normal by ``sqrt(a)``.)

Recursion (one quadrature per further step). Write ``call_m(K) = E[(c sum_{i<=m} Y_i - K)_+]`` and
``put_m(K)`` likewise. Conditioning on ``Z_1 = z``, the strike of the rest is ``K - c Y(z)``,
which changes sign at the kink ``z* = (log(K/c) + a/2) / sqrt(a)`` (``c Y(z*) = K``; only when
``K > 0``):

    call_m(K) = int_{-inf}^{z*} phi(z) call_{m-1}(K - c Y(z)) dz
                + (c (m - 1) - K) Phi(-z*) + c Phi(sqrt(a) - z*),
    put_m(K)  = int_{-inf}^{z*} phi(z) put_{m-1}(K - c Y(z)) dz,

the second line of ``call`` being the closed form of the linear piece above the kink
(``call_{m-1}(K') = c (m - 1) - K'`` for ``K' <= 0``, and ``E[Y; Z > z*] = Phi(sqrt(a) - z*)``).
So ``t = 1`` is the Gaussian (closed form), ``t = 2`` one quadrature over ``Z_1`` of a closed-form
integrand, ``t = 3`` a nested (2-D) quadrature with the same innermost term. Every quadrature
runs on ``(-inf, z*]`` with the kink at its end (mpmath.quad, tanh-sinh, which clusters its nodes
at the endpoints), where the integrand is smooth: the non-smooth point of the positive part is
never inside an interval. For ``t = 1`` and ``E`` epochs the ``E``-fold composition of one step is
EXACTLY the Gaussian of noise ``s / sqrt(E)`` (:func:`delta_gaussian`), used for composition checks.

Accuracy (measured with ``tests/test_allocation_exact.py`` and the commands in its docstring):
``t = 1`` agrees with the Gaussian closed form (computed by a different formula) to 1e-20 and
better at dps 30; ``t = 2`` and ``t = 3`` values at dps 30 agree with dps 40 to about 1e-28
relative or better over sigma in [0.7, 4], eps in [0, 3]; ``t = 2`` agrees with a plain Monte
Carlo estimate within its sampling error.
"""

__all__ = [
    "MAX_STEPS",
    "delta_add_exact",
    "delta_remove_exact",
    "delta_exact",
    "delta_gaussian",
]

#: Largest ``t``: each further step is one more nested quadrature (t = 3 is a 2-D quadrature).
MAX_STEPS = 3

#: Guard digits carried above the requested ``dps`` inside the quadratures.
GUARD_DPS = 10


def _check(eps, t, sigma, dps, epochs=1):
    import math

    from dpproofs.errors import InvalidArgument

    if isinstance(t, bool) or not isinstance(t, int) or not 1 <= t <= MAX_STEPS:
        raise InvalidArgument(f"t={t!r} must be an integer in [1, {MAX_STEPS}] (one nested quadrature per step)")
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 1:
        raise InvalidArgument(f"epochs={epochs!r} must be an integer >= 1")
    if epochs > 1 and t != 1:
        raise InvalidArgument(
            f"epochs={epochs!r} with t={t!r}: only t = 1 has an exact composed profile (the Gaussian of "
            f"noise sigma / sqrt(epochs)); allowed: epochs=1 or t=1"
        )
    for name, value in (("eps", eps), ("sigma", sigma)):
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise InvalidArgument(f"{name}={value!r} must be a real number") from None
        if not math.isfinite(number):
            raise InvalidArgument(f"{name}={value!r} must be finite")
    if float(eps) < 0:
        raise InvalidArgument(f"eps={eps!r} must be in [0, inf)")
    if not float(sigma) > 0:
        raise InvalidArgument(f"sigma={sigma!r} must be in (0, inf)")
    if isinstance(dps, bool) or not isinstance(dps, int) or not 5 <= dps <= 1000:
        raise InvalidArgument(f"dps={dps!r} must be an integer in [5, 1000]")


def _mpf(mp, value):
    """An mpf read exactly from a float, int, Fraction or mpf."""
    if hasattr(value, "numerator") and not isinstance(value, (int, float)):
        return mp.mpf(value.numerator) / value.denominator
    return mp.mpf(value)


def _option(mp, m, strike, c, root_a, call):
    """``E[(c sum_{i<=m} Y_i - K)_+]`` (``call``) or ``E[(K - c sum_{i<=m} Y_i)_+]`` (put), Y_i iid
    ``exp(root_a Z - root_a^2 / 2)``: the closed form at ``m = 1``, else the kink-split quadrature
    of the module docstring."""
    if strike <= 0:
        return c * m - strike if call else mp.zero
    half_a = root_a * root_a / 2
    if m == 1:
        d1 = (mp.log(c / strike) + half_a) / root_a
        d2 = d1 - root_a
        if call:
            return c * mp.ncdf(d1) - strike * mp.ncdf(d2)
        return strike * mp.ncdf(-d2) - c * mp.ncdf(-d1)
    kink = (mp.log(strike / c) + half_a) / root_a

    def integrand(z):
        return mp.npdf(z) * _option(mp, m - 1, strike - c * mp.exp(root_a * z - half_a), c, root_a, call)

    # tanh-sinh on (-inf, kink]: split at 0 too when the kink is far right (the mass sits near 0)
    points = [mp.ninf, kink] if kink <= 0 else [mp.ninf, mp.zero, kink]
    value = mp.quad(integrand, points)
    if call:
        value += (c * (m - 1) - strike) * mp.ncdf(-kink) + c * mp.ncdf(root_a - kink)
    return value


def _direction(eps, t, sigma, dps, add):
    import mpmath

    mp = mpmath.mp
    with mp.workdps(dps + GUARD_DPS):
        e, s = _mpf(mp, eps), _mpf(mp, sigma)
        root_a = 1 / s
        if add:
            value = _option(mp, t, mp.exp(e), mp.one / t, root_a, call=True)
        else:
            value = _option(mp, t, mp.one, mp.exp(e) / t, root_a, call=False)
        value = max(value, mp.zero)  # a hockey stick is >= 0; rounding below 0 only near 0
    with mp.workdps(dps):
        return +value


def delta_add_exact(eps, t, sigma, dps=30):
    """Exact ``E_Q[(S - e^eps)_+]``: the hockey stick of ``P`` (record present) against ``Q`` for one
    epoch of random allocation into ``t`` Gaussian steps (module docstring).

    Args:
        eps: epsilon, a real in ``[0, inf)`` (read exactly).
        t: the number of steps in the epoch, an integer in ``[1, 3]``.
        sigma: the noise multiplier, a real in ``(0, inf)`` (read exactly).
        dps: decimal digits of the result (quadratures carry ``GUARD_DPS`` more).

    Returns:
        mpmath.mpf: ``delta_add(eps)`` to about ``dps`` digits.

    Raises:
        InvalidArgument: an argument outside its range (named, with the range).
    """
    _check(eps, t, sigma, dps)
    return _direction(eps, t, sigma, dps, add=True)


def delta_remove_exact(eps, t, sigma, dps=30):
    """Exact ``E_Q[(1 - e^eps S)_+]``: the hockey stick of ``Q`` (record absent) against ``P`` for one
    epoch of random allocation into ``t`` Gaussian steps (module docstring).

    Args:
        eps: epsilon, a real in ``[0, inf)`` (read exactly).
        t: the number of steps in the epoch, an integer in ``[1, 3]``.
        sigma: the noise multiplier, a real in ``(0, inf)`` (read exactly).
        dps: decimal digits of the result (quadratures carry ``GUARD_DPS`` more).

    Returns:
        mpmath.mpf: ``delta_remove(eps)`` to about ``dps`` digits.

    Raises:
        InvalidArgument: an argument outside its range (named, with the range).
    """
    _check(eps, t, sigma, dps)
    return _direction(eps, t, sigma, dps, add=False)


def delta_gaussian(eps, sigma, dps=30):
    """The Gaussian mechanism's exact profile at sensitivity 1, ``Phi(1/(2s) - eps s) - e^eps
    Phi(-1/(2s) - eps s)`` (Balle & Wang 2018, arXiv 1805.06530, Theorem 8), symmetric in the order.

    Args:
        eps: epsilon, a real in ``[0, inf)`` (read exactly).
        sigma: the noise multiplier, a real in ``(0, inf)`` (read exactly).
        dps: decimal digits of the result.

    Returns:
        mpmath.mpf: ``delta(eps)``.

    Raises:
        InvalidArgument: an argument outside its range.
    """
    import mpmath

    _check(eps, 1, sigma, dps)
    mp = mpmath.mp
    with mp.workdps(dps + GUARD_DPS):
        e, s = _mpf(mp, eps), _mpf(mp, sigma)
        # erfc form: no cancellation in the tails
        value = (mp.erfc((e * s - 1 / (2 * s)) / mp.sqrt(2)) - mp.exp(e) * mp.erfc((e * s + 1 / (2 * s)) / mp.sqrt(2))) / 2
        value = max(value, mp.zero)
    with mp.workdps(dps):
        return +value


def delta_exact(eps, t, sigma, dps=30, epochs=1):
    """Exact ``max(delta_add, delta_remove)`` of one epoch (the add/remove relation); with ``t = 1``
    and ``epochs = E`` the exact profile of ``E`` epochs, the Gaussian of noise ``sigma / sqrt(E)``
    (one step per epoch: E Gaussian releases, a Gaussian of sensitivity sqrt(E)).

    Args:
        eps: epsilon, a real in ``[0, inf)`` (read exactly).
        t: the number of steps in the epoch, an integer in ``[1, 3]``.
        sigma: the noise multiplier, a real in ``(0, inf)`` (read exactly).
        dps: decimal digits of the result.
        epochs: the number of epochs, an integer ``>= 1``; above 1 only with ``t = 1``.

    Returns:
        mpmath.mpf: ``delta(eps)`` to about ``dps`` digits.

    Raises:
        InvalidArgument: an argument outside its range, or ``epochs > 1`` with ``t > 1``.
    """
    import mpmath

    _check(eps, t, sigma, dps, epochs)
    if t == 1:
        with mpmath.mp.workdps(dps + GUARD_DPS):
            s = _mpf(mpmath.mp, sigma) / mpmath.sqrt(epochs)
            return delta_gaussian(eps, s, dps)
    return max(delta_add_exact(eps, t, sigma, dps), delta_remove_exact(eps, t, sigma, dps))
