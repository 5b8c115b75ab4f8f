"""Neighbouring pairs of one mechanism step, written on a line along which the privacy loss
increases, with certified cell masses: what :func:`dpproofs.accountant.pld.discretise.discretise`
turns into a one-step discrete PLD, and what each mechanism (:mod:`dpproofs.mechanisms`) builds to
describe itself to the PLD accountant.

A pair has ``min_loss``, ``max_loss``, ``atoms`` (``(loss, P-mass)`` of loss atoms),
``loss_range(tail_z)`` (the losses outside which the P-mass is below ``Phi(-tail_z)``) and
``cell_masses(edges)`` (the P- and Q-masses of ``{edges[i] <= L < edges[i+1]}`` with absolute
error bounds, and the P-masses below and above the edges); after ``cell_masses`` it may set
``edge_ratio`` (see :func:`_edge_ratio`).
"""

import fractions
import math

import numpy as np
from scipy import special

from dpproofs.errors import InvalidArgument, NumericalError

__all__ = ["GaussianPair", "TwoSidedGaussianPair", "MixtureOfGaussiansPair", "LaplacePair", "FinitePair", "MixturePair",
           "AllocationPair", "UNIT", "NDTR_RELATIVE",
           "SUBNORMAL_ERROR"]

#: Relative accuracy assumed of scipy.special.ndtr (Cephes ndtr/erfc: documented peak relative
#: error 5.7e-14 for erfc on [0, 26.6] in IEEE double; we take twice it).
NDTR_RELATIVE = 1.2e-13
#: Unit round-off of float64.
UNIT = 2.0**-53
#: Absolute error allowance added to every cell mass's error bound: below 2.2e-308 (float64's
#: subnormal range) a relative bound such as NDTR_RELATIVE fails, each rounding there being up to
#: half of 2^-1074 (4.9e-324) absolute; 1e-320 is about 2000 such roundings. Elsewhere it changes
#: nothing (it is below the rounding of any bound above 1e-304), and a mass that small moves delta
#: by at most 1e-320 per cell.
SUBNORMAL_ERROR = 1e-320


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(8)
#: Gauss-Legendre 8-point remainder coefficient (n!)^4 / ((2n+1) ((2n)!)^3), n = 8 (Davis &
#: Rabinowitz, Methods of Numerical Integration, 2nd ed. 1984, eq. 2.7.12).
_GL_REMAINDER = math.factorial(8) ** 4 / (17 * math.factorial(16) ** 3)
#: The 2-point rule and its remainder coefficient (n = 2 in the same formula), for the tiny cells of
#: fine grids: where ``width (|t| + 2) <= TINY_CELL`` its remainder is below ``7.4e-15`` of the cell's
#: mass (:data:`_TINY_REMAINDER_RELATIVE`), below ndtr's own relative error (so a run of 1e9 steps
#: gains at most ~1e-5 of relative mass from it), at a fifth of the 8-point rule's cost.
_GL2_NODES, _GL2_WEIGHTS = np.polynomial.legendre.leggauss(2)
_GL2_REMAINDER = math.factorial(2) ** 4 / (5 * math.factorial(4) ** 3)
TINY_CELL = 0.002
#: The 2-point remainder relative to the rule's own value on a tiny cell: the remainder is at most
#: ``c w^5 (top + 2)^4 phi(near) <= c TINY_CELL^4 w phi(near)``, and the value ``w (phi(t1) + phi(t2)) / 2``
#: is at least ``w phi(near) e^{-TINY_CELL}`` (phi varies by at most ``e^{w top}`` on the cell), so the
#: remainder is at most ``c TINY_CELL^4 e^{TINY_CELL}`` times the value; doubled for the roundings.
_TINY_REMAINDER_RELATIVE = 2 * _GL2_REMAINDER * TINY_CELL**4 * math.exp(TINY_CELL)


def _vec_normal_mass(a, b, mean, sigma):
    """N(mean, sigma^2) mass of (a, b] (arrays), and a bound on its absolute float error.

    Narrow cells (width * max(|x|, |y|, 1) < 0.5 in standard units, where a difference of two
    CDF values would cancel) are integrated by 8-point Gauss-Legendre: the remainder is bounded
    with ``|phi^(16)(t)| = |He_16(t)| phi(t) <= (|t| + 4)^16 phi(t)`` (expanding He_n,
    ``|He_n(t)| <= (|t| + sqrt n)^n``), and each ``exp(-t^2/2)`` has relative error at most
    ``(t^2 + 3) u``. Wide cells take a difference of two tails on the side away from the mean,
    each with relative error <= NDTR_RELATIVE. The edges are the same floats for P and Q, so an
    edge's own rounding only moves the cell (its effect on the connect-the-dots split is of
    second order and is covered by the margin of :func:`discretise`)."""
    x, y = (a - mean) / sigma, (b - mean) / sigma
    with np.errstate(invalid="ignore"):
        tails = special.ndtr(-x), special.ndtr(y), special.ndtr(-y), special.ndtr(x)
    return _normal_mass_from(x, y, *tails)


def _vec_normal_mass_edges(u, mean, sigma):
    """:func:`_vec_normal_mass` of the consecutive cells ``(u[i], u[i+1]]`` of one array of edges,
    with the same values: the standardised edges are computed once, and the normal tails only at
    the edges of cells that use them (wide cells; narrow ones are integrated by Gauss-Legendre),
    two tails an edge instead of four a cell."""
    z = (u - mean) / sigma
    x, y = z[:-1], z[1:]
    narrow = _narrow(x, y)
    wide = ~narrow
    need = np.zeros(len(z), dtype=bool)
    need[:-1] |= wide
    need[1:] |= wide
    upper, lower = np.full(len(z), np.nan), np.full(len(z), np.nan)
    with np.errstate(invalid="ignore"):
        upper[need] = special.ndtr(-z[need])  # P(N > z)
        lower[need] = special.ndtr(z[need])   # P(N <= z)
    return _normal_mass_from(x, y, upper[:-1], lower[1:], upper[1:], lower[:-1], narrow)


def _narrow(x, y):
    """Cells integrated by Gauss-Legendre (see :func:`_vec_normal_mass`)."""
    with np.errstate(invalid="ignore", over="ignore"):
        width = y - x
        top = np.maximum(np.abs(x), np.abs(y))
        return np.isfinite(width) & (width * np.maximum(top, 1.0) < 0.5) & (width > 0)


def _normal_mass_from(x, y, above_x, below_y, above_y, below_x, narrow=None):
    """The body of :func:`_vec_normal_mass` given the four standard normal tails at the cells'
    standardised ends (``above_x = Phi(-x)``, ``below_y = Phi(y)``, ...; only read for the cells
    that are not narrow)."""
    right = x >= 0
    with np.errstate(invalid="ignore"):
        hi_tail = np.where(right, above_x, below_y)
        lo_tail = np.where(right, above_y, below_x)
        mass = np.maximum(hi_tail - lo_tail, 0.0)
        error = NDTR_RELATIVE * (hi_tail + lo_tail) + 2 * UNIT * mass
    if narrow is None:
        narrow = _narrow(x, y)
    if np.any(narrow):
        top = np.maximum(np.abs(x), np.abs(y))
        with np.errstate(invalid="ignore", over="ignore"):
            tiny = narrow & ((y - x) * (top + 2) <= TINY_CELL)
        wide_narrow = narrow & ~tiny
        if np.any(wide_narrow):
            xn, yn, tn = x[wide_narrow], y[wide_narrow], top[wide_narrow]
            half, mid = (yn - xn) / 2, (xn + yn) / 2
            t = mid[:, None] + half[:, None] * _GL_NODES[None, :]
            values = np.exp(-0.5 * t * t) @ _GL_WEIGHTS * half / math.sqrt(2 * math.pi)
            width = 2 * half
            mass[wide_narrow] = values
            error[wide_narrow] = values * UNIT * (tn * tn + 40) + _gl_remainder(
                _GL_REMAINDER, _power(width, 17), _power(tn + 4, 16), xn, yn) * 1.01
        if np.any(tiny):
            xn, yn, tn = x[tiny], y[tiny], top[tiny]
            half, mid = (yn - xn) / 2, (xn + yn) / 2
            offset = half * _GL2_NODES[1]  # nodes mid -+ half / sqrt 3, weights 1 and 1
            low, high = mid - offset, mid + offset
            values = (np.exp(-0.5 * low * low) + np.exp(-0.5 * high * high)) * half / math.sqrt(2 * math.pi)
            mass[tiny] = values
            error[tiny] = values * (UNIT * (tn * tn + 40) + _TINY_REMAINDER_RELATIVE)
    return mass, error + SUBNORMAL_ERROR


def _power(base, exponent):
    """``base ** exponent`` for a small positive integer exponent, by squaring (a few ulps of
    relative error, covered by the 1.01 on every remainder; ``**`` on float arrays is a slower
    general ``pow``)."""
    result, square = None, base
    while exponent:
        if exponent & 1:
            result = square if result is None else result * square
        exponent >>= 1
        if exponent:
            square = square * square
    return result


def _gl_remainder(coefficient, width_power, derivative_bound, xn, yn):
    """Gauss-Legendre remainder ``coefficient width^(2n+1) max|phi^(2n)|`` on the cells ``(xn, yn]``:
    ``|phi^(2n)(t)| = |He_2n(t)| phi(t) <= (|t| + sqrt(2n))^(2n) phi(t)`` (``derivative_bound`` is that
    power at the cell's largest ``|t|``), with ``phi`` at the cell's point nearest 0."""
    near = np.where((xn < 0) & (yn > 0), 0.0, np.minimum(np.abs(xn), np.abs(yn)))
    return coefficient * width_power * derivative_bound * np.exp(-0.5 * near * near) / math.sqrt(2 * math.pi)


def _edge_ratio(u):
    """Per cell (u[i], u[i+1]]: (position error of an edge / cell width)^2, the edges being floats
    within 8 ulp (+ 8 ulp absolute) of their true positions. The true losses of a cell then lie
    within a fraction ~ this ratio of a grid step outside [l_i, l_{i+1}], and the connect-the-dots
    split of the sliver of mass beyond an edge moves at most (sliver mass) x (overshoot / h) of
    P-mass downward: both factors are <= sqrt(ratio) times the cell's mass (loss locally linear)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        err = 8 * UNIT * (np.abs(u[:-1]) + np.abs(u[1:]) + 2)
        width = u[1:] - u[:-1]
        ratio = np.where(np.isfinite(width) & (width > 0), (err / width) ** 2, 0.0)
    return np.nan_to_num(ratio, nan=0.0, posinf=1.0)


def _over(x, y):
    """``x / y`` for ``y >= 0``, +-inf where it overflows or ``y`` underflowed to 0 (sigma below
    ~1e-154: the losses are beyond float range, and the accountant falls back before any grid)."""
    if y > 0:
        return x / y  # a float quotient overflows to +-inf
    return math.copysign(math.inf, x) if x != 0 else 0.0


def _log_mixture(q, t):
    """``log(1 - q + q e^t)`` (a float ``t``): ``log1p(q expm1(t))`` while ``e^t`` is finite, else in
    log space, ``logaddexp(log(1 - q), log q + t)``. (``log q + t`` alone, the former large-``t``
    form, is wrong unless ``q e^t >> 1``: at q = 5e-324 and t = 725 it gave a loss of -19 for one
    of 6e-9, and a loss range whose bottom was above its top.)"""
    if t < 700:
        return math.log1p(q * math.expm1(t))
    if t == math.inf:
        return math.inf
    return float(np.logaddexp(math.log1p(-q), math.log(q) + t))


def _log_excess_ratio(x, q):
    """``log((e^x - 1 + q) / q)`` for an array ``x`` (``-inf`` or nan where ``e^x <= 1 - q``), without
    overflow: ``log1p(expm1(x) / q)`` where that quotient is finite and ``x <= 30``, else
    ``x + log1p(-(1 - q) e^{-x}) - log q`` for ``x > 30`` and ``log(expm1(x) + q) - log q`` below
    (``expm1(x) / q`` overflows for ``x > 709`` and, at tiny ``q``, already for small ``x``; the
    former ``(expm1(x) + q) / q`` made every level above 709 an infinite position)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = np.expm1(np.minimum(x, 30.0)) / q
        small = np.log1p(ratio)
        large = x + np.log1p(-(1 - q) * np.exp(-np.maximum(x, 30.0))) - math.log(q)
        middle = np.log(np.expm1(np.minimum(x, 30.0)) + q) - math.log(q)
    return np.where(x > 30.0, large, np.where(np.isfinite(ratio), small, middle))


def _parts_cell_masses(u, p_parts, q_parts, sigma):
    """The cell masses of a pair whose P and Q are mixtures ``sum_j w_j N(m_j, sigma^2)`` (parts
    ``(w_j, m_j)``) on the line u, between the consecutive positions ``u`` (and below ``u[0]``,
    above ``u[-1]``): ``(p, q, ep, eq, below, above)`` as :meth:`GaussianPair.cell_masses` returns
    them. Each weight may carry 2 ulp of relative error (covered by the error bound)."""
    u_ext = np.concatenate(([-np.inf], u, [np.inf]))
    out = []
    normal = {}  # mean -> cell masses (P and Q may share a component, e.g. N(0, s^2))
    for parts in (p_parts, q_parts):
        mass, error = np.zeros(len(u_ext) - 1), np.zeros(len(u_ext) - 1)
        for weight, mean in parts:
            if mean not in normal:
                normal[mean] = _vec_normal_mass_edges(u_ext, mean, sigma)
            m, e = normal[mean]
            mass += weight * m
            error += weight * e + 2 * UNIT * weight * m + SUBNORMAL_ERROR
        out.append((mass, error))
    (p, ep), (q, eq) = out
    return p[1:-1], q[1:-1], ep[1:-1], eq[1:-1], (p[0], ep[0]), (p[-1], ep[-1])


class GaussianPair:
    """P = (1-q) N(0, s^2) + q N(1, s^2) vs Q = N(0, s^2) ("add"), or the reverse ("remove"), on the
    line u (= z for add, -z for remove) along which the loss increases. q = 1: the Gaussian."""

    def __init__(self, q, sigma, direction):
        self.q, self.sigma, self.direction = float(q), float(sigma), direction
        if direction == "add":
            self.p_parts, self.q_parts = ((1 - q, 0.0), (q, 1.0)), ((1.0, 0.0),)
            self.min_loss, self.max_loss = (math.log1p(-q) if q < 1 else -math.inf), math.inf
        else:
            self.p_parts, self.q_parts = ((1.0, 0.0),), ((1 - q, 0.0), (q, -1.0))
            self.min_loss, self.max_loss = -math.inf, (-math.log1p(-q) if q < 1 else math.inf)
        self.atoms = ()  # (loss, P-mass) of atoms

    def positions(self, levels):
        """u with L(u) = level (vectorised; -inf / +inf outside the loss range)."""
        s2, q = self.sigma**2, self.q
        levels = np.asarray(levels, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.direction == "add":
                if q == 1:
                    return s2 * levels + 0.5
                u = s2 * _log_excess_ratio(levels, q) + 0.5
                return np.where(levels <= self.min_loss, -np.inf, u)
            if q == 1:
                return s2 * levels - 0.5
            u = -s2 * _log_excess_ratio(-levels, q) - 0.5
            return np.where(levels >= self.max_loss, np.inf, u)

    def loss_range(self, tail_z):
        """Losses outside which the P-mass is < Phi(-tail_z): below, both P and Q (u beyond tail_z
        sigmas of every mean); above, the P-mass of each mixture part ``w N(m, s^2)`` is kept below
        ``Phi(-tail_z) / (number of parts)`` (a part of small weight w, the sampled one, is cut
        closer: what lies above is sent to +inf by the upper bound, dropped by the lower)."""
        means = [m for _, m in self.p_parts + self.q_parts]
        bottom_u = min(means) - tail_z * self.sigma
        tail = max(float(special.ndtr(-tail_z)), 1e-300)  # no underflow to 0 (tail_z up to 38)
        parts = [(w, m) for w, m in self.p_parts if w > 0]
        top_u = max(m + self.sigma * float(-special.ndtri(min(0.5, tail / (len(parts) * w)))) for w, m in parts)
        return self._loss(bottom_u), self._loss(top_u)

    def _loss(self, u):
        s2, q = self.sigma**2, self.q
        if self.direction == "add":
            if q == 1:
                return _over(2 * u - 1, 2 * s2)
            return _log_mixture(q, _over(2 * u - 1, 2 * s2))
        if q == 1:
            return _over(2 * u + 1, 2 * s2)
        return -_log_mixture(q, _over(-2 * u - 1, 2 * s2))

    def cell_masses(self, edges):
        """P- and Q-masses of {edges[i] <= L < edges[i+1]} and absolute error bounds; also the
        masses below edges[0] and at or above edges[-1] (P only, with error bounds)."""
        u = self.positions(edges)
        self.edge_ratio = _edge_ratio(u)
        return _parts_cell_masses(u, self.p_parts, self.q_parts, self.sigma)

    def float_cell_masses(self, edges):
        """(P, Q) masses of the cells between consecutive ``edges``, in float64 WITHOUT error bounds
        (each a difference of normal tails on the side away from the part's mean): for choices
        that any value keeps valid (the lower bound's cell edges), never for a bound. Measured: 60 us
        for 18 edges against 175 us for :meth:`cell_masses`, within 2e-14 relative of it there."""
        u = self.positions(np.asarray(edges, dtype=np.float64))
        out = []
        for parts in (self.p_parts, self.q_parts):
            total = np.zeros(len(u) - 1)
            for weight, mean in parts:
                z = (u - mean) / self.sigma
                with np.errstate(invalid="ignore"):
                    upper, lower = special.ndtr(-z), special.ndtr(z)
                    cells = np.where(z[:-1] >= 0, upper[:-1] - upper[1:], lower[1:] - lower[:-1])
                total += weight * np.maximum(np.nan_to_num(cells), 0.0)
            out.append(total)
        return out[0], out[1]


#: Absolute error, in units of UNIT per unit of magnitude, of the log-space root in
#: :meth:`TwoSidedGaussianPair.positions`: about twenty roundings (log, log1p, expm1, logaddexp and
#: sums, each within a few ulp of its operands' magnitude) along the longest path; 64 covers them
#: with room, and tests/test_two_sided_pair.py holds the floats against 50-digit roots.
TWO_SIDED_ROUNDINGS = 64


class TwoSidedGaussianPair(GaussianPair):
    """P = (1-q) N(0, s^2) + q N(1, s^2) vs Q = (1-q) N(0, s^2) + q N(-1, s^2): Poisson sampling
    under replace-one with x = +C, x' = -C. A neighbouring pair that exists, and (docs/math.md,
    "Poisson sampling under replace-one: the dominating pair") one that dominates every replace-one
    configuration of a Poisson-subsampled Gaussian step in both orders at every epsilon: the PLD
    accountant composes it for both ends. Symmetric: its swap is its mirror image. The loss
    ``log((1-q + q a e^{u/s^2}) / (1-q + q a e^{-u/s^2}))``, ``a = e^{-1/(2 s^2)}``, increases in u;
    its positions are certified (``cell_masses`` sets ``edge_ratio`` from their radii)."""

    def __init__(self, q, sigma):
        super().__init__(q, sigma, "add")
        self.p_parts, self.q_parts = ((1 - q, 0.0), (q, 1.0)), ((1 - q, 0.0), (q, -1.0))
        self.min_loss, self.max_loss = -math.inf, math.inf

    def _log_root(self, levels):
        """``(log x, error)``: x = e^{u/s^2} the positive root of
        ``q a x^2 + (1-q)(1-e^l) x - e^l q a = 0`` at each level l, computed in log space (no overflow
        for any float l, q, s), and a bound on the absolute error of the float ``log x``."""
        s2, q = self.sigma**2, self.q
        log_qa = math.log(q) - 1.0 / (2 * s2)
        log_keep = math.log1p(-q) if q < 1 else -math.inf
        l = np.asarray(levels, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            a = np.abs(l)
            # log|1 - e^l| = log|expm1(l)| = |l| [l > 0] + log(-expm1(-|l|)), for every float l
            log_gap = np.where(l > 0, l, 0.0) + np.log(-np.expm1(-a))
            log_b = log_keep + log_gap  # log|b|, b = (1-q)(1-e^l)
            log_root = 0.5 * np.logaddexp(2 * log_b, math.log(4) + 2 * log_qa + l)  # log sqrt(b^2 + 4 q^2 a^2 e^l)
            both = np.logaddexp(log_b, log_root)  # log(|b| + root)
            # b >= 0 (l <= 0): x = 2 e^l q a / (b + root); b < 0 (l > 0): x = (root - b) / (2 q a)
            log_x = np.where(l > 0, both - math.log(2) - log_qa, math.log(2) + l + log_qa - both)
            magnitude = (a + 2 * abs(log_qa) + np.abs(np.nan_to_num(log_b, neginf=0.0)) + np.abs(log_root)
                         + abs(log_keep if q < 1 else 0.0) + 8)
            error = TWO_SIDED_ROUNDINGS * UNIT * magnitude
        return log_x, error

    def _certified(self, levels):
        """Positions ``u`` and their certified radii (the true position is within the radius)."""
        log_x, error = self._log_root(levels)
        s2 = self.sigma**2
        u = s2 * log_x
        radius = s2 * error * (1 + 4 * UNIT) + 4 * UNIT * np.abs(u)
        return u, radius

    def positions(self, levels):
        """u with L(u) = level, within the radius of :meth:`_certified`."""
        return self._certified(levels)[0]

    def _loss(self, u):
        s2, q = self.sigma**2, self.q
        up, down = _over(2 * u - 1, 2 * s2), _over(-2 * u - 1, 2 * s2)
        return _log_mixture(q, up) - _log_mixture(q, down)

    def cell_masses(self, edges):
        """As :meth:`GaussianPair.cell_masses`, between the certified positions (``edge_ratio``
        from their radii, :func:`_certified_edge_ratio`)."""
        u, radius = self._certified(edges)
        self.edge_ratio = _certified_edge_ratio(u, radius)
        return _parts_cell_masses(u, self.p_parts, self.q_parts, self.sigma)


#: Newton passes of :meth:`MixtureOfGaussiansPair.positions` (each pass one evaluation of the
#: log-sum-exp over the unconverged positions; from its starting point Newton needs about five:
#: the function is within log(n) of a line of slope a_i there and its slope lies in [a_min, a_max]).
MOG_NEWTON_PASSES = 60
#: Widenings (by a factor 8 each) of a certification radius before a position is given up on.
MOG_WIDENINGS = 16
#: Largest ``c_max^2 / (2 s^2)`` a :class:`MixtureOfGaussiansPair` accepts: its loss is evaluated as
#: ``a_i u + b_i`` with ``|a_i u|, |b_i|`` up to about this, so near a crossing the float error bound
#: (~32 u this) must stay well below 1 (at 5e15, s = 1e-8, c = 2, no position could be certified).
#: Beyond it the mechanism uses the dominating Gaussian(s / c_max) pair (losses of 1e13 and more).
MOG_MAX_EXPONENT = 1e13


class MixtureOfGaussiansPair:
    """The mixture-of-Gaussians pair (Choquette-Choo, Ganesh, Steinke & Thakurta 2023, arXiv
    2310.15526, Sec. 4: a Gaussian mechanism whose sensitivity is ``c_i`` with probability ``p_i``):
    "add": P = sum_i p_i N(c_i, s^2) vs Q = N(0, s^2), on the line u = z; "remove": the reverse,
    on u = -z (P = N(0, s^2), Q = sum_i p_i N(-c_i, s^2)).

    The add loss is ``L(u) = log sum_i p_i exp((c_i u - c_i^2/2) / s^2)``, a log-sum-exp of lines of
    slopes ``c_i / s^2 >= 0``: convex and increasing (every ``c_i >= 0``, some ``c_i > 0``), from
    ``log p_0`` (the weight of ``c = 0``; ``-inf`` without it) to ``+inf``; the remove loss is
    ``-L(-u)``. The probabilities are normalised to sum 1 (each weight the correctly rounded
    quotient of exact sums), components of probability 0 are dropped and equal sensitivities
    merged. One positive sensitivity ``c`` (with or without a component at 0 of weight ``1 - q``) is
    exactly :class:`GaussianPair` ``(q, s / c)`` (losses do not depend on the line's scale), which
    this pair then is, with ``q`` rounded up and ``s / c`` down (more loss: a dominating pair).

    ``positions`` has no closed form. Each level ``l`` is solved on the excess
    ``K(u) = log(e^L - p_0) = log sum_{c_i > 0} p_i e^{a_i u + b_i}`` (a log-sum-exp of lines of
    positive slopes) against ``T(l) = log(e^l - p_0)`` (``K = L`` and ``T = l`` without a component at
    0), by Newton's method from above (a handful of passes), and each position ``u`` is then
    CERTIFIED: ``K(u - d) + E < T - E_T`` and ``K(u + d) - E > T + E_T``, with ``E`` and ``E_T``
    bounds on the float errors of ``K`` (:meth:`_excess`) and ``T`` (:meth:`_excess_target`), put the
    true position within ``d`` (``K`` increases in ``u``, ``T`` in ``l``); ``d`` starts at twice the
    residual and the errors over the slope and is widened by 8 until the signs hold. On the excess
    the levels just above ``log p_0`` keep their relative accuracy (``L`` there is ``log p_0`` plus a
    tiny amount). ``edge_ratio`` is computed from these radii (see :func:`_edge_ratio`).

    Args:
        sigma (float): the noise standard deviation ``s > 0``.
        sensitivities (Sequence[float]): the ``c_i``, finite and ``>= 0``, some ``c_i > 0`` of
            positive probability.
        probabilities (Sequence[float]): the ``p_i`` in ``[0, 1]``, summing to 1 up to rounding.
        direction (str): ``"add"`` or ``"remove"``.

    Raises:
        InvalidArgument: an argument outside its range (naming it), or ``c_max^2 / (2 s^2)`` above
            :data:`MOG_MAX_EXPONENT` (two or more positive sensitivities; the mechanism then uses
            the dominating Gaussian pair).
    """

    def __init__(self, sigma, sensitivities, probabilities, direction):
        sigma = float(sigma)
        if direction not in ("add", "remove"):
            raise InvalidArgument(f"direction={direction!r} must be 'add' or 'remove'")
        if not (math.isfinite(sigma) and sigma > 0):
            raise InvalidArgument(f"sigma={sigma!r} must be a finite float > 0")
        sensitivities, probabilities = list(sensitivities), list(probabilities)
        if not sensitivities or len(sensitivities) != len(probabilities):
            raise InvalidArgument(
                f"sensitivities={sensitivities!r} and probabilities={probabilities!r} must be non-empty "
                f"and of the same length")
        merged = {}
        for i, (c, p) in enumerate(zip(sensitivities, probabilities)):
            c, p = float(c), float(p)
            if not (math.isfinite(c) and c >= 0):
                raise InvalidArgument(f"sensitivities[{i}]={c!r} must be a finite float >= 0")
            if not 0 <= p <= 1:
                raise InvalidArgument(f"probabilities[{i}]={p!r} must be in [0, 1]")
            if p > 0:
                merged[c] = merged.get(c, fractions.Fraction(0)) + fractions.Fraction(p)
        total = sum(merged.values(), fractions.Fraction(0))
        if not any(c > 0 for c in merged):
            raise InvalidArgument(
                f"sensitivities={sensitivities!r}: some sensitivity of positive probability must be > 0 "
                f"(else P = Q: no privacy loss)")
        self.sigma, self.direction = sigma, direction
        #: ``(c, weight)`` by increasing c, weights normalised (exact quotient, rounded once).
        self.components = tuple((c, float(w / total)) for c, w in sorted(merged.items()))
        positive = [(c, w) for c, w in sorted(merged.items()) if c > 0]
        self._simple = None
        if len(positive) == 1:
            c, w = positive[0]
            q = _float_up(w / total)
            scale = _float_down(fractions.Fraction(sigma) / fractions.Fraction(c))
            if scale == 0:
                raise InvalidArgument(f"sigma={sigma!r} over sensitivity {c!r} underflows to 0")
            self._simple, self._scale = GaussianPair(q, scale, direction), c
            self.min_loss, self.max_loss = self._simple.min_loss, self._simple.max_loss
            self.atoms = ()
            return
        positive_c = np.array([c for c, _ in self.components if c > 0])
        log_w = np.log([w for c, w in self.components if c > 0])
        with np.errstate(over="ignore", divide="ignore", invalid="ignore", under="ignore"):
            s2 = np.float64(sigma) * sigma  # 0 below sigma ~ 1e-162: the slopes are then inf
            self._a = positive_c / s2  # slopes c_i / s^2, increasing
            half_square = positive_c * positive_c / (2 * s2)
            self._b = log_w - half_square  # intercepts log w_i - c_i^2 / (2 s^2)
        zero = [w for c, w in self.components if c == 0]
        self._log_w0 = math.log(zero[0]) if zero else None
        # the largest size of a term's parts (|log w_i| + c_i^2 / (2 s^2)), for the error bound
        self._term_sizes = np.abs(log_w) + half_square  # per positive term, for the error bound
        if not (np.all(np.isfinite(self._a)) and np.all(np.isfinite(self._b))
                and float(np.max(half_square)) <= MOG_MAX_EXPONENT):
            raise InvalidArgument(f"sigma={sigma!r} is too small for sensitivities={sensitivities!r}: c_max^2 / "
                                  f"(2 sigma^2) must be at most {MOG_MAX_EXPONENT:g} (the loss's float evaluation "
                                  f"cannot certify its positions beyond)")
        self.atoms = ()
        parts = tuple((w, c) for c, w in self.components)
        if direction == "add":
            self.p_parts, self.q_parts = parts, ((1.0, 0.0),)
            self.min_loss = self._log_w0 if zero else -math.inf
            self.max_loss = math.inf
        else:
            self.p_parts, self.q_parts = ((1.0, 0.0),), tuple((w, -m) for w, m in parts)
            self.min_loss = -math.inf
            self.max_loss = -self._log_w0 if zero else math.inf

    # --- the add loss, with its float error ------------------------------------------------------

    def _add_loss(self, u):
        """``L(u)`` (add) at the finite floats ``u``, as a float log-sum-exp (for ``loss_range``; the
        positions are certified on the excess, :meth:`_excess`)."""
        u = np.asarray(u, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
            t = u[:, None] * self._a[None, :] + self._b[None, :]
            if self._log_w0 is not None:
                t = np.concatenate((t, np.full((len(u), 1), self._log_w0)), axis=1)
            m = t.max(axis=1)
            return m + np.log(np.sum(np.exp(t - m[:, None]), axis=1))

    def _excess(self, u):
        """``K(u) = log sum_{c_i > 0} w_i e^{a_i u + b_i}`` (the add loss without the component at 0:
        ``K = log(e^L - p_0)``) at the finite floats ``u``, its slope ``K'(u)``, and a bound on
        ``|computed K - true K|``.

        Each term ``t_i = a_i u + b_i`` is within ``D_i = 5 u (|a_i u| + |log w_i| + c_i^2/(2 s^2) + 1)``
        of its true value (``a_i = c_i / s^2`` and ``c_i^2 / (2 s^2)`` carry 3 roundings, ``log w_i``
        2 ulp plus the weight's half ulp, the two sums one each); ``t_i - m`` adds ``u |t_i - m|``,
        the exponentials, the sum of n positive terms and the log ``(n + 3) u`` relative. With
        ``rho_i`` the sum of these and ``pi_i`` the true softmax weights (at most the computed ones
        times ``e^{D_i + D_max + rho_i}``), ``|K' - K| <= log sum_i pi_i e^{rho_i}`` (and the mirror
        bound), at most twice ``sum_i pi_i expm1(rho_i)`` while that is below 1/4; plus ``2 u
        (|K| + n)`` for the final sum and log. A term far below the largest contributes its weight
        times its error, not its error: the bound is relative to what the terms carry."""
        u = np.asarray(u, dtype=np.float64)
        n = len(self._a)
        with np.errstate(over="ignore", invalid="ignore", under="ignore", divide="ignore"):
            t = u[:, None] * self._a[None, :] + self._b[None, :]
            m = t.max(axis=1)
            gap = t - m[:, None]
            e = np.exp(gap)
            s = e.sum(axis=1)
            excess = m + np.log(s)
            slope = (e @ self._a) / s
            d = 5 * UNIT * (np.abs(u)[:, None] * self._a[None, :] + self._term_sizes[None, :] + 1)
            rho = d + UNIT * np.abs(gap) + (n + 3) * UNIT
            weight = np.minimum(1.0, e / s[:, None] * np.exp(d + d.max(axis=1)[:, None] + rho))
            spread = np.sum(weight * np.expm1(rho), axis=1)
            error = np.where(spread < 0.25, 2 * spread, np.inf) + 2 * UNIT * (np.abs(excess) + n) + SUBNORMAL_ERROR
        return excess, slope, error

    def _excess_target(self, levels):
        """``T(l) = log(e^l - p_0)`` (``l`` itself without a component at 0) for levels above the band
        of ``log p_0``, and a bound on its float error: ``x = l - log p_0`` is within
        ``dx = u |x| / 2 + 2 u |log p_0| + u`` of the true one (the float ``log p_0``: np.log and the
        weight's rounding), and ``dT/dx = 1 / (1 - e^{-x}) <= 1 + 1/x``; expm1, log and the sums add
        ``4 u + u |T| + u |log expm1(x)|``; doubled."""
        if self._log_w0 is None:
            return levels.copy(), np.zeros(len(levels))
        lw0 = self._log_w0
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            x = levels - lw0
            inner = np.log(np.expm1(np.minimum(x, 30.0)))
            target = np.where(x > 30, levels + np.log1p(-np.exp(-np.maximum(x, 30.0))), lw0 + inner)
            dx = 0.5 * UNIT * np.abs(x) + 2 * UNIT * abs(lw0) + UNIT
            error = 2 * (dx * (1 + 1 / x) * (1 + 1e-6) + 4 * UNIT + UNIT * np.abs(target)
                         + UNIT * np.where(x > 30, 0.0, np.abs(inner)))
        return target, error

    def _add_positions(self, levels):
        """Certified solutions of ``L(u) = level`` (add): ``(u, radius)``, the true solution within
        ``radius`` of the float ``u`` (``-inf`` with radius 0 for a level at or below the band of
        ``log p_0``, ``+inf`` for ``+inf``). Solved and certified on the excess (``K(u) = T(l)``,
        :meth:`_excess`, :meth:`_excess_target`; ``log(e^L - p_0)`` increases with ``L``): near
        ``log p_0`` the excess keeps the relative accuracy that ``L`` itself (about ``log p_0`` plus
        a tiny amount) loses. Raises NumericalError for a level it cannot certify."""
        levels = np.asarray(levels, dtype=np.float64)
        u = np.full(levels.shape, np.nan)
        radius = np.zeros(levels.shape)
        u[levels == np.inf] = np.inf
        u[levels == -np.inf] = -np.inf
        todo = np.isfinite(levels)
        self._band = np.zeros(levels.shape, dtype=bool)
        if self._log_w0 is not None:
            # the float log p_0 is within 1 ulp (+ the weight's half ulp) of the true one: a level
            # below that band has no position (-inf, exactly); one inside it is put at -inf too,
            # its cell then holding losses down to log p_0, at most band_width below its edge
            # (cell_masses adds the margin that covers it)
            half = 4 * UNIT * (abs(self._log_w0) + 1)
            below = todo & (levels <= self._log_w0 + half)
            self._band = below & (levels > self._log_w0 - half)
            u[below] = -np.inf
            todo &= ~below
        idx = np.flatnonzero(todo)
        if idx.size == 0:
            return u, radius
        lev = levels[idx]
        target, target_error = self._excess_target(lev)
        a, b = self._a, self._b
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            # start above the root: where the largest of the lines a_i u + b_i (<= K, each term being
            # one of its summands) reaches the target; Newton on the convex K then descends to it
            v = np.min((target[:, None] - b[None, :]) / a[None, :], axis=1)
            active = np.isfinite(v)
            for _ in range(MOG_NEWTON_PASSES):
                if not np.any(active):
                    break
                va = v[active]
                t = va[:, None] * a[None, :] + b[None, :]
                m = t.max(axis=1)
                e = np.exp(t - m[:, None])
                s = e.sum(axis=1)
                step = (m + np.log(s) - target[active]) / ((e @ a) / s)
                new = va - step
                v[active] = new
                done = ~(np.abs(step) > 2 * UNIT * (np.abs(new) + 1))
                active[np.flatnonzero(active)[done]] = False
        # certify: K(v - d) < T(l) < K(v + d) beyond both error bounds, widening d as needed
        finite = np.isfinite(v)
        excess, slope, error = self._excess(np.where(finite, v, 0.0))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            d = 2 * (np.abs(excess - target) + error + target_error) / slope + 8 * UNIT * (np.abs(v) + 1)
        d = np.where(np.isfinite(d) & (d > 0), d, 8 * UNIT * (np.abs(v) + 1))
        certified = np.zeros(len(v), dtype=bool)
        pending = finite & np.isfinite(target) & np.isfinite(target_error)
        for _ in range(MOG_WIDENINGS):
            if not np.any(pending):
                break
            k = np.flatnonzero(pending)
            lo, hi = v[k] - d[k], v[k] + d[k]
            k_lo, _, e_lo = self._excess(lo)
            k_hi, _, e_hi = self._excess(hi)
            ok = ((k_lo + e_lo < target[k] - target_error[k]) & (k_hi - e_hi > target[k] + target_error[k])
                  & np.isfinite(lo) & np.isfinite(hi))
            certified[k[ok]] = True
            pending[k[ok]] = False
            d[k[~ok]] *= 8
        if not np.all(certified):
            bad = float(lev[np.flatnonzero(~certified)[0]])
            raise NumericalError(
                f"MixtureOfGaussiansPair(sigma={self.sigma!r}, components={self.components!r}): the position "
                f"of loss level {bad!r} could not be certified (Newton's solution failed its sign check "
                f"after {MOG_WIDENINGS} widenings)")
        u[idx] = v
        # the float lo/hi are within half an ulp of v -+ d: the radius, rounded up
        radius[idx] = d * (1 + 4 * UNIT) + 2 * UNIT * np.abs(v)
        return u, radius

    def _certified_positions(self, levels):
        levels = np.asarray(levels, dtype=np.float64)
        if self.direction == "add":
            return self._add_positions(levels)
        u, radius = self._add_positions(-levels)
        return -u, radius

    def positions(self, levels):
        """u with L(u) = level (vectorised; -inf / +inf outside the loss range), each within the
        certified radius used by ``cell_masses`` (class docstring)."""
        if self._simple is not None:
            return self._simple.positions(levels) * self._scale
        return self._certified_positions(levels)[0]

    def _loss(self, u):
        if self.direction == "add":
            return float(self._add_loss(np.array([u]))[0])
        return -float(self._add_loss(np.array([-u]))[0])

    def loss_range(self, tail_z):
        """As :meth:`GaussianPair.loss_range`: losses outside which the P-mass is < Phi(-tail_z)."""
        if self._simple is not None:
            return self._simple.loss_range(tail_z)
        return GaussianPair.loss_range(self, tail_z)

    def cell_masses(self, edges):
        """P- and Q-masses of {edges[i] <= L < edges[i+1]} with absolute error bounds, and the
        P-masses below and above (as :meth:`GaussianPair.cell_masses`), between the certified
        positions; sets ``edge_ratio`` from their radii."""
        if self._simple is not None:
            out = self._simple.cell_masses(edges)
            self.edge_ratio = self._simple.edge_ratio
            return out
        u, radius = self._certified_positions(edges)
        self.edge_ratio = _certified_edge_ratio(u, radius)
        if np.any(self._band):
            # a level within the band of log p_0 (put at -inf, add; +inf, remove): the true losses of
            # its cell reach at most band_width = 8 ulp (|log p_0| + 1) past that edge, a sliver that
            # may be all of the cell's mass: the margin 4 ratio (P + Q') / (1 - e^{-h}) of
            # discretise() covers a downward move of (mass) x (band_width / h) with ratio 8 band / h
            levels = np.asarray(edges, dtype=np.float64)
            band_width = 8 * UNIT * (abs(self._log_w0) + 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                extra = np.nan_to_num(8 * band_width / (levels[1:] - levels[:-1]), nan=1.0, posinf=1.0)
            touch = self._band[:-1] | self._band[1:]
            self.edge_ratio = np.where(touch, np.maximum(self.edge_ratio, extra), self.edge_ratio)
        return _parts_cell_masses(u, self.p_parts, self.q_parts, self.sigma)


def _certified_edge_ratio(u, radius):
    """:func:`_edge_ratio` for edges whose true positions are within ``radius`` of the floats ``u``
    (plus the 8 ulp of :func:`_edge_ratio`): per cell ((radius left + radius right + 8 ulp) /
    width)^2. A cell of infinite width (below the first or above the last finite edge) takes the
    ratio of its finite neighbour (its one finite edge's error moves the same sliver of mass)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        finite = np.isfinite(u)
        r = np.where(finite, radius, 0.0)
        a = np.where(finite, np.abs(u), 0.0)
        err = r[:-1] + r[1:] + 8 * UNIT * (a[:-1] + a[1:] + 2)
        width = u[1:] - u[:-1]
        good = np.isfinite(width) & (width > 0)
        ratio = np.where(good, (err / np.where(good, width, 1.0)) ** 2, 0.0)
        ratio = np.nan_to_num(ratio, nan=1.0, posinf=1.0)
    infinite = ~np.isfinite(width)
    if np.any(infinite) and np.any(good):
        pos = np.flatnonzero(good)
        for i in np.flatnonzero(infinite):
            j = pos[np.argmin(np.abs(pos - i))]
            ratio[i] = max(ratio[i], ratio[j])
    return ratio


def _float_up(x):
    """The smallest float >= the rational ``x``."""
    value = float(x)
    return value if fractions.Fraction(value) >= x else math.nextafter(value, math.inf)


def _float_down(x):
    """The largest float <= the rational ``x``."""
    value = float(x)
    return value if fractions.Fraction(value) <= x else math.nextafter(value, -math.inf)


class LaplacePair:
    """P = Lap(1, b), Q = Lap(0, b): loss (|u| - |u - 1|)/b, linear on (0, 1), atoms at +-1/b."""

    def __init__(self, scale):
        self.b = float(scale)
        self.min_loss, self.max_loss = -1.0 / self.b, 1.0 / self.b
        self.atoms = ((-1.0 / self.b, 0.5 * math.exp(-1.0 / self.b)), (1.0 / self.b, 0.5))

    def loss_range(self, tail_z):
        return self.min_loss, self.max_loss

    def cell_masses(self, edges):
        b = self.b
        lev = np.clip(np.asarray(edges, dtype=np.float64), self.min_loss, self.max_loss)
        u = np.clip((lev * b + 1) / 2, 0.0, 1.0)
        lo, hi = u[:-1], u[1:]
        # both as e^{(edge - mean) / b} (1 - e^{-width / b}) / 2 at the edge nearer the mean, whose
        # exponent is <= 0 on [0, 1]: no overflow at any scale (e^{(lo-1)/b} (e^{width/b} - 1) / 2,
        # the former form of p, was 0 * inf = nan at b = 1e-300)
        p = np.exp((hi - 1) / b) * -np.expm1(-(hi - lo) / b) / 2
        q = np.exp(-lo / b) * -np.expm1(-(hi - lo) / b) / 2
        # closed forms: relative error a few ulp (the edges' own rounding: see _edge_ratio)
        ep, eq = 16 * UNIT * p + SUBNORMAL_ERROR, 16 * UNIT * q + SUBNORMAL_ERROR
        self.edge_ratio = _edge_ratio(u)
        zero = (0.0, 0.0)
        return p, q, ep, eq, zero, zero


class FinitePair:
    """A finite pair given by its loss atoms ``(loss, P-mass)`` (randomized response)."""

    def __init__(self, atoms):
        self.atoms = tuple((float(l), float(w)) for l, w in atoms)
        self.min_loss = min(l for l, _ in self.atoms)
        self.max_loss = max(l for l, _ in self.atoms)

    def loss_range(self, tail_z):
        return self.min_loss, self.max_loss

    def cell_masses(self, edges):
        n = len(edges) - 1
        zero = (0.0, 0.0)
        return np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n), zero, zero


class MixturePair:
    """A branch-revealed mixture: branch ``b`` drawn with the same probability ``w_b`` under both
    distributions, then ``P_b`` vs ``Q_b`` of its pair, the branch shown with the output. Its PLD
    is the ``w``-mixture of the branches' PLDs, and it dominates ``sum_b w_b P_b`` vs
    ``sum_b w_b Q_b`` (forgetting the branch is post-processing). ``branches``: ``(weight,
    weight_error, pair)`` with ``|true weight - weight| <= weight_error``; pairs without loss
    atoms (the Gaussian ones). Used by :class:`dpproofs.TruncatedSampledGaussian`."""

    def __init__(self, branches):
        self.branches = tuple((float(w), float(e), pair) for w, e, pair in branches)
        if any(pair.atoms for _, _, pair in self.branches):
            raise ValueError("MixturePair takes pairs without loss atoms")
        self.min_loss = min(pair.min_loss for _, _, pair in self.branches)
        self.max_loss = max(pair.max_loss for _, _, pair in self.branches)
        self.atoms = ()

    def loss_range(self, tail_z):
        """The union of the branches' ranges (the mixture's mass outside it is at most the largest
        branch's share; the masses beyond the grid are bounded by ``cell_masses`` anyway)."""
        ranges = [pair.loss_range(tail_z) for _, _, pair in self.branches]
        return min(low for low, _ in ranges), max(high for _, high in ranges)

    def cell_masses(self, edges):
        """The branches' cell masses, weighted: each weight's error times the branch's largest mass,
        and the float rounding of the weighted sums (2 ulps a term), added to the error bounds."""
        n = len(edges) - 1
        p, q, ep, eq = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
        below, below_error, above, above_error = 0.0, 0.0, 0.0, 0.0
        ratio = np.zeros(n)
        rounding = 2 * (len(self.branches) + 1) * UNIT
        for weight, error, pair in self.branches:
            bp, bq, bep, beq, (b_below, b_below_e), (b_above, b_above_e) = pair.cell_masses(edges)
            p += weight * bp
            q += weight * bq
            ep += weight * bep + error * (bp + bep) + rounding * weight * bp
            eq += weight * beq + error * (bq + beq) + rounding * weight * bq
            below += weight * b_below
            below_error += weight * b_below_e + error * (b_below + b_below_e) + rounding * weight * b_below
            above += weight * b_above
            above_error += weight * b_above_e + error * (b_above + b_above_e) + rounding * weight * b_above
            branch_ratio = getattr(pair, "edge_ratio", None)
            if branch_ratio is not None and len(branch_ratio) == n:
                ratio = np.maximum(ratio, branch_ratio)
        self.edge_ratio = ratio
        return p, q, ep, eq, (below, below_error), (above, above_error)


class AllocationPair:
    """One epoch of random allocation of a record to 1 of ``steps`` Gaussian steps (noise ``sigma``):
    ``P = (1/t) sum_i N(e_i, s^2 I_t)`` vs ``Q = N(0, s^2 I_t)`` ("add"), or the reverse ("remove").

    A description only: its law has no closed form on a line, and the PLD accountant resolves it
    (:meth:`resolved`) into a pair of exact atoms with certified masses, a different one for each
    bound's side (:mod:`dpproofs.accountant.pld.allocation`, which registers ``resolver``)."""

    #: ``resolver(pair, bound, tail_z)``: set by :mod:`dpproofs.accountant.pld.allocation`.
    resolver = None
    #: ``forget()``: drops the resolver's memoised laws (set by the same module; the accountant calls it
    #: before it asks for wider windows, whose laws take several GB).
    forget = None

    #: A lattice twice coarser than the default (refinement 1/2) is enough for a law composed at most
    #: COARSE_COUNT times at COARSE_SIGMA <= sigma < COARSE_SIGMA_MAX, when the width asked is at least
    #: COARSE_WIDTH: its gap is second order in the lattice step, added up over the compositions.
    #: Measured (2026-12-07, one process, cold laws): on the allocation grid and two fresh grids of 40
    #: rows (seeds 20261209, 20261213) the brackets of one or two epochs were 1.3 to 3.5 times wider on
    #: the coarse lattice, in 8 % to 74 % less time (at (t, sigma) = (100, 1), delta 1e-6: 165 ms against
    #: 224 ms). Not below sigma 0.75: at sigma 0.6 two of three rows took 2.8 and 3.5 times as long
    #: (larger windows). Not from sigma 4: epsilon is small there, the fine lattice's brackets of one or two
    #: epochs were already 7e-5 to 6.8e-4 wide (median 2.5e-4, 26 rows of the grids), the coarse ones up
    #: to 1.0e-3, and at (5767, 8.13, 1 epoch, 5.6e-4) the coarse start left 4.4e-3.
    COARSE_COUNT = 2
    COARSE_SIGMA = 0.75
    COARSE_SIGMA_MAX = 4.0
    COARSE_WIDTH = 1e-3

    def __init__(self, steps, sigma, direction, refinement=1, windows=1):
        self.steps, self.sigma, self.direction = int(steps), float(sigma), direction
        # the resolver's lattice is this many times finer than its default (a power of two, from 1/2)
        self.refinement = float(refinement)
        # the resolver's largest composition window is this many times its default (1 or 2)
        self.windows = int(windows)
        self.atoms = ()
        self.min_loss, self.max_loss = -math.inf, math.inf

    def first_refinement(self, count, relative_width):
        """The refinement the accountant starts from for this law composed ``count`` times with a
        bracket ``relative_width`` wide asked: 1/2 (a coarser lattice) or 1; any lattice is valid, and
        the accountant refines it when a bracket stops narrowing."""
        coarse = (count <= self.COARSE_COUNT and self.COARSE_SIGMA <= self.sigma < self.COARSE_SIGMA_MAX
                  and relative_width >= self.COARSE_WIDTH)
        return 0.5 if coarse else 1.0

    def refined(self, factor, windows=1):
        """The same pair, resolved on a lattice ``factor`` times finer than the default (the accountant
        asks for it when a bracket stops narrowing: the lattice law's own gap adds up over epochs),
        with composition windows up to ``windows`` times the default (asked for when a finer lattice
        is over budget)."""
        return type(self)(self.steps, self.sigma, self.direction, factor, windows)

    def resolved(self, bound, tail_z):
        """The concrete pair for ``bound`` ("upper"/"lower") at the tail ``Phi(-tail_z)``; None when
        its lattice is over budget."""
        if type(self).resolver is None:
            raise NumericalError("AllocationPair needs dpproofs.accountant.pld.allocation (the PLD accountant)")
        return type(self).resolver(self, bound, tail_z)

    def loss_range(self, tail_z):
        """The upper resolution's range; (-inf, inf) when it is over budget (the accountant then
        falls back to the RDP bound)."""
        pair = self.resolved("upper", tail_z)
        return (-math.inf, math.inf) if pair is None else pair.loss_range(tail_z)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__,) + self._key())

    def _key(self):
        return self.steps, self.sigma, self.direction, self.refinement, self.windows
