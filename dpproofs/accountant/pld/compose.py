"""Composition of certified one-step discrete PLDs by FFT, with every float error bounded.

Used by :class:`dpproofs.PLDAccountant` (:mod:`dpproofs.accountant.pld.accountant`) on the one-step
PLDs of :mod:`dpproofs.accountant.pld.discretise` (whose docstring says why those are upper and
lower bounds and why such bounds survive composition). :func:`compose_fourier` composes a list of
``(OneStep, count)`` into a :class:`Composed` (hockey stick, epsilon and their error bounds);
:func:`compose_split` composes a self-composition whose answer is carried by rare large losses
as a sum of bulk/jump terms (:class:`SplitComposed`).

Composition (one forward real FFT per distinct one-step PLD, a pointwise power, one inverse
FFT) on a cyclic window [lo, lo + N h) after exponential tilting: the one-step masses are
multiplied by e^{theta l} / M(theta) (M the discrete moment generating function, so the tilted
measure is a probability), which commutes with convolution (losses add); the composed true
masses are z_k e^{K - theta l_k}, K = sum_j n_j log M_j(theta). The tilt makes the absolute FFT
round-off small relative to delta near the answer (it is the Chernoff scaling); any theta >= 0 is
correct. Tilted mass outside the window (Chernoff bounds of the tilted discrete measure) wraps
around; it is added (upper: contributes >= 0, plus the bound of the P-mass above the window) or
subtracted (lower) as a bound.

FFT round-off is bounded from Higham (2002) Theorem 24.2 (:func:`_fft_constant`) and the data;
the damped suffix sums that turn the composed masses into hockey sticks carry the relative error
bound :func:`suffix_sum_error`.
"""

import functools
import math

import numpy as np

from dpproofs.accountant.pld.discretise import UNIT, OneStep
from dpproofs.math.roots import bisect_predicate

__all__ = [
    "WINDOW_TAIL",
    "MAX_TILT",
    "MAX_TILT_RATE",
    "DECAY_FACTOR_ERROR",
    "suffix_sum_error",
    "Composed",
    "choose_tilt",
    "compose_fourier",
    "Convolved",
    "SplitComposed",
    "split_point",
    "compose_split",
]

#: Tilted-measure mass allowed outside the composition window (each side).
WINDOW_TAIL = 1e-20


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


#: Arrays of at most this many cells that depend only on (rate, length), :func:`_decay_ramp` and
#: :func:`_suffix_weight_norm`, are kept (read-only, a few per function): the upper and lower
#: compositions of one pass share their tilt, step and window, so the second reuses the first's two
#: ramps and two norm arrays.
MEMO_CELLS = 1 << 18


def _memo_small(function):
    """``function(rate, length)`` memoised for ``length <= MEMO_CELLS`` (read-only results)."""
    cached = functools.lru_cache(maxsize=4)(lambda rate, length: _read_only(function(rate, length)))

    @functools.wraps(function)
    def wrapper(rate, length):
        return cached(float(rate), int(length)) if length <= MEMO_CELLS else function(rate, length)

    return wrapper


def _read_only(array):
    array.flags.writeable = False
    return array


@_memo_small
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


@_memo_small
def _suffix_weight_norm_memo(rate, n):
    return _suffix_weight_norm(n, rate)


def _suffix_weight_norm(n, rate):
    """``||w_j||_2`` for ``w_j = (e^{-rate m})_{m = 1 .. n-1-j}``, j = 0 .. n-1 (array), with a
    relative margin of 1e-9 for the float evaluation."""
    if rate <= 0:
        return np.sqrt(np.arange(n - 1, -1, -1, dtype=np.float64)) * (1 + 1e-9)
    # sum_{k=1}^{M} r^{2k} = r^2 (1 - r^{2M}) / (1 - r^2), r = e^{-rate}; for 2 rate M > 50 the
    # factor 1 - r^{2M} is 1 to within e^{-50} and is replaced by 1 (an upper bound)
    limit = math.exp(-2 * rate) / -math.expm1(-2 * rate)
    out = np.full(n, math.sqrt(limit) * (1 + 1e-9))
    # the last entries (j close to n - 1, m < 25 / rate): the partial sums (m is decreasing in j)
    near = max(0, n - math.ceil(25.0 / rate)) if 25.0 / rate < n else 0
    m = np.arange(n - 1 - near, -1, -1, dtype=np.float64)  # n - 1 - j for j >= near
    out[near:] = np.sqrt(limit * -np.expm1(-2 * rate * m)) * (1 + 1e-9)
    return out


class _TiltedWindow:
    """What :class:`Composed` and :class:`Convolved` share: the tilted masses ``zhat`` of the window's
    cells from ``first_loss`` on, ``step`` apart, tilted by ``theta`` with log-scale ``log_scale``,
    their error bound ``error``, and ``wrapped``, a bound on the tilted mass outside the window, with
    its logarithm ``log_wrapped`` (default ``log(wrapped)``) for products with factors beyond float
    range: ``wrapped`` itself underflows to 0 where it is below 1e-308."""

    def __init__(self, zhat, first_loss, step, theta, log_scale, error, wrapped, log_wrapped=None):
        self.zhat, self.first_loss, self.step = zhat, float(first_loss), float(step)
        self.theta, self.log_scale, self.error, self.wrapped = float(theta), float(log_scale), float(error), float(wrapped)
        if log_wrapped is None:
            log_wrapped = math.log(self.wrapped) if self.wrapped > 0 else -math.inf
        self.log_wrapped = float(log_wrapped)

    def wrapped_times_exp(self, exponent):
        """An upper bound on ``wrapped * e^exponent``, computed in log space (inf beyond float range)."""
        return _exp_up(self.log_wrapped + exponent)


class Composed(_TiltedWindow):
    """The tilted composed PLD on the window: cell ``k`` has loss ``losses[k]`` and true P-mass
    ``z_k exp(K - theta losses[k])`` where ``|zhat_k - z_k| <= error``. ``wrapped`` bounds the tilted
    mass outside the window (it may have wrapped into cells; its logarithm as in
    :class:`_TiltedWindow`), ``above`` bounds the true P-mass above the window, ``infinity`` the P-mass
    at +inf. ``bound`` 'upper' or 'lower'."""

    def __init__(self, zhat, first_loss, step, theta, log_scale, error, wrapped, above, infinity, bound,
                 log_wrapped=None):
        super().__init__(zhat, first_loss, step, theta, log_scale, error, wrapped, log_wrapped)
        self.above, self.infinity, self.bound = float(above), float(infinity), bound
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
        norm_a = _suffix_weight_norm_memo(self.theta * step, n) * error
        norm_b = _suffix_weight_norm_memo((self.theta + 1) * step, n) * error
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

    def only_constant(self, epsilon):
        """Whether the (upper) bound's delta at ``epsilon`` is its constant part alone: the one-step
        tails sent to +inf and the P-mass above the window, sized from the tail allowance and the
        tilt, not from the grid step (a finer grid does not lower it; at epsilon = 1e300 two passes
        took 3.5 s for nothing)."""
        return self.bound == "upper" and self.delta(epsilon) <= self._constant()

    def _parts(self):
        """(A, B) with their float error allowances, each at the bound's side (computed once: the
        bisection of a split composition asks for them hundreds of times)."""
        parts = self.__dict__.get("_parts_memo")
        if parts is None:
            g = self.gamma
            if self.bound == "upper":
                parts = self.a * (1 + g), self.b * (1 - g)
            else:
                parts = self.a * (1 - g) - self.wrapped, self.b * (1 + g)
            self._parts_memo = parts
        return parts

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
            # below the window every cell's loss is above eps: the cells give
            #   e^{K - theta l_0} [(z_0 + A_0) - e^t (z_0 + B_0)],  t = eps - l_0 < 0
            # (delta(l_0) alone, the former upper bound, misses (1 - e^{eps - l_k}) - (1 - e^{l_0 - l_k})
            # of every cell: for 3 steps of RandomizedResponse(800), all their mass in one cell at
            # loss 2400, it gave delta(1) = 0.0012 for 1). Each part at its bound's side: A_0, B_0 as
            # in _parts, z_0 within [z+_0 - 2 error, z+_0 + error] (see __init__), e^t and the
            # products rounded the bound's way.
            upper = self.bound == "upper"
            a, b = self._parts()
            t = epsilon - lam0
            side = 1 if upper else -1
            z0 = self.z[0] + self.error if upper else max(self.z[0] - 2 * self.error, 0.0)
            inner = (a[0] - math.exp(t) * (1 - side * 4 * UNIT) * b[0]
                     + z0 * -math.expm1(t) * (1 + side * 4 * UNIT))
            cells = 0.0
            if inner > 0:
                log_value = self.log_scale - self.theta * lam0 + math.log(inner)
                cells = math.exp(log_value) if log_value < 709 else math.inf
            if not upper:
                # delta is non-increasing: delta(l_0) is a lower bound too
                return max(0.0, min(1.0, cells * (1 - 1e-12)), self.delta(lam0))
            # plus the true mass in [eps, l_0), whose tilted mass is at most ``wrapped`` and whose
            # cells weigh at most e^{K - theta eps}, and the constant. The product in log space:
            # with the exponent capped at 700 (as until 2026-12-07) it was an UNDERESTIMATE wherever
            # the window lies far above eps (a tilt of 2e6 put it at loss 6.9e6, eps = 0: e^{1.4e13}
            # times a wrapped mass of e^{-1.4e13} came out as 0, and the upper end as 0 where the
            # tight epsilon is 22.7: SampledGaussian(3.56e-4, 0.617) x 4 487 193 under replace-one)
            below = self.wrapped_times_exp(self.log_scale - self.theta * epsilon)
            return min(1.0, (cells + below) * (1 + 1e-12) + self._constant())
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


#: Largest tilt candidate of :func:`choose_tilt`. Up to 2000 until 2026-12-06: small epsilon at small
#: delta (q = 4.3e-5, sigma = 5.3, T = 174, delta = 6.1e-12: epsilon 5.6e-4) has its Chernoff order
#: near 5e4, and at 2000 the round-off allowance, weighted by the suffix sums' norm ~ 1/sqrt(theta h),
#: held the bracket 5 % wide at every grid step (6.8e-4 at 12 ms with the cap raised).
MAX_TILT = 2e6
#: Largest ``theta * step`` of a tilt above 2000 (see :func:`choose_tilt`).
MAX_TILT_RATE = 100.0


def choose_tilt(items, *, delta=None, epsilon=None):
    """A tilt theta >= 0: the Chernoff-optimal order of the discrete composed PLD for ``delta``
    (minimising (K(theta) + log(1/delta)) / theta) or for ``epsilon`` (minimising
    K(theta) - theta epsilon). Any theta >= 0 gives correct bounds; this one makes them tight.
    Candidates: 0 and a geometric grid up to :data:`MAX_TILT`, and up to ``MAX_TILT_RATE / step``
    beyond 2000 (the damped suffix sums of :class:`Composed` run block by block, and a block is
    ``300 / (theta step)`` cells: the cap keeps blocks of at least 3 cells, as with theta <= 2000 and
    steps <= 0.05 before)."""
    step = items[0][0].step
    thetas = np.concatenate(([0.0], np.geomspace(1e-3, 2e3, 85), np.geomspace(2e3, MAX_TILT, 37)[1:]))
    thetas = thetas[thetas <= max(2e3, MAX_TILT_RATE / step)]
    k = _log_mgf_total(items, thetas)
    if delta is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.where(thetas > 0, _chernoff_score(k, thetas, delta), np.inf)
    else:
        score = k - thetas * epsilon
    score = np.where(np.isfinite(score), score, np.inf)
    return float(thetas[int(np.argmin(score))])


def _chernoff_score(k, theta, delta):
    """The Chernoff bound on epsilon at ``delta`` from ``k = K(theta)``: ``(K(theta) + log(1/delta)) / theta``."""
    return (k - math.log(delta)) / theta


def chernoff_epsilon(items, delta, theta):
    """The Chernoff bound on the composed epsilon at ``delta`` at the order ``theta > 0``,
    ``(K(theta) + log(1/delta)) / theta`` (an upper bound on the tight epsilon of the discrete
    composition at every theta > 0; inf if not finite): a cheap comparison between compositions."""
    value = _chernoff_score(float(_log_mgf_total(items, [theta])[0]), theta, delta)
    return value if math.isfinite(value) else math.inf


#: Relative error of one complex float product: ``sqrt(2) gamma_2``, ``gamma_2 = 2u / (1 - 2u)``
#: (Higham 2002, Lemma 3.5), rounded up.
COMPLEX_PRODUCT_ERROR = math.sqrt(2) * 2 * UNIT / (1 - 2 * UNIT) * (1 + 1e-9)
#: Absolute error of one complex float product beyond its relative one (gradual underflow: each of
#: the two real parts is a sum of two products, each within half the smallest subnormal), rounded up.
COMPLEX_PRODUCT_UNDERFLOW = 4 * 2.0**-1074


def power_by_squaring(spec, n):
    """``(spec**n, relative error bound, products)``: the pointwise power by repeated squaring, with
    the bound ``(1 + e)^(n - 1) - 1`` on its relative error (``e`` = :data:`COMPLEX_PRODUCT_ERROR`).
    Proof: by induction over the products, a computed power ``x^m`` is ``x^m`` times at most ``m - 1``
    factors ``(1 + eta)``, ``|eta| <= e`` (a product of ``x^i`` and ``x^j`` carries the ``i - 1`` and
    ``j - 1`` factors of its operands and its own); squaring reuses a value, which the count allows.
    Underflow adds at most :data:`COMPLEX_PRODUCT_UNDERFLOW` per product, propagated by later factors
    of modulus at most ``max|spec|`` each (the caller bounds that part: :func:`_underflow_error`).
    About ten times faster than ``exp(n log spec)`` at n = 10^4 (0.10 against 0.97 ms on 16 385 cells).
    Its bound is uniform, about ``2.8 n u``: above that of ``exp(n log)`` (``8u (n (|log r| + |angle|) + 4)``)
    near the zero frequency and below it where the spectrum decays; on 8 rows of the peer grid
    (T = 1e5..1e9) the brackets' ends moved by at most 3e-7 relative."""
    result = None
    base = np.array(spec, dtype=np.complex128)
    products = 0
    m = int(n)
    while m:
        if m & 1:
            if result is None:
                result = base.copy()
            else:
                np.multiply(result, base, out=result)
                products += 1
        m >>= 1
        if m:
            np.multiply(base, base, out=base)
            products += 1
    rel = math.expm1((n - 1) * math.log1p(COMPLEX_PRODUCT_ERROR)) * (1 + 1e-9)
    return result, rel, products


def _underflow_error(products, log_modulus_bound):
    """Bound on one cell's absolute error from gradual underflow over ``products`` complex products,
    each later multiplied by factors whose moduli multiply to at most ``exp(log_modulus_bound)``
    (doubled: room for the float evaluation of that bound and for moduli that rounding lifts above
    it)."""
    return products * COMPLEX_PRODUCT_UNDERFLOW * math.exp(min(max(log_modulus_bound, 0.0), 700.0)) * 2


def tilted_masses(one, theta, log_m):
    """The tilted one-step masses ``w_k e^{theta l_k - log_m}`` that :func:`compose_fourier` composes:
    as a product with ``e^{theta l_k - log_m}`` (no logarithm of the masses, whose rounding of
    ``|log w| u`` dominated for tiny masses), and through the logarithm only where that exponential
    alone would overflow."""
    l = one.losses()
    exponent = theta * l - log_m
    with np.errstate(over="ignore", divide="ignore", under="ignore", invalid="ignore"):
        x = one.masses * np.exp(np.minimum(exponent, 700.0))
        large = exponent > 700.0
        if np.any(large):
            x[large] = np.exp(np.log(one.masses[large]) + exponent[large])
    return x


def _componentwise_power_error(moduli):
    """A bound on ``||prod_j S_j^{n_j} - prod_j fl(S_j)^{n_j}||_2`` over the whole (two-sided)
    spectrum, from componentwise FFT errors; ``moduli`` holds per item ``(|fl(S_j)|`` on the rfft
    half, ``a_j``, ``n_j)`` with ``|fl(S_jk) - S_jk| <= a_j`` for every k. inf when useless.

    Componentwise FFT error: Higham (2002) proves Theorem 24.2 from the factorisation of the DFT
    into butterfly stages ``A_t ... A_1``, each computed as ``A_k + dA_k`` with ``|dA_k| <= eta |A_k|``
    (entrywise: every output of a butterfly is ``x1 + w x2`` with a rounded twiddle, within
    ``eta (|x1| + |x2|)``); the same argument kept entrywise gives
    ``|fl(X) - X| <= ((1 + eta)^t - 1) |A_t| ... |A_1| |x|``, and ``|A_t| ... |A_1|`` is the all-ones
    matrix (one path from each input to each output, twiddles of modulus 1), so every entry errs
    by at most ``a ||x||_1`` with the constant ``a`` of :func:`_fft_constant` (the same doubled stage
    count covers pocketfft's radix-4 and real-data passes: the assumption stated there).

    Power: with ``B_jk = |fl(S_jk)| (1 + 4u) + a_j`` (at least both moduli), the mean value theorem
    and a telescoping sum give ``|prod S^n - prod fl(S)^n|_k <= prod_i B_ik^{n_i} sum_j n_j a_j / B_jk``;
    evaluated in log space, with the float error of ``sum n_i log B_ik`` (relative 4u on each log
    and each product) added to the exponent. Far below the normwise bound ``n a sqrt(N) ||x||_2``
    (which spreads the error evenly over all frequencies) wherever the composed spectrum decays:
    at (q, sigma, T) = (1e-4, 50, 1e6) 4e-6 against about 2e-7."""
    log_total, spread, weights = 0.0, 0.0, 0.0
    for r, a_j, n in moduli:
        if not a_j > 0:
            return math.inf
        bound = r * (1 + 4 * UNIT) + a_j
        log_b = np.log(bound)
        log_total = log_total + n * log_b
        spread = spread + n * 4 * UNIT * (np.abs(log_b) + 1)
        weights = weights + n * a_j / bound
    with np.errstate(over="ignore"):
        exponent = np.minimum(log_total + spread, 700.0)
        err = np.exp(exponent) * weights * (1 + 8 * UNIT)
    value = math.sqrt(2) * _norm(err)
    return value if math.isfinite(value) else math.inf


class Convolved(_TiltedWindow):
    """The tilted composed masses on the window, without the hockey-stick machinery of
    :class:`Composed` (which needs ``theta >= 0``): cell ``k`` at ``first_loss + k step`` has true mass
    ``z_k exp(log_scale - theta l_k)`` with ``|zhat_k - z_k| <= error + wrapped`` (the wrapped tilted
    mass only adds), and the tilted mass outside the window is at most ``wrapped``. Any real theta."""


def _exp_up(exponent):
    """``e^exponent`` for an upper bound: inf from 709 on, and for nan (inf - inf)."""
    return math.exp(exponent) if exponent < 709.0 else math.inf


def _capped(log_mass):
    """A logarithmic mass bound at most 700 (a tilted mass bound above e^700 says nothing); nan -> 700."""
    return 700.0 if not log_mass <= 700.0 else log_mass


def compose_fourier(items, theta, *, max_cells=1 << 22, log_factor=0.0, raw=False, chernoff=None):
    """T-fold composition of ``items`` (a list of ``(OneStep, count)``, one bound, one grid step)
    by one real FFT per item, a pointwise power and one inverse FFT, tilted by ``theta``; every
    mass is multiplied by ``exp(log_factor)`` (a binomial coefficient in :func:`compose_split`).
    Returns a :class:`Composed` (``raw``: a :class:`Convolved`, the masses only, for any real
    ``theta``), or None if the window needs more than ``max_cells`` cells or the round-off bound is
    useless (then the caller refines or falls back). ``chernoff``: further Chernoff parameters for the
    window (any s > 0 is valid; a caller whose one-step laws are heavy-tailed but bounded knows a better
    scale than the composed spread)."""
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
        x = tilted_masses(one, theta, lm)
        tilted.append(x)
        # moments for the window's Chernoff candidates only (a heuristic: any s > 0 is valid)
        m1 = float(np.sum(x * l))
        mean += n * m1
        var += n * float(np.sum(x * (l - m1) ** 2))
    sd = math.sqrt(max(var, step**2))
    k0 = _log_mgf_total(items, [theta])[0]
    # candidate Chernoff parameters: the Gaussian-like scale 1/sd, and down to O(1) for one-step
    # distributions with rare large losses (their composed tail is Poisson-like: the best s is
    # about log(k / (T p)) / L, far below 1/sd)
    s = np.unique(np.concatenate((np.geomspace(0.5, 400.0, 14) / sd, np.geomspace(0.05, 400.0, 24),
                                  np.asarray(chernoff if chernoff is not None else [], dtype=np.float64))))
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
    # (their logarithms are kept too: the bounds underflow to 0 far out, where they may still be
    # multiplied by e^{K - theta eps} beyond float range, Composed.delta)
    # (capped at e^700, far above the tilted total mass, about 1; nan, from inf - inf, is the cap)
    with np.errstate(invalid="ignore"):
        log_w_hi = _capped(float(np.min(k_plus - k0 - s * hi_loss)) + math.log(1.001))
        log_w_lo = _capped(float(np.min(k_minus - k0 + s * lo_loss)) + math.log(1.001))
    w_hi, w_lo = math.exp(log_w_hi), math.exp(log_w_lo)
    log_wrapped = float(np.logaddexp(log_w_lo, log_w_hi))
    from scipy import fft as sfft
    a = _fft_constant(size)
    spectrum = None
    rel = None
    term1 = 0.0
    growth = 1.0
    e_list = []
    moduli = []  # (|spectrum|, componentwise error bound a ||x||_1, count) of each item
    products, log_modulus = 0, 0.0  # complex products of the powers; log of their moduli's bound
    for (one, n), x in zip(items, tilted):
        buf = np.zeros(size)
        if len(x) <= size:
            buf[: len(x)] = x
        else:
            pad = (-len(x)) % size
            buf = np.concatenate((x, np.zeros(pad))).reshape(-1, size).sum(axis=0)
        total_x = float(np.sum(x))
        spec = sfft.rfft(buf)
        e = a * math.sqrt(size) * _norm(x)
        e_list.append((e, n))
        r = np.abs(spec)
        # componentwise: |fl(X_k) - X_k| <= a ||x||_1 for every k (see _componentwise_power_error)
        moduli.append((r, a * total_x * (1 + 1e-12), n))
        # the power by repeated squaring (relative error (1 + e)^(n-1) - 1, see power_by_squaring)
        with np.errstate(under="ignore"):
            power, this_rel, count = power_by_squaring(spec, n)
            spectrum = power if spectrum is None else np.multiply(spectrum, power, out=spectrum)
        products += count + (1 if len(moduli) > 1 else 0)
        max_r = float(np.max(r)) * (1 + 4 * UNIT) + a * total_x
        log_modulus += n * math.log(max_r) if max_r > 0 else 0.0
        rel = this_rel if rel is None else rel + this_rel + 4 * UNIT
    if all(n * e <= 0.5 for e, n in e_list):
        for e, n in e_list:
            growth *= (1 + e) ** n
        for e, n in e_list:
            term1 += n * e * growth / (1 + e)
    else:
        term1 = math.inf
    term1 = min(term1, _componentwise_power_error(moduli))
    if not math.isfinite(term1):
        return None
    rel = min(rel, 1.0)
    underflow = _underflow_error(products, log_modulus) * math.sqrt(size)  # its Euclidean norm
    spec_err = term1 + math.sqrt(2) * (_norm(np.abs(spectrum)) * rel * (1 + rel) + underflow)
    z = sfft.irfft(spectrum, size)
    shift_idx = first % size
    z = np.roll(z, -shift_idx)
    error = (spec_err / math.sqrt(size) + a * _norm(z) / (1 - a)) * (1 + 8 * UNIT) + 1e-320
    if raw:
        return Convolved(z, lo_loss, step, theta, log_scale, error, w_lo + w_hi, log_wrapped)
    above = _exp_up(log_scale - theta * hi_loss + log_w_hi) if bound == "upper" else 0.0
    return Composed(z, lo_loss, step, theta, log_scale, error, w_lo + w_hi, above, infinity, bound, log_wrapped)


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


#: Share of delta that the terms k > K of a bulk/jump split may carry (bounded by their total P-mass:
#: added to the upper bound's delta, dropped from the lower's; it was 1e-6). It moves epsilon by
#: about this share over the tilt theta (-d log delta / d eps), the same share as the accountant's
#: one-step tails (TAIL_SHARE); a term fewer saves the widest window of the split (k jumps).
SPLIT_REMAINDER_SHARE = 3e-5


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
    comment above); a :class:`SplitComposed`, or None (no split point, too many terms, over budget)."""
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
    # the smallest K with remainder <= SPLIT_REMAINDER_SHARE delta
    remainder, k_max = math.inf, None
    for k in range(0, min(max_terms, count) + 1):
        if k == count:
            remainder, k_max = 0.0, k
            break
        if lam >= k + 2:
            continue
        log_r = log_cap + (k + 1) * math.log(lam) - math.lgamma(k + 2) - math.log1p(-lam / (k + 2))
        if log_r <= math.log(SPLIT_REMAINDER_SHARE * delta):
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
