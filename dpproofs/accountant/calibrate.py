"""``calibrate_sigma``: the smallest noise multiplier for a target (epsilon, delta), by either accountant.

The one public calibration (``dpproofs.calibrate_sigma``). ``accountant="rdp"`` (default): a
one-sided bisection on :class:`dpproofs.Accountant` (to 1e-6 relative; :func:`_rdp_sigma`).
``accountant="pld"``: a search on the certified upper end of :class:`dpproofs.PLDAccountant`
(to ``tolerance`` relative; the returned sigma's certified upper epsilon is at most the target;
:func:`_pld_sigma`). This module sits above both accountants, so neither imports the other's
calibration.
"""

import math
from collections.abc import Callable, Sequence

import numpy as np

from dpproofs import _validate
from dpproofs.accountant import rdp as _rdp
from dpproofs.errors import InvalidArgument, InvalidArgumentType
from dpproofs.math import fast
from dpproofs.math import total_variation
from dpproofs.math import reductions as subsampling
from dpproofs.math.reductions import RELATIONS, SAMPLINGS
from dpproofs.math.roots import illinois
from dpproofs.mechanisms import FixedBatchGaussian, SampledGaussian
from dpproofs.mechanisms_allocation import RandomAllocationGaussian

#: Samplings ``calibrate_sigma`` accepts: the per-step reductions', and balls-in-bins (one
#: :class:`~dpproofs.RandomAllocationGaussian` per epoch; ``q`` is ``1/t`` for ``t`` steps per epoch).
CALIBRATION_SAMPLINGS = SAMPLINGS + ("balls-in-bins",)

__all__ = ["ACCOUNTANTS", "calibrate_sigma"]

#: The accountants ``calibrate_sigma`` can calibrate with.
ACCOUNTANTS = ("rdp", "pld")


def calibrate_sigma(
    *,
    epsilon: float,
    delta: float,
    q: float,
    steps: int,
    conversion: str = "improved",
    orders: Sequence[float] | None = None,
    accountant: str = "rdp",
    relation: str = "add_remove",
    sampling: str = "poisson",
    relative_width: float | None = None,
    tolerance: float | None = None,
    progress: Callable[[str], None] | None = None,
) -> float:
    """Smallest sigma (noise std / clipping norm C, whatever the relation) for which ``steps``
    sampled Gaussian steps at rate ``q`` are (epsilon, delta)-DP by ``accountant`` ("rdp" or
    "pld"); never too small.

    ``sampling``: "poisson" (each record independently with probability ``q``), "fixed"
    (batches of b of n records drawn uniformly without replacement, independently each step;
    ``q`` is read as ``b/n``; NOT shuffled-epoch batches, which no analysis covers) or
    "balls-in-bins" (each record in exactly one of the ``t`` steps of every epoch, ``q = 1/t``
    exactly; ``steps`` training steps are ``ceil(steps / t)`` epochs of
    :class:`~dpproofs.RandomAllocationGaussian`, a partial epoch counted whole; "add_remove" only).
    ``relation``: "add_remove" or "replace_one" (replacing a record moves the clipped sum by up to
    2C; the library accounts for it). "fixed" needs "replace_one". ``conversion`` and ``orders``
    apply to "rdp" only; ``relative_width`` (the PLD accountant's, default 1e-3) and
    ``tolerance`` (relative, default 1e-3) to "pld" only. ``progress``: None or a callable taking
    one line of text, called after every PLD evaluation (the RDP search is fast and silent).
    Raises InvalidArgument naming the argument for bad input, an unsupported combination or an
    unreachable target, and for "pld" a rate ``q`` so small that every sigma meets the target
    (``1 - (1 - q)^steps <= delta``: epsilon is 0 at every sigma, none is the smallest).

    "rdp": the returned sigma always satisfies ``Accountant(orders).compose(step(sigma),
    steps).epsilon(delta, conversion) <= epsilon`` and is at most ``1 + 1e-6`` times the smallest
    sigma that does. "pld": ``PLDAccountant(relative_width=...).compose(step(sigma),
    steps).epsilon(delta) <= epsilon``, within ``tolerance`` of the smallest such sigma.
    """
    accountant = _validate.choice("accountant", accountant, ACCOUNTANTS)
    relation = _validate.choice("relation", relation, RELATIONS)
    sampling = _validate.choice("sampling", sampling, CALIBRATION_SAMPLINGS)
    if progress is not None and not callable(progress):
        raise InvalidArgumentType(f"progress={progress!r} must be None or a callable")
    if accountant == "pld":
        if sampling == "balls-in-bins":
            refused = RandomAllocationGaussian(_steps_per_epoch(_validate.real("q", q, 0, 1, low_open=True)),
                                               1.0).refusal("pld", relation)
            if refused is not None:
                raise refused
        if orders is not None or conversion != "improved":
            raise InvalidArgument("conversion= and orders= apply to accountant='rdp' only")
        return _pld_sigma(epsilon=epsilon, delta=delta, q=q, steps=steps, relation=relation, sampling=sampling,
                          relative_width=relative_width, tolerance=1e-3 if tolerance is None else tolerance,
                          progress=progress)
    if relative_width is not None or tolerance is not None:
        raise InvalidArgument("relative_width= and tolerance= apply to accountant='pld' only")
    return _rdp_sigma(epsilon=epsilon, delta=delta, q=q, steps=steps, conversion=conversion, orders=orders,
                      relation=relation, sampling=sampling)


# --- the RDP search ------------------------------------------------------------------------------


def _steps_per_epoch(q):
    """``t`` with ``q = 1/t`` (balls-in-bins: one step in ``t`` uses the record); InvalidArgument
    naming ``q`` when no integer ``t`` gives exactly this float."""
    per_epoch = round(1 / q)
    if per_epoch < 1 or 1 / per_epoch != q:
        raise InvalidArgument(
            f"q={q!r} must be 1/t for an integer number t of steps per epoch with sampling='balls-in-bins' "
            f"(e.g. q=1/{max(per_epoch, 1)}); dpproofs.training.steps_and_rate gives it"
        )
    return per_epoch


def _rdp_sigma(*, epsilon, delta, q, steps, conversion="improved", orders=None, relation="add_remove",
               sampling="poisson"):
    """Smallest noise multiplier sigma (to 1e-6 relative) for which ``steps`` sampled-Gaussian steps
    at rate ``q`` are (epsilon, delta)-DP according to :class:`Accountant` with ``orders``.

    ``sampling="poisson"`` (default): ``SampledGaussian(q, sigma)``; ``sampling="fixed"``:
    ``FixedBatchGaussian(b, n, sigma)`` with ``q`` read as ``gamma = b/n`` (rounded up one ulp
    unless it is 1, so a float ``q = b/n`` never undercounts). ``relation``: as in
    :class:`Accountant` (``"fixed"`` needs ``"replace_one"``). sigma is noise std / clipping norm
    under either relation.

    One-sided: the returned sigma always satisfies
    ``Accountant(orders).compose(SampledGaussian(q, sigma), steps).epsilon(delta, conversion)
    <= epsilon`` and is at most ``1 + 1e-6`` times the smallest sigma that does. Method: bisection
    in ``log sigma`` on ``_rdp.SIGMA_RANGE = [0.1, 1e4]``, returning the upper end; an order whose
    epsilon bound exceeds the target at an admissible sigma can never become optimal (every
    order's bound decreases in sigma), so it is dropped from later evaluations. Raises
    InvalidArgument if no sigma in that range reaches the target, or if every sigma >= 0.1 does.
    """
    epsilon = _validate.real("epsilon", epsilon, 0, low_open=True)
    delta = _rdp._check_delta(delta)
    q = _validate.real("q", q, 0, 1, low_open=True)
    steps = _rdp._check_steps(steps, 1)
    conversion = _rdp._check_conversion(conversion)
    relation = _rdp._check_relation(relation)
    sampling = _validate.choice("sampling", sampling, CALIBRATION_SAMPLINGS)
    grid = _rdp._check_orders(orders, False)
    low_limit, high_limit = _rdp.SIGMA_RANGE
    count = steps  # applications of the curve below
    if sampling == "balls-in-bins":
        per_epoch = _steps_per_epoch(q)
        refusal = RandomAllocationGaussian(per_epoch, 1.0).refusal("rdp", relation)
        if refusal is not None:
            raise refusal
        count = -(-steps // per_epoch)  # a partial epoch releases a subset of a whole one's outputs

        def curve(orders_, sigma):  # one epoch (RandomAllocationGaussian.rdp_curve)
            return RandomAllocationGaussian(per_epoch, sigma).rdp_curve(orders_, relation)
    elif sampling == "fixed":
        if relation == "add_remove":
            raise InvalidArgument(
                "sampling='fixed' with relation='add_remove' is not supported: adding or removing a record "
                "changes the dataset that a fixed-size batch is drawn from, and no analysis of that is "
                "implemented; allowed: relation='replace_one', or sampling='poisson'"
            )
        gamma = q if q == 1.0 else math.nextafter(q, math.inf)

        def curve(orders_, sigma):  # the FixedBatchGaussian curve of _fast_rdp_replace_one
            return subsampling.wor_replace_one_rdp(orders_, gamma, sigma)
    elif relation == "replace_one":

        def curve(orders_, sigma):  # the SampledGaussian curve of _fast_rdp_replace_one
            return subsampling.poisson_replace_one_rdp(
                orders_, q, sigma, fast.rdp_sampled_gaussian, max_order=_rdp.REFINE_MAX_ORDER
            )
    else:

        def curve(orders_, sigma):
            return fast.rdp_sampled_gaussian(orders_, q, sigma)

    def bounds(sigma, active):
        rdp = curve(grid[active], sigma)
        rdp_up = _rdp._inflate(float(count) * rdp, 1)
        return _rdp._epsilon_terms(rdp_up, grid[active], delta, conversion)

    if sampling == "balls-in-bins":
        def one_step_tv(sigma):
            return RandomAllocationGaussian(per_epoch, sigma).total_variation(relation)
    elif sampling == "fixed":
        def one_step_tv(sigma):  # FixedBatchGaussian.total_variation at rate gamma
            return total_variation.subsampled(gamma, total_variation.gaussian(2.0, sigma))
    else:
        def one_step_tv(sigma):
            return SampledGaussian(q, sigma).total_variation(relation)

    def below_total_variation(sigma):
        """Whether the accountant answers epsilon = 0 by its total variation bound
        (:meth:`Accountant.total_variation_bound`: the smaller of the composed one-step bounds and
        the Rényi one at the smallest composed RDP over the grid), which decreases in sigma."""
        if total_variation.composed([(one_step_tv(sigma), count)]) <= delta:
            return True
        smallest = _rdp._inflate(float(count) * curve(grid[:1], sigma), 1)[0]
        if total_variation.from_renyi(smallest * (1 - 1e-9)) > delta:  # no order can do better (RDP grows)
            return False
        return total_variation.from_renyi(float(np.min(_rdp._inflate(float(count) * curve(grid, sigma), 1)))) <= delta

    def admissible(sigma, active):
        """(is eps(sigma) <= target, orders that still can be optimal)."""
        if below_total_variation(sigma):
            return True, active
        values = bounds(sigma, active)
        passing = np.nextafter(values, np.inf) <= epsilon  # as Accountant.epsilon rounds up
        return bool(np.any(passing)), active[passing]

    # an order whose conversion term alone exceeds the target can never pass (RDP >= 0)
    conversion_only = _rdp._epsilon_terms(np.zeros_like(grid), grid, delta, conversion)
    active = np.flatnonzero(conversion_only <= epsilon)
    if len(active) == 0:
        raise InvalidArgument(
            f"epsilon={epsilon!r} is below what delta={delta!r} allows at any of the orders, even "
            f"with no privacy loss per step; allowed: epsilon >= {float(np.min(conversion_only)):.6g}"
        )
    # first guess: Gaussian approximation eps(alpha) ~ steps q^2 alpha / sigma^2 (Abadi et al.
    # 2016 Lemma 3), minimised over alpha: eps = 2 x sqrt(L) + x^2 with x = q sqrt(steps) / sigma,
    # i.e. x = sqrt(L + eps) - sqrt(L), written without the cancellation (x > 0 for every eps > 0)
    log_inverse_delta = -math.log(delta)
    x = epsilon / (math.sqrt(log_inverse_delta + epsilon) + math.sqrt(log_inverse_delta))
    guess = min(max(q * math.sqrt(steps) / x, low_limit), high_limit) if x > 0 else high_limit
    low, high = None, None
    sigma = guess
    while True:  # bracket by factors of 2 inside _rdp.SIGMA_RANGE
        ok, kept = admissible(sigma, active)
        if ok:
            high, active = math.log(sigma), kept
            if low is not None:
                break
            if sigma <= low_limit:
                raise InvalidArgument(
                    f"epsilon={epsilon!r} is already met at sigma={low_limit:g}, the smallest sigma "
                    f"the accountant supports (q={q!r}, steps={steps!r}, delta={delta!r}); "
                    f"allowed: a smaller epsilon"
                )
            sigma = max(sigma / 2, low_limit)
        else:
            low = math.log(sigma)
            if high is not None:
                break
            if sigma >= high_limit:
                raise InvalidArgument(
                    f"epsilon={epsilon!r} is not reachable with sigma <= {high_limit:g} "
                    f"(q={q!r}, steps={steps!r}, delta={delta!r}, relation={relation!r}, "
                    f"sampling={sampling!r}); allowed: a larger epsilon"
                )
            sigma = min(sigma * 2, high_limit)
    while high - low > 1e-7:  # bisection in log sigma; an order failing at an admissible sigma is dropped
        middle = (low + high) / 2
        ok, kept = admissible(math.exp(middle), active)
        if ok:
            high, active = middle, kept
        else:
            low = middle
    # Accountant(grid) gives the same per-order values (each order is computed independently of
    # the others), and its minimum over all orders is at most that over the active ones.
    return math.exp(high)


# --- the PLD search ------------------------------------------------------------------------------


def _pld_sigma(*, epsilon, delta, q, steps, relative_width=None, tolerance=1e-3, relation="add_remove",
               sampling="poisson", progress=None):
    """Smallest noise multiplier sigma (to relative ``tolerance``) such that ``steps`` applications of
    the sampled Gaussian at rate ``q`` have a certified upper epsilon <= ``epsilon`` at ``delta``
    (never overshoots: the returned sigma's certified upper epsilon, by
    ``_pld.PLDAccountant(relative_width=relative_width)``, is <= the target).

    ``sampling``: "poisson" (``SampledGaussian(q, sigma)``), "fixed" (batches that are the
    fraction ``q = b/n`` of the dataset, drawn without replacement: ``FixedBatchGaussian``; needs
    ``relation="replace_one"``) or "balls-in-bins" (``ceil(steps / t)`` epochs of
    ``RandomAllocationGaussian(t, sigma)``, ``t = 1/q``). ``relation``: as for :class:`_pld.PLDAccountant`. ``progress``: None or
    a callable taking one line of text, called after every accountant evaluation.

    How: only the UPPER end decides (the answer is certified by it), so the search runs on the
    upper end at one fixed grid step (one pass each, a valid upper bound at any step), by regula
    falsi on log epsilon against log sigma (smooth and monotone), aiming ``1e-4`` below the
    target; the result is then checked (and raised by ``tolerance`` steps if needed) with the
    accountant a user calls."""
    import time

    from dpproofs.accountant.pld import accountant as _pld

    relative_width = _pld.DEFAULT_RELATIVE_WIDTH if relative_width is None else relative_width
    relative_width = _validate.real("relative_width", relative_width, 1e-6, 0.5)  # PLDAccountant's range
    epsilon = _validate.real("epsilon", epsilon, 0, low_open=True)
    delta = _validate.real("delta", delta, 0, 1, low_open=True, high_open=True)
    q = _validate.real("q", q, 0, 1, low_open=True)
    steps = _rdp._check_steps(steps, 1)
    tolerance = _validate.real("tolerance", tolerance, 1e-9, 0.5)
    relation = _validate.choice("relation", relation, _pld.RELATIONS)
    sampling = _validate.choice("sampling", sampling, ("poisson", "fixed", "balls-in-bins"))
    if progress is not None and not callable(progress):
        raise InvalidArgumentType(f"progress={progress!r} must be None or a callable")
    rate = q
    count = steps  # compositions of ``step(sigma)``
    if sampling == "balls-in-bins":
        per_epoch = _steps_per_epoch(q)
        count = -(-steps // per_epoch)  # epochs, a partial one counted whole (as the RDP search)

        def step(sigma):
            return RandomAllocationGaussian(per_epoch, sigma)
    elif sampling == "fixed":
        # a float q = b/n may be rounded down: take the next float up (only b/n enters the analysis)
        rate = q if q == 1 else math.nextafter(q, 1.0)
        batch, dataset = rate.as_integer_ratio()

        def step(sigma):
            return FixedBatchGaussian(batch_size=batch, dataset_size=dataset, sigma=sigma)
    else:
        def step(sigma):
            return SampledGaussian(q, sigma)

    refused = step(1.0).refusal("pld", relation)
    if refused is not None:
        raise refused
    # every step uses a given record with probability at most q (b/n: ``rate``), whatever sigma: its total
    # variation is at most q, the composition's at most 1 - (1 - q)^steps (dpproofs.math.total_variation).
    # Where that is <= delta, epsilon(delta) = 0 at every sigma > 0 (the PLD accountant answers 0
    # exactly once its own bound, q erf(1/(2 sqrt 2 sigma)) per step, is below delta): no sigma is
    # the smallest, and the search would only stop at its floor
    # (balls-in-bins uses every record once an epoch: no such shortcut)
    bound = 1.0 if sampling == "balls-in-bins" else total_variation.composed([(rate, steps)])
    if bound <= delta:
        smallest = -math.expm1(math.log1p(-delta) / steps)
        raise InvalidArgument(
            f"q={q!r} is outside the range calibrate_sigma(accountant='pld') can answer for steps={steps!r} and "
            f"delta={delta!r}: {steps} steps at rate q use a record with probability at most "
            f"1 - (1 - q)^steps = {bound:.3g} <= delta, so epsilon(delta) = 0 at every sigma > 0 and no sigma is "
            f"the smallest; allowed: q > {smallest:.6g}"
        )
    started = time.perf_counter()
    evaluations = [0]

    def report(text):
        evaluations[0] += 1
        if progress is not None:
            progress(f"pld calibration: {text} ({evaluations[0]} evaluations, {time.perf_counter() - started:.1f} s)")

    try:  # the RDP sigma is at least the tight one (RDP over-estimates epsilon): a first bracket
        if sampling == "balls-in-bins":
            # the epochs' Gaussian(sigma) RDP (each epoch is below it: RandomAllocationGaussian.rdp_dominating)
            # instead of the allocation's own, a quadrature per order and sigma (8 s of a 14 s calibration)
            high = _rdp_sigma(epsilon=epsilon, delta=delta, q=1.0, steps=count, relation=relation)
        else:
            high = _rdp_sigma(epsilon=epsilon, delta=delta, q=q, steps=steps, relation=relation, sampling=sampling)
    except InvalidArgument:
        high = 1.0

    # one grid step for the whole search, from the composed loss at the RDP sigma: the composed
    # standard deviation / 1700 (the upper end converges like h^2 and is then within ~1e-4 of its
    # limit), with the one-step PLD kept below 2^15 cells (small T: long loss ranges)
    probe = _pld.PLDAccountant(relation=relation).compose(step(high), count)
    active = probe._active()
    if not active:
        return _smallest_certified(high, _bounds_factory(step, count, delta, relation), epsilon, relative_width,
                                   tolerance)
    tail_z = _pld._tail_z(_pld.TAIL_SHARE * delta / count)
    first = probe._initial_step(active, _pld.CALIBRATION_CELLS_PER_SD)
    grid = max(first, first * probe._cells(active, first, tail_z) / 2**15)
    aim = epsilon * (1 - 1e-4)
    seen = {}

    def upper(sigma):
        if sigma not in seen:
            # one pass at the fixed grid step, upper end only (the lower end is not needed here)
            accountant = _pld.PLDAccountant(grid_step=grid, relation=relation).compose(step(sigma), count)
            found = accountant._epsilon_search(delta, upper_only=True)
            if accountant._over_budget:
                # the grid (from the composed loss at the RDP sigma, which can be far narrower than at
                # this sigma) is over its budget here: the accountant's own first pass instead, on a
                # grid from this sigma's composed loss (the smaller upper end of the two; both are
                # valid). At (0.0981, 1.2e-10, 1.27e-5, 351810) a window one cell over the budget gave
                # 0.355 where the grid's value is 0.0607, and the search settled at that false
                # crossing; at (0.0786, 5.3e-4, 3.0e-4, 5) under replace-one every sigma below 0.93
                # read the RDP bound (1.1 at 0.8, where the PLD gives 2.9e-4). (The user's full
                # accountant there instead: the same sigmas, 70 s and 26 s against 44 s and 13 s.)
                own = _pld.PLDAccountant(relation=relation).compose(step(sigma), count)._epsilon_search(
                    delta, upper_only=True)
                found = own if own.upper < found.upper else found
            seen[sigma] = found.upper
            report(f"sigma = {sigma:.6g}: epsilon <= {found.upper:.6g}")
        return seen[sigma]

    while not upper(high) <= aim:
        high *= 1.5
        if high > 1e6:
            raise InvalidArgument(
                f"epsilon={epsilon!r} is not reachable with sigma <= 1e6 for q={q!r}, steps={steps!r}, delta={delta!r}"
            )
    # a first point below: a step of 1.5 |log(upper / aim)| in log sigma, past the crossing for every
    # elasticity |d log epsilon / d log sigma| >= 2/3 (1 for the Gaussian regime, up to 2 at small sigma;
    # a smaller one only makes the loop step again), at least a few tolerances (the old fixed 0.75
    # steps cost two to four evaluations more before the regula falsi)
    low = high
    while True:
        value = upper(high)
        gap = math.log(value) - math.log(aim) if value > 0 else -50.0
        low = high * math.exp(-max(-1.5 * gap, 4 * max(tolerance, COARSE_TOLERANCE)))
        if low < 1e-3:
            low = 1e-3
            if upper(low) <= aim:
                high = low
                low = None
            break
        if not upper(low) <= aim:
            break
        high = low
    if low is not None:
        # regula falsi (Illinois) on g = log upper - log aim against x = log sigma; the bracket
        # [low, high] always has g(low) > 0 >= g(high)
        def g(sigma):
            value = upper(sigma)
            return _log_excess(value, aim)

        _, x_hi = illinois(lambda x: g(math.exp(x)), math.log(low), math.log(high), g(low), g(high),
                           converged=lambda lo, hi: hi - lo <= max(tolerance, COARSE_TOLERANCE) / 4, clamp=0.05)
        high = math.exp(x_hi)
        if not upper(high) <= aim:  # exp(log(sigma)) may round: keep the evaluated point
            high = max(s for s, v in seen.items() if v <= aim)
    bounds = _bounds_factory(step, count, delta, relation, report)
    return _smallest_certified(high, bounds, epsilon, relative_width, tolerance)


def _log_excess(value, target):
    """``log value - log target``, the searches' function of log sigma (> 0: not certified); an
    upper end of 0 meets every target (-50), an infinite or nan one none (+50). It was +50 for 0
    too: at (epsilon, delta, q, T) = (0.0786, 5.3e-4, 3.0e-4, 5) under replace-one, where epsilon
    is 0 from sigma ~1.57 on, the search climbed to sigma = 2.178, the RDP one."""
    if value <= 0:
        return -50.0
    if not value < math.inf:
        return 50.0
    return math.log(value) - math.log(target)


def _bounds_factory(step, steps, delta, relation, report=None):
    from dpproofs.accountant.pld import accountant as _pld

    seen = {}

    def bounds(sigma, width):
        if (sigma, width) not in seen:
            accountant = _pld.PLDAccountant(relative_width=width, relation=relation).compose(step(sigma), steps)
            # the user's check: accountant.epsilon(delta), the upper end of epsilon_bounds
            seen[sigma, width] = accountant.epsilon_bounds(delta)
            if report is not None:
                report(f"check sigma = {sigma:.6g}: epsilon <= {seen[sigma, width].upper:.6g}")
        return seen[sigma, width]
    return bounds


#: The coarse search (one fixed grid step, upper end only) stops at this relative bracket (a quarter of
#: it) at the finest: its grid is itself about 1e-4 from the user's accountant, whose own search
#: (:func:`_smallest_certified`) takes the rest of a smaller tolerance.
COARSE_TOLERANCE = 1e-4
#: Most evaluations of the user's accountant spent looking for the smallest certified sigma below a
#: certified one (each is a full ``epsilon_bounds``).
MAX_DOWNWARD_EVALUATIONS = 40
#: The largest factor one step of :func:`_smallest_certified` takes sigma down before it has a point
#: above the target (the secant step assumes an elasticity of 1; a steeper epsilon overshoots it).
FIRST_STEP_DOWN = 4.0


def _smallest_certified(sigma, bounds, epsilon, relative_width, tolerance):
    """A sigma whose ``_pld.PLDAccountant(relative_width)`` upper end is at most ``epsilon``, with an
    evaluated sigma at most ``tolerance`` (relative) below it whose upper end is above ``epsilon``:
    the smallest certified sigma to ``tolerance``, as far as evaluations can show (the upper end
    moves with the accountant's grid, so it is not exactly monotone in sigma; between the two
    evaluated points it is not known). Starts from the certified :func:`_certified_above` of
    ``sigma`` and searches below it on ``g = log upper - log epsilon`` against ``x = log sigma``
    (near linear there): a secant step to the crossing, aimed a quarter tolerance on the certified
    side, then the point one tolerance below the certified end. Each evaluation is a full
    ``epsilon_bounds``, at most :data:`MAX_DOWNWARD_EVALUATIONS` of them."""
    sigma = _certified_above(sigma, bounds, epsilon, relative_width, tolerance)

    def g(x):  # > 0: not certified
        upper = bounds(math.exp(x), relative_width).upper
        return _log_excess(upper, epsilon)

    width = -math.log1p(-tolerance)  # the tolerance in x = log sigma
    high = math.log(sigma)
    g_high = g(high)  # already evaluated by _certified_above
    low = g_low = None
    for _ in range(MAX_DOWNWARD_EVALUATIONS):
        if low is not None and high - low <= width:
            break
        if low is None:
            # the slack over an elasticity |d log epsilon / d log sigma| of 1 (the Gaussian's epsilon
            # falls like 1/sigma; a steeper one makes the step overshoot, as the bracket needs)
            # (at most a factor FIRST_STEP_DOWN per step: an upper end of 0 has g = -50; and down to
            # sigma = 1e-3 at the least, where it stopped: at (0.0786, 5.3e-4, 3.0e-4, 5) under
            # replace-one the step from 0.93, epsilon 8.4e-5, went below it and the search ended there,
            # 3x above the crossing, 0.307)
            if high <= math.log(1e-3):
                break
            x = max(high - max(width, -1.5 * g_high), high - math.log(FIRST_STEP_DOWN), math.log(1e-3))
        elif g_low - g_high > 0:
            root = high - (high - low) * (-g_high) / (g_low - g_high)
            x = min(max(root + width / 4, low + 0.05 * (high - low)), high - 0.05 * (high - low))
            if high - x < width:  # the crossing is within the tolerance: show it at the tolerance
                x = high - width
        else:
            x = (low + high) / 2
        g_x = g(x)
        if g_x > 0:
            low, g_low = x, g_x
        else:
            high, g_high = x, g_x
            if low is None:
                continue
            x = high - width  # the point one tolerance below the new certified end
            if x > low:
                g_x = g(x)
                if g_x > 0:
                    low, g_low = x, g_x
                else:
                    high, g_high = x, g_x
    return math.exp(high)


def _certified_above(sigma, bounds, epsilon, relative_width, tolerance):
    """``sigma``, raised until ``_pld.PLDAccountant(relative_width)``'s own upper end (the one a user
    checks) is at most ``epsilon``: by ``tolerance``, then steps doubling (the coarse search's grid is
    about 1e-4 from the user's accountant: at ``tolerance = 1e-6``, single steps took up to ~50
    evaluations; :func:`_smallest_certified` then comes back down to the tolerance)."""
    start, step = sigma, tolerance
    for _ in range(64):
        if bounds(sigma, relative_width).upper <= epsilon:
            return sigma
        sigma *= 1 + step
        step *= 2
    raise InvalidArgument(f"epsilon={epsilon!r}: no sigma certified within 64 doubling steps above {start!r}")
