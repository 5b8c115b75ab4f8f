"""Exact output distributions of subsampled mechanisms on concrete small datasets.

Ground truth for amplification-by-subsampling results: the subsampled mechanism ``M(S(d))`` is
enumerated over *every* batch, so its output distribution is exact (rationals), whatever theorem
is checked against it.

* A :data:`Dataset` is a tuple of records. Finite records are small ints (a universe
  ``{0 .. k-1}``); Gaussian sum-query records are Fractions in ``[-1, 1]`` (1-D clipped
  contributions, clipping norm ``C = 1``).
* Sampling ``"poisson"`` (each record independently with probability ``rate``), ``"fixed"``
  (``batch_size`` records uniformly without replacement, "WOR") or ``"replacement"``.
* :class:`FiniteBase` is a base mechanism on batches: a function of the batch's multiset of
  records (a sorted tuple) to a full-support distribution (tuple of Fractions).
  :func:`subsampled_pair` gives the exact :class:`dpproofs.checker.oracles.finite.Pair`
  ``(M(S(d)), M(S(d2)))``; :class:`Subsampled` is one such instance (base, datasets, sampling).
* The Gaussian sum query ``sum(batch) + N(0, sigma^2)`` (sigma = noise standard deviation over the
  clipping norm, whatever the relation) gives a :class:`MixturePair` of two finite Gaussian
  mixtures with exact rational weights and means (:class:`GaussianSubsampled` is one instance);
  their divergences are :mod:`dpproofs.checker.oracles.mixtures`.
* Composition of finite pairs: the exact product (:func:`compose`).

Hypothesis is imported inside the strategies only.
"""

import dataclasses
import itertools
import math
import random
from fractions import Fraction

from dpproofs.checker.oracles import finite
from dpproofs.errors import InvalidArgument

__all__ = [
    "Dataset",
    "SAMPLINGS",
    "RELATIONS",
    "exact_distribution",
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
    "MixturePair",
    "GaussianSubsampled",
    "sum_query_pair",
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


def exact_distribution(name, values):
    """``values`` as a tuple of Fractions, checked positive and summing to exactly 1 (``name`` in errors)."""
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
        return exact_distribution(f"{self.name}({key!r})", dist)

    def __str__(self):
        return self.name


def randomized_count(noise):
    """``(sum(batch) + Z) mod K``, ``Z`` distributed as ``noise`` (K positive Fractions) on Z_K."""
    noise = exact_distribution("noise", noise)
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
        pw, pm = _merge(exact_distribution("p_weights", self.p_weights), tuple(_fraction("p_means", m) for m in self.p_means))
        qw, qm = _merge(exact_distribution("q_weights", self.q_weights), tuple(_fraction("q_means", m) for m in self.q_means))
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
