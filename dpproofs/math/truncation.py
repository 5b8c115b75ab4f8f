"""Truncated Poisson sampling as a branch-revealed mixture of sampled Gaussians: the analysis of
:class:`dpproofs.TruncatedSampledGaussian` (docs/math.md, "Truncated Poisson sampling").

The mechanism: each of the ``n`` records (``n = dataset_size``, the dataset that holds the record
``x`` in question; its ``m = n - 1`` others) is sampled independently with probability ``q``; a
batch of more than ``B`` records is cut to a uniformly random ``B`` of them; the Gaussian mechanism
(noise ``sigma``, clipping norm 1) is applied to the batch's sum. With ``K ~ Bin(m, q)`` the number
of others sampled, a coupling of the batches with and without ``x`` gives, conditionally on ``K = k``
(and on the others' batch), the pair

* ``k < B``: ``((1-q) N(c) + q N(c + x), N(c))``: no truncation on either side, sensitivity 1;
* ``k >= B``: ``((1-p_k) N(c) + p_k N(c - y + x), N(c))``, ``p_k = q B / (k + 1)``: ``x`` survives
  the cut with probability ``B / (k + 1)`` and then displaces one uniformly chosen record ``y`` of
  the batch (a uniform ``B``-subset less a uniform member is a uniform ``(B-1)``-subset), so the
  shift ``x - y`` has norm at most 2.

Revealing ``k`` is post-processing in reverse (forgetting it gives the mechanism), so the
mechanism is dominated, in every hockey-stick and Rényi divergence and under composition, by the
branch-revealed mixture of these sampled-Gaussian pairs with weights ``P(K = k)`` (the same under
both datasets). Branches ``k >= B`` are grouped: a group takes its largest rate (its smallest
``k``), and a sampled Gaussian at a smaller rate is a post-processing of one at a larger rate (mix
the output with the rate-0 distribution), so grouping only loosens. The weights are certified
(arb, the regularised incomplete beta function) and carried with their error bounds.

``dataset_size`` is read as dp_accounting's ``TruncatedSubsampledGaussianDpEvent`` reads it: the
size of the dataset that holds the record, ``n - 1`` others (``binom.sf(B - 1, n - 1, q)`` in its
``from_truncated_subsampled_gaussian_mechanism``). dp_accounting composes the average rate over
``k >= B`` against a replace-one pair; the per-branch add/remove pairs here are the sound form of
the same coupling, and tighter on its own test configuration.
"""

import math

__all__ = ["Branch", "branches", "MAX_GROUPS", "WEIGHT_PRECISION"]

#: Most groups of truncated branches (``k >= B``): each is one sampled-Gaussian pair to discretise,
#: so the PLD costs up to ``1 + MAX_GROUPS`` times an untruncated step; their rates are spread
#: geometrically over the likely ``k``, within a factor ``(k_hi + 1) / (B + 1)`` in all.
MAX_GROUPS = 8
#: Most values of ``k`` weighed one by one to place the groups (memory and time bounded whatever the
#: dataset size; beyond, e.g. B = 1 among 10^15 records, the starts are spread geometrically).
PLACEMENT_POINTS = 100_000
#: Binary precision of the arb evaluation of the weights (their radius is far below float64's).
WEIGHT_PRECISION = 128
#: Standard deviations of ``K`` above its mean past which the remaining ``k`` are lumped into the
#: last group (which takes that group's largest rate: sound whatever the lump's mass).
LIKELY_SDS = 12.0


class Branch(tuple):
    """``(weight, weight_error, rate, sensitivity)``: a sampled Gaussian at ``rate`` and L2
    sensitivity 1 or 2, drawn with probability within ``weight_error`` of ``weight``."""

    __slots__ = ()

    def __new__(cls, weight, weight_error, rate, sensitivity):
        return super().__new__(cls, (weight, weight_error, rate, sensitivity))

    weight = property(lambda self: self[0])
    weight_error = property(lambda self: self[1])
    rate = property(lambda self: self[2])
    sensitivity = property(lambda self: self[3])


def _cdf(k, m, q):
    """arb enclosure of ``P(Bin(m, q) <= k)``: ``I_{1-q}(m - k, k + 1)`` (``0 <= k < m``)."""
    from flint import arb  # loaded when a truncated step is accounted, not by `import dpproofs`

    if k < 0:
        return arb(0)
    if k >= m:
        return arb(1)
    return (arb(1) - arb(q)).beta_lower(m - k, k + 1, regularized=True)


def _float_ball(value):
    """``(mid, error)`` floats with ``|value - mid| <= error`` for every point of the arb ``value``."""
    low = math.nextafter(float(value.lower()), -math.inf)
    high = math.nextafter(float(value.upper()), math.inf)
    low, high = max(low, 0.0), min(high, 1.0)
    mid = (low + high) / 2
    return mid, math.nextafter(max(high - mid, mid - low), math.inf)


def _group_starts(batch, m, q):
    """The smallest ``k`` of each group of truncated branches (``batch`` first; at most
    :data:`MAX_GROUPS`), placed to balance ``weight x rate span`` across groups: a group
    ``[a, b)`` overstates the rate of its members by at most ``(b - a - 1) / (a + 1)`` relative, and
    what that costs is proportional to the group's probability. Only the placement uses float
    probabilities (scipy); the weights themselves are enclosed in arb by :func:`branches`. The
    ``k`` beyond ``LIKELY_SDS`` standard deviations above the mean join the last group."""
    from scipy import stats

    mean = m * q
    top = min(m, math.ceil(mean + LIKELY_SDS * math.sqrt(mean * (1 - q)) + LIKELY_SDS))
    if top <= batch:
        return [batch]
    ratio = (top + 1) / (batch + 1)
    geometric = sorted({min(m, max(batch, round((batch + 1) * ratio ** (j / MAX_GROUPS)) - 1))
                        for j in range(MAX_GROUPS)})
    if top - batch >= PLACEMENT_POINTS:  # too many k to weigh one by one: geometric in k + 1
        return geometric
    ks = list(range(batch, top + 1))
    try:
        masses = stats.binom.pmf(ks, m, q).tolist()
    except (OverflowError, FloatingPointError, ValueError):  # scipy's boost policy at extreme (m, q)
        return geometric
    if not all(math.isfinite(x) for x in masses):
        return geometric

    def starts_at(cost):
        starts, start, weight = [batch], batch, 0.0
        for k, mass in zip(ks, masses):
            weight += mass
            if k > start and weight * (k - start) / (start + 1) > cost:
                starts.append(k)
                start, weight = k, mass
        return starts

    low, high = 0.0, max(sum(masses), 1e-300) * (top - batch + 1) / (batch + 1)
    best = starts_at(high)
    for _ in range(60):  # bisection on the per-group cost: the most groups within MAX_GROUPS
        middle = (low + high) / 2
        starts = starts_at(middle)
        if len(starts) <= MAX_GROUPS:
            best, high = starts, middle
        else:
            low = middle
    return best


def branches(q: float, max_batch_size: int, dataset_size: int) -> "list[Branch]":
    """The branch-revealed mixture dominating one truncated Poisson-sampled Gaussian step (module
    docstring), as :class:`Branch` tuples; one branch ``(1, 0, q, 1)`` when no batch can be cut.

    Args:
        q: the sampling rate, in ``(0, 1]``.
        max_batch_size: the batch limit ``B``, at least 1.
        dataset_size: ``n``, at least 1 (the record and ``n - 1`` others).

    Returns:
        Branches whose weights lie within their errors of ``P(K < B)`` (sensitivity 1, rate ``q``)
        and ``P(K in group)`` (sensitivity 2, rate ``q B / (start + 1)`` rounded up).
    """
    m = dataset_size - 1
    if max_batch_size > m:  # at most m + 1 <= B records: never cut
        return [Branch(1.0, 0.0, q, 1)]
    from flint import ctx  # loaded when a truncated step is accounted, not by `import dpproofs`

    old = ctx.prec
    ctx.prec = WEIGHT_PRECISION
    try:
        starts = _group_starts(max_batch_size, m, q)
        ends = starts[1:] + [m + 1]
        below = _cdf(max_batch_size - 1, m, q)
        # a weight is dropped only when its enclosure's upper end is exactly 0; one below float's
        # range is kept as weight 0 with error 5e-324 (its mass still enters the bound)
        out = [Branch(*_float_ball(below), q, 1)] if below.upper() > 0 else []
        previous = below
        for start, end in zip(starts, ends):
            upto = _cdf(end - 1, m, q)
            weight = upto - previous
            previous = upto
            if not weight.upper() > 0:
                continue
            # a product and a quotient: two roundings, covered by 4 ulps relative and one float up
            rate = min(q, math.nextafter(q * max_batch_size / (start + 1) * (1 + 2.0**-50), 1.0))
            out.append(Branch(*_float_ball(weight), rate, 2))
        return out
    finally:
        ctx.prec = old
