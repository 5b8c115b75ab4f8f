"""Exact output distributions of subsampled mechanisms on concrete small datasets.

Ground truth for the amplification-by-subsampling theorems (Balle, Barthe & Gaboardi 2018,
arXiv 1807.01647; Wang, Balle & Kasiviswanathan 2019, arXiv 1808.00087; Zhu, Dong & Wang 2022,
arXiv 2106.08567): the subsampled mechanism ``M(S(d))`` is enumerated over *every* batch.

* A :data:`Dataset` is a tuple of records. Finite records are small ints (a universe
  ``{0 .. k-1}``); Gaussian sum-query records are Fractions in ``[-1, 1]`` (1-D clipped
  contributions, clipping norm ``C = 1``).
* Sampling ``"poisson"`` (each record independently with probability ``rate``) or ``"fixed"``
  (``batch_size`` records uniformly without replacement, "WOR").
* :class:`FiniteBase` is a base mechanism on batches: a function of the batch's multiset of
  records (a sorted tuple) to a full-support distribution (tuple of Fractions).
  :func:`subsampled_pair` gives the exact :class:`dpproofs.checker.oracles.finite.Pair` ``(M(S(d)), M(S(d2)))``.
* The Gaussian sum query ``sum(batch) + N(0, sigma^2)`` (sigma = noise standard deviation over the
  clipping norm, whatever the relation) gives a :class:`MixturePair` of two finite Gaussian
  mixtures with exact rational weights and means. Its Renyi divergence (:func:`rdp_mixture`) and
  hockey-stick divergence (:func:`delta_mixture`) are computed by mpmath quadrature with explicit
  truncation bounds (precise flavour, ``dps``) and enclosed rigorously in arb balls (``prec``):
  ``acb.integral`` (rigorous on the finite window) plus analytic bounds on the tails for RDP; for
  the hockey-stick, the exact Gaussian CDFs over the positive set of ``p - e^eps q`` plus a
  rigorous cell-by-cell bound on everything the located set could have missed.
* Composition: finite pairs by the exact product (:func:`compose`); mixture pairs by the exact
  additivity of RDP (``D_a(P^k||Q^k) = k D_a(P||Q)``) and, for the hockey-stick, by the recursion
  on the privacy loss ``L = log p/q`` of one step, ``delta_k(eps) = E_{X~P}[delta_{k-1}(eps -
  L(X))]`` with ``delta_0(e) = (1 - e^e)_+`` (``k = 2`` only; precise: quadrature of the exact
  level-set ``delta_1``; ball: a rigorous second-order bracket from the convexity of the one-step
  profile in ``e^e``, ~1e-3 wide in ~10 s; ``k = 3`` is not offered: the nested recursion costs
  the square of ``k = 2``).
* RDP of a k-fold product needs no quadrature: ``k * rdp_mixture``.

Hypothesis is imported inside the strategies only (``dpproofs.checker.oracles.finite``, imported here, loads it).
"""

import dataclasses
import itertools
import math
import random
from fractions import Fraction

from mpmath import mp

from dpproofs.checker.oracles import finite
from dpproofs.errors import InvalidArgument, NumericalError
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = [
    "Dataset",
    "SAMPLINGS",
    "RELATIONS",
    "FiniteBase",
    "randomized_count",
    "randomized_response",
    "geometric_count",
    "table_base",
    "seeded_base",
    "batches",
    "subsampled_distribution",
    "subsampled_pair",
    "base_pairs",
    "neighbours",
    "is_neighbour",
    "substitution_distance",
    "group_base_pairs",
    "compose",
    "Subsampled",
    "Triple",
    "poisson_decomposition",
    "decomposition_gap",
    "hockey_stick_decomposed",
    "hockey_stick_combination",
    "triples",
    "MixturePair",
    "GaussianSubsampled",
    "sum_query_pair",
    "symmetric_poisson_pair",
    "rdp_mixture",
    "rdp_mixture_ball",
    "delta_mixture",
    "delta_mixture_ball",
    "delta_mixture_composed",
    "delta_mixture_composed_ball",
    "datasets",
    "gaussian_datasets",
    "finite_bases",
    "neighbouring_datasets",
]

#: A dataset: a tuple of records (small ints, or Fractions in [-1, 1] for the sum query).
Dataset = tuple

SAMPLINGS = ("poisson", "fixed", "replacement")
RELATIONS = ("add_remove", "replace_one")


# --- validation ---------------------------------------------------------------------------------


def _fraction(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise InvalidArgument(f"{name}={value!r} must be an exact rational (int or Fraction)")
    return Fraction(value)


def _distribution(name, values):
    values = tuple(_fraction(name, v) for v in values)
    if not values or any(v <= 0 for v in values) or sum(values) != 1:
        raise InvalidArgument(f"{name}={values!r} must be positive Fractions summing to exactly 1")
    return values


def _dataset(name, d):
    if not isinstance(d, tuple):
        raise InvalidArgument(f"{name}={d!r} must be a tuple of records")
    return d


def _sampling_args(sampling, rate, batch_size, n):
    """Validate the sampling; returns the rate (Fraction) or the batch size (int)."""
    if sampling == "poisson":
        if rate is None or batch_size is not None:
            raise InvalidArgument(f"sampling='poisson' takes rate (a Fraction in [0, 1]), not batch_size={batch_size!r}")
        rate = _fraction("rate", rate)
        if not 0 <= rate <= 1:
            raise InvalidArgument(f"rate={rate} must be in [0, 1]")
        return rate
    if sampling in ("fixed", "replacement"):
        if batch_size is None or rate is not None:
            raise InvalidArgument(f"sampling={sampling!r} takes batch_size (an int), not rate={rate!r}")
        top = n if sampling == "fixed" else 8
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 0 <= batch_size <= top:
            raise InvalidArgument(f"batch_size={batch_size!r} must be an int in [0, {top}]"
                                  + (" (the dataset size)" if sampling == "fixed" else " (enumeration is n^b)"))
        if sampling == "replacement" and n == 0:
            raise InvalidArgument("sampling='replacement' needs a non-empty dataset")
        return batch_size
    raise InvalidArgument(f"sampling={sampling!r} must be one of {SAMPLINGS}")


# --- finite base mechanisms -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class FiniteBase:
    """A base mechanism on batches: ``table(multiset) -> distribution over 0 .. outcomes-1``.

    ``multiset`` is the batch's records as a sorted tuple; the distribution is a tuple of
    Fractions with full support summing to exactly 1 (checked on every call). ``table`` may be a
    callable or a dict keyed by sorted tuples.
    """

    table: object
    outcomes: int
    name: str = "base"

    def __call__(self, batch):
        key = tuple(sorted(batch))
        if callable(self.table):
            dist = self.table(key)
        else:
            try:
                dist = self.table[key]
            except KeyError:
                raise InvalidArgument(f"batch={key!r} is not in the table of base {self.name!r}") from None
        dist = tuple(dist)
        if len(dist) != self.outcomes:
            raise InvalidArgument(f"base {self.name!r} gave {len(dist)} outcomes on {key!r}, not {self.outcomes}")
        return _distribution(f"{self.name}({key!r})", dist)

    def __str__(self):
        return self.name


def randomized_count(noise):
    """``(sum(batch) + Z) mod K``, ``Z`` distributed as ``noise`` (K positive Fractions) on Z_K."""
    noise = _distribution("noise", noise)
    k = len(noise)

    def table(batch):
        s = sum(batch) % k
        return tuple(noise[(j - s) % k] for j in range(k))

    return FiniteBase(table, k, f"randomized_count({', '.join(map(str, noise))})")


def randomized_response(keep):
    """The parity of ``sum(batch)``, reported truthfully with probability ``keep`` (in (0, 1))."""
    keep = _fraction("keep", keep)
    if not 0 < keep < 1:
        raise InvalidArgument(f"keep={keep} must be in (0, 1)")
    base = randomized_count((keep, 1 - keep))
    return dataclasses.replace(base, name=f"randomized_response({keep})")


def geometric_count(ratio, max_count):
    """Truncated geometric mechanism: ``clamp(min(sum(batch), M) + Z, 0, M)``, ``P(Z = z) ∝ r^|z|``.

    Outputs ``0 .. M`` (``M = max_count``); with records in {0, 1} it is ``log(1/r)``-DP under
    add/remove (Ghosh, Roughgarden & Sundararajan 2009). Probabilities are exact: interior
    ``(1-r)/(1+r) r^|j-s|``, ends ``r^s/(1+r)`` and ``r^(M-s)/(1+r)``.
    """
    r = _fraction("ratio", ratio)
    if not 0 < r < 1:
        raise InvalidArgument(f"ratio={r} must be in (0, 1)")
    if isinstance(max_count, bool) or not isinstance(max_count, int) or max_count < 1:
        raise InvalidArgument(f"max_count={max_count!r} must be an int >= 1")
    m = max_count

    def table(batch):
        s = min(max(sum(batch), 0), m)
        inner = (1 - r) / (1 + r)
        return tuple(r**s / (1 + r) if j == 0 else r ** (m - s) / (1 + r) if j == m else inner * r ** abs(j - s)
                     for j in range(m + 1))

    return FiniteBase(table, m + 1, f"geometric_count({r}, {m})")


def table_base(table, outcomes, name="table"):
    """A base from an explicit dict ``{sorted tuple: distribution}``."""
    return FiniteBase(dict(table), outcomes, name)


def seeded_base(seed, outcomes, weight_range=(1, 20)):
    """An arbitrary base: each multiset's distribution drawn from ``random.Random(f"{seed}:{multiset}")``
    (integer weights in ``weight_range``, normalised). Deterministic across processes and defined
    on every batch, so one seed is a whole mechanism."""
    low, high = weight_range

    def table(batch):
        rng = random.Random(f"{seed}:{batch!r}")
        w = [rng.randint(low, high) for _ in range(outcomes)]
        total = sum(w)
        return tuple(Fraction(x, total) for x in w)

    return FiniteBase(table, outcomes, f"seeded_base({seed}, {outcomes})")


# --- enumeration ------------------------------------------------------------------------------


def batches(d, *, sampling, rate=None, batch_size=None):
    """``{multiset (sorted tuple): exact probability}`` of the batch drawn from ``d``.

    ``"poisson"``: each record independently with probability ``rate``; ``"fixed"``: a uniform
    ``batch_size``-subset of the indices (without replacement); ``"replacement"``: ``batch_size``
    indices drawn uniformly with replacement (the batch is a multiset).
    """
    d = _dataset("d", d)
    n = len(d)
    parameter = _sampling_args(sampling, rate, batch_size, n)
    out = {}
    if sampling == "poisson":
        q = parameter
        for size in range(n + 1):
            weight = q**size * (1 - q) ** (n - size)
            if weight == 0:
                continue
            for subset in itertools.combinations(range(n), size):
                key = tuple(sorted(d[i] for i in subset))
                out[key] = out.get(key, 0) + weight
    elif sampling == "fixed":
        b = parameter
        weight = Fraction(1, math.comb(n, b))
        for subset in itertools.combinations(range(n), b):
            key = tuple(sorted(d[i] for i in subset))
            out[key] = out.get(key, 0) + weight
    else:  # with replacement: every sequence of b indices equally likely
        b = parameter
        weight = Fraction(1, n**b)
        for sequence in itertools.product(range(n), repeat=b):
            key = tuple(sorted(d[i] for i in sequence))
            out[key] = out.get(key, 0) + weight
    return out


def subsampled_distribution(base, d, *, sampling, rate=None, batch_size=None):
    """The exact output distribution of ``base(S(d))`` (a tuple of Fractions)."""
    total = [Fraction(0)] * base.outcomes
    for batch, weight in batches(d, sampling=sampling, rate=rate, batch_size=batch_size).items():
        for j, pj in enumerate(base(batch)):
            total[j] += weight * pj
    return tuple(total)


def subsampled_pair(base, d, d2, *, sampling, rate=None, batch_size=None):
    """``Pair(M(S(d)), M(S(d2)))``, every batch enumerated (exact Fractions)."""
    return finite.Pair(
        subsampled_distribution(base, d, sampling=sampling, rate=rate, batch_size=batch_size),
        subsampled_distribution(base, d2, sampling=sampling, rate=rate, batch_size=batch_size),
    )


def _multiset_neighbours(a, b, relation):
    """Whether multisets (sorted tuples) ``a``, ``b`` are neighbours (add/remove: one more or one
    less record; replace_one: same size, one record changed). Equal multisets are not."""
    ca, cb = _counts(a), _counts(b)
    keys = set(ca) | set(cb)
    diff = [ca.get(k, 0) - cb.get(k, 0) for k in keys]
    plus = sum(x for x in diff if x > 0)
    minus = -sum(x for x in diff if x < 0)
    if relation == "add_remove":
        return plus + minus == 1
    if relation == "replace_one":
        return plus == 1 and minus == 1
    raise InvalidArgument(f"relation={relation!r} must be one of {RELATIONS}")


def _counts(t):
    c = {}
    for x in t:
        c[x] = c.get(x, 0) + 1
    return c


def substitution_distance(a, b):
    """For multisets of equal size: how many records of ``a`` must change to give ``b``."""
    if len(a) != len(b):
        raise InvalidArgument(f"multisets of sizes {len(a)} and {len(b)} have no substitution distance")
    ca, cb = _counts(a), _counts(b)
    return len(a) - sum(min(ca[k], cb.get(k, 0)) for k in ca)


def group_base_pairs(instance, k):
    """Every ``Pair(base(T), base(T'))`` over batches drawable from ``d`` or ``d2`` of equal size
    at substitution distance ``1 .. k`` (both orders): the group-privacy profile's domain."""
    kw = instance._kw()
    keys = set(batches(instance.d, **kw)) | set(batches(instance.d2, **kw))
    out = []
    for a, b in itertools.permutations(sorted(keys), 2):
        if len(a) == len(b) and 1 <= substitution_distance(a, b) <= k:
            out.append(finite.Pair(instance.base(a), instance.base(b)))
    return out


def is_neighbour(d, d2, relation):
    """Whether datasets ``d`` and ``d2`` are neighbours as multisets under ``relation``."""
    return _multiset_neighbours(tuple(sorted(d)), tuple(sorted(d2)), relation)


def base_pairs(base, d, d2, *, sampling, rate=None, batch_size=None, relation=None):
    """Every ``Pair(base(T), base(T'))`` over neighbouring batches ``T, T'`` (both orders) that
    can be drawn from ``d`` or ``d2``.

    The base restricted to those batches is a mechanism on a smaller domain; its (eps, delta)
    over these pairs is what an amplification theorem may assume of it on this instance.
    ``relation`` defaults to the batches' relation of the sampling (Poisson: add_remove; fixed:
    replace_one, batches of equal size).
    """
    relation = relation or ("add_remove" if sampling == "poisson" else "replace_one")
    if sampling == "replacement" and relation == "replace_one":
        relation = "replace_one"  # batches of equal size differing in one record (group pairs: group_base_pairs)
    keys = set(batches(d, sampling=sampling, rate=rate, batch_size=batch_size))
    keys |= set(batches(d2, sampling=sampling, rate=rate, batch_size=batch_size))
    if sampling == "poisson":  # the coupling of the proofs draws batches with probability 0 too
        keys |= set(batches(d, sampling="poisson", rate=Fraction(1, 2)))
        keys |= set(batches(d2, sampling="poisson", rate=Fraction(1, 2)))
    keys = sorted(keys)
    out = []
    for a, b in itertools.permutations(keys, 2):
        if _multiset_neighbours(a, b, relation):
            out.append(finite.Pair(base(a), base(b)))
    return out


def neighbours(d, relation, universe):
    """Every neighbouring dataset of ``d`` (distinct tuples, in a fixed order).

    ``add_remove``: ``d`` with one record removed, or with one record of ``universe`` appended;
    ``replace_one``: ``d`` with one record replaced by a different value of ``universe``.
    ``universe`` is an int ``k`` (records ``0 .. k-1``) or an iterable of records.
    """
    d = _dataset("d", d)
    values = tuple(range(universe)) if isinstance(universe, int) else tuple(universe)
    out = []
    if relation == "add_remove":
        out += [d[:i] + d[i + 1:] for i in range(len(d))]
        out += [d + (v,) for v in values]
    elif relation == "replace_one":
        out += [d[:i] + (v,) + d[i + 1:] for i in range(len(d)) for v in values if v != d[i]]
    else:
        raise InvalidArgument(f"relation={relation!r} must be one of {RELATIONS}")
    seen, unique = set(), []
    for x in out:
        if x not in seen:
            seen.add(x)
            unique.append(x)
    return unique


def compose(pair, k):
    """The ``k``-fold non-adaptive product of a finite pair (outcome tuples in lexicographic order)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k={k!r} must be an int >= 1")
    p, q = [], []
    for outcome in itertools.product(range(len(pair)), repeat=k):
        pp = qq = Fraction(1)
        for o in outcome:
            pp *= pair.p[o]
            qq *= pair.q[o]
        p.append(pp)
        q.append(qq)
    return finite.Pair(tuple(p), tuple(q))


@dataclasses.dataclass(frozen=True)
class Subsampled:
    """One instance: a finite base, two datasets and the sampling (a vocabulary structured type).

    ``pair()`` is the exact subsampled pair, ``base_pairs()`` the base's neighbouring batch pairs
    on this instance, ``gamma`` the rate or ``batch_size / n``.
    """

    base: FiniteBase
    d: tuple
    d2: tuple
    sampling: str
    rate: object = None
    batch_size: object = None

    def _kw(self):
        return {"sampling": self.sampling, "rate": self.rate, "batch_size": self.batch_size}

    def pair(self):
        return _cached(("pair", self), lambda: subsampled_pair(self.base, self.d, self.d2, **self._kw()))

    def base_pairs(self, relation=None):
        return _cached(("base", self, relation),
                       lambda: base_pairs(self.base, self.d, self.d2, relation=relation, **self._kw()))

    @property
    def gamma(self):
        """The rate (Poisson) or ``batch_size / n`` (fixed size, with replacement)."""
        return Fraction(self.rate) if self.sampling == "poisson" else Fraction(self.batch_size, len(self.d))

    def __str__(self):
        how = f"rate={self.rate}" if self.sampling == "poisson" else f"batch_size={self.batch_size}"
        return f"{self.base} on d={self.d}, d2={self.d2} ({self.sampling}, {how})"


def poisson_decomposition(instance):
    """``(R, A, added_first)`` of a Poisson add/remove instance: with ``big = small + (y,)``,
    ``M(S(big)) = (1 - gamma) R + gamma A`` where ``R = M(S(small))`` and ``A = E_T[M(T + (y,))]``,
    ``T ~ S(small)`` (the proof of Balle, Barthe & Gaboardi 2018, Thm. 8). ``added_first`` says
    whether ``instance.d`` is ``big``. Exact Fractions."""
    if instance.sampling != "poisson":
        raise InvalidArgument(f"sampling={instance.sampling!r}: the decomposition is of Poisson instances")
    d, d2 = instance.d, instance.d2
    added_first = len(d) == len(d2) + 1
    big, small = (d, d2) if added_first else (d2, d)
    if len(big) != len(small) + 1 or not is_neighbour(big, small, "add_remove"):
        raise InvalidArgument(f"d={d!r}, d2={d2!r} are not add/remove neighbours")
    rest = list(big)
    for x in small:
        rest.remove(x)
    (y,) = rest
    base, q = instance.base, Fraction(instance.rate)
    r = subsampled_distribution(base, small, sampling="poisson", rate=q)
    a = [Fraction(0)] * base.outcomes
    for batch, weight in batches(small, sampling="poisson", rate=q).items():
        for j, pj in enumerate(base(batch + (y,))):
            a[j] += weight * pj
    return r, tuple(a), added_first


def decomposition_gap(instance):
    """``max_o |M(S(big))(o) - ((1 - gamma) R + gamma A)(o)|`` (exact; 0 when the decomposition holds)."""
    r, a, added_first = poisson_decomposition(instance)
    pair = instance.pair()
    big = pair.p if added_first else pair.q
    q = Fraction(instance.rate)
    return max(abs(b - ((1 - q) * ri + q * ai)) for b, ri, ai in zip(big, r, a))


def hockey_stick_decomposed(c, a, b, instance, to, positive_part):
    """``sum_o (a0 R + a1 A - c (b0 R + b1 A))_+`` over the outcomes, ``(R, A)`` of
    :func:`poisson_decomposition`, coefficients grouped per component."""
    r, x, _ = poisson_decomposition(instance)
    w = (a[0] - c * b[0], a[1] - c * b[1])
    total = to(0)
    for ri, ai in zip(r, x):
        total += positive_part(w[0] * to(ri) + w[1] * to(ai))
    return total


_CACHE = {}


def _cached(key, compute):
    try:
        return _CACHE[key]
    except KeyError:
        pass
    except TypeError:  # unhashable table
        return compute()
    if len(_CACHE) > 512:
        _CACHE.clear()
    _CACHE[key] = value = compute()
    return value


@dataclasses.dataclass(frozen=True)
class Triple:
    """Three distributions ``mu0, mu1, mu1p`` on the same outcomes (exact Fractions, full support):
    the components of the mixtures ``mu = (1-eta) mu0 + eta mu1``, ``mu' = (1-eta) mu0 + eta mu1p``
    of advanced joint convexity (Balle, Barthe & Gaboardi 2018, arXiv 1807.01647v2, Thm 2)."""

    mu0: tuple
    mu1: tuple
    mu1p: tuple

    def __post_init__(self):
        for name in ("mu0", "mu1", "mu1p"):
            object.__setattr__(self, name, _distribution(name, getattr(self, name)))
        if not len(self.mu0) == len(self.mu1) == len(self.mu1p):
            raise InvalidArgument("mu0, mu1, mu1p must have the same number of outcomes")

    def __str__(self):
        def show(d):
            return "(" + ", ".join(map(str, d)) + ")"
        return f"mu0={show(self.mu0)}, mu1={show(self.mu1)}, mu1p={show(self.mu1p)}"


def hockey_stick_combination(c, a, b, triple, to, positive_part):
    """``sum_i (sum_j a_j nu_j(i) - c sum_j b_j nu_j(i))_+`` for ``nu = (mu0, mu1, mu1p)``.

    ``a``, ``b`` are coefficient triples (numbers of the backend); ``to`` converts the exact
    probabilities; ``positive_part`` is the backend's ``max(., 0)``. With ``a``, ``b`` weights of
    mixtures this is the hockey-stick divergence ``H_c`` of the two mixtures.
    """
    # grouped per component, (a_j - c b_j) nu_j: a shared component cancels exactly when c = 1
    weights = [a[j] - c * b[j] for j in range(3)]
    total = to(0)
    for i in range(len(triple.mu0)):
        nu = (to(triple.mu0[i]), to(triple.mu1[i]), to(triple.mu1p[i]))
        total += positive_part(weights[0] * nu[0] + weights[1] * nu[1] + weights[2] * nu[2])
    return total


# --- Gaussian sum query: mixtures ---------------------------------------------------------------


def _merge(weights, means):
    merged = {}
    for w, m in zip(weights, means):
        merged[m] = merged.get(m, 0) + w
    keys = sorted(merged)
    return tuple(merged[k] for k in keys), tuple(keys)


@dataclasses.dataclass(frozen=True)
class MixturePair:
    """``P = sum_i p_weights[i] N(p_means[i], sigma^2)``, ``Q`` likewise (exact rational weights,
    each summing to 1, and means; ``sigma > 0`` a rational). Components with equal means merge."""

    p_weights: tuple
    p_means: tuple
    q_weights: tuple
    q_means: tuple
    sigma: object

    def __post_init__(self):
        pw, pm = _merge(_distribution("p_weights", self.p_weights), tuple(_fraction("p_means", m) for m in self.p_means))
        qw, qm = _merge(_distribution("q_weights", self.q_weights), tuple(_fraction("q_means", m) for m in self.q_means))
        if len(self.p_weights) != len(self.p_means) or len(self.q_weights) != len(self.q_means):
            raise InvalidArgument("each weight needs a mean (p_weights/p_means, q_weights/q_means)")
        sigma = _fraction("sigma", self.sigma)
        if sigma <= 0:
            raise InvalidArgument(f"sigma={sigma} must be > 0")
        object.__setattr__(self, "p_weights", pw)
        object.__setattr__(self, "p_means", pm)
        object.__setattr__(self, "q_weights", qw)
        object.__setattr__(self, "q_means", qm)
        object.__setattr__(self, "sigma", sigma)

    def swapped(self):
        return MixturePair(self.q_weights, self.q_means, self.p_weights, self.p_means, self.sigma)

    def difference(self, c=1):
        """``p - c q`` as merged ``(coefficients, means)`` (``c`` exact or mpf/arb)."""
        merged = {}
        for w, m in zip(self.p_weights, self.p_means):
            merged[m] = merged.get(m, 0) + w
        for w, m in zip(self.q_weights, self.q_means):
            merged[m] = merged.get(m, 0) - c * w
        keys = sorted(merged)
        return tuple(merged[k] for k in keys), tuple(keys)

    def __str__(self):
        def mix(w, m):
            return " + ".join(f"{a} N({b})" for a, b in zip(w, m))
        return f"({mix(self.p_weights, self.p_means)} || {mix(self.q_weights, self.q_means)}; sigma={self.sigma})"


def sum_query_pair(d, d2, *, sampling, rate=None, batch_size=None, sigma):
    """The :class:`MixturePair` of ``sum(S(d)) + N(0, sigma^2)`` vs the same on ``d2``.

    Records are Fractions (or ints) in ``[-1, 1]``: clipped 1-D contributions with clipping norm
    1; ``sigma`` is the noise standard deviation over the clipping norm.
    """
    for name, data in (("d", d), ("d2", d2)):
        _dataset(name, data)
        for x in data:
            if _fraction(name, x) < -1 or x > 1:
                raise InvalidArgument(f"{name} has record {x}; records must be in [-1, 1]")
    kw = {"sampling": sampling, "rate": rate, "batch_size": batch_size}
    bp, bq = batches(d, **kw), batches(d2, **kw)
    return MixturePair(tuple(bp.values()), tuple(Fraction(sum(t)) for t in bp),
                       tuple(bq.values()), tuple(Fraction(sum(t)) for t in bq), Fraction(sigma))


@dataclasses.dataclass(frozen=True)
class GaussianSubsampled:
    """A Gaussian sum-query instance (a vocabulary structured type): ``mixture()`` is its pair."""

    d: tuple
    d2: tuple
    sampling: str
    sigma: object
    rate: object = None
    batch_size: object = None

    def mixture(self):
        return sum_query_pair(self.d, self.d2, sampling=self.sampling, rate=self.rate,
                              batch_size=self.batch_size, sigma=self.sigma)

    @property
    def gamma(self):
        return Fraction(self.rate) if self.sampling == "poisson" else Fraction(self.batch_size, len(self.d))

    def __str__(self):
        how = f"rate={self.rate}" if self.sampling == "poisson" else f"batch_size={self.batch_size}"
        def show(d):
            return "(" + ", ".join(str(x) for x in d) + ("," if len(d) == 1 else "") + ")"
        return f"sum query on d={show(self.d)}, d2={show(self.d2)} ({self.sampling}, {how}, sigma={self.sigma})"


def symmetric_poisson_pair(config):
    """``P* = ((1-q) N(0) + q N(1), (1-q) N(0) + q N(-1))`` at the rate and sigma of ``config``
    (Poisson): the pair of ``x = 1`` against ``x' = -1`` with no other record."""
    q = Fraction(config.rate) if config.sampling == "poisson" else config.gamma
    return MixturePair((1 - q, q), (Fraction(0), Fraction(1)), (1 - q, q), (Fraction(0), Fraction(-1)), config.sigma)


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


# --- Hypothesis strategies --------------------------------------------------------------------


def datasets(universe=2, min_size=1, max_size=6):
    """Datasets of small-int records ``0 .. universe-1``."""
    from hypothesis import strategies as st

    return st.lists(st.integers(0, universe - 1), min_size=min_size, max_size=max_size).map(tuple)


def gaussian_datasets(min_size=1, max_size=6, denominator=4):
    """Datasets of clipped 1-D contributions: Fractions ``k/denominator`` in ``[-1, 1]``."""
    from hypothesis import strategies as st

    record = st.integers(-denominator, denominator).map(lambda k: Fraction(k, denominator))
    return st.lists(record, min_size=min_size, max_size=max_size).map(tuple)


def finite_bases(universe=2, outcomes=(2, 4)):
    """Finite bases: randomized response, randomized counts, truncated geometric counts, and
    arbitrary (seeded) tables over every multiset."""
    from hypothesis import strategies as st

    weights = st.integers(1, 30)
    low, high = outcomes
    noise = st.lists(weights, min_size=low, max_size=high).map(lambda w: tuple(Fraction(x, sum(w)) for x in w))
    return st.one_of(
        st.integers(1, 19).map(lambda k: randomized_response(Fraction(k, 20))),
        noise.map(randomized_count),
        st.tuples(st.integers(1, 9), st.integers(1, 4)).map(lambda t: geometric_count(Fraction(t[0], 10), t[1])),
        st.tuples(st.integers(0, 10**6), st.integers(low, high)).map(lambda t: seeded_base(*t)),
    )


def neighbouring_datasets(relation, universe=2, min_size=1, max_size=6, records=None):
    """``(d, d2)`` neighbours under ``relation`` (``records``: a strategy of records; default
    small ints ``0 .. universe-1``). For add_remove either order (d2 may be the larger)."""
    from hypothesis import strategies as st

    record = records if records is not None else st.integers(0, universe - 1)

    @st.composite
    def draw_pair(draw):
        if relation == "replace_one":
            d = tuple(draw(st.lists(record, min_size=max(min_size, 1), max_size=max_size)))
            i = draw(st.integers(0, len(d) - 1))
            new = draw(record.filter(lambda v: v != d[i]))
            return d, d[:i] + (new,) + d[i + 1:]
        if relation == "add_remove":
            small = tuple(draw(st.lists(record, min_size=max(min_size - 1, 0), max_size=max_size - 1)))
            extra = draw(record)
            i = draw(st.integers(0, len(small)))
            big = small[:i] + (extra,) + small[i:]
            return (big, small) if draw(st.booleans()) else (small, big)
        raise InvalidArgument(f"relation={relation!r} must be one of {RELATIONS}")

    return draw_pair()


def triples(min_size=2, max_size=5):
    """Random :class:`Triple` s of full-support rational distributions."""
    from hypothesis import strategies as st

    @st.composite
    def draw_triple(draw):
        size = draw(st.integers(min_size, max_size))
        dists = []
        for _ in range(3):
            w = draw(st.lists(st.integers(1, 100), min_size=size, max_size=size))
            dists.append(tuple(Fraction(x, sum(w)) for x in w))
        return Triple(*dists)

    return draw_triple()
