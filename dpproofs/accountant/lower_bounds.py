"""Certified LOWER bounds on the privacy of shuffled fixed-size batches (:class:`ShuffledGaussian`).

No upper bound is known for shuffled batches; this module proves how private they are NOT. It
evaluates the hockey-stick divergence of one concrete pair of neighbouring datasets on concrete
tests (Chua et al., "How private are DP-SGD implementations?", arXiv 2403.17673v2, ICML 2024;
"Scalable DP-SGD: Shuffling vs. Poisson Subsampling", arXiv 2411.04205, NeurIPS 2024), with every
number enclosed (python-flint arb balls, rounded in the safe direction), so the answer is a true
lower bound on the tight epsilon (or delta) of the run.

Provenance (2026-12-02): the papers' text past their openings could not be read here, so their
section and result numbers are NOT cited; the pair, the tests and the multi-epoch treatment below
are those of the authors' reference implementation, read in full: google-research/google-research,
``dpsgd_batch_sampler_accounting/dpsgd_bounds.py``, class ``ShuffleAccountant`` (docstring: "the
hockey stick divergence is computed for the pair (P, Q) ... P = MoG(mean_upper), Q =
MoG(mean_lower)", defaults 2 and 1; "cube" sets ``{x : max_t x_t <= C}``; ``reshuffle=False`` is
one epoch at ``sigma / sqrt(num_epochs)``; ``reshuffle=True`` composes the PLD of the max statistic).
The datasets realising that pair (below) and the enumeration checking them are this project's
(tests/test_shuffle_lower_bound.py).

**The pair** (1-D linear queries; a DP-SGD gradient along one fixed direction does the same).
Every record contributes -1 (in units of the clipping norm) except the target, which contributes
+1 in ``x`` and ``x_0`` in ``x'``. A batch of size ``s`` sums to ``-s`` without the target, to
``-s + 2`` with the target of ``x`` and to ``-s + 1 + x_0`` with that of ``x'``. Adding the public
``s`` to each batch's output (post-processing), one epoch's output is, with ``T`` batches,

    P = MoG(2),  Q = MoG(1 + x_0),  MoG(a) = (1 - w) N(0, s^2 I_T) + w (1/T) sum_t N(a e_t, s^2 I_T)

(``w`` = the probability that the target is in a batch: 1 unless ``drop_last`` drops it; the
target's batch is not uniform when the last batch is shorter, but whichever batch holds it, the law
of ``max_t w_t`` is the same, and every test below depends on the output only through that max). ``pair="zero_out"`` (the default) is Chua et al.'s pair,
``x_0 = 0`` (the target replaced by a record of norm 0: a replace-one neighbour, and the zero-out
neighbour under which Poisson sampling's add/remove epsilon is the usual one): (MoG(2), MoG(1)), the
pair of the reference implementation (``ShuffleAccountant(mean_upper=2, mean_lower=1)``); it is the
pair to compare with the Poisson epsilon of the same run. ``pair="replace_one"``, ``x_0 = -1``:
(MoG(2), N(0, s^2 I)), a larger bound, valid under replace-one only.

**The tests.** Single epoch: ``S_C = {w : max_t w_t > C}`` (the complements of the reference's
"cube" sets ``E_C``): ``P(S_C^c) = w Phi((C - a)/s) Phi(C/s)^(T-1) + (1 - w) Phi(C/s)^T``, and
``delta(eps) >= P(S_C) - e^eps Q(S_C)`` for every ``C`` (the hockey-stick divergence is a supremum
over sets). Persistent shuffling over ``E`` epochs: the target is in the same batch every epoch,
so the per-batch mean over epochs is the single-epoch output at ``s / sqrt(E)`` (a sufficient
statistic; the reference's ``reshuffle=False``): the same test on the means.
Per-epoch shuffling: the epochs are independent, so the output of ``E`` epochs is the product pair;
the test keeps each epoch's ``max`` (post-processing), cut into cells (post-processing), and
composes the resulting finite pair ``E`` times (the reference's ``reshuffle=True``: the PLD of
the ``max`` statistic, composed; there with an uncertified dp_accounting PLD). Each cell's privacy
loss is rounded DOWN to a grid and its P-mass DOWN: ``delta = E_P[(1 - e^(eps - L))_+]`` only decreases, in each epoch and in the sum of losses,
so the composed value stays a lower bound; dropping mass (tails, underflow) also only lowers it.

**Rigour.** ``Phi`` and every mass are arb enclosures; the lower end of ``P`` and the upper end of
``Q`` are used. Composition is in float64 by direct (not FFT) convolution of non-negative arrays,
whose relative error per entry is at most ``gamma_n = n u / (1 - n u)`` for ``n`` terms (Higham,
"Accuracy and Stability of Numerical Algorithms", 2nd ed., Sec. 3.1 and Lemma 3.1); the
accumulated bound is subtracted from the answer. The choice of ``C`` and of the cells is a float
search: any choice is valid, only the evaluation at the chosen one is certified.

A returned epsilon ``e`` is one at which ``delta(e) > delta`` was certified: every mechanism
claiming ``(e', delta)``-DP for this run with ``e' <= e`` is wrong. ``0.0`` means that no test here
certified any ``delta(0) > delta`` (a true, trivial lower bound).
"""

import fractions
import math
import sys

import typing

import numpy as np

from dpproofs import _validate
from dpproofs.errors import InvalidArgumentType

if typing.TYPE_CHECKING:  # the mechanism module imports the accountant at run time: no cycle
    from dpproofs.mechanisms_shuffle import ShuffledGaussian

__all__ = ["epsilon_lower_bound", "delta_lower_bound", "PAIRS", "MAX_EPOCHS"]

#: The neighbouring pairs: the target's contribution in x' (x has +1, every other record -1).
PAIRS = {"zero_out": 0, "replace_one": -1}

#: Largest number of epochs accepted (per-epoch composition costs O(log epochs) convolutions).
MAX_EPOCHS = 10**7

#: arb working precision (bits): masses down to 1e-40 keep ~75 correct digits.
_PREC = 256
#: Float search grid for the threshold C (any C is valid; more points only find a better one).
_SEARCH_POINTS = 4001
#: Probability mass below which a cell or a tail is dropped (dropping P-mass lowers the certified
#: delta by at most that mass: the answer stays a lower bound).
_TAIL = 1e-30
#: Entries of a loss grid in the per-epoch composition (coarser grids past it: each convolution
#: costs at most _GRID^2 products), the finest grid step, and the cells of one epoch's max
#: statistic (arb evaluations): bound the time and memory whatever the arguments.
_GRID = 8192
_FINE_STEP = 2.0**-12
_CELLS = 6000
#: Absolute allowance for subnormal rounding in the float convolutions (each of the < 10^12
#: roundings of a product or sum below 2^-1022 is off by at most 2^-1075 < 10^-323).
_SUBNORMAL_ALLOWANCE = 1e-290
_UNIT = 2.0**-53


# --- directed conversions ----------------------------------------------------------------------


def _arb():
    from flint import arb, ctx

    return arb, ctx


def _directed(endpoint, down):
    """The float next to the exact dyadic ``endpoint`` (an arb of radius 0) in the safe direction,
    without building huge rationals: magnitudes past the float range go to the safe limit."""
    mantissa, exponent = (int(v) for v in endpoint.man_exp())
    if mantissa == 0:
        return 0.0
    magnitude = exponent + mantissa.bit_length()  # |value| in [2^(magnitude-1), 2^magnitude)
    positive = mantissa > 0
    if magnitude > 1025:  # beyond the largest float
        if positive:
            return sys.float_info.max if down else math.inf
        return -math.inf if down else -sys.float_info.max
    if magnitude < -1074:  # below the smallest subnormal
        if positive:
            return 0.0 if down else 5e-324
        return -5e-324 if down else 0.0
    exact = fractions.Fraction(mantissa) * fractions.Fraction(2) ** exponent
    value = float(exact)
    if down and fractions.Fraction(value) > exact:
        return math.nextafter(value, -math.inf)
    if not down and fractions.Fraction(value) < exact:
        return math.nextafter(value, math.inf)
    return value


def _float_down(ball):
    """A float <= every point of the arb ball (-inf for a ball without a finite lower end)."""
    if not ball.is_finite():
        return -math.inf
    return _directed(ball.lower(), down=True)


def _certainly_positive(ball):
    """Whether every point of the ball is > 0 (the sign of its exact lower end; no float rounding,
    so a positive ball far below the float range still counts)."""
    return ball.is_finite() and int(ball.lower().man_exp()[0]) > 0


def _float_up(ball):
    """A float >= every point of the arb ball (+inf for a ball without a finite upper end)."""
    if not ball.is_finite():
        return math.inf
    return _directed(ball.upper(), down=False)


#: Above this argument arb's erfc of a ball loses its relative accuracy (measured: fine at 1e4,
#: 1e-34 relative at 1e5, no digit at 1e6); the Mills-ratio bounds are used instead.
_ERFC_LIMIT = 1e4


def _log_normal_tail(t, root2):
    """arb enclosure of ``log Phic(t) = log P(N(0,1) > t)`` for a ball ``t > 0``. Beyond
    _ERFC_LIMIT: ``phi(t) (1/t - 1/t^3) <= Phic(t) <= phi(t) (1/t - 1/t^3 + 3/t^5)`` for t > 0
    (the asymptotic series' alternating bounds; Abramowitz & Stegun 26.2.12), relative width 3/t^4."""
    arb, _ = _arb()
    if float(t.mid()) <= _ERFC_LIMIT:
        return ((t / root2).erfc() / 2).log()
    log_phi = -t * t / 2 - (2 * arb.pi()).sqrt().log()
    low = log_phi + (1 / t - 1 / t**3).log()
    high = log_phi + (1 / t - 1 / t**3 + 3 / t**5).log()
    return low.union(high)


def _gamma(n):
    """``n u / (1 - n u)``, rounded up: the relative error bound of ``n`` roundings (Higham, Lemma 3.1)."""
    nu = n * _UNIT
    return math.nextafter(nu / (1 - nu) * (1 + 4 * _UNIT), math.inf)


# --- one epoch ---------------------------------------------------------------------------------


class _Epoch:
    """One epoch's pair (the module docstring) at noise ``sigma / sqrt(divisor)``: exact masses of
    ``max_t w_t`` under ``MoG(2)`` (P) and ``MoG(1 + x_0)`` (Q), and float guides for the searches."""

    def __init__(self, mechanism, pair, divisor):
        self.steps = mechanism.steps_per_epoch
        self.kept = fractions.Fraction(mechanism.dataset_size - mechanism.dropped, mechanism.dataset_size)
        self.sigma = mechanism.sigma / math.sqrt(divisor)  # float guide only
        self.exact_sigma, self.divisor = mechanism.sigma, divisor
        self.means = (2, 1 + PAIRS[pair])

    def masses(self, cap, mean):
        """arb enclosures of ``(MoG(mean)(max <= cap), MoG(mean)(max > cap))`` (``cap`` a float:
        exact). The second is computed as ``-expm1(log1p(-Phic(z1)) + (T-1) log1p(-Phic(z2)))``
        from the upper tails, not as ``1 - first``: it keeps its relative accuracy when tiny."""
        arb, _ = _arb()
        scale = arb(self.exact_sigma) / arb(self.divisor).sqrt()
        root2 = arb(2).sqrt()

        def log_phi(z):
            # log Phi(z): log Phic(-z) where Phi is small, log1p(-Phic(z)) where it is near 1
            # (either is an enclosure; the branch only keeps the ball narrow)
            if float(z.mid()) < 0:
                return _log_normal_tail(-z, root2)
            return (-_log_normal_tail(z, root2).exp()).log1p()

        x = arb(cap)
        log_others = log_phi(x / scale)
        log_inside = log_phi((x - mean) / scale) + (self.steps - 1) * log_others
        inside, inside_out = log_inside.exp(), -log_inside.expm1()
        if self.kept == 1:
            return inside, inside_out
        kept = arb(self.kept.numerator) / self.kept.denominator
        log_missing = self.steps * log_others  # the target dropped: T batches of others only
        return (kept * inside + (1 - kept) * log_missing.exp(),
                kept * inside_out + (1 - kept) * -log_missing.expm1())

    def cube(self, cap, mean):
        """arb enclosure of ``MoG(mean)(max_t w_t <= cap)``."""
        return self.masses(cap, mean)[0]

    def out(self, cap, mean):
        """arb enclosure of ``MoG(mean)(max_t w_t > cap)``, accurate when tiny."""
        return self.masses(cap, mean)[1]

    def log_cube(self, caps, mean):
        """Float ``log MoG(mean)(max <= C)`` at an array of C (a search guide, not certified)."""
        from scipy.special import log_ndtr

        s = self.sigma
        others = log_ndtr(caps / s)
        inside = log_ndtr((caps - mean) / s) + (self.steps - 1) * others
        if self.kept == 1:
            return inside
        kept = float(self.kept)
        return np.logaddexp(math.log(kept) + inside, math.log1p(-kept) + self.steps * others)

    def log_out(self, caps, mean):
        """Float ``log MoG(mean)(max > C)`` (a guide)."""
        with np.errstate(divide="ignore"):
            return np.log(-np.expm1(self.log_cube(caps, mean)))

    def caps(self, points):
        """The float search range of C: every useful threshold lies well inside it."""
        s = self.sigma
        return np.linspace(min(self.means) - 8 * s, max(self.means) + 40 * s, points)


# --- the threshold test: one epoch, or persistent shuffling --------------------------------------


def _threshold_candidates(epoch, score):
    """Up to 5 thresholds C maximising the float ``score(log_p_out, log_q_out)`` (a guide)."""
    caps = epoch.caps(_SEARCH_POINTS)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        values = score(epoch.log_out(caps, epoch.means[0]), epoch.log_out(caps, epoch.means[1]))
    infinite = np.flatnonzero(values == np.inf)  # the float guide under- or overflowed there
    values = np.where(np.isfinite(values), values, -np.inf)
    order = np.argsort(values)[::-1]
    chosen = [float(caps[i]) for i in order[:5] if np.isfinite(values[i])]
    if len(infinite):  # let the certified evaluation judge: both ends and the middle of that range
        chosen += [float(caps[i]) for i in (infinite[0], infinite[len(infinite) // 2], infinite[-1])]
    chosen.append(sum(epoch.means) / 2)  # the midpoint of the two means: useful when sigma is tiny
    # refine the best on the grid's spacing
    if chosen:
        step = float(caps[1] - caps[0])
        fine = np.linspace(chosen[0] - step, chosen[0] + step, 201)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            refined = score(epoch.log_out(fine, epoch.means[0]), epoch.log_out(fine, epoch.means[1]))
        refined = np.where(np.isfinite(refined), refined, -np.inf)
        chosen.insert(0, float(fine[int(np.argmax(refined))]))
    return chosen


def _threshold_epsilon(epoch, delta):
    """Largest certified ``eps`` with ``P(S_C) - e^eps Q(S_C) > delta`` over the candidate C, or 0."""
    arb, ctx = _arb()

    def score(log_p, log_q):
        return np.log(np.exp(log_p) - delta) - log_q

    best = 0.0
    saved = ctx.prec
    ctx.prec = _PREC
    try:
        for cap in _threshold_candidates(epoch, score):
            p_out = epoch.out(cap, epoch.means[0])
            q_out = epoch.out(cap, epoch.means[1])
            excess = p_out - arb(delta)
            if not _certainly_positive(excess) or not _certainly_positive(q_out):
                continue
            # eps < log((P - delta) / Q) <=> P - e^eps Q > delta; one step down makes it strict
            eps = math.nextafter(_float_down((excess / q_out).log()), -math.inf)
            best = max(best, eps)
    finally:
        ctx.prec = saved
    return best


def _threshold_delta(epoch, epsilon):
    """Largest certified ``P(S_C) - e^eps Q(S_C)`` over the candidate C (at least 0)."""
    arb, ctx = _arb()

    def score(log_p, log_q):
        return np.exp(log_p) - np.exp(epsilon + log_q)

    best = 0.0
    saved = ctx.prec
    ctx.prec = _PREC
    try:
        factor = arb(epsilon).exp()
        for cap in _threshold_candidates(epoch, score):
            value = epoch.out(cap, epoch.means[0]) - factor * epoch.out(cap, epoch.means[1])
            best = max(best, _float_down(value))
    finally:
        ctx.prec = saved
    return best


# --- per-epoch shuffling: the max statistic's pair, composed -----------------------------------


class _LossDistribution:
    """P-masses on the loss grid ``(offset + k) * step`` (``step`` a power of two): each entry, as
    computed, is within a relative ``error`` of a value that is itself at most the P-mass that the
    rounded-down distribution of the module docstring puts there."""

    def __init__(self, offset, masses, step, error):
        self.offset, self.masses, self.step, self.error = offset, masses, step, error

    def trimmed(self):
        """Drop tails of mass < _TAIL per side and entries below 1e-300 (dropping mass keeps a
        lower bound)."""
        masses = np.where(self.masses < 1e-300, 0.0, self.masses)
        low = int(np.searchsorted(np.cumsum(masses), _TAIL, side="right"))
        high = len(masses) - int(np.searchsorted(np.cumsum(masses[::-1]), _TAIL, side="right"))
        if high <= low:  # nothing left (all mass dropped): one empty cell, delta 0
            return _LossDistribution(self.offset, np.zeros(1), self.step, self.error)
        return _LossDistribution(self.offset + low, masses[low:high].copy(), self.step, self.error)

    def coarsened(self, factor):
        """The same masses on the grid ``factor * step`` (a power of two), each loss rounded DOWN
        again (valid as the first rounding); the sums of ``factor`` terms add ``gamma_factor``."""
        if factor == 1:
            return self
        offset = self.offset // factor  # floor, also for negative offsets
        pad = self.offset - offset * factor
        masses = np.concatenate((np.zeros(pad), self.masses))
        masses = np.concatenate((masses, np.zeros(-len(masses) % factor)))
        error = self.error + _gamma(factor) * (1 + self.error)
        return _LossDistribution(offset, masses.reshape(-1, factor).sum(axis=1), self.step * factor, error)

    def fitted(self):
        """Coarsened until at most _GRID entries (bounds the convolutions' cost)."""
        factor = 1
        while len(self.masses) > _GRID * factor:
            factor *= 2
        return self.coarsened(factor)

    def on_step(self, step):
        return self.coarsened(int(round(step / self.step)))

    def compose(self, other):
        """The distribution of the sum of the two losses (independent epochs), fitted."""
        step = max(self.step, other.step)
        first, second = self.on_step(step), other.on_step(step)
        terms = min(len(first.masses), len(second.masses))
        error = first.error + second.error + first.error * second.error
        error += _gamma(terms + 1) * (1 + error)
        masses = np.convolve(first.masses, second.masses)  # direct: every entry a sum of products
        return _LossDistribution(first.offset + second.offset, masses, step, error).trimmed().fitted()

    def delta(self, epsilon):
        """Certified lower bound on ``sum_k P_k (1 - e^(eps - L_k))_+`` for these masses."""
        losses = (self.offset + np.arange(len(self.masses))) * self.step  # exact: small ints times 2^-j
        above = losses > epsilon
        if not above.any():
            return 0.0
        # 1 - e^x, x = eps - L < 0: the rounding of x moves it by at most u relative (|x| e^x <=
        # 1 - e^x), numpy's expm1 by a few ulp: 16u allowed; products: u each; fsum: u
        weights = -np.expm1(epsilon - losses[above])
        total = math.fsum((self.masses[above] * weights).tolist())
        factor = 1 - (self.error + 20 * _UNIT) * (1 + 4 * _UNIT)
        return max(0.0, total * factor * (1 - 2 * _UNIT) - _SUBNORMAL_ALLOWANCE)


def _cell_masses(epoch, edges, mean):
    """arb masses of (-inf, e_0], (e_0, e_1], ..., (e_last, inf) under MoG(mean): differences of
    the lower masses below the median, of the upper ones above it (each keeps its accuracy)."""
    both = [epoch.masses(float(c), mean) for c in edges]
    cells = [both[0][0]]
    for (low_in, low_out), (high_in, high_out) in zip(both, both[1:]):
        upper_half = _float_down(low_in) > 0.5
        cells.append(low_out - high_out if upper_half else high_in - low_in)
    cells.append(both[-1][1])
    return cells


def _epoch_loss_distribution(epoch):
    """The rounded-down loss distribution of one epoch's max statistic, cut into cells."""
    arb, ctx = _arb()
    mean_p, mean_q = epoch.means
    caps = epoch.caps(_SEARCH_POINTS)
    log_p_in = epoch.log_cube(caps, mean_p)
    log_p_out = epoch.log_out(caps, mean_p)
    low_cap = float(caps[max(int(np.searchsorted(log_p_in, math.log(_TAIL))) - 1, 0)])
    beyond = log_p_out < math.log(_TAIL)
    high_cap = float(caps[int(np.argmax(beyond))] if beyond.any() else caps[-1])
    edges = np.linspace(low_cap, high_cap, _CELLS + 1)
    saved = ctx.prec
    ctx.prec = _PREC
    try:
        masses_p, masses_q = _cell_masses(epoch, edges, mean_p), _cell_masses(epoch, edges, mean_q)
        cells = []
        for mass_p, mass_q in zip(masses_p, masses_q):
            low_p = _float_down(mass_p)
            if not low_p > 1e-300 or not _certainly_positive(mass_q):
                continue  # dropped (P-mass below 1e-300, or no certified positive Q-mass)
            loss = _float_down((mass_p / mass_q).log())
            if math.isfinite(loss):  # (else dropped)
                cells.append((loss, low_p))
    finally:
        ctx.prec = saved
    if not cells:  # no cell with a certified positive mass: the trivial distribution
        return _LossDistribution(0, np.zeros(1), _FINE_STEP, 2 * _UNIT)
    spread = max(loss for loss, _ in cells) - min(loss for loss, _ in cells)
    step = _FINE_STEP  # a power of two: the grid points (offset + k) * step are exact
    while spread / step > 4 * _GRID:
        step *= 2
    buckets = {}
    for loss, mass in cells:
        buckets.setdefault(math.floor(loss / step), []).append(mass)  # loss / step: exact
    first, last = min(buckets), max(buckets)
    masses = np.zeros(last - first + 1)
    for index, values in buckets.items():
        masses[index - first] = math.fsum(values)  # correctly rounded: relative error <= u
    return _LossDistribution(first, masses, step, 2 * _UNIT).trimmed().fitted()


def _composed(epoch, epochs):
    """The E-fold composition by repeated squaring, each result fitted to _GRID entries: the grid
    coarsens as the spread grows (about sqrt of the epochs), so the rounding lost stays ~ E / _GRID."""
    power = _epoch_loss_distribution(epoch)
    result, remaining = None, epochs
    while remaining:
        if remaining & 1:
            result = power if result is None else result.compose(power)
        remaining >>= 1
        if remaining:
            power = power.compose(power)
    return result


def _composed_epsilon(distribution, delta):
    """Largest eps (bisection on certified values) with the composed delta(eps) > delta, or 0."""
    if not distribution.delta(0.0) > delta:
        return 0.0
    low = 0.0
    high = (distribution.offset + len(distribution.masses)) * distribution.step  # delta(high) = 0
    while high - low > 1e-9 * max(1.0, low):
        middle = (low + high) / 2
        if distribution.delta(middle) > delta:
            low = middle
        else:
            high = middle
    return low


# --- the public functions ----------------------------------------------------------------------


def _checked(mechanism, epochs, pair):
    from dpproofs.mechanisms_shuffle import ShuffledGaussian

    if not isinstance(mechanism, ShuffledGaussian):
        raise InvalidArgumentType(
            f"mechanism={mechanism!r} must be a dpproofs.ShuffledGaussian (lower bounds are for shuffled "
            f"batches; the accountants bound every other mechanism from above), not {type(mechanism).__name__}"
        )
    epochs = _validate.integer("epochs", epochs, 1, MAX_EPOCHS)
    pair = _validate.choice("pair", pair, PAIRS)
    return epochs, pair


def epsilon_lower_bound(mechanism: "ShuffledGaussian", epochs: int, delta: float, *, pair: str = "zero_out") -> float:
    """A certified lower bound on the tight epsilon of ``epochs`` epochs of ``mechanism`` at ``delta``.

    Args:
        mechanism: a :class:`dpproofs.ShuffledGaussian` (one epoch; its ``shuffle`` says whether
            later epochs reuse the order).
        epochs: integer in ``[1, MAX_EPOCHS]``.
        delta: float in ``(0, 1)``.
        pair: ``"zero_out"`` (default: Chua et al.'s pair, the one to compare with the Poisson
            epsilon of the same run under add/remove) or ``"replace_one"`` (larger; replace-one only).

    Returns:
        A float ``eps >= 0`` at which ``delta(eps) > delta`` is certified for a concrete pair of
        neighbouring datasets (module docstring): no ``(eps', delta)``-DP claim with ``eps' <= eps``
        holds for this run. ``0.0`` when no test here certifies more than ``delta`` at ``eps = 0``.

    Raises:
        InvalidArgumentType: ``mechanism`` is not a ShuffledGaussian, or an argument of a wrong type.
        InvalidArgument: ``epochs``, ``delta`` or ``pair`` outside its range.
    """
    epochs, pair = _checked(mechanism, epochs, pair)
    delta = _validate.real("delta", delta, 0, 1, low_open=True, high_open=True)
    if mechanism.shuffle == "persistent" or epochs == 1:
        # persistent: one epoch at sigma / sqrt(E) (the per-batch mean over epochs is sufficient)
        return _threshold_epsilon(_Epoch(mechanism, pair, epochs), delta)
    # per-epoch: the first epoch alone is a post-processing too; the composition usually wins
    single = _threshold_epsilon(_Epoch(mechanism, pair, 1), delta)
    return max(single, _composed_epsilon(_composed(_Epoch(mechanism, pair, 1), epochs), delta))


def delta_lower_bound(mechanism: "ShuffledGaussian", epochs: int, epsilon: float, *, pair: str = "zero_out") -> float:
    """A certified lower bound on the tight delta of ``epochs`` epochs of ``mechanism`` at ``epsilon``.

    Args:
        mechanism: as in :func:`epsilon_lower_bound`.
        epochs: as in :func:`epsilon_lower_bound`.
        epsilon: finite float ``>= 0``.
        pair: as in :func:`epsilon_lower_bound`.

    Returns:
        A float in ``[0, 1)``: the hockey-stick divergence of the module docstring's pair at
        ``epsilon`` is at least this (``0.0``: no test here certified a positive value).

    Raises:
        as :func:`epsilon_lower_bound`.
    """
    epochs, pair = _checked(mechanism, epochs, pair)
    epsilon = _validate.real("epsilon", epsilon, 0)
    if mechanism.shuffle == "persistent" or epochs == 1:
        return _threshold_delta(_Epoch(mechanism, pair, epochs), epsilon)
    single = _threshold_delta(_Epoch(mechanism, pair, 1), epsilon)
    return max(single, _composed(_Epoch(mechanism, pair, 1), epochs).delta(epsilon))
