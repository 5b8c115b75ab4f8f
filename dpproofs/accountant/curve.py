"""The privacy curve of a composition, from its privacy profile: the f-DP trade-off (an upper bound
on the power of any test at a given type-I error) and a Gaussian-DP ``mu`` bracket. Written once,
against a function ``epsilon -> delta`` (an accountant's own upper bound, and for the bracket's
lower end its lower bound), so that every accountant gets them
(:meth:`dpproofs.accountant.base.PrivacyAccountant.tpr_at_fpr` and ``gdp_mu_bounds``).

Mathematics (Dong, Roth & Su 2022, JRSS-B, arXiv 1905.02383v3):

* the duality between f-DP and the privacy profile (their Prop. 2.12, the primal-dual view): a
  mechanism that is ``(eps, delta(eps))``-DP for every ``eps >= 0`` is ``f``-DP with
  ``f = sup_eps f_{eps, delta(eps)}``, ``f_{eps, delta}(a) = max(0, 1 - delta - e^eps a,
  e^-eps (1 - delta - a))``. Directly: a test with type-I error ``a`` and power ``p`` has, by
  ``(eps, delta)``-DP applied to its rejection event in both directions, ``p <= e^eps a + delta``
  and ``1 - a <= e^eps (1 - p) + delta``; so
  ``p <= min(1, delta + e^eps a, 1 - e^-eps (1 - delta - a))`` at every ``eps``;
* mu-GDP (their Def. 2.6) holds iff ``(eps, delta_mu(eps))``-DP for every ``eps >= 0`` with
  ``delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)`` (their Cor. 2.13), the
  Gaussian profile at noise ``1/mu`` (:func:`dpproofs.math.fast.delta_gaussian_bounds`).

Two facts about any privacy profile are used for rigour between finitely many ``eps``: it is
non-increasing in ``eps``, and it is convex in ``t = e^eps`` (a supremum over events ``S`` of
``P(S) - t Q(S)``, affine in ``t``; the maximum of two directions keeps both properties).
"""

import math

import numpy as np
from scipy import special

from dpproofs.math import fast, roots

__all__ = ["tpr_upper", "tpr_bounds", "gdp_mu_bounds", "SCAN_START", "SCAN_DOUBLINGS", "GOLDEN_STEPS", "GDP_CELLS_PER_MU",
           "GDP_REFINEMENTS"]

#: The first positive epsilon of the scan, and how many doublings it may take (up to 2048).
SCAN_START = 1.0 / 32
SCAN_DOUBLINGS = 16
#: Golden-section steps that refine the best scanned epsilon (the bracket shrinks to 0.618**n of
#: two scan steps; the envelope's error is quadratic in it).
GOLDEN_STEPS = 20
#: Most further deltas the lower end of :func:`tpr_bounds` may ask for, and its relative target.
BOUNDS_CALLS = 40
BOUNDS_TARGET = 1e-2
#: The GDP grid's first epsilon step is mu / GDP_CELLS_PER_MU (mu as guessed from delta(0)); then
#: the cells that bind (fail at the lower end * (1 + GDP_REFINE_TARGET)) are halved, at most
#: GDP_REFINEMENTS times (the upper end's slack, (h/mu)^2/4 on a binding cell, falls 4x each time).
GDP_CELLS_PER_MU = 4
GDP_REFINEMENTS = 2
GDP_REFINE_TARGET = 1e-4
#: Most epsilon points of the GDP grid (beyond, the step doubles).
GDP_MAX_POINTS = 160
#: Relative float margin of the GDP upper end's comparisons (values are below 1, inputs enclosed).
_MARGIN = 1e-9
_U = 2.0**-52


def _power_bound(epsilon, delta, fpr, side):
    """``min(1, delta + e^eps a)`` (side +1) or ``min(1, 1 - e^-eps (1 - delta - a))`` (side -1),
    rounded up (``exp`` and three operations: under 4 ulp relative; 1e-15 covers them)."""
    if side > 0:
        if fpr == 0.0:
            value = delta
        else:
            log_term = epsilon + math.log(fpr)
            value = math.inf if log_term > 709.0 else delta + math.exp(log_term)
        return min(1.0, value * (1 + 1e-15))
    rest = 1.0 - delta - fpr
    if not rest > 0:
        return 1.0
    return min(1.0, 1.0 - math.exp(-epsilon) * rest * (1 - 1e-15) + 2 * _U)


def tpr_upper(delta_at, fpr):
    """An upper bound on the power of any test at type-I error ``fpr`` between the composition's
    neighbouring distributions (either order): the infimum over ``eps`` of the module docstring's
    bound, taken over a finite set of ``eps`` (any set gives an upper bound; an upper bound on
    ``delta(eps)`` gives an upper bound too, since the bound increases with ``delta``).

    The set: the signed variable ``s`` (``s >= 0``: the first term at ``eps = s``; ``s < 0``: the
    second at ``eps = -s``; one ``delta(|s|)`` serves both) is scanned at 0 and ``+-SCAN_START 2^k``
    until no larger ``|s|`` can improve (the terms are at least ``e^eps a`` and ``1 - e^-eps (1 - a)``,
    both increasing), then refined by ``GOLDEN_STEPS`` golden-section steps around the best scanned
    point. With the exact profile the bound is a convex function of ``e^s`` for a symmetric pair
    (the Gaussian), so the refinement converges to the exact trade-off: measured within 1e-9
    absolute of ``Phi(Phi^-1(a) + mu)`` (tests/test_privacy_curve.py).

    Args:
        delta_at: ``eps -> an upper bound on delta(eps)`` (a float in [0, 1]).
        fpr: the type-I error, a float in [0, 1] (validated by the caller).

    Returns:
        A float in ``[fpr, 1]``.
    """
    if fpr >= 1.0:
        return 1.0
    memo = {}

    def delta(epsilon):
        if epsilon not in memo:
            memo[epsilon] = min(max(float(delta_at(epsilon)), 0.0), 1.0)
        return memo[epsilon]

    def bound(s):
        return _power_bound(abs(s), delta(abs(s)), fpr, 1 if s >= 0 else -1)

    points = {0.0: bound(0.0)}
    best = points[0.0]
    epsilon = SCAN_START
    log_fpr = math.log(fpr) if fpr > 0 else -math.inf
    for _ in range(SCAN_DOUBLINGS):
        points[epsilon], points[-epsilon] = bound(epsilon), bound(-epsilon)
        best = min(best, points[epsilon], points[-epsilon])
        floor = min(math.exp(min(epsilon + log_fpr, 0.0)), -math.expm1(-epsilon) + math.exp(-epsilon) * fpr)
        if floor >= best or delta(epsilon) == 0.0:
            break  # no larger |s| can give less (module docstring)
        epsilon *= 2
    ordered = sorted(points)
    where = min(range(len(ordered)), key=lambda i: (points[ordered[i]], abs(ordered[i])))
    low, high = ordered[max(where - 1, 0)], ordered[min(where + 1, len(ordered) - 1)]
    # golden-section search of the bracket (low, high) around the best scanned point
    refined, _, _, _ = roots.golden_section(bound, low, high, steps=GOLDEN_STEPS)
    return max(min(best, refined), fpr)


def _cell_floor(left, right_low, fpr):
    """A lower bound of ``min(1, A(eps), B(eps))`` (module docstring) over ``eps`` in ``[left, right]``
    from a lower bound ``right_low`` on ``delta*(right)``: ``delta*`` is non-increasing, so on the cell
    ``delta* >= right_low``, ``e^eps >= e^left`` and ``e^-eps <= e^-left`` (rounded down)."""
    first = right_low + (math.exp(min(left + math.log(fpr), 709.0)) if fpr > 0 else 0.0)
    rest = max(0.0, 1.0 - right_low - fpr)
    second = 1.0 - math.exp(-left) * rest
    return max(0.0, min(1.0, first, second) * (1 - 1e-15) - 2 * _U)


def tpr_bounds(delta_bounds_at, fpr):
    """``(lower, upper)`` around ``V(fpr) = inf over eps >= 0 of min(1, A(eps), B(eps))`` with the
    EXACT profile ``delta*`` (module docstring): the power bound the composition's exact privacy
    profile gives. For a symmetric pair (Gaussian, Laplace, randomized response) ``V`` is the
    largest power of a test at type-I error ``fpr``; for a sampled mechanism, whose two orders
    differ, the largest power may be below ``V`` (the profile is the maximum over both orders).

    Upper end: :func:`tpr_upper` with the upper deltas. Lower end: an infimum over ALL ``eps`` needs
    a lower bound on every cell between the evaluated points, not a value at the best one: on
    ``[e_i, e_{i+1}]`` the terms are at least :func:`_cell_floor` (the lower delta at the right end,
    monotonicity), and beyond the last point ``e_n`` at least ``min(e^e_n fpr, 1 - e^-e_n (1 - fpr))``
    (``delta* >= 0``), ``e_n`` extended until that is above the upper end (or 2048). The cell with the
    lowest floor is halved (``BOUNDS_CALLS`` more deltas at most) until the bracket's relative width
    is ``BOUNDS_TARGET``. A lower delta of 0 (the RDP accountant) gives the lower end ``fpr``.

    Args:
        delta_bounds_at: ``eps -> (lower, upper)`` on ``delta*(eps)``.
        fpr: the type-I error in [0, 1] (validated by the caller).

    Returns:
        ``(lower, upper)``, ``fpr <= lower <= upper <= 1``.
    """
    if fpr >= 1.0:
        return 1.0, 1.0
    memo = {}

    def ask(epsilon):
        if epsilon not in memo:
            low, up = delta_bounds_at(epsilon)
            memo[epsilon] = (min(max(float(low), 0.0), 1.0), min(max(float(up), 0.0), 1.0))
        return memo[epsilon]

    upper = tpr_upper(lambda epsilon: ask(epsilon)[1], fpr)
    last = max(memo)
    log_fpr = math.log(fpr) if fpr > 0 else -math.inf

    def tail(epsilon):
        return min(math.exp(min(epsilon + log_fpr, 0.0)), -math.expm1(-epsilon) + math.exp(-epsilon) * fpr)

    while tail(last) < upper and last < SCAN_START * 2**SCAN_DOUBLINGS:
        last *= 2
        upper = min(upper, _power_bound(last, ask(last)[1], fpr, 1), _power_bound(last, ask(last)[1], fpr, -1))
    lower = fpr
    for _ in range(BOUNDS_CALLS + 1):
        points = sorted(memo)
        floors = [_cell_floor(points[i], memo[points[i + 1]][0], fpr) for i in range(len(points) - 1)]
        lower = max(fpr, min(floors + [tail(points[-1]) * (1 - 1e-15)]))
        if upper - lower <= BOUNDS_TARGET * upper or not floors:
            break
        worst = min(range(len(floors)), key=floors.__getitem__)
        if floors[worst] > tail(points[-1]):
            break  # the tail (all eps beyond the last point) is the lowest: halving cells cannot help
        middle = (points[worst] + points[worst + 1]) / 2
        if not points[worst] < middle < points[worst + 1]:
            break
        up = ask(middle)[1]
        upper = min(upper, _power_bound(middle, up, fpr, 1), _power_bound(middle, up, fpr, -1))
    return min(lower, upper), upper


# --- Gaussian DP ------------------------------------------------------------------------------


def _profile(grid, mu):
    """Enclosures of ``delta_mu`` on ``grid`` and of the magnitude of its slope in ``t = e^eps``,
    ``Phi(-eps/mu - mu/2)`` (from ``log_ndtr``, within ``2e-15 max(1, |log|)`` absolute), times
    ``t_{i+1} - t_i`` on each cell (the slope scaled to the cell's width, in log space)."""
    low, up = fast.delta_gaussian_bounds(grid, 1.0 / mu)
    log_slope = special.log_ndtr(-grid / mu - mu / 2)
    slack = np.where(np.isfinite(log_slope), 2e-15 * np.maximum(1.0, np.abs(log_slope)) + 4 * _U, 0.0)
    return low, up, log_slope - slack, log_slope + slack


def _passes(grid, up, mu, min_delta):
    """Whether ``delta*(eps) <= max(delta_mu(eps), min_delta)`` is proved for every ``eps`` in
    ``[0, grid[-1]]`` from ``up``: :func:`_cells_pass` on every cell."""
    return bool(np.all(_cells_pass(grid, up, mu, min_delta)))


def _cells_pass(grid, up, mu, min_delta):
    """Per cell ``[grid[i], grid[i+1]]``: whether the inequality is proved on it from ``up`` (upper bounds on ``delta*`` at ``grid``). On a cell
    ``[t_i, t_{i+1}]`` (``t = e^eps``), ``delta*`` lies below the chord of ``up`` (convexity) and below
    ``up_i`` (monotonicity); ``delta_mu`` lies above its two end tangents (convexity). A cell passes
    if ``up_i <= min_delta``, or if the chord is below the larger tangent at both ends and where the
    tangents cross (the larger tangent minus the chord is piecewise linear with one kink: its minimum
    on the cell is at an end or at the kink)."""
    d_low, _, log_slope_low, log_slope_up = _profile(grid, mu)
    h = np.diff(grid)
    log_width = grid[:-1] + np.log(np.expm1(h))  # log(t_{i+1} - t_i)
    with np.errstate(over="ignore", invalid="ignore"):
        a = np.exp(log_slope_up[:-1] + log_width)  # left tangent's fall over the cell (upper bound)
        b = np.exp(log_slope_low[1:] + log_width)  # right tangent's rise back over the cell (lower bound)
    a = np.where(np.isnan(a), np.inf, a)  # 0 * inf (slope below float range, cell beyond it): no bound
    b = np.where(np.isnan(b) | np.isinf(b), 0.0, b)
    shrink = 1 - _MARGIN
    up_i, up_j = up[:-1], up[1:]
    left_ok = up_i <= d_low[:-1] * shrink
    right_ok = up_j <= np.maximum(d_low[1:] * shrink, min_delta)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        rise = d_low[:-1] - d_low[1:] - b  # L_i - L_j at u = 0; the tangents cross inside iff 0 < rise < a - b
        u = np.where(np.isfinite(a), rise / (a - b), 0.0)
        inside = (a > b) & (rise > 0) & (u < 1)
        u = np.where(inside, np.clip(u, 0.0, 1.0), 0.0)
        tangent = d_low[1:] + b * (1 - u)  # both tangents' value where they cross (L_j there)
        chord = up_i + (up_j - up_i) * u
        kink_ok = ~inside | (chord <= tangent * shrink - 4 * _U * (np.abs(up_i) + np.abs(up_j)))
    return (up_i <= min_delta) | (left_ok & right_ok & kink_ok)


def _largest_mu_below(grid, lows):
    """For each grid point, the largest ``mu`` with ``delta_mu(eps) <= lows`` proved (the upper
    enclosure below it), by 80 bisection steps on ``log mu`` in ``[1e-12, 1e6]``; 0 where ``lows``
    is 0."""
    lo = np.full(grid.shape, math.log(1e-12))
    hi = np.full(grid.shape, math.log(1e6))
    for _ in range(80):
        mid = (lo + hi) / 2
        fine = fast.delta_gaussian_bounds(grid, np.exp(-mid))[1] <= lows
        lo, hi = np.where(fine, mid, lo), np.where(fine, hi, mid)
    found = np.exp(lo)
    fine = fast.delta_gaussian_bounds(grid, 1.0 / found)[1] <= lows if len(grid) else np.zeros(0, dtype=bool)
    return np.where(fine & (lows > 0), found, 0.0)


def gdp_mu_bounds(delta_bounds_at, min_delta):
    """``(lower, upper)`` around the smallest ``mu`` such that the composition's privacy profile
    satisfies ``delta*(eps) <= max(delta_mu(eps), min_delta)`` for every ``eps >= 0`` (mu-GDP "down
    to ``min_delta``": Dong, Roth & Su's Cor. 2.13 on the profile above ``min_delta``; a composition
    of Gaussians has ``delta* = delta_mu`` exactly, at ``mu = sqrt(T)/sigma``).

    The grid: ``eps_i = i h`` (``h = mu0 / GDP_CELLS_PER_MU``, ``mu0`` the mu whose
    ``delta_mu(0)`` is the composition's ``delta(0)``), up to the first ``eps`` whose upper
    ``delta`` is at most ``min_delta`` (beyond it ``delta* <= min_delta`` by monotonicity), the step
    doubling after every ``GDP_MAX_POINTS / 4`` points past ``GDP_MAX_POINTS``; then the cells that
    bind are halved ``GDP_REFINEMENTS`` times (a Gaussian composition binds everywhere; a sampled
    one on a few cells).

    Upper end: the smallest ``mu`` (bisection on ``log mu``) for which :func:`_passes` proves the
    inequality on the whole of ``[0, eps_n]`` from the upper deltas: a proof, not a check at
    the grid points (between them, convexity and monotonicity of both curves). ``inf`` when no ``mu
    <= 1e6`` passes (e.g. ``delta(0) = 1``).
    Lower end: any mu-GDP composition has ``delta_mu(eps_i) >= delta*(eps_i) >= lower delta`` where
    that is above ``min_delta``, so ``mu`` is at least the largest ``mu`` solving it at any grid point
    (0 for an accountant whose lower delta is 0, such as the RDP one).

    Args:
        delta_bounds_at: ``eps -> (lower, upper)`` on ``delta*(eps)``.
        min_delta: the floor, in ``(0, 1)`` (validated by the caller).

    Returns:
        ``(lower, upper, "gdp")``; ``(0, 0, "exact")`` when the upper ``delta(0)`` is at most
        ``min_delta`` already (the caller makes it a :class:`~dpproofs.accountant.base.Bounds`).
    """
    first = delta_bounds_at(0.0)
    if first[1] <= min_delta:
        return 0.0, 0.0, "exact"
    mu0 = 2 * float(special.ndtri((1 + min(first[1], 1 - 1e-16)) / 2))
    h = max(mu0, 1e-9) / GDP_CELLS_PER_MU
    grid, lows, ups = [0.0], [float(first[0])], [float(first[1])]
    while ups[-1] > min_delta and grid[-1] < 1e5:
        if len(grid) >= GDP_MAX_POINTS and len(grid) % (GDP_MAX_POINTS // 4) == 0:
            h *= 2
        grid.append(grid[-1] + h)
        low, up = delta_bounds_at(grid[-1])
        lows.append(float(low))
        ups.append(float(up))
    grid, lows, ups = np.array(grid), np.array(lows), np.array(ups)
    if ups[-1] > min_delta or not _passes(grid, ups, 1e6, min_delta):
        keep = lows > min_delta
        return float(np.max(_largest_mu_below(grid[keep], lows[keep]), initial=0.0)), math.inf, "gdp"
    upper = _smallest_passing_mu(grid, ups, mu0, min_delta)
    for _ in range(GDP_REFINEMENTS):
        keep = lows > min_delta
        lower = float(np.max(_largest_mu_below(grid[keep], lows[keep]), initial=0.0))
        # the cells that keep the upper end from the lower one (all of them when the lower end is 0)
        binding = ~_cells_pass(grid, ups, max(lower, 1e-12) * (1 + GDP_REFINE_TARGET), min_delta)
        if not binding.any() or upper <= lower * (1 + GDP_REFINE_TARGET):
            break
        middles = (grid[:-1][binding] + grid[1:][binding]) / 2
        found = [delta_bounds_at(float(e)) for e in middles]
        grid = np.concatenate([grid, middles])
        lows = np.concatenate([lows, [float(b[0]) for b in found]])
        ups = np.concatenate([ups, [float(b[1]) for b in found]])
        order = np.argsort(grid, kind="stable")
        grid, lows, ups = grid[order], lows[order], ups[order]
        upper = min(upper, _smallest_passing_mu(grid, ups, upper, min_delta))
    keep = lows > min_delta
    lower = float(np.max(_largest_mu_below(grid[keep], lows[keep]), initial=0.0))
    return min(lower, upper), upper, "gdp"


def _smallest_passing_mu(grid, ups, start, min_delta):
    """The smallest ``mu`` (to 2^-60 in ``log mu``, bisection) that :func:`_passes`; the grid passes
    at ``mu = 1e6``. Returns a ``mu`` that passes."""
    lo, hi = math.log(1e-12), math.log(min(max(start, 1e-12), 1e6))
    while not _passes(grid, ups, math.exp(hi), min_delta):
        lo, hi = hi, min(hi + math.log(2), math.log(1e6))
    for _ in range(60):
        mid = (lo + hi) / 2
        if _passes(grid, ups, math.exp(mid), min_delta):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)
