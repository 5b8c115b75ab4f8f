"""dp_accounting's ``DpEvent`` trees as dpproofs accountants, and back.

    from dpproofs.integrations import dp_accounting as bridge
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(0.01, dp_accounting.GaussianDpEvent(1.1)), 10000)
    acc = bridge.accountant_for(event)          # a dpproofs.Accountant with the run composed
    acc.epsilon(1e-5)                           # or refine=True, delta(...), to_dict(), ...
    bridge.supports(event)                      # True
    bridge.to_event(acc)                        # the ledger as a DpEvent

``dp_accounting`` (Google's dp-accounting package) is imported only inside these functions.

Events and what they become (``count`` multiplies through ``SelfComposedDpEvent`` and the leaves
of ``ComposedDpEvent``, nested to any depth):

* ``GaussianDpEvent(s)`` -> ``Gaussian(s)``; ``s = 0`` is non-private, ``s = inf`` is no loss.
* ``PoissonSampledDpEvent(q, inner)`` -> ``SampledGaussian(q, s)``, where ``inner`` is a
  ``GaussianDpEvent`` or a composition of them applied to the same sample: Gaussians of noise
  ``s_i`` on one sample are, up to post-processing, one Gaussian of
  ``s = (sum_i s_i^-2)^(-1/2)`` (McMahan et al. 2018, arXiv 1812.06210, Sec. 3), exactly as
  dp_accounting's RDP accountant reads it. ``q = 0`` is no loss. Any other inner event is an
  :class:`UnsupportedEvent`.
* ``SampledWithoutReplacementDpEvent(n, b, Gaussian)`` -> ``dpproofs.FixedBatchGaussian(b, n, s)``
  (accounted under ``"replace_one"`` only; under add/remove :func:`supports` is False and
  :func:`accountant_for` raises InvalidArgument naming the pair).
* ``LaplaceDpEvent(b)`` -> ``Laplace(b)`` (noise scale / L1 sensitivity; it is ``1/b``-DP);
  ``PoissonSampledDpEvent(q, LaplaceDpEvent(b))`` -> ``SampledLaplace(q, b)``.
* ``RandomizedResponseDpEvent(p, k)``: with probability ``1 - p`` the input bucket, else a
  uniform one of ``k`` (``p = 1`` or ``k = 1``: the output ignores the input, no loss; ``p = 0``:
  non-private). Under add/remove an :class:`UnsupportedEvent`, as in dp_accounting: with the record
  removed there is no input to report, and the release is not defined. Under ``REPLACE_ONE``: the
  two inputs' output distributions, exactly dp_accounting's ``REPLACE_ONE`` pair: ``k = 2`` -> dpproofs' binary
  ``RandomizedResponse(eps)``, ``eps = log(2/p - 1)``; ``k >= 3`` ->
  ``dpproofs.KaryRandomizedResponse(p, k)`` (any integer ``k``, also beyond floats). Under
  ``REPLACE_SPECIAL`` (any ``k >= 2``) -> ``KaryRandomizedResponse(p, k, special=True)``: the
  special record outputs the uniform distribution on the ``k`` buckets, dp_accounting's
  analysis, exactly (``privacy_loss_distribution.from_randomized_response``).
* ``ZCDpEvent(rho, xi)`` -> ``dpproofs.ZCDP(rho, xi)`` (Rényi DP ``xi + rho alpha``; RDP
  accountant only).
* ``SingleEpochTreeAggregationDpEvent(s, step_counts)`` (tree aggregation restarted every epoch,
  no record in two trees) -> ``Gaussian(s / sqrt(depth))``, ``depth = ceil(log2(max(step_counts)
  + 1))`` (Kairouz et al. 2021, arXiv 2103.00039, Appendix D: a record is in at most ``depth``
  nodes, each moved by at most the clipping norm). Under ``"replace_special"`` and
  ``"replace_one"`` only (the analysis keeps each record in its step): under ``"add_remove"`` it
  is an :class:`UnsupportedEvent`. ``s = 0``: non-private; every step count 0: no release.
* ``MixtureOfGaussiansDpEvent(s, c, p)`` -> ``dpproofs.MixtureOfGaussians(s, c, p)`` over the
  components of positive probability: tight in the PLD accountant (its own pair); in the RDP
  accountant ``log(sum_i p_i e^{(a-1) a c_i^2/(2 s^2)})/(a-1)``, at most ``Gaussian(s / c_max)``'s
  (joint convexity over the components: an upper bound, not tight). A negative ``c_i`` of positive probability is an InvalidArgument, as in
  dp_accounting; every such ``c_i = 0`` -> nothing (the two distributions are equal); ``s = 0`` ->
  non-private. Add/remove and replace-special only (replace-one: :class:`UnsupportedEvent`).
* ``DiscreteLaplaceDpEvent(a, C)`` -> ``RandomizedResponse(a C)``: the mechanism is ``a C``-DP and
  binary randomized response is the worst ``eps``-DP pair, in Rényi divergence (Mironov 2017, arXiv
  1702.07476v3, Proposition 5) and in every hockey-stick divergence (Kairouz, Oh & Viswanath 2015,
  arXiv 1311.0776v4, the dominating mechanism in the proof of Theorem 3.3): an upper bound.
  ``C = 0``: nothing; ``a = 0`` (``exp(-a|x|) tanh(a/2)`` is no distribution; dp_accounting reads
  it as zero noise): non-private. Add/remove and replace-special only (under replace-one an
  :class:`UnsupportedEvent`, as in dp_accounting).
* ``NoOpDpEvent`` -> nothing; ``NonPrivateDpEvent`` -> epsilon ``inf`` (the accountant is a
  :class:`NonPrivateAccountant`, delta ``1`` at every finite epsilon).
* ``RepeatAndSelectDpEvent(inner, mean, shape)`` -> ``dpproofs.RepeatAndSelect`` of the inner
  run's mechanisms (Papernot & Steinke 2022, arXiv 2110.03620v2: Theorem 2 for a truncated
  negative binomial number of runs, ``shape`` in ``[0, inf)``; Theorem 6 for Poisson,
  ``shape = inf``). RDP accountant only: the PLD accountant refuses it.
* ``TruncatedSubsampledGaussianDpEvent(n, q, B, s)`` -> ``dpproofs.TruncatedSampledGaussian(q, s,
  B, n)``: a branch-revealed mixture of sampled Gaussians that dominates truncated Poisson sampling
  (the others' sampled count revealed; above ``B`` the record displaces one: sensitivity 2 at rate
  ``q B / (k + 1)``; :mod:`dpproofs.math.truncation`), an upper bound. ``n`` counts the dataset that
  holds the record, as dp_accounting reads it. ``q``, ``B`` or ``n`` 0: nothing; ``s = 0``:
  non-private. Add/remove and replace-special only (replace-one: :class:`UnsupportedEvent`).
* dp_accounting main-branch events (not in the 0.6 release; recognised by class name and fields,
  whichever dp_accounting defines them):

  - ``PermuteAndFlipDpEvent(eps)`` and ``EpsilonDeltaDpEvent(eps, 0)`` -> ``RandomizedResponse(eps)``,
    the worst ``eps``-DP pair (Kairouz, Oh & Viswanath 2015; Mironov 2017, Proposition 5, as for
    ``DiscreteLaplaceDpEvent``): an upper bound, in both accountants. Permute-and-flip under
    add/remove and replace-special only (replace-one: :class:`UnsupportedEvent`, as dp_accounting
    main's PLD accountant).
  - ``ExponentialMechanismDpEvent(eps)`` -> ``dpproofs.BoundedRange(eps)`` (the exponential
    mechanism is ``eps``-bounded range: Durfee & Rogers 2019, arXiv 1905.04273): randomized
    response's pair in the PLD accountant, and in RDP the smaller of its curve and the zCDP
    ``alpha eps^2 / 8`` (Cesar & Rogers 2021, arXiv 2004.07223). For these three ``eps = 0``:
    nothing; ``eps = inf``: non-private.
  - ``EpsilonDeltaDpEvent(eps, delta)``, ``0 < delta < 1``: an :class:`UnsupportedEvent` (the worst
    pair has mass at loss +inf: no finite Rényi DP); ``delta = 1``: non-private.
  - ``DiscreteGaussianDpEvent(sigma, sensitivity, dimension)`` -> ``dpproofs.ZCDP(sensitivity^2 /
    (2 sigma^2))`` (Canonne, Kamath & Steinke 2020, arXiv 2004.00010; any ``dimension``): RDP
    accountant only (the PLD accountant: :class:`UnsupportedEvent`); add/remove and
    replace-special only.

* Anything else (sampling with replacement, ``UnsupportedDpEvent``, ...) is an
  :class:`UnsupportedEvent` naming the event.

Neighbouring relation (``neighboring_relation``): ``"add_remove"`` (the default; also
dp_accounting's ``NeighboringRelation.ADD_OR_REMOVE_ONE``) and ``"replace_one"`` (also
``NeighboringRelation.REPLACE_ONE``) are passed to the accountant's ``relation=``.
``"replace_special"`` (``NeighboringRelation.REPLACE_SPECIAL``: a record replaced by a special one
that contributes nothing) is accounted as ``"add_remove"``: for the additive-noise events the pair
is the same (the special record adds 0, as an absent one), and ``RandomizedResponseDpEvent``
becomes its special pair (above).

Reading the noise multiplier. dp_accounting documents ``GaussianDpEvent.noise_multiplier`` as
``s / C`` (noise std over the clipping norm), dpproofs' own convention, and the bridge keeps it:
``sigma = noise_multiplier`` under both relations (under replace-one one record moves the clipped
sum by up to 2C, and dpproofs accounts for it). dp_accounting 0.6 itself is not consistent under
``REPLACE_ONE``: its RDP accountant bounds ``SampledWithoutReplacementDpEvent`` (and a bare
``GaussianDpEvent``) with the base RDP ``alpha / (2 s^2)``, i.e. as if ``s`` were the std over
the replace-one sensitivity 2C, while its PLD accountant composes ``PoissonSampledDpEvent`` as
``((1-q) N(0, s^2) + q N(1, s^2), (1-q) N(0, s^2) + q N(-1, s^2))``, i.e. ``s`` over C. So for
the same event the bridge's replace-one RDP equals dp_accounting's at ``2 s``
(tests/test_integrations_dp_accounting.py).

``accountant="pld"`` builds ``dpproofs.PLDAccountant`` (same compose interface).
"""

import inspect
import math
import numbers
from typing import Any

import dpproofs
from dpproofs import _validate
from dpproofs.errors import InvalidArgument, InvalidArgumentType
from dpproofs.mechanisms import Gaussian, KaryRandomizedResponse, Laplace, RandomizedResponse, SampledGaussian

__all__ = [
    "accountant_for",
    "supports",
    "to_event",
    "UnsupportedEvent",
    "NonPrivateAccountant",
    "RELATIONS",
    "ACCOUNTANTS",
]

#: Names of the neighbouring relations (dp_accounting's enum members are accepted too).
#: ``"replace_special"`` (a record replaced by a special one that contributes nothing; dp_accounting's
#: ``REPLACE_SPECIAL``) is accounted as ``"add_remove"`` (the same pair for every event accounted),
#: and is the relation :class:`SingleEpochTreeAggregationDpEvent <_tree_aggregation>` needs.
RELATIONS = ("add_remove", "replace_one", "replace_special")
#: Names of the accountants ``accountant_for`` can build.
ACCOUNTANTS = ("rdp", "pld")

_ENUM_NAMES = {"ADD_OR_REMOVE_ONE": "add_remove", "REPLACE_ONE": "replace_one", "REPLACE_SPECIAL": "replace_special"}

#: Events whose analysis needs the records' slots fixed (a removed record leaves its slot empty, it
#: does not shift the later records): refused under plain ``"add_remove"``.
_FIXED_SLOT_RELATIONS = ("replace_one", "replace_special")

#: Relative widening of a float ``eps = log1p(k (1 - p) / p)`` (randomized response): ``1 - p``,
#: the product and the quotient are correctly rounded (at most 3 half-ulps relative together;
#: ``1 - p`` is exact for ``p >= 1/2``, Sterbenz), ``log1p`` passes a relative error of its
#: argument through without growing it (``x / ((1 + x) log1p(x)) <= 1``) and adds at most 1 ulp:
#: 2.5 ulps in all, so 4 ulps, then one ``nextafter``, keep the mapped epsilon above the exact one.
_RR_WIDEN = 4 * 2.0**-52


class UnsupportedEvent(InvalidArgument):
    """A ``DpEvent`` (or a part of one) that dpproofs cannot account for; names the event. Its
    ``event`` attribute is the offending sub-event (None where not known)."""

    def __init__(self, message, event=None):
        super().__init__(message)
        self.event = event


def _dpa():
    try:
        import dp_accounting
    except ImportError as error:  # pragma: no cover - dp_accounting is a test dependency
        raise ImportError(
            "dpproofs.integrations.dp_accounting needs the dp-accounting package "
            "(pip install dp-accounting)"
        ) from error
    return dp_accounting


# --- the tree walk ---------------------------------------------------------------------------


#: A leaf that releases its input exactly (zero noise): the run is non-private.
_NON_PRIVATE_STEP = object()


class _Run:
    """What a tree amounts to: mechanisms with their counts, and whether it is non-private."""

    def __init__(self):
        self.entries = []  # (mechanism, count) in order of appearance
        self.non_private = False
        self.fixed_slots = []  # (path, event, (words, reason)) of the events that need fixed slots
        self.add_remove_only = []  # (path, event) of the events accounted under add/remove (or special) only
        self.rdp_only = []  # (path, event) of the main-branch events the PLD accountant refuses


def _count(name, value):
    return _validate.integer(name, value, 0)


def _walk(event, count, run, dpa, path):
    if not isinstance(event, dpa.DpEvent):
        raise InvalidArgumentType(f"{path}={event!r} must be a dp_accounting DpEvent, not {type(event).__name__}")
    if isinstance(event, dpa.NoOpDpEvent):
        return
    if isinstance(event, dpa.NonPrivateDpEvent):
        if count > 0:
            run.non_private = True
        return
    if isinstance(event, dpa.SelfComposedDpEvent):
        inner_count = _count(f"{path}.count", event.count)
        _walk(event.event, count * inner_count, run, dpa, f"{path}.event")
        return
    if isinstance(event, dpa.ComposedDpEvent):
        events = event.events
        if isinstance(events, (str, bytes)) or not hasattr(events, "__iter__"):
            raise InvalidArgumentType(f"{path}.events={events!r} must be a list of DpEvents")
        for index, sub in enumerate(events):
            _walk(sub, count, run, dpa, f"{path}.events[{index}]")
        return
    if isinstance(event, dpa.GaussianDpEvent):
        sigma = _noise(f"{path}.noise_multiplier", event.noise_multiplier)
        _add(run, count, None if sigma == math.inf else Gaussian(sigma) if sigma > 0 else _NON_PRIVATE_STEP)
        return
    if isinstance(event, dpa.PoissonSampledDpEvent):
        q = _described("Sampling rate", _validate.real, f"{path}.sampling_probability", event.sampling_probability, 0, 1)
        if isinstance(event.event, dpa.LaplaceDpEvent):  # dpproofs.SampledLaplace
            scale = _noise(f"{path}.event.noise_multiplier", event.event.noise_multiplier)
            if q == 0 or scale == math.inf:
                return
            _add(run, count, dpproofs.SampledLaplace(q, scale) if scale > 0 else _NON_PRIVATE_STEP)
            return
        sigma = _effective_sigma(event.event, dpa, f"{path}.event", "PoissonSampledDpEvent")
        if q == 0 or sigma == math.inf:
            return
        _add(run, count, SampledGaussian(q, sigma) if sigma > 0 else _NON_PRIVATE_STEP)
        return
    if isinstance(event, dpa.SampledWithoutReplacementDpEvent):
        fixed = getattr(dpproofs, "FixedBatchGaussian", None)
        if fixed is None:
            raise UnsupportedEvent(
                f"{path}={event!r}: SampledWithoutReplacementDpEvent (fixed-size batches) is not "
                f"supported yet: dpproofs has no fixed-batch mechanism (dpproofs.FixedBatchGaussian); "
                f"use PoissonSampledDpEvent for Poisson sampling", event
            )
        n = _validate.integer(f"{path}.source_dataset_size", event.source_dataset_size, 1)
        b = _validate.integer(f"{path}.sample_size", event.sample_size, 0, n)
        sigma = _effective_sigma(event.event, dpa, f"{path}.event", "SampledWithoutReplacementDpEvent")
        if b == 0 or sigma == math.inf:
            return
        _add(run, count, fixed(batch_size=b, dataset_size=n, sigma=sigma) if sigma > 0 else _NON_PRIVATE_STEP)
        return
    if isinstance(event, dpa.LaplaceDpEvent):
        scale = _noise(f"{path}.noise_multiplier", event.noise_multiplier)
        _add(run, count, None if scale == math.inf else Laplace(scale) if scale > 0 else _NON_PRIVATE_STEP)
        return
    if isinstance(event, dpa.RandomizedResponseDpEvent):
        run.fixed_slots.append((path, event, _RESPONSE_SLOTS))
        _add(run, count, _randomized_response(event, path))
        return
    if isinstance(event, dpa.SingleEpochTreeAggregationDpEvent):
        run.fixed_slots.append((path, event, _TREE_SLOTS))
        _add(run, count, _tree_aggregation(event, path))
        return
    if isinstance(event, dpa.dp_event.RepeatAndSelectDpEvent):
        _add(run, count, _repeat_and_select(event, run, dpa, path))
        return
    if isinstance(event, dpa.dp_event.MixtureOfGaussiansDpEvent):
        _add(run, count, _mixture_of_gaussians(event, path, run))
        return
    if isinstance(event, dpa.dp_event.DiscreteLaplaceDpEvent):
        _add(run, count, _discrete_laplace(event, path, run))
        return
    if isinstance(event, dpa.dp_event.TruncatedSubsampledGaussianDpEvent):
        _add(run, count, _truncated_subsampled_gaussian(event, path, run))
        return
    if isinstance(event, dpa.ZCDpEvent):
        rho = _noise(f"{path}.rho", event.rho)
        xi = _noise(f"{path}.xi", event.xi)
        _add(run, count, _NON_PRIVATE_STEP if math.inf in (rho, xi) else dpproofs.ZCDP(rho, xi))
        return
    main_branch = _MAIN_BRANCH_EVENTS.get(type(event).__name__)
    if main_branch is not None:
        _add(run, count, main_branch(event, path, run))
        return
    raise UnsupportedEvent(
        f"{path}={event!r}: {type(event).__name__} is not supported by dpproofs (supported: "
        f"GaussianDpEvent, PoissonSampledDpEvent of Gaussians, LaplaceDpEvent, "
        f"RandomizedResponseDpEvent, ZCDpEvent, SingleEpochTreeAggregationDpEvent, "
        f"MixtureOfGaussiansDpEvent, DiscreteLaplaceDpEvent, RepeatAndSelectDpEvent (RDP), "
        f"TruncatedSubsampledGaussianDpEvent, EpsilonDeltaDpEvent (delta = 0), "
        f"ExponentialMechanismDpEvent, PermuteAndFlipDpEvent, DiscreteGaussianDpEvent (RDP), "
        f"SelfComposedDpEvent, ComposedDpEvent, "
        f"NoOpDpEvent, NonPrivateDpEvent)", event
    )


def _add(run, count, mechanism):
    if mechanism is None or count == 0:
        return
    if mechanism is _NON_PRIVATE_STEP:
        run.non_private = True
        return
    run.entries.append((mechanism, count))


def _described(description, check, name, *args):
    """``check(name, *args)``, its error message led by ``description`` (the words dp_accounting's
    own messages begin with, so code that matches them keeps working; the argument, its value and
    the allowed range follow)."""
    try:
        return check(name, *args)
    except (InvalidArgument, InvalidArgumentType) as error:
        raise type(error)(f"{description}: {error}") from None


def _noise(name, value):
    """A noise multiplier in ``[0, inf]`` (0: no noise; inf: no release)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value) == math.inf:
        return math.inf
    return _described("Noise multiplier", _validate.real, name, value, 0)


def _effective_sigma(event, dpa, path, parent):
    """The one noise multiplier equivalent to the Gaussians of ``event`` on one sample:
    ``(sum_i count_i / s_i^2)^(-1/2)``; 0 if some ``s_i = 0``, ``inf`` if there is none."""
    found = []  # (sigma, count) of the Gaussians, sigma in (0, inf)
    exact = False  # a sigma_i = 0 makes the release exact

    def visit(sub, count, where):
        nonlocal exact
        if not isinstance(sub, dpa.DpEvent):
            raise InvalidArgumentType(f"{where}={sub!r} must be a dp_accounting DpEvent, not {type(sub).__name__}")
        if isinstance(sub, dpa.NoOpDpEvent):
            return
        if isinstance(sub, dpa.GaussianDpEvent):
            sigma = _noise(f"{where}.noise_multiplier", sub.noise_multiplier)
            if count > 0 and sigma == 0:
                exact = True
            elif count > 0 and sigma < math.inf:
                found.append((sigma, count))
            return
        if isinstance(sub, dpa.SelfComposedDpEvent):
            visit(sub.event, count * _count(f"{where}.count", sub.count), f"{where}.event")
            return
        if isinstance(sub, dpa.ComposedDpEvent):
            for index, item in enumerate(sub.events):
                visit(item, count, f"{where}.events[{index}]")
            return
        raise UnsupportedEvent(
            f"{where}={sub!r}: the event inside a {parent} must be a GaussianDpEvent or a composition "
            f"of them (found {type(sub).__name__})", sub
        )

    visit(event, 1, path)
    if exact:
        return 0.0
    if not found:
        return math.inf
    if len(found) == 1 and found[0][1] == 1:
        return found[0][0]
    # n terms: two roundings each, n - 1 in the sum, then sqrt and division; widen by (2n + 4)
    # ulps relative and round sigma *down* (less noise: more privacy loss, never less)
    precision = math.fsum(count / sigma**2 for sigma, count in found)
    sigma = 1.0 / math.sqrt(precision)
    return math.nextafter(sigma * (1 - (2 * len(found) + 4) * 2.0**-52), 0.0)


def _tree_aggregation(event, path):
    """``SingleEpochTreeAggregationDpEvent(noise_multiplier, step_counts)`` as one Gaussian.

    Tree aggregation restarted after each epoch of ``step_counts[i]`` steps, no record in two
    trees (Kairouz, McMahan, Song, Thakkar, Thakurta & Xu 2021, arXiv 2103.00039, Appendix D): a
    record's contribution (L2 norm at most 1, the clipping norm) enters at most
    ``depth = ceil(log2(max(step_counts) + 1))`` nodes of its tree, each released with Gaussian
    noise of std ``sigma``; with the record's slot fixed (replace-special: the nodes move by at
    most 1 each) the release is one Gaussian mechanism of L2 sensitivity ``sqrt(depth)``, i.e.
    ``Gaussian(sigma / sqrt(depth))``. Under replace-one each node moves by up to 2, and
    ``Gaussian(s)`` under ``"replace_one"`` accounts that doubling itself (same mapping).
    ``depth = 0`` (all step counts 0): nothing released; ``sigma = 0``: non-private.
    """
    sigma = event.noise_multiplier
    if not (isinstance(sigma, numbers.Real) and not isinstance(sigma, bool) and float(sigma) == math.inf):
        sigma = _described("Noise multiplier must be non-negative", _validate.real, f"{path}.noise_multiplier",
                           sigma, 0)
    steps = event.step_counts
    if isinstance(steps, numbers.Number):  # dp_accounting takes one integer for one epoch
        steps = [steps]
    elif isinstance(steps, (str, bytes)) or not hasattr(steps, "__iter__"):
        raise InvalidArgumentType(
            f"{path}.step_counts={event.step_counts!r} must be a non-negative integer or a non-empty "
            f"sequence of them")
    steps = [_described("Steps must be non-negative", _validate.integer, f"{path}.step_counts[{index}]", value, 0)
             for index, value in enumerate(steps)]
    if not steps:
        raise InvalidArgument(
            f"{path}.step_counts={event.step_counts!r} must be a non-empty list of non-negative "
            f"integers, or one such integer (the steps of each epoch)")
    depth = max(steps).bit_length()  # = ceil(log2(max + 1)), exactly, for an integer max >= 0
    if depth == 0 or sigma == math.inf:
        return None
    if sigma == 0:
        return _NON_PRIVATE_STEP
    if depth == 1:
        return Gaussian(sigma)
    # sqrt and division: one half-ulp each; lowered by 4 ulps relative, then one float toward 0
    # (less noise: more privacy loss, never less)
    return Gaussian(math.nextafter(sigma / math.sqrt(depth) * (1 - 4 * 2.0**-52), 0.0))


def _repeat_and_select(event, run, dpa, path):
    """``RepeatAndSelectDpEvent(inner, mean, shape)`` -> ``dpproofs.RepeatAndSelect`` of the inner
    run's mechanisms (Papernot & Steinke 2022, arXiv 2110.03620v2, Theorems 2 and 6; RDP only).
    A non-private inner run makes the selection non-private; an empty one releases nothing."""
    mean = _described("Mean of number of repetitions must be >=1", _validate.real, f"{path}.mean", event.mean, 1)
    shape = event.shape
    if not (isinstance(shape, numbers.Real) and not isinstance(shape, bool) and float(shape) == math.inf):
        shape = _described("Distribution of repetitions must be >=0", _validate.real, f"{path}.shape", shape, 0)
    inner = _Run()
    _walk(event.event, 1, inner, dpa, f"{path}.event")
    run.fixed_slots.extend(inner.fixed_slots)
    if inner.non_private:
        return _NON_PRIVATE_STEP
    if not inner.entries:
        return None
    return dpproofs.RepeatAndSelect(tuple(inner.entries), mean, float(shape))


#: How far the sampling probabilities of a ``MixtureOfGaussiansDpEvent`` may sum from 1: float
#: probabilities as users type them (``[0.1] * 10`` sums to ``1 - 2**-53``), a few ulps per term.
_PROBABILITY_SUM_TOL = 1e-9


def _mixture_of_gaussians(event, path, run):
    """``MixtureOfGaussiansDpEvent(s, c, p)``: ``N(0, s^2)`` on one dataset, ``sum_i p_i N(c_i, s^2)`` on
    its neighbour (dp_accounting's add/remove reading: the record's sensitivity is random;
    Choquette-Choo, Ganesh, Steinke & Thakurta 2023, arXiv 2310.15526).

    Accounted as :class:`dpproofs.MixtureOfGaussians` ``(s, c, p)`` over the components of positive
    probability: tight in the PLD accountant (its own pair, both orders), a joint-convexity bound at
    most ``Gaussian(s / c_max)``'s in the RDP accountant (see the class). As in dp_accounting, a negative sensitivity
    of positive probability is an InvalidArgument ("Sensitivities contains a negative number").
    Every sensitivity of positive probability 0: nothing (the two distributions are equal);
    ``s = 0``: non-private. Add/remove and replace-special only, as in dp_accounting.
    """
    std = _described("Noise multiplier", _validate.real, f"{path}.standard_deviation", event.standard_deviation, 0)
    sensitivities, probabilities = event.sensitivities, event.sampling_probs
    for name, values in (("sensitivities", sensitivities), ("sampling_probs", probabilities)):
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
            raise InvalidArgumentType(f"{path}.{name}={values!r} must be a sequence of real numbers")
    if len(sensitivities) == 0 or len(sensitivities) != len(probabilities):
        raise InvalidArgument(
            f"{path}.sensitivities={sensitivities!r} and {path}.sampling_probs={probabilities!r} must be "
            f"non-empty and of the same length")
    sensitivities = [_validate.real(f"{path}.sensitivities[{i}]", c) for i, c in enumerate(sensitivities)]
    probabilities = [_validate.real(f"{path}.sampling_probs[{i}]", q, 0, 1) for i, q in enumerate(probabilities)]
    total = math.fsum(probabilities)
    if abs(total - 1) > _PROBABILITY_SUM_TOL:
        raise InvalidArgument(f"{path}.sampling_probs={event.sampling_probs!r} must sum to 1 (sum: {total!r})")
    components = [(c, q) for c, q in zip(sensitivities, probabilities) if q > 0]
    for i, (c, q) in enumerate(zip(sensitivities, probabilities)):
        if q > 0 and c < 0:
            raise InvalidArgument(
                f"Sensitivities contains a negative number: {path}.sensitivities[{i}]={c!r} (of probability "
                f"{q!r}) is outside the allowed range [0, inf)")
    run.add_remove_only.append((path, event))
    if max(c for c, _ in components) == 0:
        return None  # the mixture is N(0, s^2) itself
    if std == 0:
        return _NON_PRIVATE_STEP
    return dpproofs.MixtureOfGaussians(std, tuple(c for c, _ in components), tuple(q for _, q in components))


def _truncated_subsampled_gaussian(event, path, run):
    """``TruncatedSubsampledGaussianDpEvent(n, q, B, s)`` (jax_privacy 2.0's truncated DP-SGD):
    ``dpproofs.TruncatedSampledGaussian(q, s, B, n)``, accounted by a branch-revealed mixture of
    sampled Gaussians that dominates it (:mod:`dpproofs.math.truncation`). ``q = 0``, ``B = 0`` or
    ``n = 0``: nothing released (as dp_accounting); ``s = 0``: non-private. Add/remove and
    replace-special only (replace-one: :class:`UnsupportedEvent`)."""
    n = _described("Dataset size", _validate.integer, f"{path}.dataset_size", event.dataset_size, 0)
    q = _described("Sampling rate", _validate.real, f"{path}.sampling_probability", event.sampling_probability, 0, 1)
    batch = _described("Truncated batch size", _validate.integer, f"{path}.truncated_batch_size",
                       event.truncated_batch_size, 0)
    sigma = _noise(f"{path}.noise_multiplier", event.noise_multiplier)
    run.add_remove_only.append((path, event))
    if q == 0 or batch == 0 or n == 0 or sigma == math.inf:
        return None
    if sigma == 0:
        return _NON_PRIVATE_STEP
    return dpproofs.TruncatedSampledGaussian(q, sigma, batch, n)


def _discrete_laplace(event, path, run):
    """``DiscreteLaplaceDpEvent(a, C)``: ``sum + z``, ``z`` with mass ``exp(-a|x|) tanh(a/2)`` at every
    integer ``x``, the sum moved by at most ``C`` when one record is added or removed.

    The mass ratio at any output of two sums ``C`` apart is at most ``e^{a C}``: the mechanism is
    ``a C``-DP, and it is accounted as binary randomized response ``RandomizedResponse(a C)``, the
    worst case of every ``eps``-DP pair in Rényi divergence (Mironov 2017, arXiv 1702.07476v3,
    Proposition 5) and in every hockey-stick divergence (Kairouz, Oh & Viswanath 2015, arXiv
    1311.0776v4, Theorem 3.3's dominating mechanism): an upper bound, not the discrete Laplace's
    own (smaller) loss. Under replace-one the sum moves by up to ``2C`` (not accounted: refused,
    as dp_accounting does). ``C = 0``: no loss; ``a = 0`` (``exp(-a|x|) tanh(a/2)`` is no
    distribution; dp_accounting reads it as zero noise) and ``a = inf`` (no noise): non-private.
    """
    a = event.noise_parameter
    if not (isinstance(a, numbers.Real) and not isinstance(a, bool) and float(a) == math.inf):
        a = _described("Noise parameter", _validate.real, f"{path}.noise_parameter", a, 0)
    sensitivity = _validate.integer(f"{path}.sensitivity", event.sensitivity, 0)
    run.add_remove_only.append((path, event))
    if sensitivity == 0:
        return None
    if a == 0 or a == math.inf:
        return _NON_PRIVATE_STEP
    epsilon = float(a) * sensitivity  # one rounding (an integer beyond 2**53 rounds too: two)
    if epsilon == math.inf:
        return _NON_PRIVATE_STEP
    return RandomizedResponse(math.nextafter(epsilon * (1 + 2 * 2.0**-52), math.inf))


# --- dp_accounting main-branch events (issue 24) ------------------------------------------------
#
# dp_accounting's main branch (not on PyPI; the installed 0.6 has none of these classes) adds
# EpsilonDeltaDpEvent, ExponentialMechanismDpEvent, PermuteAndFlipDpEvent and
# DiscreteGaussianDpEvent. They are recognised by class name (a DpEvent subclass of that name with
# main's fields), so the bridge accounts them whichever dp_accounting defines them.

#: main's fields of each event, in order (dp_accounting/dp_event.py on the main branch).
_MAIN_BRANCH_FIELDS = {
    "EpsilonDeltaDpEvent": ("epsilon", "delta"),
    "ExponentialMechanismDpEvent": ("epsilon",),
    "PermuteAndFlipDpEvent": ("epsilon",),
    "DiscreteGaussianDpEvent": ("sigma", "sensitivity", "dimension"),
}

#: Relative widening of ``rho = (sensitivity / sigma)^2 / 2`` (discrete Gaussian): each of
#: ``sensitivity`` and ``sigma`` is at most half an ulp from the value passed (a non-float real is
#: rounded once), the quotient adds half an ulp, squaring doubles the three and adds one more, and
#: halving is exact: 7 half-ulps = 3.5 * 2**-52 relative, so 4 * 2**-52, then one ``nextafter``.
_RHO_WIDEN = 4 * 2.0**-52


def _main_field(event, path, name):
    """``event.<name>``, or an :class:`InvalidArgumentType` naming the event's missing field."""
    kind = type(event).__name__
    try:
        return getattr(event, name)
    except AttributeError:
        raise InvalidArgumentType(
            f"{path}={event!r}: {kind} has no field {name!r}; dp_accounting's {kind} has the fields "
            f"{list(_MAIN_BRANCH_FIELDS[kind])}") from None


def _is_inf(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value) == math.inf


def _rounded_up(value, as_float):
    """``as_float`` (``float(value)``, rounded to nearest) raised to the next float when it lies
    below the exact ``value`` (an int or Fraction beyond float precision): never below it."""
    return math.nextafter(as_float, math.inf) if as_float < value else as_float


def _pure_epsilon(event, path, description):
    """The event's ``epsilon`` in ``[0, inf]`` (``inf``: non-private), never below the value given."""
    value = _main_field(event, path, "epsilon")
    if _is_inf(value):
        return math.inf
    return _rounded_up(value, _described(description, _validate.real, f"{path}.epsilon", value, 0))


def _pure_dp_step(epsilon):
    """An ``epsilon``-DP step as binary randomized response ``RandomizedResponse(epsilon)``: the
    worst ``epsilon``-DP pair in every hockey-stick divergence (Kairouz, Oh & Viswanath 2015, arXiv
    1311.0776v4, the dominating mechanism in the proof of Theorem 3.3) and in Rényi divergence
    (Mironov 2017, arXiv 1702.07476v3, Proposition 5), so an upper bound in both accountants, under
    every relation (the epsilon is the guarantee under the relation accounted). ``epsilon = 0``:
    nothing; ``inf``: non-private."""
    if epsilon == 0:
        return None
    if epsilon == math.inf:
        return _NON_PRIVATE_STEP
    return RandomizedResponse(epsilon)


def _epsilon_delta(event, path, run):
    """``EpsilonDeltaDpEvent(epsilon, delta)``: a mechanism known only to be
    ``(epsilon, delta)``-DP.

    ``delta = 0`` -> :func:`_pure_dp_step` (binary randomized response, the worst ``epsilon``-DP
    pair: exact for the event, which promises nothing more). ``delta = 1`` or ``epsilon = inf``:
    non-private. ``0 < delta < 1``: an :class:`UnsupportedEvent`. The worst ``(epsilon, delta)``-DP
    pair (Kairouz, Oh & Viswanath 2015, proof of Theorem 3.3) puts P-mass ``delta`` at loss +inf, so
    no Rényi divergence of it is finite (dp_accounting main's RDP accountant carries a separate
    delta beside the RDP of randomized response instead; dpproofs' RDP accountant has no such
    term), and the PLD accountant is not given that pair here yet.
    """
    epsilon = _pure_epsilon(event, path, "epsilon should be positive")
    value = _main_field(event, path, "delta")
    delta = _described("delta should be between 0 and 1", _validate.real, f"{path}.delta", value, 0, 1)
    if delta == 1 or epsilon == math.inf:
        return _NON_PRIVATE_STEP
    if delta > 0 or value != 0:  # a delta that rounds to 0 from above is not 0
        raise UnsupportedEvent(
            f"{path}={event!r}: EpsilonDeltaDpEvent with delta={value!r} > 0 is not supported by dpproofs: "
            f"the worst (epsilon, delta)-DP pair has P-mass delta at loss +inf, so no finite Rényi DP "
            f"(RDP accountant), and the PLD accountant does not carry that pair yet; allowed: delta = 0 "
            f"(accounted as randomized response), or a specific DpEvent of the mechanism", event)
    return _pure_dp_step(epsilon)


def _exponential_mechanism(event, path, run):
    """``ExponentialMechanismDpEvent(epsilon)``: the ``epsilon``-DP exponential mechanism ->
    ``dpproofs.BoundedRange(epsilon)``: it is ``epsilon``-bounded range (Durfee & Rogers 2019, arXiv
    1905.04273), accounted (every relation) by the pair of ``RandomizedResponse(epsilon)`` in the PLD
    accountant and in RDP by the smaller of randomized response's and the zCDP ``alpha epsilon^2 /
    8`` of bounded range (Cesar & Rogers 2021, arXiv 2004.07223; proved in the class docstring):
    upper bounds, not the mechanism's own loss. ``epsilon = 0``: nothing; ``inf``: non-private.

    dp_accounting main (b5b0286): the same worst ``epsilon``-DP pair in its PLD accountant (equal);
    in its RDP accountant ``min(xi + alpha epsilon^2 / 8, epsilon)``, ``xi <= 0`` (below ours by
    ``-xi`` where both follow the zCDP line, above where randomized response is below it), added
    ONCE whatever the count (``count *`` is missing there: an unsound answer for ``count > 1``).
    """
    epsilon = _pure_epsilon(event, path, "epsilon must be >= 0")
    if epsilon == 0:
        return None
    if epsilon == math.inf:
        return _NON_PRIVATE_STEP
    return dpproofs.BoundedRange(epsilon)


def _permute_and_flip(event, path, run):
    """``PermuteAndFlipDpEvent(epsilon)``: McKenna & Sheldon's permute-and-flip mechanism (2020,
    arXiv 2010.12603), ``epsilon``-DP -> :func:`_pure_dp_step`, binary
    ``RandomizedResponse(epsilon)`` (an upper bound).

    dp_accounting main accounts it as the Laplace mechanism of parameter ``1 / epsilon`` (its
    docstring states the two privacy loss distributions are identical; not verified here), whose
    curves lie below randomized response's: ours is an upper bound of theirs (equal or looser).
    Add/remove and replace-special only (replace-one: :class:`UnsupportedEvent`), as dp_accounting
    main's PLD accountant (its utility sensitivity is read as the Laplace event's).
    """
    run.add_remove_only.append((path, event))
    return _pure_dp_step(_pure_epsilon(event, path, "epsilon must be >= 0"))


def _discrete_gaussian(event, path, run):
    """``DiscreteGaussianDpEvent(sigma, sensitivity, dimension)``: ``f(x) + z``, ``f`` integer
    valued (a vector in ``Z^dimension``) with L2 sensitivity ``sensitivity``, ``z`` of mass
    proportional to ``exp(-|z|^2 / (2 sigma^2))`` on the integer lattice.

    -> ``dpproofs.ZCDP(rho)``, ``rho = sensitivity^2 / (2 sigma^2)`` (rounded up, RDP accountant
    only). Canonne, Kamath & Steinke 2020 (arXiv 2004.00010) bound the Rényi divergence of two
    discrete Gaussians of scale ``sigma`` at integer means ``mu, nu`` by ``alpha (mu - nu)^2 /
    (2 sigma^2)`` (dp_accounting main cites it as their Proposition 5; the number is not verified
    here). The multivariate mass factorises into independent coordinates, and Rényi divergences of
    products add, so at any ``dimension`` the bound is ``alpha |mu - nu|_2^2 / (2 sigma^2) <= alpha
    rho``: the same as dp_accounting main's RDP accountant (equal), for ``dimension`` 1, ``> 1`` and
    ``None``. The PLD accountant refuses it (dp_accounting main's too): a zCDP bound is no pair of
    distributions, and no published bound of the discrete Gaussian's privacy profile by the
    continuous one is verified here. Add/remove and replace-special only (its sensitivity is stated
    for one record added or removed; replace-one: :class:`UnsupportedEvent`). ``sensitivity = 0``
    or ``sigma = inf``: nothing; ``sigma = 0``: non-private.
    """
    sigma_value = _main_field(event, path, "sigma")
    sensitivity_value = _main_field(event, path, "sensitivity")
    dimension = _main_field(event, path, "dimension")
    if dimension is not None:
        _described("Dimension", _validate.integer, f"{path}.dimension", dimension, 1)
    sigma = math.inf if _is_inf(sigma_value) else _described(
        "Sigma", _validate.real, f"{path}.sigma", sigma_value, 0)
    sensitivity = _described("Sensitivity", _validate.real, f"{path}.sensitivity", sensitivity_value, 0)
    run.add_remove_only.append((path, event))
    run.rdp_only.append((path, event))
    if sensitivity_value == 0 or sigma == math.inf:
        return None
    if sigma_value == 0:
        return _NON_PRIVATE_STEP
    # sigma rounded down, sensitivity up (a non-float real), then _RHO_WIDEN for the arithmetic
    sigma = math.nextafter(sigma, 0.0) if sigma > sigma_value else sigma
    sensitivity = _rounded_up(sensitivity_value, sensitivity)
    if sigma == 0:  # a positive sigma below the smallest float
        return _NON_PRIVATE_STEP
    ratio = sensitivity / sigma  # float overflow gives inf (non-private), never an exception
    rho = ratio * ratio / 2
    if not rho < math.inf:
        return _NON_PRIVATE_STEP
    return dpproofs.ZCDP(math.nextafter(rho * (1 + _RHO_WIDEN), math.inf))


def _main_branch_refusal(run, accountant):
    """An :class:`UnsupportedEvent` for the first RDP-only main-branch event of ``run`` when
    ``accountant`` is ``"pld"``, else None."""
    if accountant != "pld" or not run.rdp_only:
        return None
    path, event = run.rdp_only[0]
    return UnsupportedEvent(
        f"{path}={event!r}: {type(event).__name__} is accounted by the RDP accountant only: its bound "
        f"(Canonne, Kamath & Steinke 2020, arXiv 2004.00010) is zero-concentrated DP, a bound on Rényi "
        f"divergences, not a pair of output distributions; allowed: accountant='rdp'", event)


#: class name -> its analysis (event, path, run) -> mechanism, None or _NON_PRIVATE_STEP.
_MAIN_BRANCH_EVENTS = {
    "EpsilonDeltaDpEvent": _epsilon_delta,
    "ExponentialMechanismDpEvent": _exponential_mechanism,
    "PermuteAndFlipDpEvent": _permute_and_flip,
    "DiscreteGaussianDpEvent": _discrete_gaussian,
}


def _fixed_slot_refusal(run, relation):
    """An :class:`UnsupportedEvent` for the first event of ``run`` that needs fixed slots when
    ``relation`` does not fix them (plain add/remove), else None."""
    if relation == "replace_one" and run.add_remove_only:
        path, event = run.add_remove_only[0]
        return UnsupportedEvent(
            f"{path}={event!r}: neighboring_relation must be `ADD_OR_REMOVE_ONE` or `REPLACE_SPECIAL` for "
            f"`{type(event).__name__}`, found {relation!r}: its sensitivity is stated for one record added "
            f"or removed; allowed: 'add_remove', 'replace_special'", event)
    if relation in _FIXED_SLOT_RELATIONS or not run.fixed_slots:
        return None
    path, event, (allowed, reason) = run.fixed_slots[0]
    return UnsupportedEvent(
        f"{path}={event!r}: neighboring_relation must be {allowed} for `{type(event).__name__}`, found "
        f"{relation!r}: {reason}; allowed: 'replace_special', 'replace_one'", event)


#: Why tree aggregation needs a record's slot fixed (:func:`_fixed_slot_refusal`), after dp_accounting's
#: own words for it.
_TREE_SLOTS = "`REPLACE_SPECIAL` or `REPLACE_ONE`", ("its analysis (Kairouz et al. 2021, arXiv 2103.00039, Appendix D) keeps every record in its "
               "step; removing a record would shift the later ones")
#: Why randomized response does (dp_accounting refuses it under add/remove too).
_RESPONSE_SLOTS = "`REPLACE_ONE` or `REPLACE_SPECIAL`", ("randomized response reports the record's own bucket, and with the record removed there is "
                   "no input to report: what is released then is not defined ('replace_special' reads it as a "
                   "special input reported uniformly, 'replace_one' as another bucket)")


def _accounted_relation(relation):
    """The relation the dpproofs accountant is built with: ``"replace_special"`` is accounted as
    ``"add_remove"`` (a special record adds 0 to every sum, as an absent one; randomized response
    is settled to its special pair first, :func:`_settle_randomized_response`)."""
    return "add_remove" if relation == "replace_special" else relation


def _randomized_response(event, path):
    p = _validate.real(f"{path}.noise_parameter", event.noise_parameter, 0, 1)
    k = _validate.integer(f"{path}.num_buckets", event.num_buckets, 1)
    if k == 1 or p == 1:
        return None  # the output does not depend on the input
    if p == 0:
        return _NON_PRIVATE_STEP
    # the relation decides the pair (binary RR for k = 2, or the special pair): _settle_randomized_response
    return KaryRandomizedResponse(p, k)


def _settle_randomized_response(run, relation):
    """The walk's ``KaryRandomizedResponse`` entries (only ``RandomizedResponseDpEvent`` makes
    them) as accounted under ``relation``: under ``"replace_special"`` the special pair
    (``special=True``: the special record outputs the uniform distribution, dp_accounting's
    analysis), else the two-input pair, as binary ``RandomizedResponse(log(2/p - 1))`` for
    ``k = 2`` (the same pair)."""
    settled = []
    for mechanism, count in run.entries:
        if isinstance(mechanism, KaryRandomizedResponse):
            if relation == "replace_special":
                mechanism = KaryRandomizedResponse(mechanism.p, mechanism.k, special=True)
            elif mechanism.k == 2:
                # eps = log(1 + 2 (1 - p) / p) = log(2/p - 1), raised for its rounding (_RR_WIDEN)
                epsilon = math.log1p(2 * (1.0 - mechanism.p) / mechanism.p)
                mechanism = RandomizedResponse(math.nextafter(epsilon * (1 + _RR_WIDEN), math.inf))
        settled.append((mechanism, count))
    run.entries = settled


def _relation(value):
    if isinstance(value, str):
        return _validate.choice("neighboring_relation", value, RELATIONS)
    name = getattr(value, "name", None)
    if type(value).__name__ == "NeighboringRelation" and name in _ENUM_NAMES:
        return _ENUM_NAMES[name]
    raise InvalidArgument(
        f"neighboring_relation={value!r} is not supported; allowed: {list(RELATIONS)} "
        f"(or dp_accounting's NeighboringRelation.ADD_OR_REMOVE_ONE / REPLACE_ONE / REPLACE_SPECIAL)"
    )


def _accepts(cls, keyword):
    try:
        return keyword in inspect.signature(cls).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without signatures
        return False


def _empty_accountant(accountant, relation, orders):
    relation = _accounted_relation(relation)
    kind = _validate.choice("accountant", accountant, ACCOUNTANTS)
    if kind == "pld":
        cls = dpproofs.PLDAccountant
        if orders is not None:
            raise InvalidArgument(f"orders={orders!r} applies to accountant='rdp' only; allowed with 'pld': None")
        kwargs = {}
    else:
        cls = dpproofs.Accountant
        kwargs = {"orders": orders}
    if relation != "add_remove":
        if not _accepts(cls, "relation"):
            raise InvalidArgument(
                f"neighboring_relation={relation!r} is not supported yet: {cls.__name__} has no "
                f"replace-one analysis; allowed: 'add_remove'"
            )
        kwargs["relation"] = relation
    return cls, kwargs


# --- public entries ----------------------------------------------------------------------------


def accountant_for(event: Any, accountant: str = "rdp", *, neighboring_relation: Any = "add_remove",
                   orders: Any = None) -> Any:
    """A dpproofs accountant with the run ``event`` describes composed (see the module docstring).

    ``accountant``: ``"rdp"`` (:class:`dpproofs.Accountant` over ``orders``, None for the
    default orders) or ``"pld"`` (:class:`dpproofs.PLDAccountant`).
    ``neighboring_relation``: ``"add_remove"`` (default), ``"replace_one"`` (one record
    changed; both accountants support it) or ``"replace_special"`` (accounted as add/remove; the
    relation tree aggregation needs), or dp_accounting's ``NeighboringRelation`` member.

    Raises :class:`UnsupportedEvent` (an :class:`InvalidArgument`) naming the first event that
    cannot be accounted, :class:`InvalidArgument` for a parameter out of range. Everything is
    read and validated before the accountant is built.
    """
    dpa = _dpa()
    relation = _relation(neighboring_relation)
    cls, kwargs = _empty_accountant(accountant, relation, orders)
    run = _Run()
    _walk(event, 1, run, dpa, "event")
    _settle_randomized_response(run, relation)
    refusal = _fixed_slot_refusal(run, relation) or _main_branch_refusal(run, accountant)
    if refusal is not None:
        raise refusal
    if run.non_private:
        cls = _non_private_class(cls)
    result = cls(**kwargs)
    for mechanism, count in run.entries:
        result.compose(mechanism, count)
    return result


def supports(event: Any, accountant: str = "rdp", *, neighboring_relation: Any = "add_remove") -> bool:
    """Whether :func:`accountant_for` accounts for ``event``: ``False`` exactly when it would
    raise :class:`UnsupportedEvent` (an event type or structure it does not know). A parameter out
    of range still raises :class:`InvalidArgument`, as dp_accounting raises at compose."""
    dpa = _dpa()
    relation = _relation(neighboring_relation)
    try:
        _empty_accountant(accountant, relation, None)
    except InvalidArgument:
        return False
    run = _Run()
    try:
        _walk(event, 1, run, dpa, "event")
    except UnsupportedEvent:
        return False
    _settle_randomized_response(run, relation)
    if _fixed_slot_refusal(run, relation) is not None:
        return False
    kind = _validate.choice("accountant", accountant, ("rdp", "pld"))
    if _main_branch_refusal(run, kind) is not None:
        return False
    accounted = _accounted_relation(relation)
    return all(mechanism.refusal(kind, accounted) is None for mechanism, _ in run.entries)


def to_event(accountant: Any) -> Any:
    """The ledger of a dpproofs accountant as a dp_accounting ``DpEvent``.

    ``ComposedDpEvent`` of one ``SelfComposedDpEvent(leaf, steps)`` per ledger entry (a single
    entry is returned without the outer composition; an empty ledger is a ``NoOpDpEvent``; a
    :class:`NonPrivateAccountant` adds a ``NonPrivateDpEvent``). Leaves: ``Gaussian`` ->
    ``GaussianDpEvent``, ``SampledGaussian`` -> ``PoissonSampledDpEvent`` of a Gaussian,
    ``Laplace`` -> ``LaplaceDpEvent``, ``RandomizedResponse(eps)`` ->
    ``RandomizedResponseDpEvent(p, 2)`` with ``p = 2 / (1 + e^eps)`` rounded down (less noise:
    the event never claims more privacy than the ledger), ``KaryRandomizedResponse(p, k)`` ->
    ``RandomizedResponseDpEvent(p, k)``, ``MixtureOfGaussians(s, c, p)`` ->
    ``MixtureOfGaussiansDpEvent(s, c, p)``, ``BoundedRange(eps)`` -> ``ExponentialMechanismDpEvent(eps)``
    where dp_accounting defines it (its main branch), else the ``RandomizedResponseDpEvent`` of
    ``RandomizedResponse(eps)`` (looser: an eps-bounded-range step is eps-DP).
    """
    dpa = _dpa()
    ledger = getattr(accountant, "ledger", None)
    if ledger is None or not hasattr(accountant, "compose"):
        raise InvalidArgumentType(
            f"accountant={accountant!r} must be a dpproofs accountant (with a ledger), not {type(accountant).__name__}"
        )
    events = [_leaf_event(mechanism, dpa) for mechanism, _ in ledger]
    parts = [dpa.SelfComposedDpEvent(leaf, int(steps)) for leaf, (_, steps) in zip(events, ledger)]
    if isinstance(accountant, _NonPrivateMixin):
        parts.append(dpa.NonPrivateDpEvent())
    if not parts:
        return dpa.NoOpDpEvent()
    if len(parts) == 1:
        return parts[0]
    return dpa.ComposedDpEvent(parts)


def _randomized_response_event(mechanism, dpa):
    p = 2.0 / (1.0 + math.exp(mechanism.epsilon))  # three roundings: <= 2 ulps relative
    return dpa.RandomizedResponseDpEvent(math.nextafter(p * (1 - _RR_WIDEN), 0.0), 2)


def _bounded_range_event(mechanism, dpa):
    """``ExponentialMechanismDpEvent(eps)`` where dp_accounting has it (main), else the looser
    ``RandomizedResponseDpEvent`` of ``RandomizedResponse(eps)`` (an eps-bounded-range step is
    eps-DP): the event never claims more privacy than the ledger."""
    exponential = getattr(dpa, "ExponentialMechanismDpEvent", None)
    if exponential is not None:
        return exponential(mechanism.epsilon)
    return _randomized_response_event(mechanism, dpa)


#: mechanism class name -> its dp_accounting DpEvent (a table, not a chain over classes: a
#: mechanism without a counterpart is named in the error).
_LEAF_EVENTS = {
    "SampledGaussian": lambda m, dpa: dpa.PoissonSampledDpEvent(m.q, dpa.GaussianDpEvent(m.sigma)),
    "Gaussian": lambda m, dpa: dpa.GaussianDpEvent(m.sigma),
    "Laplace": lambda m, dpa: dpa.LaplaceDpEvent(m.scale),
    "SampledLaplace": lambda m, dpa: dpa.PoissonSampledDpEvent(m.q, dpa.LaplaceDpEvent(m.scale)),
    "RandomizedResponse": _randomized_response_event,
    "KaryRandomizedResponse": lambda m, dpa: dpa.RandomizedResponseDpEvent(m.p, m.k),
    "ZCDP": lambda m, dpa: dpa.ZCDpEvent(m.rho, m.xi),
    "FixedBatchGaussian": lambda m, dpa: dpa.SampledWithoutReplacementDpEvent(
        m.dataset_size, m.batch_size, dpa.GaussianDpEvent(m.sigma)),
    "MixtureOfGaussians": lambda m, dpa: dpa.dp_event.MixtureOfGaussiansDpEvent(
        m.sigma, list(m.sensitivities), list(m.probabilities)),
    "TruncatedSampledGaussian": lambda m, dpa: dpa.dp_event.TruncatedSubsampledGaussianDpEvent(
        m.dataset_size, m.q, m.max_batch_size, m.sigma),
    "BoundedRange": _bounded_range_event,
}


def _leaf_event(mechanism, dpa):
    make = _LEAF_EVENTS.get(type(mechanism).__name__)
    if make is None:
        raise InvalidArgument(f"mechanism={mechanism!r} has no dp_accounting DpEvent counterpart")
    return make(mechanism, dpa)


# --- non-private runs ------------------------------------------------------------------------


class _NonPrivateMixin:
    """An accountant whose run contains a non-private step: epsilon is ``inf`` at every delta
    and delta is ``1`` at every epsilon. Arguments are still validated by the base class."""

    def epsilon_and_order(self, delta, conversion="improved", **kwargs):
        _, alpha = super().epsilon_and_order(delta, conversion, **kwargs)
        return math.inf, alpha

    def epsilon(self, delta, *args, **kwargs):
        super().epsilon(delta, *args, **kwargs)
        return math.inf

    def delta(self, epsilon, *args, **kwargs):
        super().delta(epsilon, *args, **kwargs)
        return 1.0

    def epsilon_bounds(self, delta, *args, **kwargs):  # PLDAccountant's interval interface
        super().epsilon_bounds(delta, *args, **kwargs)
        return math.inf, math.inf

    def delta_bounds(self, epsilon, *args, **kwargs):
        super().delta_bounds(epsilon, *args, **kwargs)
        return 1.0, 1.0

    @property
    def rdp(self):
        values = super().rdp
        values[:] = math.inf
        return values

    def to_dict(self):
        """Like the base class, under a type of its own: the base ``from_dict`` refuses it rather
        than rebuild a private accountant (use :func:`accountant_for` on ``to_event(self)``)."""
        data = super().to_dict()
        data["type"] = type(self).__name__
        data["non_private"] = True
        return data

    @classmethod
    def from_dict(cls, data):
        """Inverse of :meth:`to_dict`."""
        base = cls.__mro__[2]  # the accountant class after this mixin
        if not isinstance(data, dict) or data.get("type") != cls.__name__ or data.get("non_private") is not True:
            raise InvalidArgumentType(f"data={data!r} must be a dict made by {cls.__name__}.to_dict()")
        plain = {key: value for key, value in data.items() if key != "non_private"}
        plain["type"] = base.__name__
        return super().from_dict(plain)

    def __repr__(self):
        return f"{type(self).__name__}(non-private: epsilon = inf; {super().__repr__()})"


class NonPrivateAccountant(_NonPrivateMixin, dpproofs.Accountant):
    """:class:`dpproofs.Accountant` for a run with a ``NonPrivateDpEvent``: epsilon is ``inf``."""


_NON_PRIVATE = {dpproofs.Accountant: NonPrivateAccountant}


def _non_private_class(cls):
    if cls not in _NON_PRIVATE:
        _NON_PRIVATE[cls] = type(f"NonPrivate{cls.__name__}", (_NonPrivateMixin, cls), {})
    return _NON_PRIVATE[cls]
