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

import math

import numpy as np
from scipy import special

__all__ = ["GaussianPair", "TwoSidedGaussianPair", "LaplacePair", "FinitePair", "MixturePair", "UNIT", "NDTR_RELATIVE",
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
        u_ext = np.concatenate(([-np.inf], u, [np.inf]))
        out = []
        normal = {}  # mean -> cell masses (P and Q share the component N(0, s^2))
        for parts in (self.p_parts, self.q_parts):
            mass, error = np.zeros(len(u_ext) - 1), np.zeros(len(u_ext) - 1)
            for weight, mean in parts:
                if mean not in normal:
                    normal[mean] = _vec_normal_mass_edges(u_ext, mean, self.sigma)
                m, e = normal[mean]
                mass += weight * m
                error += weight * e + 2 * UNIT * weight * m + SUBNORMAL_ERROR
            out.append((mass, error))
        (p, ep), (q, eq) = out
        self.edge_ratio = _edge_ratio(u)
        return p[1:-1], q[1:-1], ep[1:-1], eq[1:-1], (p[0], ep[0]), (p[-1], ep[-1])


class TwoSidedGaussianPair(GaussianPair):
    """P = (1-q) N(0, s^2) + q N(1, s^2) vs Q = (1-q) N(0, s^2) + q N(-1, s^2):
    Poisson sampling under replace-one with x = +C, x' = -C (a neighbouring pair that exists, so
    its composed curves are lower bounds on the truth; used with ``bound="lower"`` only, where the
    edges need not be exact). Symmetric: its swap is its mirror image. The loss
    ``log((1-q + q a e^{u/s^2}) / (1-q + q a e^{-u/s^2}))``, ``a = e^{-1/(2 s^2)}``, increases in u."""

    def __init__(self, q, sigma):
        super().__init__(q, sigma, "add")
        self.p_parts, self.q_parts = ((1 - q, 0.0), (q, 1.0)), ((1 - q, 0.0), (q, -1.0))
        self.min_loss, self.max_loss = -math.inf, math.inf

    def positions(self, levels):
        """u with L(u) = level: the positive root x = e^{u/s^2} of
        ``q a x^2 + (1-q)(1-e^l) x - e^l q a = 0``, by the cancellation-free form of each sign."""
        s2, q = self.sigma**2, self.q
        levels = np.asarray(levels, dtype=np.float64)
        log_qa = math.log(q) - 1.0 / (2 * s2)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            b = (1 - q) * -np.expm1(levels)  # (1-q)(1 - e^l)
            # log of sqrt(b^2 + 4 q^2 a^2 e^l), without overflow
            log_root = 0.5 * np.logaddexp(2 * np.log(np.abs(b) + 1e-320), math.log(4) + 2 * log_qa + levels)
            root = np.exp(log_root)
            # b >= 0: x = 2 e^l q a / (b + root); b < 0: x = (root - b) / (2 q a)
            log_x = np.where(b >= 0, math.log(2) + levels + log_qa - np.log(b + root),
                             np.log(root - b) - math.log(2) - log_qa)
        return s2 * log_x

    def _loss(self, u):
        s2, q = self.sigma**2, self.q
        up, down = _over(2 * u - 1, 2 * s2), _over(-2 * u - 1, 2 * s2)
        return _log_mixture(q, up) - _log_mixture(q, down)


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
