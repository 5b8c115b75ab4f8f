"""Divergences of two finite Gaussian mixtures, exactly enough to be ground truth.

A :class:`dpproofs.checker.oracles.subsampled.MixturePair` (two mixtures ``sum_i w_i N(m_i,
sigma^2)`` with exact rational weights and means: the output of the subsampled Gaussian sum query,
every batch enumerated) has its Renyi divergence (:func:`rdp_mixture`) and hockey-stick divergence
(:func:`delta_mixture`) computed by mpmath quadrature with explicit truncation bounds (precise
flavour, ``dps``) and enclosed rigorously in arb balls (``prec``): ``acb.integral`` (rigorous on
the finite window) plus analytic bounds on the tails for RDP; for the hockey-stick, the exact
Gaussian CDFs over the positive set of ``p - e^eps q`` plus a rigorous cell-by-cell bound on
everything the located set could have missed.

Composition: RDP of a k-fold product needs no quadrature (``D_a(P^k||Q^k) = k D_a(P||Q)``); the
hockey-stick of a 2-fold product is the recursion on the privacy loss ``L = log p/q`` of one step,
``delta_k(eps) = E_{X~P}[delta_{k-1}(eps - L(X))]`` with ``delta_0(e) = (1 - e^e)_+``
(:func:`delta_mixture_composed`; precise: quadrature of the exact level-set ``delta_1``; ball: a
rigorous second-order bracket from the convexity of the one-step profile in ``e^e``, ~1e-3 wide
in ~10 s; ``k = 3`` is not offered: the nested recursion costs the square of ``k = 2``).

Imports: the math layer and the errors only (the pair is duck-typed: ``p_weights``, ``p_means``,
``q_weights``, ``q_means``, ``sigma``).
"""

import math
from fractions import Fraction

from mpmath import mp

from dpproofs.errors import InvalidArgument, NumericalError
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = [
    "rdp_mixture",
    "rdp_mixture_ball",
    "delta_mixture",
    "delta_mixture_ball",
    "delta_mixture_composed",
    "delta_mixture_composed_ball",
]


# --- mixture divergences: precise (mpmath) ------------------------------------------------------


def _tail_digits(dps):
    """Standard deviations beyond which a Gaussian tail is below ``10^-(dps + GUARD)``."""
    return math.sqrt(2 * (dps + precise.GUARD_DPS + 5) * math.log(10)) + 1


def _check_alpha(alpha):
    if float(alpha) <= 1:
        raise InvalidArgument(f"alpha={alpha} must be > 1")


def _rdp_window(pair, alpha, t):
    """``[L, U]`` and breakpoints for ``int p^a q^(1-a)``: the means, the tail centres
    ``mu = a m_p + (1 - a) m_q`` of both extreme components, widened by ``t`` sigma."""
    a = float(alpha)
    s = float(pair.sigma)
    mp_hi, mq_hi = float(pair.p_means[-1]), float(pair.q_means[-1])
    mp_lo, mq_lo = float(pair.p_means[0]), float(pair.q_means[0])
    mu_hi = a * mp_hi + (1 - a) * mq_hi
    mu_lo = a * mp_lo + (1 - a) * mq_lo
    means = [float(m) for m in pair.p_means + pair.q_means]
    low = min(means + [mu_lo]) - t * s
    high = max(means + [mu_hi]) + t * s
    return low, high


def _rdp_tail_bound(pair, alpha, low, high, to, exp, log, sf):
    """Rigorous bound on ``int_{x>U} p^a q^(1-a) + int_{x<L} p^a q^(1-a)`` (alpha > 1).

    For ``x >= U >= max p_means``: ``p(x) <= phi(x - m_p)`` (every component is decreasing there)
    and ``q(x) >= w phi(x - m_q)`` (one component), ``m_p, m_q`` the largest means, ``w`` the
    weight of ``m_q``. Then ``p^a q^(1-a) <= w^(1-a) exp(a(a-1)(m_p-m_q)^2/(2 s^2)) phi(x - mu)``,
    ``mu = a m_p + (1-a) m_q`` (complete the square), whose tail is a normal survival function.
    Mirror image on the left. ``to``, ``exp``, ``log``, ``sf`` are the backend's conversion, exp,
    log and standard normal survival function. Also bounds the same tails of ``(a - 1) q``.
    """
    a = to(alpha)
    s = to(pair.sigma)
    total = to(0)
    for side in (1, -1):
        m_p = to(pair.p_means[-1] if side == 1 else pair.p_means[0])
        m_q = to(pair.q_means[-1] if side == 1 else pair.q_means[0])
        w = to(pair.q_weights[-1] if side == 1 else pair.q_weights[0])
        mu = a * m_p + (1 - a) * m_q
        edge = to(high) if side == 1 else to(low)
        factor = exp((1 - a) * log(w) + a * (a - 1) * (m_p - m_q) ** 2 / (2 * s**2))
        total += factor * sf(side * (edge - mu) / s)
        total += (a - 1) * sum((to(wq) * sf(side * (edge - to(mq)) / s) for wq, mq in zip(pair.q_weights, pair.q_means)), to(0))
    return total


def mpmath_str(x):
    return mp.nstr(x, 5)


def _log_mixture_mp(weights, means, sigma, x):
    terms = [mp.log(w) - (x - m) ** 2 / (2 * sigma**2) for w, m in zip(weights, means)]
    top = max(terms)
    return top + mp.log(mp.fsum(mp.exp(t - top) for t in terms)) - mp.log(sigma * mp.sqrt(2 * mp.pi))


def rdp_mixture(pair, alpha, dps=precise.DEFAULT_DPS):
    """``D_alpha(P || Q)`` of a :class:`MixturePair` (alpha > 1), by mpmath quadrature.

    Computed in the excess form ``log1p(J)/(a-1)``, ``J = int q [(p/q)^a - 1 - a (p/q - 1)]``
    (a non-negative integrand: ``int q (p/q - 1) = 0``), on a window ``[L, U]`` whose tails are
    bounded by :func:`_rdp_tail_bound` below ``10^-(dps + 20)``; the window is widened until so.
    The window spans ``(alpha - 1)`` times the spread of the means (the tilted measure moves out):
    measured on an 8-component Poisson pair at 65 digits, ~6 s at alpha 2 to 5/2, ~11 s at 16,
    ~4 min at 64. The ball flavour is slower (~7-35 s at 256 bits for alpha 2-16).
    """
    _check_alpha(alpha)
    with mp.workdps(dps + precise.GUARD_DPS):
        a = precise.to_mpf(alpha)
        s = precise.to_mpf(pair.sigma)
        pw = [precise.to_mpf(w) for w in pair.p_weights]
        pm = [precise.to_mpf(m) for m in pair.p_means]
        qw = [precise.to_mpf(w) for w in pair.q_weights]
        qm = [precise.to_mpf(m) for m in pair.q_means]
        t = _tail_digits(dps)
        while True:
            low, high = _rdp_window(pair, alpha, t)
            bound = _rdp_tail_bound(pair, alpha, mp.mpf(low), mp.mpf(high), precise.to_mpf, mp.exp, mp.log, precise.normal_sf)
            if bound < mp.mpf(10) ** (-(dps + 20)):
                break
            t *= 1.5
            if t > 1e4:
                raise NumericalError(f"rdp_mixture: no window bounds the tails (alpha={alpha})")

        def integrand(x):
            lp = _log_mixture_mp(pw, pm, s, x)
            lq = _log_mixture_mp(qw, qm, s, x)
            r = mp.expm1(lp - lq)
            return mp.exp(lq) * (mp.expm1(a * mp.log1p(r)) - a * r)

        step = float(pair.sigma)
        pieces = max(1, math.ceil((high - low) / step))
        points = [mp.mpf(low) + i * (mp.mpf(high) - mp.mpf(low)) / pieces for i in range(pieces + 1)]
        # Gauss-Legendre on one-sigma pieces (a smooth integrand: 3-4x fewer nodes than tanh-sinh,
        # measured); its error estimate must meet the target, else tanh-sinh is tried
        goal = mp.mpf(10) ** (-(dps + 5))
        for method in ("gauss-legendre", "tanh-sinh"):
            j, error = mp.quad(integrand, points, method=method, error=True)
            if error <= goal * max(abs(j), goal):
                return max(mp.zero, mp.log1p(j) / (a - 1))
        raise NumericalError(f"rdp_mixture: quadrature error {mpmath_str(error)} above the target (alpha={alpha})")


def _sorted_roots_mp(coefficients, means, sigma, low, high):
    """The real roots of ``f(x) = sum_i c_i exp(-(x - m_i)^2 / (2 s^2))`` on ``[low, high]``.

    ``f = exp(-x^2/(2 s^2)) g(x)`` with ``g`` an exponential sum with exponents ``m_i / s^2``: ``g``
    has at most as many real roots as ``c`` (ordered by mean) has sign changes (Laguerre's rule of
    signs), and none when there is no sign change. On a grid of 16 cells per sigma, a sign change
    of ``g`` brackets a root; a cell whose ends agree in sign but where ``g'`` changes sign is
    searched at its critical point for a pair of roots (a double crossing inside one cell).
    Roots outside the window bound contributions below the window's Gaussian tails.
    """
    bound = sum(1 for a, b in zip(coefficients, coefficients[1:]) if (a > 0) != (b > 0))
    if bound == 0:
        return []
    s2 = sigma**2

    def scaled(x):
        logs = [m * x / s2 - m * m / (2 * s2) for m in means]
        return logs, max(logs)

    def g(x):
        logs, top = scaled(x)
        return mp.fsum(c * mp.exp(lg - top) for c, lg in zip(coefficients, logs))

    def g_prime(x):  # the same positive scale factor as g: signs are comparable
        logs, top = scaled(x)
        return mp.fsum(c * (m / s2) * mp.exp(lg - top) for c, m, lg in zip(coefficients, means, logs))

    cells = max(64, int(float((high - low) / sigma) * 16))
    xs = [low + (high - low) * i / cells for i in range(cells + 1)]
    values = [g(x) for x in xs]
    slopes = [g_prime(x) for x in xs]
    roots = []
    for x0, x1, v0, v1, d0, d1 in zip(xs, xs[1:], values, values[1:], slopes, slopes[1:]):
        if v0 == 0:
            roots.append(x0)
        elif (v0 > 0) != (v1 > 0) and v1 != 0:
            roots.append(mp.findroot(g, (x0, x1), solver="anderson"))
        elif (d0 > 0) != (d1 > 0) and d0 != 0 and d1 != 0:
            critical = mp.findroot(g_prime, (x0, x1), solver="anderson")
            if x0 < critical < x1 and (g(critical) > 0) != (v0 > 0):
                roots.append(mp.findroot(g, (x0, critical), solver="anderson"))
                roots.append(mp.findroot(g, (critical, x1), solver="anderson"))
    return sorted(roots)


def _mixture_mass_mp(coefficients, means, sigma, a, b):
    """``int_a^b sum_i c_i phi_s(x - m_i) dx`` (``a``/``b`` may be -inf/+inf)."""
    total = mp.zero
    for c, m in zip(coefficients, means):
        upper = mp.one if b == mp.inf else mp.ncdf((b - m) / sigma)
        lower = mp.zero if a == -mp.inf else mp.ncdf((a - m) / sigma)
        if a != -mp.inf and (a - m) > 0:  # both in the right tail: use survival functions
            upper_sf = mp.zero if b == mp.inf else precise.normal_sf((b - m) / sigma)
            total += c * (precise.normal_sf((a - m) / sigma) - upper_sf)
        else:
            total += c * (upper - lower)
    return total


def _positive_intervals(coefficients, means, sigma, roots):
    """Intervals (with -inf/+inf ends) of the real line where ``f > 0``, from its sorted roots."""
    edges = [-mp.inf] + list(roots) + [mp.inf]
    out = []
    for a, b in zip(edges, edges[1:]):
        if a == -mp.inf and b == mp.inf:
            x = mp.mpf(0)
        elif a == -mp.inf:
            x = b - 1
        elif b == mp.inf:
            x = a + 1
        else:
            x = (a + b) / 2
        if _f_mp(coefficients, means, sigma, x) > 0:
            out.append((a, b))
    return out


def _f_mp(coefficients, means, sigma, x):
    logs = [m * x / sigma**2 - m * m / (2 * sigma**2) for m in means]
    top = max(logs)
    return mp.fsum(c * mp.exp(lg - top) for c, lg in zip(coefficients, logs))


def _approx_mpf(x):
    """An mpf of a number, or of an arb ball's midpoint (for locating roots only)."""
    if hasattr(x, "mid") and hasattr(x, "rad"):
        return mp.mpf(x.mid().str(mp.dps + 5, radius=False))
    return precise.to_mpf(x)


def _delta_pieces_mp(pair, epsilon, dps):
    s = precise.to_mpf(pair.sigma)
    c = mp.exp(_approx_mpf(epsilon))
    merged = {}
    for w, m in zip(pair.p_weights, pair.p_means):
        merged[m] = merged.get(m, 0) + precise.to_mpf(w)
    for w, m in zip(pair.q_weights, pair.q_means):
        merged[m] = merged.get(m, 0) - c * precise.to_mpf(w)
    keys = sorted(merged)
    coefficients = [merged[k] for k in keys]
    means = [precise.to_mpf(k) for k in keys]
    t = _tail_digits(dps)
    low = means[0] - t * s
    high = means[-1] + t * s
    roots = _sorted_roots_mp(coefficients, means, s, low, high)
    return coefficients, means, s, roots


def delta_mixture(pair, epsilon, dps=precise.DEFAULT_DPS):
    """Hockey-stick ``H_{e^eps}(P || Q) = int (p - e^eps q)_+`` of a :class:`MixturePair` (any real eps).

    The roots of ``p - e^eps q`` are located on a window of ``mu +- t sigma`` (``t`` such that the
    Gaussian tails beyond it are below ``10^-(dps+20)``; roots outside the window bound a
    contribution smaller than those tails), refined to working precision; the positive set's mass
    is then a sum of exact normal CDFs. Worked at ``dps + 20`` digits against cancellation.
    """
    with mp.workdps(dps + precise.GUARD_DPS + 10):
        coefficients, means, s, roots = _delta_pieces_mp(pair, epsilon, dps)
        total = mp.zero
        for a, b in _positive_intervals(coefficients, means, s, roots):
            total += _mixture_mass_mp(coefficients, means, s, a, b)
        return max(mp.zero, total)


# --- mixture divergences: balls (arb) ------------------------------------------------------------


def _acb_log_mixture(weights, means, sigma, z, analytic):
    from flint import acb

    total = acb(0)
    for w, m in zip(weights, means):
        total += w * (-(z - m) ** 2 / (2 * sigma**2)).exp()
    return total.log(analytic=analytic)


def rdp_mixture_ball(pair, alpha, prec=ball.DEFAULT_PREC):
    """Enclosure of :func:`rdp_mixture`: ``acb.integral`` of the excess integrand on the window
    (rigorous, including the analytic branch checks of ``log``) plus ``[0, tail bound]``."""
    from flint import acb, arb

    _check_alpha(alpha)
    with ball.precision(prec):
        a = ball.to_arb(alpha)
        s = ball.to_arb(pair.sigma)
        pw = [ball.to_arb(w) for w in pair.p_weights]
        pm = [ball.to_arb(m) for m in pair.p_means]
        qw = [ball.to_arb(w) for w in pair.q_weights]
        qm = [ball.to_arb(m) for m in pair.q_means]
        t = math.sqrt(2 * prec * math.log(2)) + 1
        while True:
            low, high = _rdp_window(pair, alpha, t)
            low_x, high_x = ball.to_arb(Fraction(low).limit_denominator(2**20)), ball.to_arb(Fraction(high).limit_denominator(2**20))
            bound = _rdp_tail_bound(pair, alpha, low_x, high_x, ball.to_arb, lambda x: x.exp(), lambda x: x.log(), ball.normal_sf)
            if bound.upper() < arb(2) ** (-(prec // 2)) or t > 1e4:
                break
            t *= 1.5
        log_norm = (s * (2 * arb.pi()).sqrt()).log()

        def integrand(z, analytic):
            lp = _acb_log_mixture(pw, pm, s, z, analytic)
            lq = _acb_log_mixture(qw, qm, s, z, analytic)
            r = (lp - lq).exp() - 1
            return (lq - log_norm).exp() * ((a * (r + 1).log(analytic=analytic)).exp() - 1 - a * r)

        step = float(pair.sigma)
        pieces = max(1, math.ceil((high - low) / step))
        xs = [low_x + (high_x - low_x) * i / pieces for i in range(pieces + 1)]
        j = arb(0)
        for x0, x1 in zip(xs, xs[1:]):
            value = acb.integral(integrand, x0, x1)
            j += value.real
        if not j.is_finite():
            raise NumericalError(f"rdp_mixture_ball: the integral did not converge (alpha={alpha})")
        j = j + arb(0).union(bound)  # the tails: non-negative integrand, at most the bound
        j = ball.positive_part(j)
        return j.log1p() / (a - 1)


def _f_ball(coefficients, means, sigma, x):
    """``sum_i c_i phi_s(x - m_i)`` on an arb ball ``x`` (a cell)."""
    from flint import arb

    norm = sigma * (2 * arb.pi()).sqrt()
    return sum((c * (-(x - m) ** 2 / (2 * sigma**2)).exp() for c, m in zip(coefficients, means)), arb(0)) / norm


def _mass_ball(coefficients, means, sigma, a, b):
    """``int_a^b f`` (exact CDFs, arb); ``a``/``b`` None for -inf/+inf."""
    from flint import arb

    total = arb(0)
    for c, m in zip(coefficients, means):
        upper = arb(1) if b is None else 1 - ball.normal_sf((b - m) / sigma)
        lower = arb(0) if a is None else 1 - ball.normal_sf((a - m) / sigma)
        if a is not None and (a - m).lower() > 0:
            upper_sf = arb(0) if b is None else ball.normal_sf((b - m) / sigma)
            total += c * (ball.normal_sf((a - m) / sigma) - upper_sf)
        elif b is not None and (b - m).upper() < 0:
            lower_cdf = arb(0) if a is None else ball.normal_sf((m - a) / sigma)
            total += c * (ball.normal_sf((m - b) / sigma) - lower_cdf)
        else:
            total += c * (upper - lower)
    return total


def _excess_bound(coefficients, means, sigma, a, b, sign, tol, depth):
    """Rigorous upper bound of ``int_a^b (sign f)_+`` by bisection: a cell whose ``sign f`` is
    certainly <= 0 adds 0; otherwise width * sup (refined while that exceeds ``tol``)."""
    from flint import arb

    cell = a.union(b)
    value = sign * _f_ball(coefficients, means, sigma, cell)
    if value.upper() <= 0:
        return arb(0)
    bound = (b - a) * arb(value.upper())
    if depth == 0 or bound.upper() < tol:
        return bound
    mid = (a + b) / 2
    return (_excess_bound(coefficients, means, sigma, a, mid, sign, tol, depth - 1)
            + _excess_bound(coefficients, means, sigma, mid, b, sign, tol, depth - 1))


def delta_mixture_ball(pair, epsilon, prec=ball.DEFAULT_PREC, dps=None):
    """Rigorous enclosure of :func:`delta_mixture`.

    Lower end: ``P(S) - e^eps Q(S)`` for the located positive set ``S`` with rational endpoints
    (any set gives a lower bound of the supremum). Upper end: that plus rigorous bounds of what
    ``S`` misses on the window, ``int_S (f)_- + int_{S^c ∩ window} (f)_+`` (cell bisection in
    arb), plus ``P + e^eps Q`` of the outside of the window (where ``S`` is extended to infinity). Valid whatever the root finder found; a
    missed root only widens the ball.
    """
    from flint import arb

    dps = dps or max(30, int(prec * 0.30103) + 5)
    with mp.workdps(dps + precise.GUARD_DPS + 20):
        coefficients_mp, means_mp, s_mp, roots = _delta_pieces_mp(pair, epsilon, dps)
        t = _tail_digits(max(dps, int(prec * 0.30103)))
        window = (means_mp[0] - t * s_mp, means_mp[-1] + t * s_mp)
        rational_roots = [_mpf_fraction(r) for r in roots]
        window = tuple(_mpf_fraction(w) for w in window)
    with ball.precision(prec):
        s = ball.to_arb(pair.sigma)
        c = ball.to_arb(epsilon).exp()
        merged = {}
        for w, m in zip(pair.p_weights, pair.p_means):
            merged[m] = merged.get(m, arb(0)) + ball.to_arb(w)
        for w, m in zip(pair.q_weights, pair.q_means):
            merged[m] = merged.get(m, arb(0)) - c * ball.to_arb(w)
        keys = sorted(merged)
        coefficients = [merged[k] for k in keys]
        means = [ball.to_arb(k) for k in keys]
        low, high = window
        inside = [r for r in rational_roots if low < r < high]
        edges = [low] + inside + [high]
        tol = arb(2) ** (-(3 * prec // 4))  # per cell; the bisection depth below reaches it near simple roots
        lower = arb(0)
        slack = arb(0)
        for a, b in zip(edges, edges[1:]):
            mid = (a + b) / 2
            positive = float(_f_ball(coefficients, means, s, ball.to_arb(mid)).mid()) > 0
            aa, bb = ball.to_arb(a), ball.to_arb(b)
            if positive:
                # extend to infinity at the window's ends: P(S) - cQ(S) over S is still a lower bound
                lower += _mass_ball(coefficients, means, s, None if a == low else aa, None if b == high else bb)
                slack += _excess_bound(coefficients, means, s, aa, bb, -1, tol, prec)
            else:
                slack += _excess_bound(coefficients, means, s, aa, bb, 1, tol, prec)
        # beyond the window: what S misses there, int (f)_+ <= P(outside), and the negative part
        # that the lower end counted where S was extended to -inf/+inf, int (f)_- <= e^eps Q(outside)
        tails = arb(0)
        for factor, weights, centres in ((arb(1), pair.p_weights, pair.p_means), (c, pair.q_weights, pair.q_means)):
            for w, m in zip(weights, centres):
                wm, m = ball.to_arb(w), ball.to_arb(m)
                tails += factor * wm * (ball.normal_sf((ball.to_arb(high) - m) / s)
                                        + ball.normal_sf((m - ball.to_arb(low)) / s))
        lower = ball.positive_part(lower)
        upper = lower + slack + tails
        return arb(lower.lower()).union(arb(upper.upper()))


def _arb_fraction(x):
    """The exact Fraction of an exact arb (an endpoint)."""
    mantissa, exponent = x.mid().man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _mpf_fraction(x):
    """An exact Fraction equal to an mpf."""
    sign, mantissa, exponent, _ = x._mpf_
    value = Fraction(int(mantissa)) * (Fraction(2) ** int(exponent))
    return -value if sign else value


# --- composition of mixture pairs -----------------------------------------------------------------


class _LossGrid:
    """The privacy loss ``L(x) = log p(x)/q(x)`` of a mixture pair tabulated once at ``dps``.

    ``delta1(e)`` is ``int (p - e^e q)_+ = P(L > e) - e^e Q(L > e)``: the crossings of ``L = e``
    are located on the table (sign changes; 16 cells per sigma) and refined by a bracketing
    solver, and the masses are exact normal CDFs. Window: the extreme means of ``P`` and ``Q``
    widened by ``t`` sigma, ``t`` putting the Gaussian tails below ``10^-(dps + 20)``.
    """

    def __init__(self, pair, dps):
        self.dps = dps
        self.s = precise.to_mpf(pair.sigma)
        self.pw = [precise.to_mpf(w) for w in pair.p_weights]
        self.pm = [precise.to_mpf(m) for m in pair.p_means]
        self.qw = [precise.to_mpf(w) for w in pair.q_weights]
        self.qm = [precise.to_mpf(m) for m in pair.q_means]
        t = _tail_digits(dps)
        self.low = min(self.pm[0], self.qm[0]) - t * self.s
        self.high = max(self.pm[-1], self.qm[-1]) + t * self.s
        cells = max(64, int(float((self.high - self.low) / self.s) * 16))
        self.xs = [self.low + (self.high - self.low) * i / cells for i in range(cells + 1)]
        self.ls = [self.loss(x) for x in self.xs]

    def loss(self, x):
        return _log_mixture_mp(self.pw, self.pm, self.s, x) - _log_mixture_mp(self.qw, self.qm, self.s, x)

    def density(self, x):
        return mp.exp(_log_mixture_mp(self.pw, self.pm, self.s, x))

    def _mass(self, weights, means, a, b):
        return _mixture_mass_mp(weights, means, self.s, a, b)

    def delta1(self, e):
        above = [v > e for v in self.ls]
        edges = [-mp.inf]
        for i in range(len(self.xs) - 1):
            if above[i] != above[i + 1]:
                x0, x1 = self.xs[i], self.xs[i + 1]
                edges.append(mp.findroot(lambda x: self.loss(x) - e, (x0, x1), solver="anderson"))
        edges.append(mp.inf)
        total = mp.zero
        factor = mp.exp(e)
        inside = above[0]  # the region left of the first crossing has the sign at the window's edge
        for a, b in zip(edges, edges[1:]):
            if inside:
                total += self._mass(self.pw, self.pm, a, b) - factor * self._mass(self.qw, self.qm, a, b)
            inside = not inside
        return max(mp.zero, total)


_GRIDS = {}


def _loss_grid(pair, dps):
    key = (pair, dps)
    if key not in _GRIDS:
        if len(_GRIDS) > 64:
            _GRIDS.clear()
        _GRIDS[key] = _LossGrid(pair, dps)
    return _GRIDS[key]


def delta_mixture_composed(pair, epsilon, k, dps=20):
    """``H_{e^eps}(P^k || Q^k)`` for the k-fold product of a 1-D :class:`MixturePair`, ``k`` in 1, 2.

    Recursion on the privacy loss ``L(x) = log p(x)/q(x)``: ``delta_2(eps) = int p(x)
    delta_1(eps - L(x)) dx`` (condition on the first coordinate; the second is the one-step pair
    at the shifted level), ``delta_1`` the exact level-set formula of :class:`_LossGrid`. mpmath
    quadrature (tanh-sinh, one piece per sigma) on the window of :class:`_LossGrid`, whose tails
    are below ``10^-(dps + 20)``. ``k = 1`` is :func:`delta_mixture`. (``k = 3`` by the same
    recursion costs the square of ``k = 2``; not offered.)
    """
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 2:
        raise InvalidArgument(f"k={k!r} must be 1 or 2")
    if k == 1:
        return delta_mixture(pair, epsilon, dps)
    with mp.workdps(dps + precise.GUARD_DPS):
        grid = _loss_grid(pair, dps)
        eps = precise.to_mpf(epsilon)
        pieces = max(2, int(float((grid.high - grid.low) / grid.s)))
        points = [grid.low + (grid.high - grid.low) * i / pieces for i in range(pieces + 1)]

        def integrand(x):
            return grid.density(x) * grid.delta1(eps - grid.loss(x))

        return max(mp.zero, mp.quad(integrand, points))


def _level_set_masses_ball(pair, level, pw, pm, qw, qm, s, dps):
    """``(P(A), Q(A))`` as balls for ``A = {p - e^level q > 0}`` located by the precise roots
    (rational endpoints): any set ``A`` is valid where these are used (a lower bound)."""
    from flint import arb

    with mp.workdps(dps + precise.GUARD_DPS):
        coefficients, means, s_mp, roots = _delta_pieces_mp(pair, level, dps)
        edges = [None] + [_mpf_fraction(r) for r in roots] + [None]
        inside = []
        for a, b in zip(edges, edges[1:]):
            x = (mp.zero if a is None and b is None else (precise.to_mpf(b) - 1 if a is None else
                 precise.to_mpf(a) + 1 if b is None else (precise.to_mpf(a) + precise.to_mpf(b)) / 2))
            if _f_mp(coefficients, means, s_mp, x) > 0:
                inside.append((a, b))
    p_total, q_total = arb(0), arb(0)
    for a, b in inside:
        aa = None if a is None else ball.to_arb(a)
        bb = None if b is None else ball.to_arb(b)
        p_total += _mass_ball(pw, pm, s, aa, bb)
        q_total += _mass_ball(qw, qm, s, aa, bb)
    return p_total, q_total


def _linear_log_sum(weights, means, sigma, x):
    """``log sum_i w_i exp((m_i x - m_i^2/2) / s^2)``: ``log`` of the mixture density times
    ``s sqrt(2 pi) exp(x^2/(2 s^2))``, on an arb ball ``x``."""
    from flint import arb

    exponents = [(m * x - m * m / 2) / sigma**2 for m in means]
    top = exponents[0]
    for e in exponents[1:]:
        top = top.max(e)
    top = arb(top.mid())
    return top + sum((w * (e - top).exp() for w, e in zip(weights, exponents)), arb(0)).log()


def delta_mixture_composed_ball(pair, epsilon, k, prec=128, cells=300, levels=100):
    """Rigorous enclosure of the 2-fold hockey-stick (``k = 2``; ``k = 1`` is :func:`delta_mixture_ball`).

    ``delta_2(eps) = int p(x) h(c q(x)/p(x)) dx`` with ``c = e^eps`` and ``h(t) = sup_A P(A) - t Q(A)``
    the one-step profile as a function of ``t = e^e``: convex and non-increasing. On a cell ``I``
    whose loss ``L = log p/q`` lies between two grid levels (so ``t`` lies in ``[t_j, t_i]``):

    * upper: ``h`` below its chord on ``[t_j, t_i]`` and ``int_I p t_x = c Q(I)``, so the cell gives
      at most ``P(I) h(t_j) + slope (c Q(I) - t_j P(I))``;
    * lower: for the level set ``A`` of a grid level near the cell's, ``h(t_x) >= P(A) - t_x Q(A)``,
      so the cell gives at least ``P(I) P(A) - c Q(I) Q(A)`` (and at least 0).

    Both are second order in the grid spacing and the cell width; ``h`` at the grid levels is
    :func:`delta_mixture_ball`, every mass an exact CDF in arb; the outside of the window adds
    ``P(outside)`` to the upper end (``h <= 1``).
    """
    from flint import arb

    if k == 1:
        return delta_mixture_ball(pair, epsilon, prec)
    if k != 2:
        raise InvalidArgument(f"k={k!r}: the ball flavour covers k = 1, 2")
    dps = max(20, int(prec * 0.30103) + 5)
    with ball.precision(prec):
        s = ball.to_arb(pair.sigma)
        eps = ball.to_arb(epsilon)
        c = eps.exp()
        t = Fraction(math.sqrt(2 * prec * math.log(2)) + 1).limit_denominator(1000)
        low = min(pair.p_means[0], pair.q_means[0]) - t * pair.sigma
        high = max(pair.p_means[-1], pair.q_means[-1]) + t * pair.sigma
        edges = [low + (high - low) * i / cells for i in range(cells + 1)]
        pw = [ball.to_arb(w) for w in pair.p_weights]
        pm = [ball.to_arb(m) for m in pair.p_means]
        qw = [ball.to_arb(w) for w in pair.q_weights]
        qm = [ball.to_arb(m) for m in pair.q_means]

        ranges = []
        for a, b in zip(edges, edges[1:]):
            cell = ball.to_arb(a).union(ball.to_arb(b))
            # the common factor exp(-x^2/(2 s^2)) cancels in p/q: exponents linear in x keep the
            # enclosure of L on a cell tight (no x^2 dependency blow-up in the tails)
            value = _linear_log_sum(pw, pm, s, cell) - _linear_log_sum(qw, qm, s, cell)
            ranges.append((value.lower(), value.upper()) if value.is_finite() else None)
        finite_ranges = [r for r in ranges if r is not None]
        l_min = min(_arb_fraction(r[0]) for r in finite_ranges) - 1
        l_max = max(_arb_fraction(r[1]) for r in finite_ranges) + 1
        # the levels go where P has mass (cells with P(I) > 2^-40); outside, two end levels suffice
        # (a cell there adds at most P(I) of slack)
        heavy = [r for (a, b), r in zip(zip(edges, edges[1:]), ranges) if r is not None
                 and _mass_ball(pw, pm, s, ball.to_arb(a), ball.to_arb(b)).upper() > arb(2) ** -40]
        c_min = min(_arb_fraction(r[0]) for r in heavy) if heavy else l_min
        c_max = max(_arb_fraction(r[1]) for r in heavy) if heavy else l_max
        grid = sorted({l_min, l_max} | {c_min + (c_max - c_min) * i / levels for i in range(levels + 1)})
        # the one-step profile and a level set at every grid level e = eps - l (t = c e^-l)
        h = [delta_mixture_ball(pair, eps - ball.to_arb(l), prec) for l in grid]
        ts = [c * (-ball.to_arb(l)).exp() for l in grid]
        sets = [_level_set_masses_ball(pair, _approx_mpf(eps) - precise.to_mpf(l), pw, pm, qw, qm, s, dps) for l in grid]

        lower, upper = arb(0), arb(0)
        for (a, b), r in zip(zip(edges, edges[1:]), ranges):
            aa, bb = ball.to_arb(a), ball.to_arb(b)
            p_cell = _mass_ball(pw, pm, s, aa, bb)
            q_cell = _mass_ball(qw, qm, s, aa, bb)
            if r is None:
                upper += p_cell
                continue
            f0, f1 = _arb_fraction(r[0]), _arb_fraction(r[1])
            i = max(g for g in range(len(grid)) if grid[g] <= f0)
            j = min(g for g in range(len(grid)) if grid[g] >= f1)
            # t_x in [t_j, t_i]; chord of the convex h
            if i == j:
                upper += p_cell * h[i]
            else:
                slope = (h[i] - h[j]) / (ts[i] - ts[j])
                upper += p_cell * h[j] + slope * (c * q_cell - ts[j] * p_cell)
            mid = (f0 + f1) / 2
            m = min(range(len(grid)), key=lambda g: abs(grid[g] - mid))
            pa, qa = sets[m]
            lower += ball.positive_part(p_cell * pa - c * q_cell * qa)
        upper += _mass_ball(pw, pm, s, None, ball.to_arb(low)) + _mass_ball(pw, pm, s, ball.to_arb(high), None)
        return arb(lower.lower()).union(arb(upper.upper()))


