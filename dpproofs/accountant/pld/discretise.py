"""Tight (epsilon, delta) of T-fold compositions, bracketed from both sides.

Two layers live here. (1) The section "Vectorised certified discretisation and Fourier-domain
composition" at the end of the module is what :class:`dpproofs.PLDAccountant` uses: vectorised
one-step upper/lower PLDs for any supported mechanism, one FFT per distinct PLD with tilting,
and every float error bounded. (2) The original bracket below (``epsilon_bracket``,
``epsilon_bracket_curve``: one sampled-Gaussian mechanism repeated, root-finding lower bound,
heuristic round-off allowance) is kept unchanged for ``dpproofs.report`` and ``theorems/notes.py``.

The privacy-loss distribution (PLD) of one step is replaced by two discrete distributions on the
grid ``{k h}`` of losses, one that provably gives LARGER hockey-stick divergences than the true
mechanism at every level and one that provably gives SMALLER ones; both are composed ``T`` times
by FFT (numpy float64) and the smallest ``epsilon`` with ``delta(epsilon) <= target`` is read off
each. The true epsilon lies in ``[lower, upper]``; the bracket width is the error bound.

Neighbouring pairs (docs/math.md#conventions: sensitivity 1, add/remove of one record):

* ``"add"``:    ``P = mu = (1-q) N(0, s^2) + q N(1, s^2)``, ``Q = mu0 = N(0, s^2)``;
* ``"remove"``: ``P = mu0``, ``Q = mu``.

The T-fold composition is (eps, delta)-DP iff ``delta >= max`` of the two directions' composed
hockey-stick divergences (the same neighbouring pair is used at every step).

Why the two one-step discretisations are bounds (no assumption beyond exact arithmetic):

* **upper** - "connect the dots" (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022,
  arXiv 2207.04380): every true loss atom ``l`` in a grid cell ``[e_i, e_{i+1})`` is split between
  ``e_i`` and ``e_{i+1}`` so that both its P-mass and its Q-mass are preserved. In ``x = e^eps``
  the hockey stick ``delta(x) = E_Q[(P/Q - x)_+]`` is convex and the split replaces it by its chord
  interpolation at the grid points, which lies above it. A pair dominating another at every level
  keeps dominating it after T-fold composition (Blackwell: it is a post-processing of the
  dominating pair; Dong, Roth & Su 2019, Lemma on tensor products of trade-off functions).
  Losses above the top grid point go to ``+inf`` (contribute their whole P-mass), losses below
  the bottom grid point are rounded up to it.
* **lower** - post-processing: the output line is cut into intervals chosen (by root finding) so
  that each interval's own loss ``log(P(I)/Q(I))`` is at least a grid value plus ``MARGIN`` and
  is then rounded DOWN to that grid value (a pointwise smaller loss can only lower delta). The
  quantised mechanism is a post-processing of the true one, so its composed hockey stick is
  smaller. The far tail whose loss tends to ``-inf`` (remove direction) is dropped.
* composition truncates to a window ``[lo, hi]`` of losses after every convolution: upper bound:
  mass above ``hi`` goes to ``+inf``, mass below ``lo`` is rounded up to ``lo``; lower bound:
  mass above ``hi`` is rounded down to ``hi``, mass below ``lo`` is dropped. Both keep the bound.

Float64 round-off: the one-step masses come from normal CDFs (relative error about 1e-15;
the clipped cancellations ``x Q - P`` lose at most 1e-12 relative) and the FFT convolutions leave
errors of order 1e-18 per grid cell (``fft_roundoff`` measures it against an exact
``np.convolve``). They are covered by reading the lower epsilon at ``delta (1 + ROUNDOFF)`` and the
upper at ``delta (1 - ROUNDOFF)``, after checking that the drift of the total mass is inside that
allowance.

Cost: about ``(window width / h) log(window width / h)`` per convolution and ``2 log2 T``
convolutions; one bracket at ``h = 1e-4`` takes a few seconds.
"""

import math
import time

import numpy as np
from scipy import optimize, special

from dpproofs.math.roots import bisect_predicate

__all__ = [
    "DiscretePLD",
    "MARGIN",
    "DEFAULT_STEP",
    "DEFAULT_WINDOW",
    "TAIL",
    "sampled_gaussian_pld",
    "symmetrised",
    "ROUNDOFF",
    "auto_window",
    "epsilon_bracket",
    "epsilon_bracket_curve",
    "fft_roundoff",
]

#: Default loss grid spacing h.
DEFAULT_STEP = 1e-4
#: Default (smallest) truncation window of the composed loss, (lo, hi); :func:`auto_window` widens it. For q = 0.01, sigma = 4 and
#: T = 40 000 the composed loss has mean about +-0.13 and standard deviation about 0.5, so both
#: ends are more than 20 standard deviations away; whatever lies beyond is handled rigorously.
DEFAULT_WINDOW = (-10.0, 15.0)
#: Gap kept between an interval's computed loss and the grid value it is rounded down to (lower
#: bound): float64 evaluation of ``log(P(I)/Q(I))`` is accurate to about 1e-12 absolute here,
#: so rounding a value that is >= grid + MARGIN down to the grid can never round up.
MARGIN = 1e-9
#: Probability below which a far tail is sent to +inf (upper) or dropped (lower).
TAIL = 1e-30
#: Relative allowance on delta for float64 round-off of the FFT convolutions: the lower epsilon is
#: read at delta (1 + ROUNDOFF), the upper at delta (1 - ROUNDOFF). Clipping the FFT's negative
#: outputs adds about half of the absolute round-off as extra mass; that drift is measured (about
#: 2e-11 after 10 000 steps, 5e-11 after 40 000 at h = 1e-4) and twice it must stay below
#: ROUNDOFF * delta (1e-9 at delta = 1e-5), which the code checks. Moving delta by 1e-4 relative
#: moves epsilon by about 2e-5 here, ten times less than the discretisation width.
ROUNDOFF = 1e-4


class DiscretePLD:
    """A privacy-loss distribution on the grid ``{k h}``: P-masses ``masses[i]`` at loss
    ``(offset + i) h`` plus ``infinity``, the P-mass at loss ``+inf``. ``bound`` is "upper" or
    "lower" and fixes how truncation rounds (see the module docstring). Total mass may be < 1
    for a lower bound (dropped mass has loss -inf)."""

    def __init__(self, step, offset, masses, infinity, bound, dropped=0.0):
        if bound not in ("upper", "lower"):
            raise ValueError(f"bound={bound!r} must be 'upper' or 'lower'")
        self.dropped = float(dropped)  # mass given loss -inf by truncation (lower bound; bookkeeping only)
        self.step = float(step)
        self.offset = int(offset)
        self.masses = np.asarray(masses, dtype=np.float64)
        self.infinity = float(infinity)
        self.bound = bound

    def losses(self):
        """The grid losses of :attr:`masses`."""
        return (self.offset + np.arange(len(self.masses))) * self.step

    def delta(self, epsilon):
        """``sum_k p_k (1 - e^{eps - l_k})_+ + infinity``: the hockey stick at ``e^eps``."""
        losses = self.losses()
        above = losses > epsilon
        return float(self.infinity + np.sum(self.masses[above] * -np.expm1(epsilon - losses[above])))

    def epsilon(self, delta):
        """Smallest ``eps`` (any real) with ``delta(eps) <= delta``, solved exactly between grid
        points: on ``[l_j, l_{j+1})`` ``delta(eps) = inf + S_p - e^eps S_q`` with tail sums
        ``S_p = sum_{k>j} p_k`` and ``S_q = sum_{k>j} p_k e^{-l_k}``."""
        if self.infinity > delta:
            return math.inf
        losses = self.losses()
        p = self.masses
        # tail sums from the top: T_p[j] = sum_{k >= j} p_k, T_q[j] = sum_{k >= j} p_k e^{-l_k}
        shift = losses[-1] if len(losses) else 0.0
        t_p = np.cumsum(p[::-1])[::-1]
        t_q = np.cumsum((p * np.exp(shift - losses))[::-1])[::-1]  # scaled by e^{shift}
        values = self.infinity + t_p - t_q * np.exp(losses - shift)  # delta at eps = l_j (left limit)
        # delta(eps) is non-increasing; find the last grid point where it still exceeds delta
        over = np.flatnonzero(values > delta)
        if len(over) == 0:
            return -math.inf if self.infinity + t_p[0] <= delta else float(losses[0])
        j = over[-1]
        if j + 1 >= len(losses):
            s_p, s_q = 0.0, 0.0
        else:
            s_p, s_q = t_p[j + 1], t_q[j + 1] * math.exp(-shift)
        # on [l_j, l_{j+1}) the atoms above eps are those with index > j
        if s_q <= 0:
            return float(losses[j + 1]) if j + 1 < len(losses) else float(losses[j])
        value = math.log((self.infinity + s_p - delta) / s_q) if self.infinity + s_p > delta else -math.inf
        return float(min(max(value, losses[j]), losses[j + 1] if j + 1 < len(losses) else math.inf))

    def total(self):
        return float(np.sum(self.masses) + self.infinity)

    def _truncate(self, window):
        lo = math.floor(window[0] / self.step)
        hi = math.ceil(window[1] / self.step)
        start, stop = self.offset, self.offset + len(self.masses) - 1
        masses, infinity, dropped = self.masses, self.infinity, self.dropped
        if start < lo:
            cut = lo - start
            below = float(np.sum(masses[:cut]))
            masses = masses[cut:].copy()
            if self.bound == "upper":
                masses[0] += below  # rounded up to lo
            else:
                dropped += below  # loss -inf
            start = lo
        if stop > hi:
            cut = stop - hi
            above = float(np.sum(masses[len(masses) - cut:]))
            masses = masses[: len(masses) - cut].copy()
            if self.bound == "upper":
                infinity += above  # sent to +inf
            else:
                masses[-1] += above  # rounded down to hi
        return DiscretePLD(self.step, start, masses, infinity, self.bound, dropped)

    def compose(self, other, window=DEFAULT_WINDOW):
        """The PLD of the composition (independent losses add), truncated to ``window``."""
        if other.step != self.step or other.bound != self.bound:
            raise ValueError("compose needs the same grid step and bound")
        n = len(self.masses) + len(other.masses) - 1
        size = 1 << (n - 1).bit_length()
        product = np.fft.irfft(np.fft.rfft(self.masses, size) * np.fft.rfft(other.masses, size), size)[:n]
        np.maximum(product, 0.0, out=product)  # FFT round-off can leave ~1e-20 negatives
        finite_self, finite_other = float(np.sum(self.masses)), float(np.sum(other.masses))
        infinity = (self.infinity * (finite_other + other.infinity) + other.infinity * finite_self)
        dropped = self.dropped * (other.total() + other.dropped) + other.dropped * self.total()
        result = DiscretePLD(self.step, self.offset + other.offset, product, infinity, self.bound, dropped)
        return result._truncate(window)

    def self_compose(self, count, window=DEFAULT_WINDOW):
        """``count``-fold composition by repeated squaring (``2 log2 count`` convolutions)."""
        if count < 1:
            raise ValueError(f"count={count!r} must be >= 1")
        result, power = None, self._truncate(window)
        while True:
            if count & 1:
                result = power if result is None else result.compose(power, window)
            count >>= 1
            if not count:
                return result
            power = power.compose(power, window)


# --- one step of the sampled Gaussian --------------------------------------------------------
#
# Both directions are written on a line u along which the loss L(u) = log(dP/dQ)(u) increases:
#   add:    u = z,  P = (1-q) N(0) + q N(1),  Q = N(0),
#           L(u) = log(1 - q + q e^{(2u-1)/(2s^2)}),   u(l) = s^2 log((e^l - 1 + q)/q) + 1/2;
#   remove: u = -z, P = N(0),  Q = (1-q) N(0) + q N(-1),
#           L(u) = -log(1 - q + q e^{(-2u-1)/(2s^2)}), u(l) = -s^2 log((e^-l - 1 + q)/q) - 1/2.


def _normal_mass(a, b, mean, sigma):
    """N(mean, sigma^2) mass of (a, b], using upper tails right of the mean (no cancellation)."""
    x, y = (a - mean) / sigma, (b - mean) / sigma
    if x >= 0:
        return float(special.ndtr(-x) - special.ndtr(-y))
    return float(special.ndtr(y) - special.ndtr(x))


class _Direction:
    def __init__(self, q, sigma, direction):
        self.q, self.sigma, self.direction = float(q), float(sigma), direction
        if direction == "add":
            self.p_parts, self.q_parts = ((1 - q, 0.0), (q, 1.0)), ((1.0, 0.0),)
            self.min_loss, self.max_loss = math.log1p(-q), math.inf
        elif direction == "remove":
            self.p_parts, self.q_parts = ((1.0, 0.0),), ((1 - q, 0.0), (q, -1.0))
            self.min_loss, self.max_loss = -math.inf, -math.log1p(-q)
        else:
            raise ValueError(f"direction={direction!r} must be 'add' or 'remove'")

    def loss(self, u):
        s2 = self.sigma**2
        if self.direction == "add":
            return math.log1p(self.q * math.expm1((2 * u - 1) / (2 * s2)))
        return -math.log1p(self.q * math.expm1((-2 * u - 1) / (2 * s2)))

    def position(self, level):
        """u with L(u) = level (-inf / +inf outside the loss range)."""
        s2, q = self.sigma**2, self.q
        if self.direction == "add":
            if level <= self.min_loss:
                return -math.inf
            return s2 * math.log((math.expm1(level) + q) / q) + 0.5
        if level >= self.max_loss:
            return math.inf
        return -s2 * math.log((math.expm1(-level) + q) / q) - 0.5

    def mass(self, parts, a, b):
        return sum(w * _normal_mass(a, b, m, self.sigma) for w, m in parts)

    def masses(self, a, b):
        return self.mass(self.p_parts, a, b), self.mass(self.q_parts, a, b)

    def tail_position(self, tail, side):
        """A u beyond which (side=+1: above, -1: below) both P and Q have mass < tail."""
        z = -special.ndtri(tail)  # N(0,1) upper quantile
        means = [m for _, m in self.p_parts + self.q_parts]
        return (max(means) + z * self.sigma) if side > 0 else (min(means) - z * self.sigma)


def _connect_the_dots(d, step, tail):
    """Upper-bound PLD: chord interpolation of the hockey stick at the grid (module docstring)."""
    low_loss = d.min_loss if d.min_loss > -math.inf else d.loss(d.tail_position(tail, -1))
    high_loss = d.max_loss if d.max_loss < math.inf else d.loss(d.tail_position(tail, +1))
    ks = np.arange(math.floor(low_loss / step), math.ceil(high_loss / step) + 1)
    grid = ks * step
    x = np.exp(grid)
    cuts = [d.position(level) for level in grid]  # cell i = (cuts[i], cuts[i+1]]: losses in [grid[i], grid[i+1])
    p = np.zeros(len(grid))
    p[0] = d.masses(-math.inf, cuts[0])[0]  # losses below grid[0]: rounded up to it
    infinity = d.masses(cuts[-1], math.inf)[0]  # losses above grid[-1]: sent to +inf
    for i in range(len(grid) - 1):
        pa, qa = d.masses(cuts[i], cuts[i + 1])
        dx = x[i + 1] - x[i]
        # Q-mass of the cell split between grid[i] and grid[i+1], preserving P- and Q-mass; both
        # parts are integrals of non-negative functions, clipped at 0 against float cancellation
        q_left = max(x[i + 1] * qa - pa, 0.0) / dx
        q_right = max(pa - x[i] * qa, 0.0) / dx
        p[i] += x[i] * q_left
        p[i + 1] += x[i + 1] * q_right
    return DiscretePLD(step, int(ks[0]), p, infinity, "upper")


def _binned(d, step, tail):
    """Lower-bound PLD: intervals whose own loss is a grid value (+MARGIN), rounded down."""
    if d.min_loss == -math.inf:  # remove direction: the far tail with loss -> -inf is dropped
        left = d.tail_position(tail, -1)
        left_loss = d.loss(left)
    else:
        left, left_loss = -math.inf, d.min_loss
    stop = d.tail_position(tail, +1)
    atoms = {}

    def add_atom(k, mass):
        atoms[k] = atoms.get(k, 0.0) + mass

    while True:
        rest_p, rest_q = d.masses(left, math.inf)
        rest_loss = math.log(rest_p / rest_q) if rest_p > 0 and rest_q > 0 else math.inf
        k = math.floor((left_loss + MARGIN) / step) + 1
        if k * step - left_loss < step / 4:  # a target this close to L(left) may need an interval
            k += 1                           # reaching into underflow; the next grid value is as good
        target = k * step + MARGIN
        if left >= stop or rest_p < tail or rest_loss <= target:
            if rest_p > 0:  # the last interval (left, inf), its loss rounded down
                add_atom(math.floor(min(rest_loss, d.max_loss) / step) if rest_loss < math.inf
                         else math.floor(left_loss / step), rest_p)
            break

        def gap(b, left=left, target=target):
            pb, qb = d.masses(left, b)
            if pb <= 0 or qb <= 0:  # underflow far in a tail: the root lies further right
                return -1.0
            return math.log(pb / qb) - target

        low = d.position(target)  # L(low) = target > every loss in (left, low]: gap(low) < 0
        high = max(stop, low) + d.sigma
        if gap(high) <= 0:  # only the far tail lifts the rest above target: one last interval
            add_atom(math.floor(min(rest_loss, d.max_loss) / step), rest_p)
            break
        right = optimize.brentq(gap, low, high, xtol=1e-13, rtol=1e-15, maxiter=300)
        pb, qb = d.masses(left, right)
        if math.log(pb / qb) < k * step + MARGIN / 2:  # never round up (see MARGIN)
            raise ArithmeticError(f"interval loss {math.log(pb / qb)!r} too close to {k * step!r}")
        add_atom(k, pb)
        left, left_loss = right, d.loss(right)
    ks = sorted(atoms)
    masses = np.zeros(ks[-1] - ks[0] + 1)
    for k in ks:
        masses[k - ks[0]] += atoms[k]
    return DiscretePLD(step, ks[0], masses, 0.0, "lower")


def sampled_gaussian_pld(q, sigma, *, step=DEFAULT_STEP, direction="add", bound="upper", tail=TAIL):
    """One-step discrete PLD of the sampled Gaussian that bounds the true one from ``bound``'s side."""
    d = _Direction(q, sigma, direction)
    if bound == "upper":
        return _connect_the_dots(d, step, tail)
    if bound == "lower":
        return _binned(d, step, tail)
    raise ValueError(f"bound={bound!r} must be 'upper' or 'lower'")


def _bracket_row(count, q, sigma, delta, step, window, found):
    add, remove = found["add"], found["remove"]
    lower = max(add["lower"], remove["lower"])
    upper = max(add["upper"], remove["upper"])
    return {
        "steps": count, "q": q, "sigma": sigma, "delta": delta, "grid_step": step,
        "window": list(window), "lower": lower, "upper": upper, "width": upper - lower,
        "add": add, "remove": remove,
    }


def _epsilon_with_allowance(composed, reference_total, delta):
    """epsilon of a composed PLD at ``delta`` moved by the FFT round-off allowance: the lower bound
    is read at ``delta (1 + ROUNDOFF)``, the upper at ``delta (1 - ROUNDOFF)``. The measured drift of
    the total mass (clipping of negative FFT outputs) must stay inside the allowance."""
    drift = abs(composed.total() + composed.dropped - reference_total)
    if 2 * drift > ROUNDOFF * delta:
        raise ArithmeticError(f"FFT mass drift {drift:.3g} exceeds the allowance {ROUNDOFF * delta:.3g}")
    factor = 1 + ROUNDOFF if composed.bound == "lower" else 1 - ROUNDOFF
    return composed.epsilon(delta * factor)


def auto_window(one_step_plds, count):
    """A truncation window for ``count`` steps: the composed loss's mean +- (20 standard deviations
    + 1), taking the widest of the one-step PLDs (whatever falls outside is handled rigorously)."""
    lo, hi = math.inf, -math.inf
    for one in one_step_plds:
        losses, p = one.losses(), one.masses
        total = float(np.sum(p))
        mean = float(np.sum(p * losses)) / total
        var = float(np.sum(p * (losses - mean) ** 2)) / total
        spread = 20 * math.sqrt(count * var) + 1
        lo, hi = min(lo, count * mean - spread), max(hi, count * mean + spread)
    return (lo, hi)


def epsilon_bracket(q, sigma, steps, delta, *, step=DEFAULT_STEP, window=None):
    """``{"lower", "upper", "width", "add": {...}, "remove": {...}, "seconds", ...}``: the tight
    epsilon of ``steps`` sampled-Gaussian steps at ``delta`` lies in ``[lower, upper]`` (max over
    the two directions). ``steps`` may be a list: one bracket per entry."""
    single = isinstance(steps, int)
    counts = [steps] if single else list(steps)
    started = time.perf_counter()
    found = {count: {"add": {}, "remove": {}} for count in counts}
    ones = {(direction, bound): sampled_gaussian_pld(q, sigma, step=step, direction=direction, bound=bound)
            for direction in ("add", "remove") for bound in ("upper", "lower")}
    windows = {count: window or auto_window(ones.values(), count) for count in counts}
    for (direction, bound), one in ones.items():
        for count in counts:
            composed = one.self_compose(count, windows[count])
            found[count][direction][bound] = _epsilon_with_allowance(composed, one.total() ** count, delta)
    seconds = time.perf_counter() - started
    rows = [dict(_bracket_row(c, q, sigma, delta, step, windows[c], found[c]), seconds=seconds) for c in counts]
    return rows[0] if single else rows


def epsilon_bracket_curve(q, sigma, delta, base_steps, multiples, *, step=DEFAULT_STEP, window=DEFAULT_WINDOW):
    """Brackets at ``base_steps * m`` for ``m = 1 .. multiples``: the ``base_steps``-fold PLD is
    composed once and then added one block at a time (one convolution per point)."""
    started = time.perf_counter()
    found = {m: {"add": {}, "remove": {}} for m in range(1, multiples + 1)}
    for direction in ("add", "remove"):
        for bound in ("upper", "lower"):
            one = sampled_gaussian_pld(q, sigma, step=step, direction=direction, bound=bound)
            block = one.self_compose(base_steps, window)
            composed = block
            for m in range(1, multiples + 1):
                if m > 1:
                    composed = composed.compose(block, window)
                reference = one.total() ** (base_steps * m)
                found[m][direction][bound] = _epsilon_with_allowance(composed, reference, delta)
    seconds = time.perf_counter() - started
    return [
        dict(_bracket_row(base_steps * m, q, sigma, delta, step, window, found[m]), seconds=seconds)
        for m in range(1, multiples + 1)
    ]


def fft_roundoff(q=0.01, sigma=4.0, *, step=DEFAULT_STEP, count=64):
    """Largest absolute difference, over grid cells, between the FFT and an exact ``np.convolve``
    ``count``-fold composition (powers of two) of the upper-bound PLD: the float64 round-off that
    the bracket does not include."""
    one = sampled_gaussian_pld(q, sigma, step=step, direction="add", bound="upper")
    wide = (-1e9, 1e9)
    fft, exact = one, one
    steps = 1
    while steps < count:
        fft = fft.compose(fft, wide)
        exact = DiscretePLD(step, 2 * exact.offset, np.convolve(exact.masses, exact.masses), 0.0, "upper")
        steps *= 2
    n = min(len(fft.masses), len(exact.masses))
    return float(np.max(np.abs(fft.masses[:n] - exact.masses[:n])))


# =============================================================================================
# Vectorised certified discretisation and Fourier-domain composition (used by dpproofs.accountant.pld.accountant)
# =============================================================================================
#
# Representation. A discrete "PLD" here is a finite non-negative measure ``w`` on losses ``l_k``
# (P-masses) plus a P-mass ``infinity`` at loss +inf. Its hockey stick is
#     delta(eps) = infinity + sum_k w_k (1 - e^{eps - l_k})_+ ,
# and the hockey stick of a composition of independent steps is the same expectation over the sum
# of the losses, E[(1 - e^{eps - L_1 - ... - L_T})_+]. That expression is non-decreasing in every
# mass and in every loss. Hence (no normalisation needed):
#   * any measure obtained by ADDING mass or moving loss UP keeps an upper bound,
#   * any measure obtained by REMOVING mass or moving loss DOWN keeps a lower bound,
# through any number of compositions. Every float error below is turned into such a move.
#
# One step (a neighbouring pair P, Q written on a line u along which L(u) = log dP/dQ increases):
#   * upper, "connect the dots" (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022,
#     arXiv:2207.04380v1, Sec. 3): the outputs with loss in [l_i, l_{i+1}) (P-mass P_i, Q-mass
#     Q_i) are split between l_i and l_{i+1} preserving both masses; in x = e^loss under Q this is
#     a mean-preserving spread, and delta(eps) = E_Q[(X - e^eps)_+] is convex in X, so the split
#     dominates, and domination survives composition (a coordinatewise spread of a product
#     measure; Jensen coordinate by coordinate). Split P-masses:
#        left  = (e^h Q'_i - P_i) / expm1(h),   right = e^h (P_i - Q'_i) / expm1(h),  Q'_i = e^{l_i} Q_i.
#   * lower, "own loss on a shifted grid": the same cells, each replaced by ONE atom at its own
#     loss log(P_i / Q_i) (a contraction under Q: Jensen the other way), then moved DOWN to the
#     shifted grid point l_i + rho (or l_{i-1} + rho when the own loss is below l_i + rho). rho is
#     one constant per one-step PLD, so the composed lower PLD lives on the uniform grid
#     {k h + sum_j n_j rho_j}; since own losses sit near the cell middle, the moves are O(h^2).
#
# Composition (one forward real FFT per distinct one-step PLD, a pointwise power, one inverse
# FFT) on a cyclic window [lo, lo + N h) after exponential tilting: the one-step masses are
# multiplied by e^{theta l} / M(theta) (M the discrete moment generating function, so the tilted
# measure is a probability), which commutes with convolution (losses add); the composed true
# masses are z_k e^{K - theta l_k}, K = sum_j n_j log M_j(theta). The tilt makes the absolute FFT
# round-off small relative to delta near the answer (it is the Chernoff scaling); any theta >= 0 is
# correct. Tilted mass outside the window (Chernoff bounds of the tilted discrete measure) wraps
# around; it is added (upper: contributes >= 0, plus the bound of the P-mass above the window) or
# subtracted (lower) as a bound.

# The neighbouring pairs a mechanism describes itself by (GaussianPair, TwoSidedGaussianPair,
# LaplacePair, FinitePair), with their certified cell masses, live in the math layer
# (dpproofs.math.pairs): the mechanisms build them, this module discretises them.
from dpproofs.math.pairs import (  # noqa: E402 (re-exported: the pairs' public home is dpproofs.math.pairs)
    NDTR_RELATIVE,
    UNIT,
    FinitePair,
    GaussianPair,
    LaplacePair,
    TwoSidedGaussianPair,
    _edge_ratio,
    _vec_normal_mass,
)

#: Tilted-measure mass allowed outside the composition window (each side).
WINDOW_TAIL = 1e-20


class OneStep:
    """A one-step discrete PLD: P-masses ``masses[i]`` at loss ``(offset + i) step + shift``, P-mass
    ``infinity`` at +inf; ``bound`` 'upper' or 'lower' (see the section comment)."""

    def __init__(self, step, offset, shift, masses, infinity, bound):
        self.step, self.offset, self.shift = float(step), int(offset), float(shift)
        self.masses = np.asarray(masses, dtype=np.float64)
        self.infinity, self.bound = float(infinity), bound

    def losses(self):
        return (self.offset + np.arange(len(self.masses))) * self.step + self.shift

    def log_mgf(self, thetas):
        """log sum_k w_k e^{theta l_k} for each theta (finite part only), exactly as float
        log-sum-exp (used for the tilt and for Chernoff windows, never for a bound's value
        without its own error allowance)."""
        keep = self.masses > 0
        logw, l = np.log(self.masses[keep]), self.losses()[keep]
        thetas = np.atleast_1d(np.asarray(thetas, dtype=np.float64))
        e = logw[None, :] + thetas[:, None] * l[None, :]
        top = e.max(axis=1)
        return top + np.log(np.sum(np.exp(e - top[:, None]), axis=1))


def symmetrised(one):
    """The symmetrised pair of an upper one-step PLD ``U`` (replace-one; docs/math.md, "Replace-one
    neighbours"): U's P-masses on losses ``l > 0`` and at ``+inf``; at ``-l`` the mirrored mass
    ``e^{-l} w`` (rounded down); the rest of the unit mass at loss 0 (rounded up). Returns None
    when U's positive part is too heavy for a symmetric pair (``sum w (1 + e^{-l}) + inf > 1``).

    Why it is an upper bound: a symmetric pair ``S`` (``S ~ swap(S)``) has P-mass ``e^{-l} w`` at
    ``-l`` whenever it has ``w`` at ``l``, so its hockey stick at ``eps >= 0`` uses only the losses
    ``> eps`` (U's), and at ``eps < 0`` it is ``1 - e^eps + e^eps delta_S(-eps)``. Hence ``S``
    dominates, at every ``eps`` in R, every pair whose profile in BOTH orders is below U's at
    ``eps >= 0``. Rounding the mirrored masses down moves mass from ``-l`` up to 0, and the margin
    on the mass at 0 only adds mass: both keep an upper bound (section comment below)."""
    if one.bound != "upper" or one.shift != 0.0:
        raise ValueError("symmetrised() takes an upper one-step PLD on the grid {k h}")
    k = one.offset + np.arange(len(one.masses))
    positive = (k > 0) & (one.masses > 0)
    kp, wp = k[positive], one.masses[positive]
    top = int(kp.max()) if len(kp) else 1
    masses = np.zeros(2 * top + 1)  # index j <-> loss (j - top) h
    masses[kp + top] = wp
    mirror = wp * np.exp(-kp * one.step) * (1 - 4 * UNIT)
    masses[top - kp] = mirror
    rest = 1.0 - one.infinity - (math.fsum(wp) + math.fsum(mirror))
    if rest < 0:
        return None
    # 1 - (sums) is exact up to three roundings of numbers <= 1: an absolute 4 ulp covers them
    masses[top] = rest + 4 * UNIT
    return OneStep(one.step, -top, 0.0, masses, one.infinity, "upper")


def _atoms_into_cells(pair, grid, p, q, ep, eq):
    """Add the pair's atoms to the cells [grid[i], grid[i+1]) (exact P, Q = P e^{-l})."""
    for loss, weight in pair.atoms:
        i = int(np.searchsorted(grid, loss, side="right")) - 1
        i = min(max(i, 0), len(p) - 1)
        p[i] += weight
        q[i] += weight * math.exp(-loss)
        ep[i] += 4 * UNIT * weight
        eq[i] += 4 * UNIT * weight * math.exp(-loss)


def discretise(pair, step, bound, tail_z=38.0):
    """The one-step discrete PLD of ``pair`` on the grid ``{k step}`` bounding it from ``bound``'s
    side (section comment). Outputs beyond ``tail_z`` noise standard deviations: upper: mass below
    the grid rounded up to its bottom, mass above sent to +inf; lower: dropped."""
    low, high = pair.loss_range(tail_z)
    k0 = math.floor(low / step) - 1
    k1 = math.ceil(high / step) + 1
    if pair.atoms:
        k0 = min(k0, math.floor(pair.min_loss / step) - 1)
        k1 = max(k1, math.ceil(pair.max_loss / step) + 1)
    ks = np.arange(k0, k1 + 1)
    grid = ks * step
    p, q, ep, eq, below, above = pair.cell_masses(grid)
    p, q, ep, eq = p.copy(), q.copy(), ep.copy(), eq.copy()
    _atoms_into_cells(pair, grid, p, q, ep, eq)
    em1 = math.expm1(step)
    eh = math.exp(step)
    if bound == "upper":
        x = np.exp(grid[:-1])
        qx, eqx = x * q, x * eq * (1 + 4 * UNIT) + 4 * UNIT * x * q
        # edge rounding (see _edge_ratio): a margin of 4 ratio (P + Q') on both split masses
        ratio = getattr(pair, "edge_ratio", None)
        margin = 0.0 if ratio is None or len(ratio) != len(p) else 4 * np.minimum(ratio, 1.0) * (p + qx) * eh / em1
        # the right part at its largest, the left part the rest of the cell's largest P-mass: the
        # exact split moved UP (right grows) plus extra mass (the cell's mass error), both keep an
        # upper bound; the cell's total is then P + its error, not P + 2 error / h as when each
        # part carries the error of the cancelling difference (that made T-fold masses drift)
        right_core = np.maximum(eh * ((p + ep) - (qx - eqx)), 0.0) / em1 * (1 + 8 * UNIT)
        left = np.maximum((p + ep) * (1 + 4 * UNIT) - right_core, 0.0) + margin
        right = right_core + margin
        masses = np.zeros(len(grid))
        masses[:-1] += left
        masses[1:] += right
        masses[0] += (below[0] + below[1]) * (1 + 4 * UNIT)  # rounded up to the bottom
        infinity = (above[0] + above[1]) * (1 + 4 * UNIT)
        return OneStep(step, k0, 0.0, masses, infinity, "upper")
    # lower: cells whose own loss sits near the middle of [l_i, l_{i+1}): one correction pass moves
    # each inner edge by the mean deviation (own loss - cell middle) of its two neighbours, which
    # leaves deviations of second order; any edges give a valid lower bound (only the size of the
    # downward moves depends on them)
    with np.errstate(divide="ignore", invalid="ignore"):
        own0 = np.log(p / q)
    dev = np.where(np.isfinite(own0), own0 - (grid[:-1] + step / 2), 0.0)
    dev = np.clip(dev, -step / 4, step / 4)
    edges = grid.copy()
    edges[1:-1] -= (dev[:-1] + dev[1:]) / 2
    edges = np.maximum.accumulate(edges)
    p, q, ep, eq, _, _ = pair.cell_masses(edges)
    p, q, ep, eq = p.copy(), q.copy(), ep.copy(), eq.copy()
    _atoms_into_cells(pair, edges, p, q, ep, eq)
    p_low = p - ep
    q_high = q + eq
    ok = (p_low > 0) & (q_high > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        own = np.where(ok, np.log(p_low / q_high), -np.inf)
    # true own loss >= log(p_low / q_high) >= the float value minus 4 ulp (log of a ratio)
    rel = own - grid[:-1] - 4 * UNIT * (np.abs(own) + np.abs(grid[:-1]) + 1)
    # an own loss lies below the cell's top edge, which is below l_{i+1} + step/4
    rel = np.where(ok, np.minimum(rel, 1.25 * step), -np.inf)
    rho = _best_shift(rel, np.where(ok, p_low, 0.0), step)
    idx = np.arange(len(rel))
    # atom i goes to the largest grid point l_j + rho <= own loss: j = i + floor((rel - rho)/step)
    index = idx + np.floor(np.where(ok, rel - rho, 0.0) / step).astype(np.int64)
    keep = ok & (index >= 0)
    masses = np.zeros(len(grid) + 2)
    np.add.at(masses, index[keep] + 1, p_low[keep])
    return OneStep(step, k0 - 1, rho, masses, 0.0, "lower")


def _best_shift(rel, weight, step):
    """The shift rho in [0, step) minimising the expected downward move
    E[rel - rho] + step P(rel < rho) (weights ``weight``), over candidate values of ``rel``."""
    good = np.isfinite(rel) & (weight > 0)
    r, w = rel[good], weight[good]
    if len(r) == 0:
        return 0.0
    r = np.clip(r, 0.0, step)
    order = np.argsort(r)
    r, w = r[order], w[order]
    below = np.concatenate(([0.0], np.cumsum(w)[:-1]))  # weight strictly below candidate r_j
    cost = -r + step * below / w.sum()
    return float(r[int(np.argmin(cost))])


def _norm(x):
    """Euclidean norm of a real array (sum of squares; relative error <= n u, absorbed by the
    factor 1 + 1e-6 since n <= 2**26)."""
    return math.sqrt(float(np.einsum("i,i->", x, x))) * (1 + 1e-6)


def _fft_constant(size):
    """``a`` with ``||fl(FFT x) - FFT x||_2 <= a ||FFT x||_2`` for transforms of length ``size``:
    Higham, Accuracy and Stability of Numerical Algorithms (2nd ed. 2002), Theorem 24.2 (radix-2
    Cooley-Tukey): ``log2(n) eta / (1 - log2(n) eta)``, ``eta = mu + gamma_4 (sqrt 2 + mu)``, with
    ``mu = 2u`` for the twiddle factors. numpy/scipy's pocketfft uses radix-4 and radix-2 passes
    on powers of two; we double ``log2(n)`` as a margin for that (an assumption, stated)."""
    u = UNIT
    mu = 2 * u
    eta = mu + (4 * u / (1 - 4 * u)) * (math.sqrt(2) + mu)
    stages = 2 * math.log2(size)
    return stages * eta / (1 - stages * eta)


#: Bound on the relative error, in units of UNIT, of one decay factor exp(-rate i) of
#: :func:`_damped_suffix` (|rate i| <= 300 within a block): the exponent's rounding (relative u
#: on the product rate * width, again on the product with k, once on the fine ramp: <= 3 * 300 u),
#: numpy's exp (a few u) and the product of the ramps (u), rounded up.
DECAY_FACTOR_ERROR = 1000


def suffix_sum_error(count, rate):
    """Relative error bound, for positive ``z``, of :func:`_damped_suffix` over ``count`` cells at
    ``rate``: sums of positives, each term through <= 2 count roundings ((1 + 2u)^(2 count) - 1 <=
    4.4 count u), and through at most ``blocks + 2`` decay factors (its weight, the carry of each
    later block, the final rescaling), each within DECAY_FACTOR_ERROR u. (Without the second part
    the bound fails: at 32 cells and rate 9.2 the sums err by 167 u against 4.4 * 32 u + 1e-15.)"""
    blocks = math.ceil(count * rate / 300) if count else 0
    return 4.4 * count * UNIT + (blocks + 2) * DECAY_FACTOR_ERROR * UNIT + 1e-15


def _decay_ramp(rate, count):
    """``exp(-rate i)`` for ``i = 0 .. count-1`` as an outer product of two short ramps (about
    2 sqrt(count) exponentials instead of ``count``). Each entry's relative error is at most about
    ``(3 |rate i| + 10) u``: the rounding of the exponent dominates (measured up to 1.6 |rate i| u;
    ``np.exp(-rate * arange)`` itself measured 1.3 |rate i| u), see :data:`DECAY_FACTOR_ERROR`.
    Needs ``rate * count <= ~700``."""
    width = max(1, math.isqrt(max(count - 1, 0)) + 1)
    fine = np.exp(-rate * np.arange(width))
    coarse = np.exp(-rate * width * np.arange(-(-count // width)))
    return np.outer(coarse, fine).ravel()[:count]


def _damped_suffix(z, rate):
    """``out[j] = sum_{k > j} z_k e^{-rate (k - j)}`` for ``z >= 0``, ``rate >= 0``: blockwise scaled
    suffix sums (blocks short enough that the scaling stays within e^{+-300})."""
    n = len(z)
    out = np.empty(n)
    block = n if rate * n <= 300 else max(1, int(300 / rate))
    ramp = _decay_ramp(rate, min(block, n))
    carry = 0.0  # sum_{k >= end} z_k e^{-rate (k - end)}
    end = n
    while end > 0:  # in place in ``out`` (fresh temporaries of this size cost page faults)
        start = max(0, end - block)
        decay = ramp[: end - start]
        seg = out[start:end]
        np.multiply(z[start:end], decay, out=seg)
        backwards = seg[::-1]
        np.cumsum(backwards, out=backwards)  # seg[i] = sum_{i' >= i} z_i' decay_i'
        total = float(seg[0])
        seg[:-1] = seg[1:]  # exclusive: sum_{i' > i}
        seg[-1] = 0.0
        # out_i = e^{rate i} (sum_{i' > i} ... + carry e^{-rate (end - start)}): one division
        tail = carry * math.exp(-rate * (end - start))
        seg += tail
        seg /= decay
        carry = total + tail
        end = start
    return out


def _suffix_weight_norm(n, rate):
    """``||w_j||_2`` for ``w_j = (e^{-rate m})_{m = 1 .. n-1-j}``, j = 0 .. n-1 (array), with a
    relative margin of 1e-9 for the float evaluation."""
    m = np.arange(n - 1, -1, -1, dtype=np.float64)  # n - 1 - j
    if rate <= 0:
        return np.sqrt(m) * (1 + 1e-9)
    # sum_{k=1}^{M} r^{2k} = r^2 (1 - r^{2M}) / (1 - r^2), r = e^{-rate}; for 2 rate M > 50 the
    # factor 1 - r^{2M} is 1 to within e^{-50} and is replaced by 1 (an upper bound)
    limit = math.exp(-2 * rate) / -math.expm1(-2 * rate)
    total = np.full(n, limit)
    near = m < 25.0 / rate  # the last entries (j close to n - 1): the partial sums
    total[near] = limit * -np.expm1(-2 * rate * m[near])
    return np.sqrt(total) * (1 + 1e-9)


class Composed:
    """The tilted composed PLD on the window: cell ``k`` has loss ``losses[k]`` and true P-mass
    ``z_k exp(K - theta losses[k])`` where ``|zhat_k - z_k| <= error``. ``wrapped`` bounds the tilted
    mass outside the window (it may have wrapped into cells), ``above`` bounds the true P-mass above
    the window, ``infinity`` the P-mass at +inf. ``bound`` 'upper' or 'lower'."""

    def __init__(self, zhat, first_loss, step, theta, log_scale, error, wrapped, above, infinity, bound):
        self.zhat, self.first_loss, self.step = zhat, float(first_loss), float(step)
        self.theta, self.log_scale, self.error = float(theta), float(log_scale), float(error)
        self.wrapped, self.above, self.infinity, self.bound = float(wrapped), float(above), float(infinity), bound
        # ``error`` bounds the EUCLIDEAN norm of zhat - z (the FFT bounds are normwise), so a
        # weighted sum of the errors is bounded by Cauchy-Schwarz, ||w||_2 error, instead of
        # ||w||_1 error: far tighter when the damping theta h is small. With z+ = max(zhat, 0):
        # z <= z+ + |zhat - z| and z >= z+ - (z+ - zhat) - (zhat - z), both corrections of norm
        # <= error (z >= 0 makes z+ - zhat <= |zhat - z|), so
        #   sum_k w_k z_k in [sum_k w_k z+_k - 2 error ||w||_2, sum_k w_k z+_k + error ||w||_2].
        self.z = np.maximum(zhat, 0.0)
        n = len(self.z)
        # A_j = sum_{k>j} z_k e^{-theta (l_k - l_j)},  B_j = sum_{k>j} z_k e^{-(theta+1)(l_k - l_j)}
        a = _damped_suffix(self.z, self.theta * step)
        b = _damped_suffix(self.z, (self.theta + 1) * step)
        norm_a = _suffix_weight_norm(n, self.theta * step) * error
        norm_b = _suffix_weight_norm(n, (self.theta + 1) * step) * error
        if bound == "upper":
            self.a = a + norm_a
            self.b = np.maximum(b - 2 * norm_b, 0.0)
        else:
            self.a = np.maximum(a - 2 * norm_a, 0.0)
            # terms below 1e-190 may underflow in the blocks: B may only grow
            self.b = b + norm_b + 1e-190 * n
        # the float error of A and B (the larger rate, of B, has the more blocks)
        self.gamma = suffix_sum_error(n, (self.theta + 1) * step)

    def losses(self):
        return self.first_loss + self.step * np.arange(len(self.z))

    def _constant(self):
        """Additive part of delta not carried by the cells (upper: +; lower: subtracted per scale)."""
        return self.infinity + self.above if self.bound == "upper" else 0.0

    def _parts(self):
        g = self.gamma
        if self.bound == "upper":
            return self.a * (1 + g), self.b * (1 - g)
        return self.a * (1 - g) - self.wrapped, self.b * (1 + g)

    def _log_delta_grid(self):
        a, b = self._parts()
        lam = self.losses()
        d = a - b
        with np.errstate(divide="ignore"):
            log_d = np.where(d > 0, np.log(np.maximum(d, 1e-320)), -np.inf)
        log_cells = self.log_scale - self.theta * lam + log_d
        c = self._constant()
        if c > 0:
            return np.logaddexp(log_cells, math.log(c))
        return log_cells

    def delta(self, epsilon):
        """The bound's delta at ``epsilon``."""
        lam0, h = self.first_loss, self.step
        j = math.floor((epsilon - lam0) / h)
        if j < 0:
            if self.bound == "lower":
                return max(0.0, self.delta(lam0))  # delta is non-increasing: a valid lower bound
            # below the window: delta(eps) <= delta(l_0) + the true mass in [eps, l_0), whose
            # tilted mass is at most ``wrapped`` and whose cells weigh at most e^{K - theta eps}
            below = math.exp(min(self.log_scale - self.theta * epsilon, 700.0)) * self.wrapped
            return min(1.0, self.delta(lam0) + below * (1 + 1e-12))
        c = self._constant()
        if j >= len(self.z) - 1:
            return c if self.bound == "upper" else 0.0
        a, b = self._parts()
        lam_j = lam0 + j * h
        t = epsilon - lam_j
        value = a[j] - math.exp(t) * b[j]
        if value <= 0:
            return c if self.bound == "upper" else 0.0
        log_value = self.log_scale - self.theta * lam_j + math.log(value)
        out = (math.exp(log_value) if log_value < 709 else math.inf) + c
        return min(1.0, out) if self.bound == "upper" else max(0.0, min(1.0, out))

    def _log_delta_at(self, j, log_c):
        """log of the bound's delta at the grid loss l_j (float; -inf if zero)."""
        g = self.gamma
        if self.bound == "upper":
            d = self.a[j] * (1 + g) - self.b[j] * (1 - g)
        else:
            d = self.a[j] * (1 - g) - self.wrapped - self.b[j] * (1 + g)
        cells = self.log_scale - self.theta * (self.first_loss + j * self.step) + math.log(d) if d > 0 else -math.inf
        if log_c > -math.inf:
            return float(np.logaddexp(cells, log_c))
        return cells

    def epsilon(self, delta):
        """Smallest epsilon with the bound's delta(epsilon) <= delta (max(., 0)): the last grid
        point where the bound's delta exceeds ``delta`` (one vectorised comparison), then the
        exact solution inside that cell."""
        c = self._constant()
        lam0, h = self.first_loss, self.step
        n = len(self.z)
        # the last grid point where the bound's delta exceeds the target (vectorised; the lower
        # curve need not be monotone where the wrapped-mass allowance dominates, and any point
        # where it exceeds the target is a certified lower bound)
        g = self.gamma
        if self.bound == "upper":
            d = self.a * (1 + g) - self.b * (1 - g)
        else:
            d = self.a * (1 - g) - self.wrapped - self.b * (1 + g)
        positive = d > 0
        # delta(l_j) > target  <=>  log d_j > log(target - c) - (K - theta l_j)
        rest = delta - c
        if rest <= 0:
            return math.inf if self.bound == "upper" else 0.0
        threshold = math.log(rest) - self.log_scale + self.theta * (lam0 + h * np.arange(n))
        with np.errstate(divide="ignore"):
            over = np.flatnonzero(positive & (np.log(np.where(positive, d, 1.0)) > threshold))
        if len(over) == 0:
            return max(0.0, lam0) if self.bound == "upper" else 0.0
        j = int(over[-1])
        if j >= n - 1:
            return math.inf if self.bound == "upper" else max(0.0, lam0 + (n - 1) * h)
        g = self.gamma
        if self.bound == "upper":
            a_j, b_j = self.a[j] * (1 + g), self.b[j] * (1 - g)
        else:
            a_j, b_j = self.a[j] * (1 - g) - self.wrapped, self.b[j] * (1 + g)
        lam_j = lam0 + j * h
        # on [l_j, l_{j+1}): delta = e^{K - theta l_j} (A_j - e^{t} B_j) + c
        rest = delta - c
        log_scale_j = self.log_scale - self.theta * lam_j
        scaled = math.exp(min(math.log(rest) - log_scale_j, 700.0)) if rest > 0 else 0.0
        if b_j <= 0:
            t = h
        else:
            inner = (a_j - scaled) / b_j
            t = math.log(inner) if inner > 0 else h
        t = min(max(t, 0.0), h)
        eps = lam_j + t
        slack = 8 * UNIT * (abs(eps) + abs(lam_j) + 1)
        eps = eps + slack if self.bound == "upper" else eps - slack
        return max(0.0, eps)


def _log_mgf_total(items, thetas):
    return sum(n * one.log_mgf(thetas) for one, n in items)


def choose_tilt(items, *, delta=None, epsilon=None):
    """A tilt theta >= 0: the Chernoff-optimal order of the discrete composed PLD for ``delta``
    (minimising (K(theta) + log(1/delta)) / theta) or for ``epsilon`` (minimising
    K(theta) - theta epsilon). Any theta >= 0 gives correct bounds; this one makes them tight."""
    thetas = np.concatenate(([0.0], np.geomspace(1e-3, 2e3, 85)))
    k = _log_mgf_total(items, thetas)
    if delta is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.where(thetas > 0, (k - math.log(delta)) / thetas, np.inf)
    else:
        score = k - thetas * epsilon
    score = np.where(np.isfinite(score), score, np.inf)
    return float(thetas[int(np.argmin(score))])


def compose_fourier(items, theta, *, max_cells=1 << 22, log_factor=0.0):
    """T-fold composition of ``items`` (a list of ``(OneStep, count)``, one bound, one grid step)
    by one real FFT per item, a pointwise power and one inverse FFT, tilted by ``theta``; every
    mass is multiplied by ``exp(log_factor)`` (a binomial coefficient in :func:`compose_split`).
    Returns a :class:`Composed`, or None if the window needs more than ``max_cells`` cells or the
    round-off bound is useless (then the caller refines or falls back)."""
    items = [(one, int(n)) for one, n in items if n > 0]
    bound = items[0][0].bound
    step = items[0][0].step
    shift = sum(n * one.shift for one, n in items)
    offset = sum(n * one.offset for one, n in items)
    infinity = min(1.0, sum(n * one.infinity for one, n in items))
    log_m = [float(one.log_mgf([theta])[0]) for one, _ in items]
    log_scale = sum(n * lm for (one, n), lm in zip(items, log_m)) + float(log_factor)
    tilted = []
    mean = var = 0.0
    for (one, n), lm in zip(items, log_m):
        l = one.losses()
        with np.errstate(divide="ignore"):
            x = np.exp(np.log(one.masses) + theta * l - lm)
        tilted.append(x)
        m1 = float(np.sum(x * l))
        mean += n * m1
        var += n * float(np.sum(x * (l - m1) ** 2))
    sd = math.sqrt(max(var, step**2))
    k0 = _log_mgf_total(items, [theta])[0]
    # candidate Chernoff parameters: the Gaussian-like scale 1/sd, and down to O(1) for one-step
    # distributions with rare large losses (their composed tail is Poisson-like: the best s is
    # about log(k / (T p)) / L, far below 1/sd)
    s = np.unique(np.concatenate((np.geomspace(0.5, 400.0, 14) / sd, np.geomspace(0.05, 400.0, 24))))
    k_plus = _log_mgf_total(items, theta + s)
    k_minus = _log_mgf_total(items, theta - s)
    log_tail = math.log(WINDOW_TAIL)
    hi = float(np.min((k_plus - k0 - log_tail) / s))
    lo = float(np.max((k0 - k_minus + log_tail) / s))
    hi, lo = max(hi, mean + step), min(lo, mean - step)
    first = math.floor((lo - shift) / step) - offset  # window index relative to the offset sum
    last = math.ceil((hi - shift) / step) - offset
    size = 1 << max(4, (last - first + 1 - 1).bit_length())
    if size > max_cells:
        return None
    lo_loss = (offset + first) * step + shift
    hi_loss = lo_loss + (size - 1) * step
    # tilted tail masses outside the window (Chernoff with the best of the candidate s), with a
    # relative margin for the float evaluation of K
    w_hi = float(np.min(np.exp(np.minimum(k_plus - k0 - s * hi_loss, 700.0)))) * 1.001
    w_lo = float(np.min(np.exp(np.minimum(k_minus - k0 + s * lo_loss, 700.0)))) * 1.001
    from scipy import fft as sfft
    a = _fft_constant(size)
    spectrum = None
    rel = None
    term1 = 0.0
    growth = 1.0
    e_list = []
    for (one, n), x in zip(items, tilted):
        buf = np.zeros(size)
        if len(x) <= size:
            buf[: len(x)] = x
        else:
            pad = (-len(x)) % size
            buf = np.concatenate((x, np.zeros(pad))).reshape(-1, size).sum(axis=0)
        spec = sfft.rfft(buf)
        e = a * math.sqrt(size) * _norm(x)
        e_list.append((e, n))
        r = np.abs(spec)
        phi = np.abs(np.angle(spec))
        with np.errstate(divide="ignore"):
            logr = np.log(np.maximum(r, 1e-300))
        power = np.exp(n * logr + 1j * (n * np.angle(spec)))
        power = np.where(r > 0, power, 0.0)
        this_rel = 8 * UNIT * (n * (np.abs(logr) + phi) + 4)
        spectrum = power if spectrum is None else spectrum * power
        rel = this_rel if rel is None else rel + this_rel + 4 * UNIT
    for e, n in e_list:
        if n * e > 0.5:
            return None
        growth *= (1 + e) ** n
    for e, n in e_list:
        term1 += n * e * growth / (1 + e)
    rel = np.minimum(rel, 1.0)
    spec_err = term1 + math.sqrt(2) * _norm(np.abs(spectrum) * rel * (1 + rel))
    z = sfft.irfft(spectrum, size)
    shift_idx = (first) % size
    z = np.roll(z, -shift_idx)
    error = (spec_err / math.sqrt(size) + a * _norm(z) / (1 - a)) * (1 + 8 * UNIT) + 1e-320
    above = math.exp(min(log_scale - theta * hi_loss, 700.0)) * w_hi if bound == "upper" else 0.0
    return Composed(z, lo_loss, step, theta, log_scale, error, w_lo + w_hi, above, infinity, bound)


# --- bulk / jump split of a self-composition -------------------------------------------------
#
# When the hockey stick of a T-fold composition at the question is carried by RARE LARGE one-step
# losses (small q, small sigma, small delta: the answer comes from one or two sampled steps with
# a loss far in the tail), one tilt cannot serve both the bulk (tilted mass ~1 near loss 0) and
# those jumps (tilted mass ~1e-10), and the FFT round-off of the bulk swamps the answer. Split
# the one-step measure at a loss L into its bulk b (losses < L) and its jumps j (losses >= L);
# since convolution is commutative and the hockey stick is LINEAR in the measure,
#
#     delta_{(b + j)^{*T}}(eps) = sum_{k=0}^{T} C(T, k) delta_{b^{*(T-k)} * j^{*k}}(eps)     (exact),
#
# and every term is composed by its own FFT with its own tilt (its round-off is relative to its
# own size). The terms k > K are bounded by their total P-mass
#     R = sum_{k>K} C(T,k) |b|^{T-k} |j|^k <= max(1,|b|)^T (T|j|)^{K+1} / (K+1)! / (1 - T|j|/(K+2)),
# which the upper bound adds to delta at every eps (as mass at +inf: pessimistic) and the lower
# bound drops (optimistic); the one-step mass at +inf enters the upper bound by the union bound
# T * infinity. Each term is an upper (lower) bound of its exact counterpart, so the sums are.


class SplitComposed:
    """The sum of the :class:`Composed` terms of :func:`compose_split` plus a constant (upper:
    remainder and +inf mass; lower: 0)."""

    def __init__(self, terms, constant, bound):
        self.terms, self.constant, self.bound = terms, float(constant), bound

    def delta(self, epsilon):
        total = math.fsum(term.delta(epsilon) for term in self.terms)
        if self.bound == "upper":
            # each term's float delta has relative error << 1e-12; the sum carries 1e-12 up
            return min(1.0, (total + self.constant) * (1 + 1e-12))
        return max(0.0, total * (1 - 1e-12))

    def epsilon(self, delta):
        """Upper: an eps with ``delta(eps) <= delta`` (the true epsilon is at most it); lower: an
        eps with ``delta(eps) > delta`` (the true epsilon is at least it), or 0. Bisection keeps
        only points where the predicate was evaluated, so no monotonicity is assumed."""
        good = self.bound == "upper"

        def holds(eps):  # upper: certifies eps >= truth; lower: certifies eps <= truth
            d = self.delta(eps)
            return d <= delta if good else d > delta

        hi = max(1e-12, max(term.first_loss + term.step * len(term.z) for term in self.terms))
        if good:
            if holds(0.0):
                return 0.0
            if not holds(hi):
                return math.inf
            return bisect_predicate(holds, hi, 0.0)
        if not holds(0.0):
            return 0.0
        return bisect_predicate(holds, 0.0, hi)


def split_point(one, count, rate=1e-3):
    """The first index c of ``one.masses`` from which the P-mass above is at most ``rate / count``
    (the jumps: on average ``<= rate`` of the ``count`` steps have one), or None when that leaves
    no jumps or no bulk."""
    w = one.masses
    tail = np.cumsum(w[::-1])[::-1]  # tail[i] = sum_{k >= i} w_k
    ok = np.flatnonzero(tail * count <= rate)
    if len(ok) == 0:
        return None
    c = int(ok[0])
    if c <= 0 or c >= len(w) or tail[c] <= 0:
        return None
    return c


def compose_split(one, count, *, delta, epsilon_hint, max_cells=1 << 22, max_terms=8, rate=1e-3):
    """``count``-fold self-composition of the one-step PLD ``one`` by the bulk/jump split (section
    comment); a :class:`SplitComposed`, or None (no split point, too many terms, over budget)."""
    count = int(count)
    c = split_point(one, count, rate)
    if c is None:
        return None
    w = one.masses
    bulk = OneStep(one.step, one.offset, one.shift, w[:c], 0.0, one.bound)
    jumps = OneStep(one.step, one.offset + c, one.shift, w[c:], 0.0, one.bound)
    m_b = math.fsum(bulk.masses) * (1 + 1e-12)
    m_j = math.fsum(jumps.masses) * (1 + 1e-12)
    lam = count * m_j
    log_cap = count * math.log(max(1.0, m_b))
    # the smallest K with remainder <= 1e-6 delta
    remainder, k_max = math.inf, None
    for k in range(0, min(max_terms, count) + 1):
        if k == count:
            remainder, k_max = 0.0, k
            break
        if lam >= k + 2:
            continue
        log_r = log_cap + (k + 1) * math.log(lam) - math.lgamma(k + 2) - math.log1p(-lam / (k + 2))
        if log_r <= math.log(1e-6 * delta):
            remainder, k_max = math.exp(log_r), k
            break
    if k_max is None:
        return None
    terms = []
    for k in range(k_max + 1):
        items = [(bulk, count - k), (jumps, k)]
        items = [(o, n) for o, n in items if n > 0]
        theta = choose_tilt(items, epsilon=epsilon_hint)
        log_binom = math.lgamma(count + 1) - math.lgamma(k + 1) - math.lgamma(count - k + 1)
        composed = compose_fourier(items, theta, max_cells=max_cells, log_factor=log_binom)
        if composed is None:
            return None
        terms.append(composed)
    if one.bound == "upper":
        constant = remainder + min(1.0, count * one.infinity)
    else:
        constant = 0.0
    return SplitComposed(terms, constant, one.bound)
