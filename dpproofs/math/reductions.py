"""Rényi DP of one sampled step under each (sampling, neighbouring relation) pair: the reductions the
RDP :class:`dpproofs.Accountant` uses, and the subsampling bounds behind them, each written ONCE.

Convention (every docstring of the library states it): ``sigma`` is the noise standard deviation
divided by the clipping norm C. A clipped contribution has norm at most C, so adding or removing a
record moves the noisy sum by at most C (sensitivity 1 in units of C) and replacing one record by
another moves it by at most 2C (sensitivity 2). Below, ``N(m)`` is ``N(m, sigma^2)`` (or
``N(m, sigma^2 I)``), ``g`` the sampling rate (``q`` for Poisson, ``gamma = b/n`` for a fixed-size
batch drawn without replacement, "WOR"), and ``eps_SG(a)`` the add/remove sampled-Gaussian RDP at
the same ``g`` and ``sigma`` (the add direction ``log A_a/(a-1)``, which is the max of both
directions by Mironov, Talwar & Zhang 2019, arXiv 1908.10530, Thm 5, as the accountant already
relies on).

Which pair of distributions each combination reduces to, and why (the accountant's RDP per step)::

  mechanism            relation     reduces to / bound used                              why
  -------------------  -----------  ---------------------------------------------------  -------------------------------
  Gaussian(s)          add_remove   N(1) vs N(0): a/(2 s^2)                              sensitivity 1
  Gaussian(s)          replace_one  N(2) vs N(0) = Gaussian(s/2): 2a/s^2                 sensitivity 2 (x - x', |.| <= 2)
  Laplace(b)           add_remove   Lap(1) vs Lap(0)                                     L1 sensitivity 1
  Laplace(b)           replace_one  Lap(2) vs Lap(0) = Laplace(b/2)                      L1 sensitivity 2
  RandomizedResponse   either       eps-RR (unchanged)                                   eps-DP under either relation
  KaryRandomizedResp.  replace_one  (R(x), R(x')): the two inputs' outputs, exact        the worst pair of two inputs
  KaryRandomizedResp.  add_remove   the same pair; special=True: (R(x), U), both orders  U = the inputs' average (special
                                                                                          input, dp_accounting REPLACE_SPECIAL)
  SampledGaussian      add_remove   ((1-q)N(0)+qN(1), N(0)), both directions             the existing analysis
  SampledGaussian      replace_one  Mironov 2017 Prop. 11 through D minus x:             X=M(D), Z=M(D-x), Y=M(D'):
                                    ((a-1/2)/(a-1)) eps_SG(2a) + eps_SG(2a-1),            X||Z is add/remove (add),
                                    min 2a/s^2                                             Z||Y add/remove (remove)
  FixedBatchGaussian   replace_one  Wang et al. Thm 9, eps(j) = 2j/s^2, eps(inf) = inf,   sub-mechanism: Gaussian sum of
                                    integer a; fractional a: chord of (a-1) eps(a);        the batch, sensitivity 2
                                    min 2a/s^2
  FixedBatchGaussian   add_remove   not supported (InvalidArgument)                       adding/removing a record changes
                                                                                          the dataset the batch is drawn
                                                                                          from: no analysis implemented

The min with ``2a/s^2`` (both replace-one samplings): couple the two batches (the same batch for
Poisson; for WOR the batch of D and the batch of D' with the changed index swapped), so X and Y
are the same mixture of pairs of Gaussians at distance at most 2; ``exp((a-1) D_a)`` is jointly
convex (van Erven & Harremoës 2014, arXiv 1206.2459v2, Thm 13 for a > 1), so
``D_a(X||Y) <= max over components = 2a/s^2``.

Fractional orders of the WOR bound (Theorem 9 is for integers): ``K(a) = (a-1) D_a(X||Y)`` is the
cumulant generating function of the privacy loss at ``a - 1`` (a log-moment), hence convex in
``a`` with ``K(1) = 0``; the chord between ``n = floor(a)`` and ``n + 1`` bounds it:
``K(a) <= (n+1-a) K(n) + (a-n) K(n+1)`` with each ``K(n)`` replaced by its upper bound (the same
step Wang, Balle & Kasiviswanathan take for their accountant, arXiv 1808.00087v2, Sec. 3.3).

Sources, at the point of use below:

* Mironov 2017 (arXiv 1702.07476v3), Proposition 11 (weak triangle inequality, p = q = 2):
  ``D_a(P||R) <= ((a - 1/2)/(a - 1)) D_{2a}(P||Q) + D_{2a-1}(Q||R)`` for ``a > 1``.
* Wang, Balle & Kasiviswanathan 2019 (AISTATS; arXiv 1808.00087v2), Theorem 9 (RDP for subsampled
  mechanisms, subsampling without replacement of m of n, gamma = m/n, replace-one neighbours,
  integer ``a >= 2``)::

      eps'(a) <= 1/(a-1) log(1 + g^2 C(a,2) min{4(e^{eps(2)} - 1), e^{eps(2)} min{2, (e^{eps(inf)} - 1)^2}}
                                + sum_{j=3}^{a} g^j C(a,j) e^{(j-1) eps(j)} min{2, (e^{eps(inf)} - 1)^j})

  for the Gaussian ``eps(inf) = inf``, so each ``min{2, .}`` is 2.

Backends (like :mod:`dpproofs.math.conversions`): the formulas below run on numpy (the accountant's
float path, vectorised over ``j``, with an explicit bound on their rounding error added so that
the result is never below the exact bound), mpmath (the precise reference) and python-flint arb
(certified mode). Nothing here imports mpmath or flint at import time.
"""

import fractions
import math

import numpy as np
from scipy import special as _special

from dpproofs.math import limits as domain
from dpproofs.errors import InvalidArgument

__all__ = [
    "RELATIONS",
    "SAMPLINGS",
    "wor_replace_one_log_moment",
    "wor_replace_one_rdp_integer",
    "wor_replace_one_rdp",
    "poisson_replace_one_rdp",
    "replace_one_gaussian_rdp",
    "gamma_upper",
    "unsupported",
    "RELATION_TABLE",
]

#: The neighbouring relations, the default first.
RELATIONS = ("add_remove", "replace_one")
#: The samplings of ``calibrate_sigma``, the default first.
SAMPLINGS = ("poisson", "fixed")

#: (mechanism class name, relation) -> the pair / bound it reduces to (the table above, for errors
#: and docs).
RELATION_TABLE = {
    ("Gaussian", "add_remove"): "N(1, s^2) vs N(0, s^2): a/(2 s^2)",
    ("Gaussian", "replace_one"): "N(2, s^2) vs N(0, s^2), i.e. Gaussian(s/2) (sensitivity 2)",
    ("Laplace", "add_remove"): "Laplace(b) at distance 1",
    ("Laplace", "replace_one"): "Laplace(b) at distance 2, i.e. Laplace(b/2)",
    ("RandomizedResponse", "add_remove"): "eps-RR",
    ("RandomizedResponse", "replace_one"): "eps-RR (eps-DP under either relation)",
    ("KaryRandomizedResponse", "add_remove"): "(R(x), R(x')), the two inputs' outputs; special=True: (R(x), U) "
                                              "and (U, R(x)), U uniform (the special input)",
    ("KaryRandomizedResponse", "replace_one"): "(R(x), R(x')), the two inputs' outputs (exact)",
    ("SampledGaussian", "add_remove"): "((1-q)N(0)+qN(1), N(0)), both directions",
    ("SampledGaussian", "replace_one"): "RDP: Mironov 2017 Prop. 11 through D minus x (add/remove at 2a and 2a-1), "
                                        "loose; PLD: the two-sided mixture ((1-q)N(0)+qN(-1), (1-q)N(0)+qN(1)), "
                                        "which dominates (docs/math.md), tight",
    ("FixedBatchGaussian", "replace_one"): "Wang, Balle & Kasiviswanathan 2019 (arXiv 1808.00087v2) Thm 9 with the Gaussian at sensitivity 2",
    ("SampledLaplace", "add_remove"): "((1-q)P+qQ, P) and its reverse, P=Lap(0,b), Q=Lap(1,b) "
                                      "(Zhu, Dong & Wang 2022 Thm 11); RDP: a Taylor bound on both directions",
    ("SampledLaplace", "replace_one"): "RDP: Mironov 2017 Prop. 11 through D minus x, min Laplace(b/2); PLD: not supported",
}


def unsupported(mechanism, relation):
    """The InvalidArgument for a (mechanism, relation) pair without a sound analysis, or None."""
    name = type(mechanism).__name__
    if name == "FixedBatchGaussian" and relation == "add_remove":
        return InvalidArgument(
            f"mechanism={mechanism!r} with relation='add_remove' is not supported: adding or removing a "
            f"record changes the dataset that a fixed-size batch is drawn from (b of n becomes b of n +/- 1), "
            f"and no analysis of that is implemented; allowed: relation='replace_one' for FixedBatchGaussian, "
            f"or SampledGaussian (Poisson sampling) for add/remove"
        )
    return None


_ULP = 2.0**-52
_LOG_2 = math.log(2.0)
_LOG_4 = math.log(4.0)


def gamma_upper(batch_size, dataset_size):
    """``batch_size / dataset_size`` rounded UP to a float (every bound here increases in gamma)."""
    value = batch_size / dataset_size  # correctly rounded
    if fractions.Fraction(value) < fractions.Fraction(batch_size, dataset_size):
        value = math.nextafter(value, math.inf)
    return min(value, 1.0)


# --- the backends ------------------------------------------------------------------------------


class _NumpyOps:
    """Float64 over numpy arrays of ``j``; terms are log-terms, summed in log space."""

    name = "numpy"

    @staticmethod
    def j_range(low, high):
        return np.arange(low, high + 1, dtype=np.float64)

    @staticmethod
    def log_binomial(n, k):
        return _special.gammaln(n + 1.0) - _special.gammaln(k + 1.0) - _special.gammaln(n - k + 1.0)

    log = staticmethod(np.log)
    log1p = staticmethod(np.log1p)
    expm1 = staticmethod(np.expm1)
    exp = staticmethod(np.exp)
    minimum = staticmethod(np.minimum)
    maximum = staticmethod(np.maximum)

    @staticmethod
    def scalar(x):
        return float(x)


class _MpmathOps:
    name = "mpmath"

    def __init__(self):
        from mpmath import mp

        self.mp = mp

    @staticmethod
    def j_range(low, high):
        return list(range(int(low), int(high) + 1))

    def log_binomial(self, n, k):
        return self.mp.log(self.mp.binomial(n, k))

    def log(self, x):
        return self.mp.log(x)

    def log1p(self, x):
        return self.mp.log1p(x)

    def expm1(self, x):
        return self.mp.expm1(x)

    def exp(self, x):
        return self.mp.exp(x)

    @staticmethod
    def minimum(a, b):
        return min(a, b)

    @staticmethod
    def maximum(a, b):
        return max(a, b)

    def scalar(self, x):
        return self.mp.mpf(x)


class _ArbOps:
    name = "arb"

    def __init__(self):
        from flint import arb

        self.arb = arb

    @staticmethod
    def j_range(low, high):
        return list(range(int(low), int(high) + 1))

    def log_binomial(self, n, k):
        return self.arb.bin_uiui(int(n), int(k)).log()

    @staticmethod
    def log(x):
        return x.log()

    @staticmethod
    def log1p(x):
        return x.log1p()

    @staticmethod
    def expm1(x):
        return x.expm1()

    @staticmethod
    def exp(x):
        return x.exp()

    @staticmethod
    def minimum(a, b):
        return a.min(b)

    @staticmethod
    def maximum(a, b):
        return a.max(b)

    def scalar(self, x):
        from dpproofs.math import ball

        return ball.to_arb(x)


_OPS = {}


def backend(name):
    """The arithmetic ``name`` ("numpy", "mpmath" or "arb") that formulas here are written against:
    ``log``, ``log1p``, ``expm1``, ``exp``, ``minimum``, ``maximum``, ``scalar`` (one instance each)."""
    return _ops(name)


def _ops(backend):
    if backend not in _OPS:
        _OPS[backend] = {"numpy": _NumpyOps, "mpmath": _MpmathOps, "arb": _ArbOps}[backend]()
    return _OPS[backend]


# --- Wang, Balle & Kasiviswanathan 2019 (arXiv 1808.00087v2), Theorem 9 --------------------------


def _wor_log_terms(b, alpha, log_gamma, unit, *, higher=True):
    """The log-terms ``j >= 2`` inside Theorem 9's ``log(1 + ...)`` for the Gaussian base mechanism,
    ``eps(j) = unit * j`` (``unit = 2/sigma^2`` at sensitivity 2), ``eps(inf) = inf``; written once
    for every backend (``b``). ``higher=False`` drops the ``j >= 3`` terms (a mutant)."""
    eps2 = 2 * unit
    log_2, log_4 = b.log(b.scalar(2)), b.log(b.scalar(4))  # in the backend: exact balls in arb
    # j = 2: gamma^2 C(a, 2) min{4 (e^{eps(2)} - 1), 2 e^{eps(2)}}   (min{2, inf} = 2)
    two = 2 * log_gamma + b.log_binomial(alpha, 2) + b.minimum(log_4 + b.log(b.expm1(eps2)), log_2 + eps2)
    if not higher or alpha < 3:
        return two, None
    j = b.j_range(3, alpha)
    # j >= 3: gamma^j C(a, j) e^{(j-1) eps(j)} min{2, (e^{eps(inf)} - 1)^j} = 2 gamma^j C(a, j) e^{(j-1) j unit}
    if b.name == "numpy":
        rest = j * log_gamma + b.log_binomial(float(alpha), j) + log_2 + (j - 1.0) * j * unit
    else:
        rest = [k * log_gamma + b.log_binomial(alpha, k) + log_2 + (k - 1) * k * unit for k in j]
    return two, rest


def wor_replace_one_log_moment(alpha, gamma, sigma, *, backend="numpy", higher=True):
    """Upper bound on ``K(a) = (a-1) eps'(a)`` of one WOR-sampled Gaussian step under replace-one at
    an integer order ``alpha >= 2``: ``log(1 + ...)`` of Theorem 9 (see the module docstring), with
    ``eps(j) = 2 j / sigma^2`` (sensitivity 2), NOT yet min'd with the Gaussian's ``2a(a-1)/s^2``.

    numpy: a float that is >= the exact value of the formula (its rounding error is bounded
    explicitly and added, see :func:`_numpy_log_moment`). mpmath: an mpf at the working precision.
    arb: a ball containing the exact value (``gamma`` and ``sigma`` taken as exact).
    """
    alpha = int(alpha)
    if backend == "numpy":
        return _numpy_log_moment(alpha, float(gamma), float(sigma), higher)
    b = _ops(backend)
    g, s = b.scalar(gamma), b.scalar(sigma)
    if g == 0:
        return b.scalar(0)
    unit = 2 / (s * s)
    two, rest = _wor_log_terms(b, alpha, b.log(g), unit, higher=higher)
    if backend == "mpmath":
        total = b.mp.exp(two) + (b.mp.fsum(b.mp.exp(t) for t in rest) if rest else 0)
    else:
        total = two.exp() + (sum((t.exp() for t in rest), b.arb(0)) if rest else b.arb(0))
    return b.log1p(total)


def _numpy_log_moment(alpha, gamma, sigma, higher):
    """Float Theorem 9, an upper bound on the exact formula.

    With ``t_j`` the log-terms and ``K = log(1 + sum_j e^{t_j})``, an error ``d_j`` in ``t_j`` moves
    ``K`` by at most ``sum_j w_j |d_j|``, ``w_j = e^{t_j}/(1 + sum e^t) <= 1``. Each ``t_j`` is a sum
    of four parts (``j log g``, ``log C(a, j)`` as three ``gammaln``, ``log 2``, ``j (j-1) u``); its
    float error is at most ``16 2^-52`` times the sum of their magnitudes and of ``|t_j|`` (scipy's
    ``gammaln`` is accurate to a few ulp; 16 covers it and the five roundings, with room). The
    log-sum-exp itself adds ``(a + 4) 2^-52 (K + 1)`` at most (``K`` alone when no shift is needed). Both are added (times 2), so the float is never below the
    formula."""
    if gamma == 0.0:
        return 0.0
    log_gamma = math.log(gamma)
    unit = 2.0 / sigma / sigma
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        two, rest = _wor_log_terms(_NumpyOps, alpha, log_gamma, unit, higher=higher)
        two = float(two)
        gl_alpha = abs(float(_special.gammaln(alpha + 1.0)))
        mag_two = 2 * abs(log_gamma) + 3 * gl_alpha + _LOG_4 + 3 * 2 * unit + abs(two)
        if rest is None:
            terms = np.array([two])
            magnitudes = np.array([mag_two])
        else:
            j = np.arange(3, alpha + 1, dtype=np.float64)
            terms = np.concatenate(([two], rest))
            magnitudes = np.concatenate(
                ([mag_two], j * abs(log_gamma) + 3 * gl_alpha + _LOG_2 + j * j * unit + np.abs(rest))
            )
        if not np.all(np.isfinite(terms)):
            if np.any(np.isnan(terms)) or np.any(terms == np.inf):
                return math.inf
        top = float(np.max(terms))
        if top == -math.inf:
            return 0.0
        # K = log(1 + sum e^{t_j}) = top' + log(e^{-top'} + sum e^{t_j - top'}), top' = max(top, 0)
        shift = max(top, 0.0)
        scaled = np.exp(terms - shift)
        inner = math.exp(-shift) + float(np.sum(scaled))
        value = shift + math.log(inner) if shift > 0 else math.log1p(float(np.sum(scaled)))
        weights = scaled / inner
        # the log-sum-exp: (a + 4) ulp relative on the sum, i.e. absolute on log(inner) (inner >= 1
        # when shifted) or relative on log1p (unshifted)
        error = float(np.sum(weights * magnitudes)) * 16 * _ULP + (alpha + 4) * _ULP * (
            abs(value) + (1.0 if shift > 0 else 0.0)
        )
    if not math.isfinite(value):
        return math.inf
    return value + 2.0 * error + 5e-324


def wor_replace_one_rdp_integer(alpha, gamma, sigma, *, backend="numpy", higher=True):
    """``min(Theorem 9 / (a-1), 2a/sigma^2)`` at an integer order ``alpha >= 2`` (see the module
    docstring for the min); numpy: an upper bound (float); mpmath / arb: value / ball."""
    alpha = int(alpha)
    if backend == "numpy":
        k = _numpy_wor_log_moment(alpha, float(gamma), float(sigma), higher)
        return k / (alpha - 1)
    b = _ops(backend)
    s = b.scalar(sigma)
    gaussian = (alpha - 1) * 2 * alpha / (s * s)
    return b.minimum(wor_replace_one_log_moment(alpha, gamma, sigma, backend=backend, higher=higher), gaussian) / (alpha - 1)


def _numpy_wor_log_moment(alpha, gamma, sigma, higher=True):
    """Float upper bound on ``K(alpha)`` (integer alpha >= 2; alpha = 1 gives 0): min of Theorem 9
    and the Gaussian's ``(a-1) 2a / s^2`` (rounded up)."""
    if alpha <= 1:
        return 0.0
    with np.errstate(over="ignore", under="ignore"):
        gaussian = (alpha - 1.0) * (2.0 * alpha / sigma / sigma)
    gaussian = math.nextafter(gaussian * (1 + 4 * _ULP), math.inf) if math.isfinite(gaussian) else math.inf
    if gamma >= 1.0:
        return gaussian
    return min(_numpy_log_moment(alpha, gamma, sigma, higher), gaussian)


def wor_replace_one_rdp(orders, gamma, sigma, *, higher=True):
    """Float RDP upper bound of one FixedBatchGaussian step under replace-one at every order (numpy
    array): integer orders by :func:`wor_replace_one_rdp_integer`, fractional ones by the chord of ``K`` between the
    neighbouring integers (``K(1) = 0``), every order min'd with ``2a/s^2``; ``sigma`` beyond the float range's ends as in
    :mod:`dpproofs.math.limits` (``+inf`` below ``SIGMA_TINY``, the Gaussian bound floored at TINY above
    ``SIGMA_HUGE``). Never below the exact bound; never below ``TINY`` (gamma > 0 always)."""
    alpha = np.asarray(orders, dtype=np.float64)
    flat = alpha.ravel()
    out = np.empty_like(flat)
    sigma = float(sigma)
    tiny = float(np.finfo(np.float64).tiny)
    if sigma < domain.SIGMA_TINY:
        out[:] = np.inf
        return out.reshape(alpha.shape)
    if sigma > domain.SIGMA_HUGE:
        with np.errstate(under="ignore"):
            out[:] = np.maximum(flat / (0.5 * sigma) / (0.5 * sigma) / 2.0 * (1 + 4 * _ULP), tiny)
        return out.reshape(alpha.shape)
    cache = {}

    def k_of(n):
        if n not in cache:
            cache[n] = _numpy_wor_log_moment(n, gamma, sigma, higher)
        return cache[n]

    for index, a in enumerate(flat):
        a = float(a)
        n = math.floor(a)
        if a == n:
            k = k_of(n)
        else:
            t = a - n
            low, high = k_of(n), k_of(n + 1)
            k = (1.0 - t) * low + t * high
            k = k * (1 + 4 * _ULP)  # three roundings of the chord
        value = k / (a - 1.0) * (1 + 2 * _ULP) if math.isfinite(k) else math.inf
        # the coupling bound 2a/s^2 holds at every order, fractional ones too (the chord of the
        # Gaussian's own convex K lies above it)
        gaussian = 2.0 * a / sigma / sigma * (1 + 4 * _ULP)
        out[index] = max(min(value, gaussian), tiny)
    return out.reshape(alpha.shape)


# --- Mironov 2017 (arXiv 1702.07476v3), Proposition 11 ------------------------------------------


def prop11_combination(alpha, eps_2a, eps_2a_minus_1):
    """``((a - 1/2)/(a - 1)) eps(2a) + eps(2a - 1)`` (Mironov 2017 Prop. 11 with p = q = 2), in the
    arithmetic of its arguments (floats / numpy arrays, mpf, arb; pass an arb or mpf ``alpha`` for
    exact coefficients)."""
    return (2 * alpha - 1) * eps_2a / (2 * (alpha - 1)) + eps_2a_minus_1


def poisson_replace_one_rdp(orders, q, sigma, sampled_gaussian_rdp, *, max_order):
    """Float RDP upper bound of one Poisson-sampled Gaussian step under replace-one (numpy array):
    ``min(Prop. 11 through D minus x, 2a/s^2)``. ``sampled_gaussian_rdp(orders, q, sigma)`` is the
    add/remove RDP (the fast evaluator); orders whose ``2a`` exceeds ``max_order`` (where that
    evaluator is not held to its tolerance) get the Gaussian bound ``2a/s^2`` alone (valid at every
    order). ``q = 0`` gives exactly 0 (the output ignores the data)."""
    alpha = np.asarray(orders, dtype=np.float64)
    if float(q) == 0.0:
        return np.zeros_like(alpha)
    sigma = float(sigma)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        gaussian = alpha / (0.5 * sigma) / (0.5 * sigma) / 2.0 * (1 + 4 * _ULP)
    inside = 2.0 * alpha <= max_order
    result = gaussian.copy()
    if np.any(inside):
        a = alpha[inside]
        both = sampled_gaussian_rdp(np.concatenate((2.0 * a, 2.0 * a - 1.0)), q, sigma)
        combined = prop11_combination(a, both[: len(a)], both[len(a):]) * (1 + 6 * _ULP)
        result[inside] = np.minimum(combined, gaussian[inside])
    tiny = float(np.finfo(np.float64).tiny)
    return np.maximum(np.where(np.isnan(result), np.inf, result), tiny)


def replace_one_gaussian_rdp(alpha, sigma):
    """``2a / sigma^2``: the Gaussian at replace-one sensitivity 2 (= Gaussian(sigma/2)), in the
    arithmetic of the arguments."""
    return 2 * alpha / (sigma * sigma)
