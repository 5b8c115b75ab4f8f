"""The RDP accountant for DP-SGD: compose mechanisms, convert to (epsilon, delta), calibrate sigma.

``Accountant(orders=None, *, certified=False, relation="add_remove")`` keeps a ledger of (mechanism, steps) and the
Rényi-DP curve ``eps(alpha) = sum steps * D_alpha(mechanism)`` at a fixed grid of orders
(composition: Mironov 2017, arXiv 1702.07476v3, Prop. 1). RDP values come from
:mod:`dpproofs.math.fast` (float64, within ``fast.RTOL`` of the precise evaluator); for
the sampled Gaussian they are the add direction ``log A_alpha/(alpha-1)``, as in every current
accountant, on the strength of Mironov, Talwar & Zhang 2019 (arXiv 1908.10530) Thm 5.

Default orders (:data:`DEFAULT_ORDERS`, 242 of them): 19 fractional orders from 1.01 to 5.5 (dense
near 1, where the optimum lies for large epsilon or very many steps), every order of dp_accounting's
and Opacus' default grids (1.1 to 10.9 by 0.1, 11 to 63, 128, 256, 512, 1024), every integer from 2
to 64, integers growing by 6% from 68 to 4096, then 4915, 5898, 7078, 8493 and 10 000 (:data:`MAX_ORDER`).
The optimal order grows like ``sqrt(log(1/delta) / rho)`` for a composed RDP curve ``~ rho *
alpha``, so high-noise runs have optima in the hundreds or thousands. For few steps the
sampled-Gaussian curve has a kink (its RDP jumps from ``~q^2 alpha/sigma^2`` towards the
Gaussian's once ``q alpha`` is large) where the optimum sits, and a grid loses up to about its
ratio minus 1 there (half-integer orders between 5.5 and 64 were measured too: they lower the
median loss from 0.058% to 0.049% but not the worst case, for +60% cold cost, so they are not in).
The peers' orders are in so that the default epsilon is never above theirs at their defaults
(``python benchmarks/rdp_default_vs_peers.py``: 384 configurations, 0 above dp_accounting 0.6 or
Opacus 1.6 by more than 1e-9 relative; before, 102 and 108 were, by up to 0.24% at q = 1 and 12%
where one step is tiny). Two more exact answers join the conversion: epsilon is 0 where a total
variation bound of the composition is at most delta, and delta is at most that bound at every
epsilon (:meth:`Accountant.total_variation_bound`; dp_accounting's ``compute_epsilon`` makes the
same Rényi test). Cost (``bench_accountant.py`` on a busy machine): cold queries 2.8-3.5 ms at the
242 orders against 2.7-3.0 ms at the 159 before, ratios to dp_accounting 4.1-6.6x against
4.9-7.8x; warm queries and calibration unchanged within the noise.

Measured loss of the default grid against ``refine=True`` (``python benchmarks/bench_accountant.py
--grid-loss``: 143 configurations, q in {1e-4, 1e-3, 0.01, 0.1, 0.5, 1}, sigma in {0.5, 1, 2, 4,
10, 50}, steps in {1, 100, 1e4, 1e6}, delta 1e-5): median 0.058%, 90th percentile 1.6%; at most
5.6% where the optimum lies inside the grid (worst: q=0.001, sigma=10, 1 step), at most 3.5% where
epsilon >= 0.01. Where the optimum lies above 10 000 (q <= 1e-3, sigma = 50, <= 100 steps,
epsilon below 2e-4) the grid's epsilon can be 30x the refined one (1.3e-4 vs 4.35e-6 at q=1e-4,
sigma=50, 100 steps): use ``refine=True`` there. (The previous 118-order grid, ratio 1.12 to
4096, lost up to 12.8% inside its range and 122x above it.) Cost of the finer grid (same bench,
5 repeats, a shared machine): a cold epsilon query (new q and sigma) 2.7-3.8 ms instead of
0.7-1.3 ms, a warm one 60-80 us instead of 30-45 us, calibrate_sigma 3.5 ms instead of 1.2 ms.

``refine=True`` searches continuous orders in ``[MIN_ORDER, REFINE_MAX_ORDER]`` = ``[1.000001,
131072]`` (beyond :data:`MAX_ORDER`; see :data:`REFINE_MAX_ORDER`), finding optima below 1.01
and above the grid's top.

Neighbouring relations (``relation=``): ``"add_remove"`` (the default; datasets differ by one
record added or removed) or ``"replace_one"`` (one record replaced by another; the dataset size is
public). ``sigma`` is always the noise standard deviation over the clipping norm C; under
replace-one the clipped sum moves by up to 2C, and the accountant handles that factor. The pair of
distributions each (mechanism, relation) reduces to, with its source, is the table of
:mod:`dpproofs.math.reductions`: Gaussian and Laplace under replace-one are Gaussian(sigma/2) and
Laplace(scale/2); RandomizedResponse is unchanged; SampledGaussian (Poisson) under replace-one uses
Mironov 2017 Prop. 11 through the dataset without the record (sound, loose: the PLD accountant
composes the two-sided mixture, which dominates, and is tight there); FixedBatchGaussian
(b of n without replacement) under replace-one uses Wang, Balle & Kasiviswanathan 2019 (arXiv
1808.00087v2) Thm 9 with the Gaussian at sensitivity 2, fractional orders by the chord of the
convex (alpha - 1) D_alpha between integers; FixedBatchGaussian under add/remove raises
InvalidArgument (no analysis: adding or removing a record changes the dataset the batch is drawn
from). The relation is part of the accountant (``to_dict``, ``repr``); the RDP cache is keyed by it.

Conversions to (epsilon, delta)-DP, from the composed curve ``R(alpha)``:

* ``"classic"``: Mironov 2017 (arXiv 1702.07476v3) Prop. 3, equal to Abadi et al. 2016
  (arXiv 1607.00133) Thm 2.2 at ``lambda = alpha - 1``:
  ``eps = min_alpha R(alpha) + log(1/delta)/(alpha-1)``; inverse
  ``delta = min_alpha exp((alpha-1)(R(alpha) - eps))``.
* ``"improved"``: Balle, Barthe, Gaboardi, Hsu & Sato 2020 (arXiv 1905.09982v3) Thm 21:
  ``eps = min_alpha R(alpha) + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1)``;
  inverse (the same inequality solved for delta, as in Canonne, Kamath & Steinke 2020,
  arXiv 2004.00010v5, Prop. 12):
  ``delta = min_alpha exp((alpha-1)(R(alpha) - eps)) / alpha * (1 - 1/alpha)^(alpha-1)``.

Upper bounds. Every epsilon and delta returned is an upper bound on the value the formula
gives with exact RDP: (1) each RDP value is inflated by ``fast.RTOL`` relative (the evaluator's
tested tolerance) plus ``(n + 2) 2^-52`` for the ``n`` products and sums of the composition;
(2) the conversion term is computed in float and then an absolute slack of ``2^-48`` times the
sum of the magnitudes of its parts is added; (3) the final float is moved up one ulp with
``math.nextafter``. A formula value below 0 (possible for "improved" with large delta) is
returned as 0, which is also a valid bound. delta is clipped to at most 1 and, if it
underflows, returned as the smallest normal float (still an upper bound).

Certified mode (``certified=True``): epsilon and delta are computed from python-flint ``arb``
enclosures (:mod:`dpproofs.math.ball`) and the upper end of the ball is rounded up to a
float. It is restricted to integer orders (the default orders become the integer ones up to
:data:`CERTIFIED_MAX_DEFAULT_ORDER` = 4096), because
fractional-order enclosures need rigorous integrals that take seconds each; and it is slower
(the exact binomial sums in ball arithmetic). ``refine`` is not available in certified mode.
"""

import math
import numbers
import threading
from collections.abc import Sequence

import numpy as np

from dpproofs import _validate
from dpproofs.accountant import certified
from dpproofs.accountant.cache import BoundedCache as _BoundedCache
from dpproofs.accountant.base import Bounds, PrivacyAccountant, check_delta, sequence_items
from dpproofs.math import conversions, total_variation
from dpproofs.math import reductions as subsampling
from dpproofs.errors import InvalidArgument, InvalidArgumentType, NumericalError
from dpproofs.math import fast, roots
from dpproofs import mechanisms
from dpproofs.mechanisms import FAST_MAX_ORDER, Mechanism

__all__ = [
    "Accountant", "DEFAULT_ORDERS", "CONVERSIONS", "MIN_ORDER", "MAX_ORDER", "MAX_STEPS",
    "REFINE_MAX_ORDER", "RDP_CACHE_BYTES", "ORDER_CACHE_BYTES", "RELATIONS",
]

#: The neighbouring relations (``Accountant(relation=...)``), the default first.
RELATIONS = subsampling.RELATIONS

_FRACTIONAL_ORDERS = (
    1.01, 1.02, 1.05, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.75, 1.9,
    2.25, 2.5, 2.75, 3.25, 3.5, 3.75, 4.5, 5.5,
)
#: Integers from 68 growing by 6% (rounded) to 4096, then by 20% to 10 000 (= MAX_ORDER): the loss
#: at a kink of the sampled-Gaussian curve is about the ratio minus 1 (see the module docstring);
#: integer orders cost O(alpha) each, so the sparse top keeps cold queries cheap.
_LARGE_ORDERS = (
    tuple(sorted({round(64 * 1.06**k) for k in range(1, 72)} | {4096}))
    + (4915, 5898, 7078, 8493, 10000)
)
#: dp_accounting's default orders (``rdp_privacy_accountant.DEFAULT_RDP_ORDERS``, 0.6: 1.1 to 10.9
#: by 0.1, 11 to 63, 128, 256, 512, 1024), a superset of Opacus' ``DEFAULT_ALPHAS`` (1.6: 1.1 to
#: 10.9 by 0.1, 12 to 63). In the default grid so that its epsilon is never above either peer's at
#: their defaults (issue 24; ``benchmarks/rdp_default_vs_peers.py``): an order they use and we did
#: not is where they were lower (by up to 0.24% at q = 1, up to 12% where one step is tiny).
_PEER_ORDERS = tuple(round(1 + x / 10, 1) for x in range(1, 100)) + tuple(range(11, 64)) + (128, 256, 512, 1024)
#: The documented default grid of Rényi orders (see the module docstring).
DEFAULT_ORDERS = tuple(sorted(set(_FRACTIONAL_ORDERS + tuple(range(2, 65)) + _LARGE_ORDERS + _PEER_ORDERS)))

#: Certified mode's default orders are the integer default orders up to this one: ball sums cost
#: O(alpha) each (measured: 0.6 s for one SampledGaussian up to 4096, 2.5 s up to 10 000).
CERTIFIED_MAX_DEFAULT_ORDER = 4096

#: Orders accepted by the accountant: the domain in which fast.py is held to its tolerance.
MIN_ORDER = 1.000001
MAX_ORDER = 10000.0
#: Largest order ``refine=True`` searches: fast.py agrees with mpmath to ~1e-11 relative at orders
#: 2e4 and 4.6e4 (tests/test_accountant.py), within its RTOL; the sampled Gaussian's optimum passes
#: 1e4 for high noise and few steps (q=1e-4, sigma=50, 100 steps, delta=1e-5: alpha ~ 46 000).
REFINE_MAX_ORDER = FAST_MAX_ORDER

#: Largest number of steps of one mechanism (per compose and in total per mechanism), and of
#: calibrate_sigma's ``steps``: ``float(steps)`` must be finite (10**300 < 2**1024 ~ 1.8e308).
MAX_STEPS = 10**300

#: Names of the (epsilon, delta) conversions (the formulas live in :mod:`dpproofs.math.conversions`).
CONVERSIONS = conversions.CONVERSIONS

#: Range of sigma searched by calibrate_sigma: the documented domain of the fast evaluator.
SIGMA_RANGE = (0.1, 1e4)

_ULP = 2.0**-52
_SLACK = conversions.CONVERSION_SLACK


#: Plain-number order sequences already validated (tuple of the values, certified) -> the read-only
#: float array: repeated accountants over the same grid skip the per-item checks. Keys hold only
#: float, int and np.float64 items (types whose equality is numeric equality of valid orders).
_VALIDATED_ORDERS = {}
_VALIDATED_ORDERS_MAX = 64  # entries; only grids of at most _VALIDATED_ORDERS_LEN orders are kept
_VALIDATED_ORDERS_LEN = 4096
_PLAIN_TYPES = frozenset((float, int, np.float64))


def _check_orders(orders, certified):
    if type(orders) in (list, tuple):
        key = tuple(orders)
        if len(key) <= _VALIDATED_ORDERS_LEN and _PLAIN_TYPES.issuperset(map(type, key)):
            cached = _VALIDATED_ORDERS.get((key, certified))
            if cached is None:
                cached = _check_orders_uncached(orders, certified)
                cached.setflags(write=False)
                if len(_VALIDATED_ORDERS) >= _VALIDATED_ORDERS_MAX:
                    _VALIDATED_ORDERS.clear()
                _VALIDATED_ORDERS[(key, certified)] = cached
            return cached
    return _check_orders_uncached(orders, certified)


def _check_orders_uncached(orders, certified):
    if orders is None:
        chosen = [a for a in DEFAULT_ORDERS if not certified or (float(a).is_integer() and a <= CERTIFIED_MAX_DEFAULT_ORDER)]
        return np.array(chosen, dtype=np.float64)
    if isinstance(orders, (str, bytes)) or isinstance(orders, numbers.Number):
        raise InvalidArgumentType(
            f"orders={orders!r} must be a sequence of real numbers in [{MIN_ORDER}, {MAX_ORDER:g}]"
        )
    try:
        if isinstance(orders, np.ndarray) and orders.ndim != 1:
            raise InvalidArgument(f"orders={orders!r} must be one-dimensional")
        items = list(orders)
    except TypeError:
        raise InvalidArgumentType(
            f"orders={orders!r} must be a sequence of real numbers in [{MIN_ORDER}, {MAX_ORDER:g}], "
            f"not {type(orders).__name__}"
        ) from None
    if not items:
        raise InvalidArgument(f"orders={orders!r} must contain at least one order")
    if all(type(value) in (float, int, np.float64) for value in items):  # fast path: plain numbers
        try:
            values = np.array(items, dtype=np.float64)
        except OverflowError:  # an int beyond the float range: the per-item checks below name it
            values = None
        if values is not None and (
            np.all(np.isfinite(values))
            and np.all((values >= MIN_ORDER) & (values <= MAX_ORDER))
            and len(np.unique(values)) == len(values)
            and (not certified or np.all(values == np.floor(values)))
        ):
            return values
    values = []
    for index, value in enumerate(items):
        if isinstance(value, np.generic):
            value = value.item()
        values.append(_validate.real(f"orders[{index}]", value, MIN_ORDER, MAX_ORDER))
    if len(set(values)) != len(values):
        raise InvalidArgument(f"orders={orders!r} contains duplicate orders")
    if certified:
        for index, value in enumerate(values):
            if not value.is_integer():
                raise InvalidArgument(
                    f"orders[{index}]={value!r} must be an integer in certified mode "
                    f"(certified=True supports integer orders only)"
                )
    return np.array(values, dtype=np.float64)


def _check_conversion(conversion):
    return _validate.choice("conversion", conversion, CONVERSIONS)


def _check_steps(steps, low):
    """``steps`` as an int in ``[low, MAX_STEPS]`` (the message names the bound as 10**300)."""
    steps = _validate.integer("steps", steps, low)
    if steps > MAX_STEPS:
        raise InvalidArgument(f"steps={_validate.shown(steps)} is outside the allowed range [{low}, MAX_STEPS=10**300]")
    return steps


_check_delta = check_delta
_sequence = sequence_items


#: Memory bounds of the module's caches (bytes of the cached arrays; see the class docstring).
RDP_CACHE_BYTES = 32 * 2**20
RDP_CACHE_ENTRIES = 16384
ORDER_CACHE_BYTES = 4 * 2**20
_RDP_CACHE = _BoundedCache(RDP_CACHE_BYTES, RDP_CACHE_ENTRIES)
_ORDER_CACHE = _BoundedCache(ORDER_CACHE_BYTES, 64)


def _cached_rdp(mechanism, orders, relation="add_remove"):
    """:func:`_fast_rdp` memoised per (mechanism, relation, orders) in a bounded LRU cache: repeated
    queries in a training loop, a sweep or a noise schedule cost a dictionary look-up. Read-only array."""
    key = (mechanism, relation, orders.tobytes())
    values = _RDP_CACHE.get(key)
    if values is None:
        values = _fast_rdp(mechanism, orders, relation)
        values.setflags(write=False)
        _RDP_CACHE.put(key, values)
    return values


def _fast_rdp(mechanism, orders, relation="add_remove"):
    """RDP of one application of ``mechanism`` at ``orders`` under ``relation`` (float64; within
    ``fast.RTOL`` of the exact value or above it): the mechanism's own :meth:`rdp_curve`
    (:class:`dpproofs.mechanisms.Mechanism`; the reductions: :mod:`dpproofs.math.reductions`)."""
    return mechanism.rdp_curve(orders, relation)


def _check_epsilon(value, name="epsilon"):
    return _validate.real(name, value, 0)


def _check_relation(relation):
    return _validate.choice("relation", relation, RELATIONS)


def _inflate(rdp_total, n_terms):
    """Upper bound on the exact composed RDP from the float one (see the module docstring)."""
    return rdp_total * (1.0 + fast.RTOL + (n_terms + 2) * _ULP)


# The conversion formulas are those of dpproofs.math.conversions (the project's one implementation);
# this module adds only the minimum over orders and the rounding slack.


def _terms_of(orders):
    """:func:`dpproofs.math.conversions.order_terms` of the orders, cached per grid (bounded LRU): the
    conversions' order-only parts are computed once per grid (read-only arrays)."""
    orders = np.ascontiguousarray(orders, dtype=np.float64)
    key = orders.tobytes()
    terms = _ORDER_CACHE.get(key)
    if terms is None:
        terms = conversions.order_terms(orders.copy())
        for part in terms:
            part.setflags(write=False)
        _ORDER_CACHE.put(key, terms)
    return terms


def _epsilon_terms(rdp_up, orders, delta, conversion):
    """Upper bounds of the per-order epsilon (array), before the min over orders: the formula of
    :mod:`dpproofs.math.conversions` in float64 plus ``2^-48`` times the magnitude of its parts."""
    log_delta = math.log(delta)
    terms = _terms_of(orders)
    value = conversions.epsilon_at(conversion, rdp_up, terms, log_delta)
    return value + _SLACK * conversions.epsilon_magnitude_at(conversion, rdp_up, terms, log_delta)


def _log_delta_terms(rdp_up, orders, epsilon, conversion):
    """Upper bounds of the per-order log delta (array), before the min over orders (same slack)."""
    terms = _terms_of(orders)
    with np.errstate(over="ignore", invalid="ignore"):
        value = conversions.log_delta_at(conversion, rdp_up, terms, epsilon)
        result = value + _SLACK * conversions.log_delta_magnitude_at(conversion, rdp_up, terms, epsilon)
    # at a huge epsilon (alpha - 1) * epsilon overflows: the value is -inf and its magnitude +inf;
    # -inf is the right log delta there (the bound decreases without limit in epsilon)
    return np.where(value == -np.inf, -np.inf, result)


def _bounds(epsilon, order):
    """``Bounds(0, epsilon, "rdp")`` with the attaining ``order`` as an attribute."""
    result = Bounds(0.0, epsilon, "rdp")
    result.order = order
    return result


def _round_up(value):
    return math.nextafter(float(value), math.inf)


class Accountant(PrivacyAccountant):
    """Rényi-DP accountant over a fixed grid of orders (see the module docstring).

    ``orders``: None for :data:`DEFAULT_ORDERS`, else a non-empty sequence of distinct reals in
    ``[MIN_ORDER, MAX_ORDER]`` (kept in the given order). ``certified``: arb-backed upper bounds,
    integer orders only. ``relation``: ``"add_remove"`` (default) or ``"replace_one"`` (see the
    module docstring; sigma is always noise std / clipping norm). ``compose`` of a pair without an
    analysis (FixedBatchGaussian under add_remove) raises InvalidArgument naming it, unchanged.

    Zero privacy loss: an accountant whose ledger is empty or holds only ``SampledGaussian(q=0,
    ...)`` (an output that ignores the data) answers ``epsilon(delta) == 0.0`` and
    ``delta(epsilon) == 0.0`` exactly, in both modes.

    Several queries: ``epsilon``, ``epsilon_and_order`` and ``delta`` also take a list, tuple or
    1-D numpy array and return a list, one answer per item (each item validated by its index).

    Consistency: ``acc.delta(acc.epsilon(d)) <= d`` for every ``d``, in both modes (without
    ``refine``, whose order may lie off the grid that ``delta`` uses; the
    epsilon returned is moved up until the delta query at it, the same float computation, is
    ``<= d``), and ``delta`` is non-increasing in ``epsilon`` up to the largest float.

    Threads and state: :meth:`compose` is atomic (a per-accountant lock: concurrent composes
    from several threads lose no step, and a query sees the ledger before or after a compose,
    never half of it); queries may run concurrently with each other and with composes. The
    module caches are thread-safe and bounded in memory: the per-mechanism RDP arrays at most
    :data:`RDP_CACHE_BYTES` (32 MiB, and at most :data:`RDP_CACHE_ENTRIES` entries: about 1.4 KB
    each on the default grid), the order-only conversion parts at most :data:`ORDER_CACHE_BYTES`
    (4 MiB, 64 grids), the validated grids 64 grids of at most 4096 orders (the RDP cache counts
    the key's grid bytes too: 2 000 settings on the default grid count 7.7 MB). Each accountant
    keeps one RDP array per distinct mechanism composed (and, in certified mode, one arb per
    mechanism and order), i.e. memory proportional to its ledger. The fast evaluator's own caches
    are bounded by entries: 8 integer-order plans and 16 per-q bases, about 7 MB and 1.4 MB each on
    the default grid (measured with tracemalloc: 2 000 distinct settings on the default grid hold
    31 MB in all caches; 20 distinct grids x 10 settings, 83 MB). Not thread-safe: mutating a
    ledger from ``to_dict`` output while it is being loaded (``from_dict`` builds a new object).
    Every accountant pickles and deep-copies (caches are dropped and rebuilt on demand).

    The interface of :class:`dpproofs.accountant.base.PrivacyAccountant`: ``epsilon_bounds`` and
    ``delta_bounds`` are ``Bounds(0, answer, "rdp")`` (an RDP bound says nothing from below).
    """

    kind = "rdp"

    def __init__(self, orders: Sequence[float] | None = None, *, certified: bool = False,
                 relation: str = "add_remove") -> None:
        if not isinstance(certified, bool):
            raise InvalidArgumentType(f"certified={certified!r} must be a bool")
        self._relation = _check_relation(relation)
        self._orders = _check_orders(orders, certified)
        self._orders.setflags(write=False)
        self._certified = certified
        self._ledger = {}  # mechanism -> int steps (exact, any size), in order of first compose
        self._per_mechanism = {}  # mechanism -> fast RDP of one application
        self._total = None
        self._ball_cache = {}  # (mechanism, integer order) -> arb RDP of one application
        self._tv_cache = None  # (ledger items, their composed total variation bound)
        self._lock = threading.Lock()

    # --- state ---------------------------------------------------------------------------

    def __getstate__(self):
        with self._lock:
            state = self.__dict__.copy()
            state["_ledger"] = dict(self._ledger)
        for transient in ("_lock", "_ball_cache", "_total", "_per_mechanism", "_tv_cache"):
            state.pop(transient, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_relation", "add_remove")
        self._orders = np.array(self._orders, dtype=np.float64)
        self._orders.setflags(write=False)
        self._lock = threading.Lock()
        self._ball_cache = {}
        self._tv_cache = None
        self._total = None
        self._per_mechanism = {m: _cached_rdp(m, self._orders, self._relation) for m in self._ledger}

    # --- composition ---------------------------------------------------------------------

    def compose(self, mechanism: Mechanism, steps: int = 1) -> "Accountant":
        """Add ``steps`` (an integer in ``[0, MAX_STEPS]``) applications of ``mechanism``; return
        ``self``. The total per mechanism is at most :data:`MAX_STEPS`.

        Everything is validated and evaluated before the ledger changes: a failed compose
        leaves the accountant as it was. Atomic under threads.
        """
        return super().compose(mechanism, steps)

    def _compose_checked(self, mechanism, steps):
        steps = _check_steps(steps, 0)
        rdp = self._per_mechanism.get(mechanism)
        if rdp is None:
            rdp = _cached_rdp(mechanism, self._orders, self._relation)
            if not np.all(rdp >= 0):  # never expected: fast never returns nan or negatives
                raise NumericalError(f"RDP of {mechanism!r} is not a non-negative number: {rdp!r}")
        with self._lock:
            total_steps = self._ledger.get(mechanism, 0) + steps
            if total_steps > MAX_STEPS:
                raise InvalidArgument(
                    f"steps={steps!r} would bring {mechanism!r} to {total_steps} steps in total, above "
                    f"MAX_STEPS=10**300 (allowed: a total in [0, MAX_STEPS] per mechanism)"
                )
            if steps == 0:
                return self
            self._per_mechanism[mechanism] = rdp
            self._ledger[mechanism] = total_steps
            self._total = None
        return self

    @property
    def orders(self) -> np.ndarray:
        """The Rényi orders (a numpy copy)."""
        return self._orders.copy()

    @property
    def certified(self) -> bool:
        """Whether epsilon and delta are arb-backed upper bounds."""
        return self._certified

    @property
    def relation(self) -> str:
        """The neighbouring relation: ``"add_remove"`` or ``"replace_one"``."""
        return self._relation

    @property
    def ledger(self) -> list[tuple[Mechanism, int]]:
        """The composed mechanisms as a list of ``(mechanism, steps)`` (a copy)."""
        with self._lock:
            return list(self._ledger.items())

    @property
    def rdp(self) -> np.ndarray:
        """The composed RDP curve at :attr:`orders` (float64, a numpy copy)."""
        return self._snapshot()[1].copy()

    def _snapshot(self):
        """(ledger items, composed float RDP) read together under the lock."""
        with self._lock:
            items = list(self._ledger.items())
            if self._total is None:
                total = np.zeros_like(self._orders)
                for mechanism, steps in items:
                    total = total + float(steps) * self._per_mechanism[mechanism]
                self._total = total
            return items, self._total

    def _rdp_total(self):
        return self._snapshot()[1]

    def _zero_privacy(self, items):
        """Whether the output ignores the data: no mechanism, or only sampling rate 0."""
        return all(m.silent for m, _ in items)

    def total_variation_bound(self) -> float:
        """An upper bound on the total variation distance of the composition, its privacy profile
        at epsilon = 0 (:func:`dpproofs.math.total_variation.composed` over the mechanisms' own
        :meth:`~dpproofs.mechanisms.Mechanism.total_variation`, rounded up). The profile is
        non-increasing, so :meth:`delta` is at most this bound at every epsilon, and
        :meth:`epsilon` is exactly 0 at any delta at least this bound (e.g. one step at a sampling
        rate below delta; dp_accounting answers 0 there too)."""
        return self._total_variation(*self._snapshot())

    def pure_epsilon(self) -> float:
        """An upper bound on the composed pure-DP epsilon, the RDP at order infinity (``inf`` unless
        every composed mechanism has a :meth:`~dpproofs.mechanisms.Mechanism.pure_epsilon`); the
        value :meth:`epsilon` answers when it is the smaller bound."""
        return self._pure_epsilon(self._snapshot()[0])

    def _total_variation(self, items, total):
        """The smaller of two bounds: the mechanisms' own, composed, and the Rényi one
        (:func:`dpproofs.math.total_variation.from_renyi` at the smallest composed RDP over the
        grid, rounded up as every float RDP value here; not in certified mode, whose RDP values
        are ball enclosures)."""
        key = tuple(items)
        cached = self._tv_cache
        if cached is None or cached[0] != key:
            own = total_variation.composed((m.total_variation(self._relation), n) for m, n in items)
            renyi = 1.0
            if len(total) and not self._certified:
                renyi = total_variation.from_renyi(float(np.min(_inflate(total, len(items)))))
            cached = (key, min(own, renyi))
            self._tv_cache = cached
        return cached[1]

    # --- conversions ---------------------------------------------------------------------

    def epsilon(self, delta: float | Sequence[float], conversion: str = "improved", *,
                refine: bool = False) -> float | list[float]:
        """Smallest epsilon (an upper bound, see the module docstring) with (epsilon, delta)-DP.
        ``delta`` in ``(0, 1)``, or a sequence of them (then a list of floats)."""
        result = self.epsilon_and_order(delta, conversion=conversion, refine=refine)
        if isinstance(result, list):
            return [eps for eps, _ in result]
        return result[0]

    def epsilon_and_order(self, delta: float | Sequence[float], conversion: str = "improved", *,
                          refine: bool = False) -> tuple[float, float] | list[tuple[float, float]]:
        """``(epsilon, alpha)``: the bound of :meth:`epsilon` and the order that attains it (a list
        of pairs for a sequence of deltas).

        ``refine=True`` also minimises over continuous alpha (not certified mode): from the best
        grid order it follows the bound down towards 1 (to :data:`MIN_ORDER`) and up past the
        grid's top (to :data:`REFINE_MAX_ORDER`) while it decreases, then runs a golden-section
        search between the neighbours of the best point; the result is never larger than the
        grid's. ``epsilon`` is ``inf`` (and alpha the largest order) only if every order's RDP is
        infinite; with zero privacy loss it is ``0.0`` (alpha the first order). Where every
        mechanism is pure DP (:meth:`~dpproofs.mechanisms.Mechanism.pure_epsilon`) and their summed
        pure epsilon is smaller, that is the answer, with alpha ``inf`` (pure DP is RDP at order
        infinity).
        """
        conversion = _check_conversion(conversion)
        if not isinstance(refine, bool):
            raise InvalidArgumentType(f"refine={refine!r} must be a bool")
        if refine and self._certified:
            raise InvalidArgument("refine=True is not available in certified mode (integer orders only)")
        return self._each("delta", delta, check_delta, lambda d: self._epsilon_order(d, conversion, refine))

    def delta(self, epsilon: float | Sequence[float], conversion: str = "improved") -> float | list[float]:
        """Smallest delta (an upper bound, in ``(0, 1]``; ``0.0`` with zero privacy loss) with
        (epsilon, delta)-DP; ``epsilon >= 0``, or a sequence of them (then a list of floats)."""
        conversion = _check_conversion(conversion)
        return self._each("epsilon", epsilon, _check_epsilon, lambda e: self._delta_one(e, conversion))

    def epsilon_bounds(self, delta: float | Sequence[float], conversion: str = "improved", *,
                       refine: bool = False) -> Bounds | list[Bounds]:
        """``Bounds(0, epsilon(delta), "rdp")`` (or a list): the exact epsilon lies in between; its
        ``order`` attribute is the order that attains the upper end (see :meth:`epsilon_and_order`)."""
        conversion = _check_conversion(conversion)
        if not isinstance(refine, bool):
            raise InvalidArgumentType(f"refine={refine!r} must be a bool")
        if refine and self._certified:
            raise InvalidArgument("refine=True is not available in certified mode (integer orders only)")
        return self._each("delta", delta, check_delta, lambda d: _bounds(*self._epsilon_order(d, conversion, refine)))

    def delta_bounds(self, epsilon: float | Sequence[float], conversion: str = "improved") -> Bounds | list[Bounds]:
        """``Bounds(0, delta(epsilon), "rdp")`` (or a list): the exact delta lies in between."""
        conversion = _check_conversion(conversion)
        return self._each("epsilon", epsilon, _check_epsilon, lambda e: Bounds(0.0, self._delta_one(e, conversion), "rdp"))

    def _epsilon_one(self, delta):
        return self._epsilon_order(delta, "improved", False)[0]

    def _epsilon_bounds_one(self, delta):
        return _bounds(*self._epsilon_order(delta, "improved", False))

    def _delta_bounds_one(self, epsilon):
        return Bounds(0.0, self._delta_one(epsilon), "rdp")

    def _epsilon_order(self, delta, conversion, refine):
        items, total = self._snapshot()
        if self._zero_privacy(items) or self._total_variation(items, total) <= delta:
            return 0.0, float(self._orders[0])
        pure = self._pure_epsilon(items)
        if pure < math.inf:
            eps, alpha = self._epsilon_order_rdp(items, total, delta, conversion, refine)
            return (pure, math.inf) if pure < eps else (eps, alpha)
        return self._epsilon_order_rdp(items, total, delta, conversion, refine)

    def _pure_epsilon(self, items):
        """An upper bound on the composed pure-DP epsilon, a float (``inf`` unless every mechanism
        has one): :meth:`_exact_pure_epsilon` rounded up."""
        exact = self._exact_pure_epsilon(items)
        return math.inf if exact == math.inf else fast.fraction_rounded_up(exact)

    def _exact_pure_epsilon(self, items):
        """:func:`dpproofs.mechanisms.composed_pure_epsilon` under this accountant's relation (the
        RDP order infinity): exact, so that ``epsilon`` equal to it gives ``delta = 0``."""
        return mechanisms.composed_pure_epsilon(items, self._relation)

    def _epsilon_order_rdp(self, items, total, delta, conversion, refine):
        if self._certified:
            eps, alpha = self._certified_epsilon(items, delta, conversion)
            if not math.isfinite(eps):
                return eps, alpha
            return self._consistent(eps, delta, lambda e: self._certified_delta(items, e, conversion)), alpha
        rdp_up = _inflate(total, len(items))
        terms = _epsilon_terms(rdp_up, self._orders, delta, conversion)
        best = int(np.argmin(terms))
        eps, alpha = float(terms[best]), float(self._orders[best])
        if not math.isfinite(eps):
            return math.inf, float(np.max(self._orders))
        if refine:
            refined, refined_alpha = self._refine(items, delta, conversion, eps, alpha)
            if refined < eps:
                return max(0.0, _round_up(refined)), refined_alpha
        eps = max(0.0, _round_up(eps))
        return self._consistent(eps, delta, lambda e: self._float_delta(rdp_up, e, conversion)), alpha

    def _consistent(self, eps, delta, delta_at):
        """``eps`` moved up (still an upper bound) until ``delta_at(eps) <= delta``: the very
        computation :meth:`delta` makes, so ``delta(epsilon(d)) <= d`` holds exactly."""
        step = max(abs(eps) * 16 * _ULP, 2.0**-1074)  # typically one step of 16 ulps suffices
        for _ in range(64):
            if delta_at(eps) <= delta:
                return eps
            eps = eps + step
            step *= 2
        raise NumericalError(f"epsilon={eps!r} and delta={delta!r} could not be made consistent")

    def _float_delta(self, rdp_up, epsilon, conversion):
        log_delta = float(np.min(_log_delta_terms(rdp_up, self._orders, epsilon, conversion)))
        if log_delta >= 0:
            return 1.0
        value = _round_up(math.exp(log_delta) * (1.0 + 4 * _ULP))
        return min(1.0, max(value, fast.TINY))

    def _delta_one(self, epsilon, conversion="improved"):
        items, total = self._snapshot()
        if self._zero_privacy(items):
            return 0.0
        if epsilon >= self._exact_pure_epsilon(items):  # exact: a Fraction or inf
            return 0.0
        if self._certified:
            bound = self._certified_delta(items, epsilon, conversion)
        else:
            bound = self._float_delta(_inflate(total, len(items)), epsilon, conversion)
        return min(bound, self._total_variation(items, total))

    def _refine(self, items, delta, conversion, eps, alpha):
        """Minimise the per-order epsilon bound over continuous alpha in [MIN_ORDER, REFINE_MAX_ORDER]
        in the coordinate ``x = log(alpha - 1)``: descend from the best grid order by doubling steps
        while the bound decreases, then golden-section search the bracket."""
        n_terms = len(items)

        def bound(x):
            order = 1.0 + math.exp(x)
            rdp = sum(
                float(steps) * float(_fast_rdp(m, np.array([order]), self._relation)[0]) for m, steps in items
            )
            rdp_up = _inflate(np.array([rdp]), n_terms)
            return float(_epsilon_terms(rdp_up, np.array([order]), delta, conversion)[0])

        x_low, x_high = math.log(MIN_ORDER - 1.0), math.log(REFINE_MAX_ORDER - 1.0)
        x0 = math.log(alpha - 1.0)
        f0 = eps
        # bracket: find a < x0 < b with f(a) >= f0 and f(b) >= f0 (or the range's ends)
        step = 0.12  # about the default grid's spacing in log(alpha - 1) at large orders
        left, right = max(x_low, x0 - step), min(x_high, x0 + step)
        f_left, f_right = bound(left), bound(right)
        while f_left < f0 and left > x_low:  # descend to the left
            x0, f0, right, f_right = left, f_left, x0, f0
            step *= 2
            left = max(x_low, x0 - step)
            f_left = bound(left)
        while f_right < f0 and right < x_high:  # descend to the right
            left, f_left, x0, f0 = x0, f0, right, f_right
            step *= 2
            right = min(x_high, x0 + step)
            f_right = bound(right)
        # in log(alpha - 1): alpha to about 1e-6 relative, epsilon to ~1e-12
        refined = roots.golden_section(bound, left, right, tolerance=1e-6)[:2]
        best = min((f0, x0), (f_left, left), (f_right, right), refined)
        value, x = best
        return value, 1.0 + math.exp(x)

    # --- certified mode (dpproofs.accountant.certified) ------------------------------------

    def _certified_epsilon(self, items, delta, conversion):
        return certified.epsilon(self._orders, self._relation, self._ball_cache, items, delta, conversion)

    def _certified_delta(self, items, epsilon, conversion):
        return certified.delta(self._orders, self._relation, self._ball_cache, items, epsilon, conversion)

    # --- serialisation -------------------------------------------------------------------

    def _options(self):
        return {"orders": [float(a) for a in self._orders], "certified": self._certified}

    @classmethod
    def _option_names(cls):
        return ("orders", "certified")

    def to_dict(self) -> dict:
        """A plain-JSON description of the accountant: orders, mode, relation and ledger."""
        return super().to_dict()

    @classmethod
    def from_dict(cls, data: dict) -> "Accountant":
        """Inverse of :meth:`to_dict`; validates everything like the constructor and compose."""
        return super().from_dict(data)

    def __repr__(self):
        ledger = ", ".join(f"{m!r} x {s}" for m, s in self.ledger)
        return (
            f"Accountant({len(self._orders)} orders, certified={self._certified}, "
            f"relation={self._relation!r}, [{ledger}])"
        )
