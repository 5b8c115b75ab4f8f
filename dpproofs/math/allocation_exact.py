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
runs on ``[-L, min(z*, L)]`` with the kink at its end, ``L`` where ``Phi(-L) < 10^-(digits + 3)``
(the integrand is ``phi(z)`` times a value in ``[0, c m]``: the cut tails are below
``c m 10^-(digits + 3)``), by a fixed tanh-sinh rule on pieces of length at most :data:`PIECE`
(tanh-sinh clusters its nodes at the ends of each piece, so the kink, where the integrand is smooth
but not analytic, is an endpoint, never inside a piece). The quadrature error is absolute, so a
value below ``10^-(GUARD_DPS - 2)`` is recomputed with as many more digits as it is small
(relative accuracy down to ``10^-MAX_EXTRA_DPS``). For ``t = 1`` and ``E`` epochs the ``E``-fold
composition of one step is EXACTLY the Gaussian of noise ``s / sqrt(E)`` (:func:`delta_exact`
with ``epochs``), for composition checks.

A second, certified evaluation for ``t <= 2``: :func:`delta_direction_ball` (flint's
``acb.integral`` of the same closed-form integrand, tails bounded), which the tests hold the
mpmath values against.

Accuracy, measured (commands in the report of branch ``allocexact``):

* ``t = 1`` against the Gaussian closed form written with ``ncdf`` (the module's uses ``erfc``):
  agree to 1e-20 relative (the test's bar) at dps 30;
* ``t = 2``, dps 30 against dps 40 on the grid sigma in {0.7, 1, 2, 4} x eps in {0, 0.5, 1, 2, 3},
  both directions (40 values): at most 1.5e-30 relative (at sigma 4, eps 1, add); every dps 40
  value inside its certified 128-bit enclosure (:func:`delta_direction_ball`); a plain Monte
  Carlo (4e5 samples) within 6 standard errors. An earlier version on mpmath.quad's adaptive
  tanh-sinh (absolute tolerance) returned 2.47e-66 for the remove direction at
  (t, sigma, eps) = (2, 4, 3), the same at dps 30 and 40, where the value is 7.023e-66 (a split
  mpmath.quad at dps 90 agrees): agreement of two precisions is not proof, hence the enclosure;
* ``t = 3``: slow (a nested quadrature): at (sigma, eps) = (1, 1) about 10 s a value at dps 8 and
  20 s at dps 12 (CPU, loaded machine); dps 8 against dps 12 agree to 5.6e-10 relative (add) and
  5.3e-10 (remove), dps 12 against dps 20 to 1.4e-14 (add; 46 s at dps 20); no
  certified enclosure, so the claims stop at t = 2.
"""

__all__ = [
    "MAX_STEPS",
    "delta_add_exact",
    "delta_remove_exact",
    "delta_exact",
    "delta_gaussian",
    "delta_direction_ball",
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


def _tanh_sinh_rule(mp, digits):
    """Fixed tanh-sinh nodes and weights on ``[-1, 1]`` for about ``digits`` digits (step
    ``h = pi^2 / (2 ln 10 (digits + 10))``: the discretisation error ``exp(-pi^2 / (2 h))`` of an
    integrand analytic in the standard strip, 10 digits spare for the narrower strip of a piece of
    length :data:`PIECE`; the sum cut where the weights fall below
    ``10^-(digits + 5)``)."""
    key = (digits, mp.prec)
    rule = _RULES.get(key)
    if rule is None:
        h = mp.pi**2 / (2 * mp.log(10) * (digits + 10))
        rule, k, tiny = [], 0, mp.mpf(10) ** -(digits + 5)
        while True:
            t = k * h
            u = mp.pi / 2 * mp.sinh(t)
            x, w = mp.tanh(u), h * mp.pi / 2 * mp.cosh(t) / mp.cosh(u) ** 2
            if w < tiny or x == 1:
                break
            rule.append((x, w))
            k += 1
        _RULES[key] = rule
    return rule


_RULES = {}

#: Longest piece of an integration interval (in units of the standard normal's z): the integrand
#: carries the density phi(z), which varies on the scale 1 (4 with the rule's 10 extra digits:
#: dps 30 against dps 45 to 7.2e-32 relative at t = 2, as with pieces of 2, at 0.6 of the cost).
PIECE = 4


def _integrate(mp, f, low, high, digits):
    """``int_low^high f`` by the fixed tanh-sinh rule on pieces of length at most :data:`PIECE`
    (the endpoints, a kink included, are where tanh-sinh clusters its nodes)."""
    if high <= low:
        return mp.zero
    count = int(mp.ceil((high - low) / PIECE))
    step = (high - low) / count
    rule = _tanh_sinh_rule(mp, digits)
    total = []
    for i in range(count):
        a = low + i * step
        b = high if i == count - 1 else a + step
        mid, half = (a + b) / 2, (b - a) / 2
        piece = [rule[0][1] * f(mid)]
        piece += [w * (f(mid + half * x) + f(mid - half * x)) for x, w in rule[1:]]
        total.append(half * mp.fsum(piece))
    return mp.fsum(total)


def _option(mp, m, strike, c, root_a, call, digits):
    """``E[(c sum_{i<=m} Y_i - K)_+]`` (``call``) or ``E[(K - c sum_{i<=m} Y_i)_+]`` (put), Y_i iid
    ``exp(root_a Z - root_a^2 / 2)``: the closed form at ``m = 1``, else the kink-split quadrature
    of the module docstring on ``[-L, min(z*, L)]``, ``L`` where ``Phi(-L) < 10^-(digits + 3)``
    (the integrand is ``phi(z)`` times a value in ``[0, c m]``, so each cut tail is below
    ``c m 10^-(digits + 3)``)."""
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
    cut = mp.sqrt(2 * (digits + 3) * mp.log(10)) + 1

    def integrand(z):
        return mp.npdf(z) * _option(mp, m - 1, strike - c * mp.exp(root_a * z - half_a), c, root_a, call, digits)

    value = _integrate(mp, integrand, -cut, min(kink, cut), digits)
    if call:
        value += (c * (m - 1) - strike) * mp.ncdf(-kink) + c * mp.ncdf(root_a - kink)
    return value


def _direction(eps, t, sigma, dps, add):
    """One direction at ``dps`` digits RELATIVE: the quadrature's error is absolute (about
    ``10^-working``), so a value below 1 is recomputed with ``-log10(value)`` more digits."""
    import mpmath

    mp = mpmath.mp
    extra = 0
    while True:
        digits = dps + GUARD_DPS + extra
        with mp.workdps(digits + 5):
            e, s = _mpf(mp, eps), _mpf(mp, sigma)
            root_a = 1 / s
            if add:
                value = _option(mp, t, mp.exp(e), mp.one / t, root_a, True, digits)
            else:
                value = _option(mp, t, mp.one, mp.exp(e) / t, root_a, False, digits)
            value = max(value, mp.zero)  # a hockey stick is >= 0; rounding below 0 only near 0
            # the guard digits absorb a value down to 10^-(GUARD_DPS - 2)
            needed = digits if value == 0 else max(0, int(mp.ceil(-mp.log10(value))) - (GUARD_DPS - 2))
        if needed <= extra or extra >= MAX_EXTRA_DPS:
            break
        extra = min(needed + 2, MAX_EXTRA_DPS)
    with mp.workdps(dps):
        return +value


#: Cap on the digits added for small values: below ``10^-MAX_EXTRA_DPS`` the value is returned to
#: that absolute accuracy.
MAX_EXTRA_DPS = 200


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

    from dpproofs.math import precise

    _check(eps, 1, sigma, dps)
    mp = mpmath.mp
    with mp.workdps(dps + GUARD_DPS):
        e, s = _mpf(mp, eps), _mpf(mp, sigma)
    return precise.delta_gaussian(e, s, dps=dps)  # the one implementation (dpproofs.math.formulas)


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


def delta_direction_ball(eps, t, sigma, add, prec=128):
    """A rigorous arb enclosure of ``delta_add`` (``add``) or ``delta_remove`` for ``t`` in {1, 2}.

    ``t = 1``: the closed form (module docstring). ``t = 2``: the kink-split integral of the module
    docstring, ``int_{-inf}^{z*} phi(z) o_1(K - c Y(z)) dz`` (``o_1`` the lognormal call or put),
    enclosed piece by piece: on ``[-L, b]`` (``b = z* - eta``) by flint's certified
    ``acb.integral`` (the integrand is analytic there: ``log(c/K')`` is checked analytic on the
    complex balls); on ``(-inf, -L]`` by ``[0, c Phi(-L)]`` (call, ``o_1 <= c E Y = c``) or
    ``[0, K Phi(-L)]`` (put, ``o_1 <= K``); on ``[b, z*]`` by its length times the range of the
    integrand on that ball, with ``put_1(K') in [0, K']`` and ``call_1(K') in [c - K', c]``
    (parity) for ``K' in [0, K - c Y(b)]``; above ``z*`` (call only) by the closed form of the
    linear piece.

    Args:
        eps: epsilon, a real in ``[0, inf)`` (read exactly).
        t: the number of steps, 1 or 2.
        sigma: the noise multiplier, a real in ``(0, inf)`` (read exactly).
        add: the add direction (``P`` vs ``Q``) if true, else remove.
        prec: working precision in bits.

    Returns:
        flint.arb: an enclosure of the exact value.

    Raises:
        InvalidArgument: an argument outside its range (``t`` above 2 included: no certified t = 3).
    """
    import math

    from flint import acb, arb

    from dpproofs.errors import InvalidArgument, NumericalError
    from dpproofs.math import ball

    _check(eps, t, sigma, 30)
    if isinstance(prec, bool) or not isinstance(prec, int) or not 53 <= prec <= 100_000:
        raise InvalidArgument(f"prec={prec!r} must be an integer in [53, 100000] (bits)")
    if t > 2:
        raise InvalidArgument(f"t={t!r} must be 1 or 2 for a certified enclosure (t = 3 has none here)")
    with ball.precision(prec):
        e, s = ball.to_arb(eps), ball.to_arb(sigma)
        root_a = 1 / s
        half_a = root_a * root_a / 2
        sqrt2 = arb(2).sqrt()
        if add:
            strike, c = e.exp(), arb(1) / t
        else:
            strike, c = arb(1), e.exp() / t

        def ncdf(x):
            return (-x / sqrt2).erfc() / 2

        def option_1(k, analytic=False):
            log_ratio = (c / k).log(analytic=analytic) if isinstance(k, acb) else (c / k).log()
            d1 = (log_ratio + half_a) / root_a
            d2 = d1 - root_a
            if add:
                return c * ncdf(d1) - k * ncdf(d2)
            return k * ncdf(-d2) - c * ncdf(-d1)

        if t == 1:
            value = option_1(strike)
            return arb(0).union(value.upper()) if value.lower() < 0 else value
        kink = ((strike / c).log() + half_a) / root_a
        cut = arb(math.sqrt(2 * prec * math.log(2)) + 1)
        cut = cut if float(kink.mid()) - 1 > -float(cut.mid()) else -arb(float(kink.mid())) + 2
        eta = arb(2) ** (-(prec // 2) - 4)
        end = arb(kink.mid()) - eta
        scale = 1 / (2 * arb.pi()).sqrt()

        def integrand(z, analytic):
            k = acb(strike) - acb(c) * (acb(root_a) * z - acb(half_a)).exp()
            return scale * (-(z * z) / 2).exp() * option_1(k, analytic)

        core = acb.integral(integrand, -cut, end, rel_tol=arb(2) ** (-prec + 20), abs_tol=arb(2) ** (-prec))
        core = core.real
        width = arb(0).union((kink - end).upper())
        near = end.union(arb(kink.upper()))
        k_high = (strike - c * (root_a * end - half_a).exp()).upper()
        k_range = arb(0).union(k_high)
        density = scale * (-(near * near) / 2).exp()
        near_value = width * density * ((c - k_range).union(c) if add else k_range)
        left_tail = arb(0).union(((c if add else strike) * ncdf(-cut)).upper())
        value = core + near_value + left_tail
        if add:
            value += (c - strike) * ncdf(-kink) + c * ncdf(root_a - kink)
        if not value.is_finite():
            raise NumericalError(
                f"no finite enclosure of the allocation profile at eps={eps!r}, t={t!r}, sigma={sigma!r}"
            )
        return arb(0).union(value.upper()) if value.lower() < 0 else value
