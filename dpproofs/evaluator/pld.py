"""Tight (epsilon, delta) of the T-fold Poisson-subsampled Gaussian, bracketed from both sides.

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

__all__ = [
    "DiscretePLD",
    "MARGIN",
    "DEFAULT_STEP",
    "DEFAULT_WINDOW",
    "TAIL",
    "sampled_gaussian_pld",
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
