"""One epoch of random allocation (balls-in-bins, 1 of ``t`` steps) as certified discrete PLDs.

Used by :class:`dpproofs.PLDAccountant` through :class:`dpproofs.math.pairs.AllocationPair` (this
module registers :func:`resolve` as its resolver); the mathematics is in docs/math.md, "Random
allocation in the PLD accountant".

The pair (Feldman & Shenfeld, arXiv 2502.08202v4, Section 2; Chua et al., arXiv 2412.16802, the same
pair for balls-and-bins): ``P = (1/t) sum_i N(e_i, s^2 I_t)`` against ``Q = N(0, s^2 I_t)``. Its
likelihood ratio is ``S = dP/dQ = (1/t) sum_i Y_i`` with ``Y_i = exp(sqrt(a) Z_i - a/2)``, ``a = 1/s^2``,
``Z_i`` independent standard normals under Q (a lognormal of mean 1). Hence, for one epoch,

    delta_add(eps) = E_Q[(S - e^eps)_+],      delta_remove(eps) = E_Q[(1 - e^eps S)_+],

and for a composition the same expectations over the product of the epochs' (and other
mechanisms') ratios. Both are CONVEX and monotone in every epoch's ``S`` (non-decreasing for add,
non-increasing for remove), and ``S`` is linear in the ``Y_i``. So, coordinate by coordinate
(Jensen, with independence):

* UPPER: each ``Y`` replaced by a mean-preserving spread (its mass on the cell ``[jG, (j+1)G)``
  split between the two ends, keeping mass and mean) gives a larger hockey stick in both
  directions, through any composition; second order in the lattice step ``G``;
* LOWER: each ``Y`` replaced by its conditional mean on cells around the lattice points (a
  contraction) gives a smaller one; the conditional means are then moved onto one shifted lattice
  ``{jG + rho}``, DOWN for the add direction and UP for the remove direction (monotonicity).

Outputs with some ``Y_i > M`` (the event A) are set apart: the upper bound sends them to loss
``+inf`` (P-mass at most ``E[Y; Y > M] + (t - 1) P(Y > M)`` for add, ``t P(Y > M)`` for remove),
the lower bound drops them; on the complement of A the law is the product of the restricted
(sub-probability) laws, to which the two replacements apply unchanged.

The law of ``sum_i Y_i`` on the lattice is the t-fold convolution power, computed by
:func:`dpproofs.accountant.pld.compose.compose_fourier` (one FFT, a pointwise power, one inverse
FFT, with its certified round-off and window bounds) under several exponential tilts; each cell
takes the tilt whose error bound there is smallest (each bound is valid, so the smallest is).
The resulting atoms of ``S`` are handed, with their error bounds, to the ordinary discretisation
(:func:`dpproofs.accountant.pld.discretise.discretise`: connect-the-dots upper, own-loss lower)
as a pair with exact atom positions (:class:`LatticePair`).
"""

import functools
import math

import numpy as np
from scipy import special

from dpproofs.accountant.pld import compose as _compose
from dpproofs.accountant.pld.discretise import OneStep
from dpproofs.math.pairs import SUBNORMAL_ERROR, UNIT, AllocationPair, _vec_normal_mass_edges

__all__ = ["LatticePair", "resolve", "forget", "sum_law", "LATTICE_CELLS_PER_SD", "MAX_LATTICE", "TILT_SPREADS"]

#: The lattice step of one ``Y`` is its standard deviation divided by this: the spread adds at most
#: ``G^2 / 4`` to Y's variance (a relative 2.5e-5 here), the contraction removes at most ``G^2/12``;
#: both move epsilon at second order.
LATTICE_CELLS_PER_SD = 30
#: Largest number of lattice cells of one ``Y`` and largest window of the convolution power
#: (beyond them the resolver gives up and the accountant falls back to the RDP bound).
MAX_LATTICE = 1 << 22
#: Largest union of the windows that :meth:`_Accumulator.collect` gathers, in units of the largest
#: window (MAX_LATTICE): 1 until 2026-12-07. At (t, sigma, epochs, delta) = (10^4, 0.6, 10, 1e-9) the
#: bulk's tilted windows fit one by one but not together, were dropped, and the untilted window's
#: round-off (2.8e-8 a cell above loss 2) held the bracket at [2.4948, 2.8059]; with them,
#: [2.49510, 2.49552]. Only for sigma below UNION_SIGMA (a heavy-tailed Y, whose tilted windows carry
#: the tails): at (10^4, 5, 10, 1e-3) the larger union gave the same bracket in 2.3-3.0 s instead of
#: 1.1 s. (Windows of 2^23 cells each instead gave the same bracket at (10^4, 0.6, 10, 1e-9), but took
#: 34 s instead of 3.6 s at (100, 0.6, 1, 1e-9), and 8.4 GB at the allocation grid's peak.)
UNION_FACTOR = 2
UNION_SIGMA = 1.0
#: Tilts of the convolution power, in standard deviations of ``sum_i Y_i`` by which each moves its
#: mean (about ``theta t var(Y)``): several windows, each accurate near its own centre.
#: Largest variance ``a = 1/sigma^2`` of log Y given a lattice (sigma below ~0.14: the lognormal's
#: right tail needs far more than MAX_LATTICE cells at every tail allowance, and e^a overflows past 709).
MAX_LOG_VARIANCE = 50.0
#: Tilts of the one-jump term besides the untilted one (centred at geometrically spaced jump sizes).
JUMP_TILTS = 3
TILT_SPREADS = (-10.0, -5.0, 0.0, 5.0, 10.0, 20.0)
#: Bisection steps of the tilt search (the tilt is a choice: 2^-40 of its bracket is ample).
TILT_BISECTIONS = 40
#: Bins of the coarsened law on which a tilt is searched.
TILT_SEARCH_BINS = 2048


def _log_y_moments(sigma):
    a = 1.0 / (sigma * sigma)
    return a, math.sqrt(a)


def lattice_step(sigma, refinement=1):
    """The lattice step ``G`` of one Y: its standard deviation over :data:`LATTICE_CELLS_PER_SD`
    (times ``refinement``: the accountant's finer lattices, :meth:`AllocationPair.refined`).
    (The interquartile range instead, finer at small sigma where the heavy right tail carries the
    standard deviation, made the lattice over budget at sigma = 0.6 and slower elsewhere: measured.)"""
    a, _ = _log_y_moments(sigma)
    sd = math.sqrt(math.expm1(a))
    return sd / (LATTICE_CELLS_PER_SD * refinement)


def _upper_tails(x, a, r):
    """``(E[Y; Y > e^x], P(Y > e^x))`` for ``log Y ~ N(-a/2, a)``, ``r = sqrt(a)`` (the first from the
    Y-tilted law ``N(a/2, a)``), in float."""
    return float(special.ndtr((a / 2 - x) / r)), float(special.ndtr(-(x + a / 2) / r))


def _jump_cut(t, sigma, budget):
    """``log M`` with ``E[Y; Y > M] + (t - 1) P(Y > M) <= budget`` (bisection on the monotone bound)."""
    a, r = _log_y_moments(sigma)

    def excess(x):
        first, tail = _upper_tails(x, a, r)
        return first + (t - 1) * tail

    high = _least_log_cut(excess, budget, a / 2, a / 2 + r * 40.0 + math.log(t) + 1.0)
    return high, excess(high)


def _least_log_cut(mass, budget, low, high):
    """The smallest ``x`` in ``[low, high]`` (to 1e-9 relative, from above) with ``mass(x) <= budget``,
    ``mass`` non-increasing: bisection."""
    for _ in range(200):
        mid = (low + high) / 2
        if mass(mid) <= budget:
            high = mid
        else:
            low = mid
        if high - low <= 1e-9 * (1 + abs(high)):
            break
    return high


def _y_spread(sigma, step, cells, first=0):
    """The UPPER lattice law of one Y restricted to ``first * step <= Y < cells * step``: masses at
    ``j step`` (``j = first..cells``) and their absolute error bounds (mean-preserving spread of each
    cell)."""
    a, r = _log_y_moments(sigma)
    j = np.arange(first, cells + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        u = np.log(j * step)
    m, em = _vec_normal_mass_edges(u, -a / 2, r)   # Q-mass of [j G, (j+1) G)
    mu, emu = _vec_normal_mass_edges(u, a / 2, r)  # E[Y; cell] (the Y-tilted law)
    jj = j[:-1]
    right = mu / step - jj * m
    left = (jj + 1) * m - mu / step
    # cancellation and roundings: the two products and the quotient (4 ulp of each), the masses'
    # own errors, and the cells' float edges (within 8 ulp of j G: a sliver of the neighbour)
    err = (jj + 1) * em + emu / step + 8 * UNIT * ((jj + 2) * m + mu / step) + SUBNORMAL_ERROR
    right = np.clip(right, 0.0, m)
    left = np.clip(left, 0.0, m)
    w = np.zeros(len(j))
    w[:-1] += left
    w[1:] += right
    e = np.zeros(len(j))
    e[:-1] += err
    e[1:] += err
    return w, e, 0.0


def _y_contraction(sigma, step, cells, direction):
    """The LOWER lattice law of one Y restricted to ``Y < (cells + 1/2) step``: the cells
    ``[(j - 1/2) G, (j + 1/2) G)`` (the first ``[0, G/2)``) replaced by their conditional means, then
    moved onto ``{j G + rho}``: down ("add") or up ("remove"); masses lowered by their error bounds.
    Returns ``(masses, 0, rho)``."""
    a, r = _log_y_moments(sigma)
    j = np.arange(cells + 1, dtype=np.float64)
    lattice = j * step
    edges, rho0 = _best_edges(sigma, step, cells)
    edges = edges.copy()
    lattice = lattice + rho0
    with np.errstate(divide="ignore"):
        u = np.log(edges)
    m, em = _vec_normal_mass_edges(u, -a / 2, r)
    mu, emu = _vec_normal_mass_edges(u, a / 2, r)
    m_low = np.maximum(m - em, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = mu / m
        # the conditional mean's bounds (quotient of two bounded masses, 4 ulp)
        mean_low = (mu - emu) / (m + em) * (1 - 4 * UNIT)
        mean_high = (mu + emu) / np.maximum(m - em, 0.0) * (1 + 4 * UNIT)
    ok = (m_low > 0) & np.isfinite(mean) & (mu - emu > 0)
    # every conditional mean lies in its cell; a shift rho in [-G/2, G/2] that most of the mass's
    # means clear on the right side: the mass-weighted median deviation's bound
    weight = np.where(ok, m_low, 0.0)
    if direction == "add":
        dev = np.where(ok, mean_low - lattice, -np.inf)
    else:
        dev = np.where(ok, mean_high - lattice, np.inf)
    heavy = ok & (weight >= 1e-6 * weight.max()) if weight.max() > 0 else ok
    if not np.any(heavy):
        return np.zeros(cells + 1), 0.0, 0.0
    rho = _best_shift(dev, weight, step, direction)
    if direction == "add":
        # atom to the largest lattice point j' G + rho <= its mean: j or j - 1 (means are >= (j - 1/2) G)
        index = np.where(dev >= rho, j, j - 1)
    else:
        index = np.where(dev <= rho, j, j + 1)
    index = index.astype(np.int64)
    keep = ok & (index >= 0) & (index <= cells)
    w = np.zeros(cells + 1)
    np.add.at(w, index[keep], m_low[keep] * (1 - 4 * UNIT))
    return w, 0.0, rho0 + rho


#: Newton iterations of :func:`_mean_centred_edges` (from centred edges it converges in 3-5; 12
#: before 2026-12-07 gave the same edges to 1.5e-6 of a step at sigma 0.55..50, in twice the time).
EDGE_NEWTON = 6
#: A Newton solve stops when an iteration leaves its largest deviation above this share of the last
#: one (measured at sigma 0.6 and 1: converging solves shrink it by 0.76 or less an iteration; the
#: stalled ones, two thirds of the solves, by 0.9 to 1.0 from the second iteration on).
NEWTON_STALL = 0.9
#: Newton's stopping deviation, in steps (the float conditional means are good to ~1e-12 of a step
#: here, amplified up to 1e4 times past the mode); the targets sit ten times this beyond the lattice points, on each bound's side.
NEWTON_TOLERANCE = 1e-7
#: Edge-correction passes beyond the mode (each inner edge moved by its two cells' mean deviation).
EDGE_PASSES = 2
#: Extra passes over the JUNCTION_CELLS cells after the solved edges.
JUNCTION_PASSES = 40
JUNCTION_CELLS = 400
#: Largest deviation (in steps) of a Newton solve that did not reach NEWTON_TOLERANCE and is kept.
NEWTON_ACCEPT = 1e-4
#: (density drop, accepted Newton deviation in steps) of the edge constructions compared.
EDGE_CANDIDATES = ((1e-3, None), (1e-4, 0.5))
#: Largest number of solves of the root search on the lattice shift (regula falsi, Illinois; it
#: stops at a mismatch of 1e-6 step).
SHIFT_BISECTIONS = 25
#: Mass-weighted deviation (in steps) below which the first edge candidate is kept.
GOOD_EDGES = 1e-6
#: Lattice shifts tried (per choice of cell 0) before the bisection of the solved edges' phase.
SHIFT_SCAN = 5
#: Density (relative to its peak) down to which the edges are solved exactly.
SOLVE_DENSITY_DROP = 0.001


def _partial_moments(y, a, r):
    """``(P(Y < y), E[Y; Y < y], P(Y >= y), E[Y; Y >= y])`` in float (for the Newton solve only: the
    certified masses are recomputed by :func:`_vec_normal_mass_edges`)."""
    with np.errstate(divide="ignore"):
        z = (np.log(y) + a / 2) / r
    return special.ndtr(z), special.ndtr(z - r), special.ndtr(-z), special.ndtr(r - z)


def _forward_edges(a, r, step, count, rho, hair, first, accept=None):
    """Right edges ``x[i]`` of the cells ``j = first + i`` (``first`` 0 when ``rho > 0``, else 1; the
    first cell starts at 0) up to ``j = count``, with conditional means ``j G + rho + hair``: Newton on
    the whole vector (a lower bidiagonal Jacobian, one banded solve an iteration; stable where the
    density increases, as an error in a left edge then needs a smaller move of the right one),
    damped so every target stays inside its cell. ``(first, x)``, or None if it does not converge."""
    from scipy.linalg import solve_banded

    if first == 0 and not rho + hair > 0:
        return None  # cell 0 = [0, x) cannot have its mean at or below 0
    j = np.arange(first, count + 1, dtype=np.float64)
    n = len(j)
    target = j * step + rho + hair
    x = target + step / 2
    last = math.inf
    for _ in range(EDGE_NEWTON):
        left = np.concatenate(([0.0], x[:-1]))
        f0l, f1l, _, _ = _partial_moments(left, a, r)
        f0r, f1r, _, _ = _partial_moments(x, a, r)
        m, mu = f0r - f0l, f1r - f1l
        if not np.all(m > 1e-250):
            return None
        mean = mu / m
        dev = mean - target
        worst = float(np.max(np.abs(dev)))
        if worst <= NEWTON_TOLERANCE * step:
            return first, x
        if worst > NEWTON_STALL * last:
            break  # stalled (the damping holds a target at its cell's edge): judged as it stands
        last = worst
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            diag = _density(x, a, r) * (x - mean) / m
            sub = _density(left, a, r) * (mean - left) / m
        if not (np.all(np.isfinite(diag)) and np.all(diag > 0) and np.all(np.isfinite(sub))):
            return None
        ab = np.zeros((2, n))
        ab[0] = diag
        ab[1, :-1] = sub[1:]
        delta = solve_banded((1, 0), ab, -dev)
        for _ in range(40):
            trial = x + delta
            lefts = np.concatenate(([0.0], trial[:-1]))
            if np.all(trial > target) and np.all(lefts < target):
                break
            delta = delta / 2
        else:
            return None
        x = trial
    # not converged to the tolerance: accepted when close (the certified placement moves what is off)
    left = np.concatenate(([0.0], x[:-1]))
    f0l, f1l, _, _ = _partial_moments(left, a, r)
    f0r, f1r, _, _ = _partial_moments(x, a, r)
    m, mu = f0r - f0l, f1r - f1l
    accept = NEWTON_ACCEPT if accept is None else accept
    if np.all(m > 1e-250) and float(np.max(np.abs(mu / m - target))) <= accept * step:
        return first, x
    return None


def _density(y, a, r):
    """The density of ``Y = exp(sqrt(a) Z - a/2)`` at ``y`` (0 at ``y <= 0``)."""
    safe = np.where(y > 0, y, 1.0)
    z = (np.log(safe) + a / 2) / r
    return np.where(y > 0, np.exp(-0.5 * z * z) / (math.sqrt(2 * math.pi) * r * safe), 0.0)


def _mean_centred_edges(a, r, step, cells, hair, drop=None, accept=None):
    """``(edges, rho)``: edges ``e_0 = 0 <= e_1 <= ... <= e_{cells+1}`` of the cells ``j`` (``[e_j,
    e_{j+1})``) with conditional means ``j G + rho`` (+ ``hair``): solved exactly over the cells where
    the density of Y increases (below its mode ``e^{-3a/2}``, and a little beyond it; cell 0 empty when
    ``rho <= 0``) by :func:`_forward_edges`, the lattice shift ``rho`` bisected so that the solved
    edges end centred, then correction passes (each inner edge moved by its two cells' mean
    deviation: second-order deviations where the density is smooth and decreasing). Any edges give
    a valid lower bound; these make the lattice moves of :func:`_y_contraction` small (centred edges
    alone left conditional means up to 1e-1 of a step off near ``Y = 0``)."""
    # solved up to where the density has fallen to SOLVE_DENSITY_DROP of its peak (beyond the mode
    # the forward solve amplifies errors by the density's fall, here at most 1/SOLVE_DENSITY_DROP)
    drop = SOLVE_DENSITY_DROP if drop is None else drop
    reach = math.exp(-1.5 * a + math.sqrt(2 * a * -math.log(drop)))
    count = int(min(cells, max(1, math.ceil(reach / step))))

    def mismatch(rho, count, first):
        found = _forward_edges(a, r, step, count, rho, hair, first, accept)
        if found is None:
            return None
        first, x = found
        return first, x, float(x[-1] - ((count + 0.5) * step + rho))

    best_rho, best = 0.0, None
    # the reach shrinks until the solve converges (at small sigma the density decreases from about
    # Y = 0 and an exact solve far beyond its mode is infeasible); cell 0 empty or not; the shift is
    # scanned on a few points and bisected wherever the mismatch changes sign between two of them
    while count >= 1 and best is None:
        for first in (1, 0):
            if best is not None and abs(best[2]) <= 1e-6 * step:
                break  # the phase is already solved: the other choice of cell 0 cannot do better
            rhos = np.linspace(-step / 2 if first == 1 else 1e-3 * step, step / 2, SHIFT_SCAN)
            scan = [(float(rho), mismatch(float(rho), count, first)) for rho in rhos]
            if first == 1 and all(found is None for _, found in scan):
                break  # no solve converges at this reach (at sigma = 1, t = 100: 10 of 37 solves): shrink it
            for rho, found in scan:
                if found is not None and (best is None or abs(found[2]) < abs(best[2])):
                    best_rho, best = rho, found
            for (low, found_low), (high, found_high) in zip(scan[:-1], scan[1:]):
                if found_low is None or found_high is None or found_low[2] * found_high[2] >= 0:
                    continue
                # regula falsi, Illinois variant (the mismatch is smooth in the shift: about 6
                # solves where bisection took about 20), at most SHIFT_BISECTIONS solves
                f_low, f_high, side = found_low[2], found_high[2], 0
                for _ in range(SHIFT_BISECTIONS):
                    mid = (low * f_high - high * f_low) / (f_high - f_low)
                    if not low < mid < high:
                        mid = (low + high) / 2
                    found = mismatch(mid, count, first)
                    if found is None:
                        break
                    if abs(found[2]) < abs(best[2]):
                        best_rho, best = mid, found
                    if abs(found[2]) <= 1e-6 * step:
                        break
                    if (found[2] < 0) == (f_low < 0):
                        low, f_low = mid, found[2]
                        f_high = f_high / 2 if side == -1 else f_high
                        side = -1
                    else:
                        high, f_high = mid, found[2]
                        f_low = f_low / 2 if side == 1 else f_low
                        side = 1
        if best is None:
            count //= 2
    edges = np.concatenate(([0.0], (np.arange(cells + 1, dtype=np.float64) + 0.5) * step + best_rho))
    frozen = 0  # edges[0 .. frozen] solved
    if best is not None:
        first, x, _ = best
        edges[first + 1:first + 1 + len(x)] = x
        if first == 1:
            edges[1] = 0.0  # cell 0 empty
        frozen = first + len(x)
    lattice = np.arange(cells + 1, dtype=np.float64) * step + best_rho
    # passes: many near the junction with the solved edges (its phase mismatch diffuses slowly), two
    # over every cell
    near = min(cells + 1, frozen + JUNCTION_CELLS)
    for passes, stop in ((JUNCTION_PASSES, near), (EDGE_PASSES, cells + 1)):
        for _ in range(passes):
            _correction_pass(edges, lattice, a, r, step, frozen, stop)
    return edges, best_rho


@functools.lru_cache(maxsize=16)
def _best_edges(sigma, step, cells):
    """The contraction's cell edges and lattice shift for one Y law (both directions share them; the
    placement moves what is off, each to its own side): of the candidate constructions (measured:
    neither is best at every sigma), the one whose conditional means lie closest to the lattice, in
    mass."""
    a, r = _log_y_moments(sigma)
    best = None
    for drop, accept in EDGE_CANDIDATES:
        edges, rho0 = _mean_centred_edges(a, r, step, cells, 0.0, drop, accept)
        score = _edge_score(edges, rho0, a, r, step)
        if best is None or score < best[0]:
            best = (score, edges, rho0)
        if best[0] <= GOOD_EDGES * step:
            break  # the lattice moves are already negligible: the next candidate is not tried
    return best[1], best[2]


def _float_cell_moments(edges, a, r):
    """``(P(cell), E[Y; cell])`` of the cells ``[edges[i], edges[i+1])`` in float, each as a difference
    of the two lower or the two upper tails (upper above Y's median ``e^{-a/2}``, so no tail's
    complement cancels). For choosing edges only: the certified masses are recomputed by
    :func:`_vec_normal_mass_edges` (in :func:`_y_contraction`)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        f0, f1, s0, s1 = _partial_moments(edges, a, r)
        upper_half = edges[:-1] > math.exp(-a / 2)
        m = np.where(upper_half, s0[:-1] - s0[1:], f0[1:] - f0[:-1])
        mu = np.where(upper_half, s1[:-1] - s1[1:], f1[1:] - f1[:-1])
    return m, mu


def _edge_score(edges, rho, a, r, step):
    """Mass-weighted mean |conditional mean - lattice point| of the cells (float; a choice only)."""
    m, mu = _float_cell_moments(edges, a, r)
    with np.errstate(divide="ignore", invalid="ignore"):
        lattice = np.arange(len(m), dtype=np.float64) * step + rho
        dev = np.where(m > 0, np.abs(mu / m - lattice), 0.0)
    return float(np.sum(np.nan_to_num(m * dev)))


def _correction_pass(edges, lattice, a, r, step, frozen, stop):
    """One pass over the cells below ``stop``: each free inner edge (index above ``frozen``) moves by
    the mean deviation (conditional mean - lattice point) of its two cells; in place."""
    window = edges[:stop + 1]
    # float moments: a third of the certified ones' time (about 40 of the 77 ms of the edges at
    # sigma = 1, t = 100 were these passes), and any edges are valid
    m, mu = _float_cell_moments(window, a, r)
    with np.errstate(divide="ignore", invalid="ignore"):
        dev = np.where(m > 0, mu / m - lattice[:stop], 0.0)
    dev = np.clip(np.nan_to_num(dev), -step / 2, step / 2)
    inner = window[1:-1] - (dev[:-1] + dev[1:]) / 2
    inner = np.clip(inner, lattice[:stop - 1], lattice[1:stop])
    window[frozen + 1:-1] = inner[frozen:]
    np.maximum.accumulate(window, out=window)
    if stop + 1 < len(edges) and edges[stop] > edges[stop + 1]:
        np.maximum.accumulate(edges, out=edges)  # (the window's last edge is never moved: not reached)


def _best_shift(dev, weight, step, direction):
    """The shift rho minimising the expected move ``E|mean - target|`` when every conditional mean
    goes to the lattice point ``j G + rho`` on its side (add: the largest one below it, a whole
    step further when its deviation is below rho; remove: the mirror), over the deviations."""
    good = np.isfinite(dev) & (weight > 0)
    d, w = dev[good], weight[good]
    if d.size == 0:
        return 0.0
    if direction != "add":
        d = -d
    d = np.clip(d, -step / 2, step / 2)
    order = np.argsort(d)
    d, w = d[order], w[order]
    below = np.concatenate(([0.0], np.cumsum(w)[:-1]))  # weight with deviation below candidate
    cost = -d * w.sum() + step * below  # sum w (dev - rho) + step * weight(dev < rho), less constants
    rho = float(d[int(np.argmin(cost))])
    return rho if direction == "add" else -rho


class SumLaw:
    """The lattice law of ``S = (1/t) sum_i Y_i`` on ``A^c``: atom ``k`` at
    ``s_k = (first + k step) / t`` with Q-mass ``q_k``, error ``e_k``; ``below``/``above``: bounds on
    the Q-mass below/above the atoms, ``above_p`` on the P-mass above (``E_Q[S; S > s_max]``);
    ``jump_p``/``jump_q``: the event A's P- and Q-mass bounds."""

    def __init__(self, s, q, e, below, above, above_p, jump_p, jump_q):
        self.s, self.q, self.e = s, q, e
        self.l2 = []  # per term (coefficients, piece ids): errors bounded in L2 per piece (see collect)
        self.below, self.above, self.above_p = below, above, above_p
        self.jump_p, self.jump_q = jump_p, jump_q


#: Chernoff parameters of the windows of allocation's compositions, in units of one over the largest
#: lattice position: a lognormal cut at B has its t-fold sum's tail carried by a few values near B,
#: where the best parameter is about log(1 / (t P(Y ~ B))) / B, far below the composed spread's 1/sd
#: (at (t, sigma) = (100, 0.6), B = 1.2e4: the untilted window took 2^23 cells, over budget, without them).
LATTICE_CHERNOFF = tuple(np.geomspace(1.0, 400.0, 12))


def _chernoff(items):
    """Window Chernoff parameters for a composition of lattice laws (see LATTICE_CHERNOFF)."""
    top = max(float(one.losses()[-1]) for one, _ in items)
    return np.asarray(LATTICE_CHERNOFF) / top if top > 0 else None


def _compose_lattice(items, theta, max_cells, log_factor=0.0):
    """:func:`~dpproofs.accountant.pld.compose.compose_fourier` (raw) of lattice laws; when its window
    is over budget, again with the lattice-scale Chernoff parameters (:func:`_chernoff`), which only
    a heavy-tailed law needs (they add 24 moment evaluations to every window: at (t, sigma, delta) =
    (100, 1, 1e-6) a cold call took 0.34 s with them always on, 0.30 s without; medians of 5)."""
    composed = _compose.compose_fourier(items, theta, max_cells=max_cells, log_factor=log_factor, raw=True)
    if composed is None:
        composed = _compose.compose_fourier(items, theta, max_cells=max_cells, log_factor=log_factor, raw=True,
                                            chernoff=_chernoff(items))
    return composed


def _coarsened(pos, w):
    """The law ``(pos, w)`` on at most TILT_SEARCH_BINS bins (each at its mass's centre)."""
    width = -(-len(w) // TILT_SEARCH_BINS)
    pad = (-len(w)) % width
    wb = np.concatenate((w, np.zeros(pad))).reshape(-1, width)
    pb = np.concatenate((pos, np.full(pad, pos[-1]))).reshape(-1, width)
    mass = wb.sum(axis=1)
    with np.errstate(invalid="ignore"):
        centre = np.where(mass > 0, (wb * pb).sum(axis=1) / np.where(mass > 0, mass, 1), pb[:, 0])
    return centre, mass


def _tilt_for(one, count, target):
    """The tilt ``theta`` whose tilted ``count``-fold sum has mean ``target`` (bisection on the
    monotone tilted mean of the lattice law ``one``), clamped to the attainable range."""
    pos = one.losses()
    w = one.masses
    if len(w) > TILT_SEARCH_BINS:  # the tilt is a choice (any is valid): searched on a coarsened law
        coarse_pos, coarse_w = _coarsened(pos, w)
        if target < float(np.sum(coarse_w * coarse_pos)) / float(np.sum(coarse_w)) * count:
            # below the mean (a negative tilt, which weighs the bottom of the law): the law's first
            # TILT_SEARCH_BINS cells kept fine, the rest coarsened. At sigma = 0.6 the first of 2048
            # bins held 99.6 % of the bulk, centred at Y = 0.84: tilts aiming below it were refused
            # and those aiming just above it came out far too strong (aimed at 0.806 t, centred at
            # 0.605 t, t = 10^4); the bottom of the sum, at 1e-19 of mass, then carried the untilted
            # window's round-off, 6e-13 a cell
            tail_pos, tail_w = _coarsened(pos[TILT_SEARCH_BINS:], w[TILT_SEARCH_BINS:])
            coarse_pos = np.concatenate((pos[:TILT_SEARCH_BINS], tail_pos))
            coarse_w = np.concatenate((w[:TILT_SEARCH_BINS], tail_w))
        pos, w = coarse_pos, coarse_w

    def mean(theta):
        x = w * np.exp(np.minimum(theta * (pos - pos[-1 if theta >= 0 else 0]), 700.0))
        return count * float(np.sum(x * pos) / np.sum(x))

    if target <= pos[0] * count or target >= pos[-1] * count:
        return None
    low, high = -1.0, 1.0
    while mean(low) > target and low > -1e6:
        low *= 4
    while mean(high) < target and high < 1e6:
        high *= 4
    if not mean(low) <= target <= mean(high):
        return None
    for _ in range(TILT_BISECTIONS):
        mid = (low + high) / 2
        if mean(mid) < target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _lower_envelope(pieces, grid):
    """Runs ``(k, first, last)``, in order, covering ``grid`` (increasing): on the cells
    ``[first, last)`` piece ``k``'s line ``log(error + wrapped) + log_scale - theta l`` is the lowest
    (the first among equals). The lowest of lines changes only where two cross: between crossings one
    evaluation decides a whole run, and the cells next to a crossing are decided one by one."""
    with np.errstate(divide="ignore"):
        consts = np.array([math.log(c.error + c.wrapped) + c.log_scale for c in pieces])
    slopes = np.array([c.theta for c in pieces])
    finite = np.isfinite(consts)
    crossings = [(consts[i] - consts[j]) / (slopes[i] - slopes[j])
                 for i in range(len(pieces)) for j in range(i + 1, len(pieces))
                 if slopes[i] != slopes[j] and finite[i] and finite[j]]
    cuts = np.searchsorted(grid, np.unique([x for x in crossings if grid[0] < x < grid[-1]]))
    bounds = np.unique(np.concatenate(([0], cuts, [len(grid)])))

    def lowest(at):
        return int(np.argmin(consts - slopes * at))

    chosen = np.empty(len(grid), dtype=np.int64)
    for r0, r1 in zip(bounds[:-1], bounds[1:]):
        chosen[r0:r1] = lowest(grid[(r0 + r1 - 1) // 2])
    for b in cuts:
        for cell in (b - 1, b):
            if 0 <= cell < len(grid):
                chosen[cell] = lowest(grid[cell])
    change = np.flatnonzero(np.diff(chosen)) + 1
    starts = np.concatenate(([0], change))
    stops = np.concatenate((change, [len(grid)]))
    return [(int(chosen[r0]), int(r0), int(r1)) for r0, r1 in zip(starts, stops)]


class _Accumulator:
    """Cells ``lo + k step`` with, per cell, the value and error of the term computed with the
    smallest error bound (several tilts of one term), summed over terms."""

    def __init__(self):
        self.terms = []

    def term(self, pieces, top):
        """One term's tilts; ``top``: the largest position its support reaches."""
        self.terms.append((pieces, top))

    def collect(self, step, max_cells):
        while True:
            pieces = [c for term, _ in self.terms for c in term]
            lo = min(c.first_loss for c in pieces)
            hi = max(c.first_loss + (len(c.zhat) - 1) * c.step for c in pieces)
            n = int(round((hi - lo) / step)) + 1
            if n <= max_cells:
                break
            # the windows' union is over budget: the widest TILTED window of a term goes (each
            # tilt's values are valid alone, and the untilted one, which bounds the mass beyond
            # the grid on both sides, stays; the strongly tilted bulk of a heavy-tailed Y has
            # windows of millions of cells at sigma 0.6, t = 10^4)
            widest = max(((len(c.zhat), i, k) for i, (term, _) in enumerate(self.terms)
                          for k, c in enumerate(term) if c.theta != 0), default=None)
            if widest is None:
                return None
            _, i, k = widest
            term, top = self.terms[i]
            self.terms[i] = (term[:k] + term[k + 1:], top)
        grid = lo + step * np.arange(n)
        value, error = np.zeros(n), np.zeros(n)
        l2 = []  # per term: (coefficient, piece id) of the cells whose error is the window's L2 one
        piece_id = 0
        for term, _ in self.terms:
            # each cell takes the piece (tilt) whose error bound there is smallest, the first among
            # equals. The bound's logarithm is log(error + wrapped) + K - theta l (+ a slack of 1e-13
            # relative, left out of the choice: any choice is valid): lines in l, so the choices are
            # runs of cells cut at the lines' crossings (it was a comparison of every piece at every
            # cell: 9 x 131 072 cells at t = 100)
            term_value = np.zeros(n)
            term_piece = np.full(n, -1, dtype=np.int64)
            term_l2 = np.zeros(n)
            term_lin = np.zeros(n)
            for k, first, last in _lower_envelope(term, grid):
                c = term[k]
                start = int(round((c.first_loss - lo) / step))
                stop = start + len(c.zhat)
                g = grid[first:last]
                log_factor = c.log_scale - c.theta * g
                # the float evaluation of e^{K - theta l}: 8 ulp of the exponent's magnitude
                slack = 8 * UNIT * (abs(c.log_scale) + np.abs(c.theta * g) + 1)
                with np.errstate(over="ignore", under="ignore"):
                    factor = np.exp(np.minimum(log_factor + slack, 700.0))
                    scale = np.exp(np.minimum(log_factor, 700.0))
                # true = z e^{K - theta l}; in the window |zhat - z| <= error (+ wrapped mass, which
                # only adds); outside it the tilted mass is at most ``wrapped``, so true <= wrapped e^{..}
                i0, i1 = max(first, start), min(last, stop)  # the run's cells inside the window
                if i0 < i1:
                    inside = slice(i0 - first, i1 - first)
                    cells = slice(i0, i1)
                    term_value[cells] = np.maximum(c.zhat[i0 - start:i1 - start], 0.0) * scale[inside]
                    # the error's two parts: |zhat - z| <= error bounds the window's EUCLIDEAN norm
                    # (compose_fourier), so over any set of its cells the errors sum to at most error
                    # times the norm of the factors (Cauchy-Schwarz): kept per piece for the cells'
                    # sums (LatticePair.cell_masses); the wrapped and outside masses are plain (L1)
                    term_piece[cells] = piece_id + k
                    term_l2[cells] = c.error * factor[inside]
                    # the value z e^{K - theta l} itself: the exponent's rounding and exp's own ulps
                    term_lin[cells] = c.wrapped * factor[inside] + term_value[cells] * (
                        np.expm1(slack[inside]) + 4 * UNIT)
                for o0, o1 in ((first, min(last, start)), (max(first, stop), last)):  # outside
                    if o0 < o1:
                        # the exact tilted mass outside the window is at most ``wrapped`` (a Chernoff
                        # bound of the exact law, compose_fourier): no round-off there. (It was
                        # (error + wrapped): at (t, sigma) = (10^4, 0.6), where the bulk's tilted windows
                        # are over budget, 3.4e-12 a cell beyond the untilted one, 7.4e-5 of P-mass in all)
                        term_lin[o0:o1] = c.wrapped * factor[o0 - first:o1 - first]
            piece_id += len(term)
            value += term_value
            error += term_lin
            l2.append((term_l2, term_piece))
        # mass beyond [lo, hi]: per term, the tightest Chernoff bound of its tilts (true <= wrapped
        # e^{K - theta l}, for l < lo if theta <= 0, for l > hi if theta >= 0); P-weighted above.
        # In log space: with the exponent capped at 700, as until 2026-12-07, a strongly tilted
        # piece's product could come out below the true bound and be the minimum
        below = above = above_x = 0.0
        for term, top in self.terms:
            b = min((c.wrapped_times_exp(c.log_scale - c.theta * lo) for c in term if c.theta <= 0),
                    default=math.inf)
            a = min((c.wrapped_times_exp(c.log_scale - c.theta * hi) for c in term if c.theta >= 0),
                    default=math.inf)
            ax = a * max(top, 0.0)  # positions are at most the support's top
            for c in term:
                if c.theta > 0:  # x e^{-theta x} is largest at 1/theta
                    peak = hi if hi * c.theta >= 1 else 1 / c.theta
                    ax = min(ax, peak * c.wrapped_times_exp(c.log_scale - c.theta * peak))
            below, above, above_x = below + b, above + a, above_x + ax
        return grid, value, error, l2, below, above, above_x


def _moments(one):
    """(mean, standard deviation) of a lattice law's normalised masses (at least one step)."""
    pos, w = one.losses(), one.masses
    total = float(np.sum(w))
    mean = float(np.sum(w * pos)) / total
    return mean, math.sqrt(max(float(np.sum(w * (pos - mean) ** 2)) / total, one.step ** 2))


def _power_pieces(one, count, spreads, max_cells):
    """The ``count``-fold power of ``one`` by :func:`~dpproofs.accountant.pld.compose.compose_fourier`
    under the tilts that move its mean by ``spreads`` standard deviations (0: untilted); the pieces
    that fit the budget (each is valid alone)."""
    mean, sd = _moments(one)
    pieces = []
    for spread in spreads:
        theta = 0.0 if spread == 0 else _tilt_for(one, count, count * mean + spread * math.sqrt(count) * sd)
        if theta is None:
            continue
        composed = _compose_lattice([(one, count)], theta, max_cells)
        if composed is not None:
            pieces.append(composed)
    return pieces


def _jump_pieces(items, jump_one, t, max_cells):
    """The one-jump term ``t * items`` under the untilted and JUMP_TILTS tilts centring the jump
    ``jump_one`` at geometrically spaced positions of its range (untilted, the cells near the top
    carry FFT round-off far above their own masses); the pieces that fit the budget."""
    jump_pos = jump_one.losses()
    targets = [None] + list(np.geomspace(jump_pos[0], jump_pos[-1], JUMP_TILTS + 2)[1:-1])
    pieces = []
    for target in targets:
        theta = 0.0 if target is None else _tilt_for(jump_one, 1, target)
        if theta is None:
            continue
        composed = _compose_lattice(items, theta, max_cells, math.log(t))
        if composed is not None:
            pieces.append(composed)
    return pieces


def _on_support(found, lowest, top, step, first_mass=None, count=0):
    """A collected law ``(grid, value, error, l2, below, above, above_x)`` restricted to the sum's
    support ``[lowest, top]``: cells outside it carry no mass (their error bounds are only the
    windows' round-off) and are dropped. With ``first_mass``, the bottom cell is exact:
    ``first_mass ** count`` (every coordinate at its lowest atom)."""
    grid, value, error, l2, below, above, above_x = found
    keep = (grid >= lowest - step / 2) & (grid <= top + step / 2)
    grid, value, error = grid[keep], value[keep], error[keep]
    l2 = [(coef[keep], piece[keep]) for coef, piece in l2]
    if first_mass is not None and len(grid) and abs(grid[0] - lowest) <= step / 2:
        value[0] = first_mass ** count
        error[0] = value[0] * 4 * count * UNIT + SUBNORMAL_ERROR
        for coef, _ in l2:
            coef[0] = 0.0
    return grid, value, error, l2, below, above, above_x


def _power_law(y_masses, shift, step, t, split_index, max_cells, side="both", bands=0, lower_start=0.0, sigma=None,
               bottom=None):
    """The law of ``sum_i Y_i`` on ``{k step + t shift}`` from the lattice law of one Y (masses at
    ``j step + shift``): the terms with no jump (every Y below the split) and with exactly one
    (``t`` times the bulk's (t-1)-fold sum convolved with the jump part), each by
    :func:`~dpproofs.accountant.pld.compose.compose_fourier`; ``(grid, value, error, below, above,
    above_x, band_terms)`` or None over budget. The terms with two jumps or more are NOT included.
    ``bands``: the number of bands beyond the lattice (their one-jump terms, :func:`_band_terms`,
    in ``band_terms``; None without bands). ``bottom``: the bottom refinement (:class:`Bottom`: the
    no-jump term without its part with every Y below one step, which :func:`_bottom_fine` computes on
    a finer lattice, appended to ``band_terms``' parts)."""
    w = np.asarray(y_masses, dtype=np.float64)
    bulk = w.copy()
    bulk[split_index:] = 0.0
    jump = w.copy()
    jump[:split_index] = 0.0
    acc = _Accumulator()
    nz = np.flatnonzero(bulk > 0)
    if nz.size == 0:
        return None
    first, last = int(nz[0]), int(nz[-1])
    bulk_one = OneStep(step, first, shift, bulk[first:last + 1], 0.0, "upper")
    pos = bulk_one.losses()
    bottom_part = None
    if bottom is not None:
        bottom_part = _bottom_fine(bottom, t, max_cells)
        if bottom_part is None:
            return None
    if t > 0:
        # a lower bound needs accuracy on its own side only (dropping mass is valid)
        spreads = [x for x in TILT_SPREADS if not ((side == "high" and x < 0) or (side == "low" and x > 0))]
        pieces = _power_pieces(bulk_one, t, spreads, max_cells)
        if not pieces:
            return None
        acc.term(pieces, t * float(pos[-1]))
    jz = np.flatnonzero(jump > 0)
    jump_top = float(pos[-1])
    if jz.size:
        jump_top = float(jz[-1] * step + shift)
    if jz.size and side != "low":  # the remove direction's lower bound drops the jump term
        j_first, j_last = int(jz[0]), int(jz[-1])
        jump_one = OneStep(step, j_first, shift, jump[j_first:j_last + 1], 0.0, "upper")
        jump_pieces = _jump_pieces([(bulk_one, t - 1), (jump_one, 1)], jump_one, t, max_cells)
        if not jump_pieces:
            return None
        acc.term(jump_pieces, (t - 1) * float(pos[-1]) + float(jump_one.losses()[-1]))
    heavy = sigma is not None and sigma < UNION_SIGMA
    found = acc.collect(step, (UNION_FACTOR if heavy else 1) * max_cells)
    if found is None:
        return None
    # the sum's support is [t p_0, t p_max] (p the Y lattice's positions); its bottom cell is exact
    grid, value, error, l2, below, above, above_x = _on_support(
        found, float(t * bulk_one.losses()[0]), t * float(max(pos[-1], jump_top)), step,
        float(bulk_one.masses[0]), t)
    if bottom is not None:
        # every Y below G: its law small^t is binomial on {k G} (small has masses s0 at 0 and s1 at G),
        # taken out of the no-jump term's cells k = 0..t (an exact subtraction: each cell keeps its error
        # bound, plus the binomial's float rounding) and replaced by the finer lattice's law
        s0, s1 = float(bottom.small[0]), float(bottom.small[1])
        k = np.arange(t + 1)
        binomial = special.comb(t, k) * s0 ** (t - k) * s1 ** k
        cell = np.rint((k * step + t * shift - grid[0]) / step).astype(np.int64) if len(grid) else k
        inside = (cell >= 0) & (cell < len(grid))
        value[cell[inside]] = np.maximum(value[cell[inside]] - binomial[inside], 0.0)
        error[cell[inside]] += 8 * (t + 2) * UNIT * binomial[inside]
    band_terms = None
    if bands and side != "low":
        band_terms = _band_terms(bulk_one, t, sigma, bands, len(y_masses) - 1, side == "both", lower_start, max_cells)
        if band_terms is None:
            return None
    if bottom_part is not None:
        parts, jumps, apart = band_terms if band_terms is not None else ([], (0.0, 0.0), (0.0, 0.0))
        band_terms = (parts + [bottom_part], jumps, apart)
    return grid, value, error, l2, below, above, above_x, band_terms


#: Fine lattice cells of one Y before the BANDS begin (at least; the fine lattice also reaches twice
#: the split, rounded up to a power of two: ``L`` steps): beyond it the jump range is cut into octaves
#: ``[2^m L, 2^(m+1) L)``, each on its own lattice of BAND_CELLS cells (step ``2^m L / BAND_CELLS``),
#: so that a lognormal's heavy right tail (sigma 0.6: 3e7 cells of the fine step at tail 1e-16)
#: costs a few small FFTs instead of one over budget.
BAND_START = 1 << 18
#: Cells of one band at its own step (a power of two, at most BAND_START): the relative resolution
#: of a jump there is 1/BAND_CELLS.
BAND_CELLS = 1 << 13
#: Largest number of bands (a jump cut beyond 2^24 L steps is left to the RDP fallback).
MAX_BANDS = 24
#: Tilts of the (t-1)-fold bulk sum that the band terms convolve with, in its standard deviations.
BAND_BULK_SPREADS = (-10.0, -5.0, 0.0, 5.0, 10.0)


def _band_bulk_sum(bulk_one, count, upper, max_cells):
    """The ``count``-fold sum of the bulk lattice law as plain per-cell masses (a band term's other
    coordinates): upper (value plus every error bound of its cell) or lower (value minus them), on
    the fine lattice ``k step + count shift``. Returns ``(index, masses, outside_q, outside_x)``:
    cell indices ``k``, masses, and (upper) the Q-mass beyond the windows and its first moment's
    bound (the lower drops it). None over budget."""
    step, shift = bulk_one.step, bulk_one.shift
    if count == 0:
        return np.array([0]), np.array([1.0]), 0.0, 0.0
    pos = bulk_one.losses()
    pieces = _power_pieces(bulk_one, count, BAND_BULK_SPREADS, max_cells)
    if not pieces:
        return None
    acc = _Accumulator()
    acc.term(pieces, count * float(pos[-1]))
    found = acc.collect(step, max_cells)
    if found is None:
        return None
    grid, value, error, l2, below, above, above_x = found
    per_cell = error + sum(coef for coef, _ in l2)
    lowest = float(grid[0]) if len(grid) else 0.0  # the mass below the windows lies below it
    index = np.rint((grid - count * shift) / step).astype(np.int64)
    low_index = count * (bulk_one.offset)
    high_index = count * (bulk_one.offset + len(bulk_one.masses) - 1)
    keep = (index >= low_index) & (index <= high_index)  # the sum's support: no mass elsewhere
    index, value, per_cell = index[keep], value[keep], per_cell[keep]
    if upper:
        masses = (value + per_cell) * (1 + 4 * UNIT) + SUBNORMAL_ERROR
        outside_q, outside_x = below + above, above_x + below * max(lowest, 0.0)
        if not (np.all(np.isfinite(masses)) and math.isfinite(outside_q) and math.isfinite(outside_x)):
            return None  # valid but useless (a window far from the mass): over budget
        return index, masses, outside_q, outside_x
    return index, np.maximum(value - per_cell, 0.0) * (1 - 4 * UNIT), 0.0, 0.0


def _coarsen(index, masses, factor, upper):
    """Masses at fine lattice indices moved onto the lattice of ``factor`` times the step: UPPER, a
    mean-preserving spread (each mass split between the two coarse points around it, in proportion
    to its distance: Jensen, as for one Y); LOWER, each mass moved down to the coarse point below it
    (the add direction is non-decreasing in S). ``(first coarse index, masses)``."""
    coarse = np.floor_divide(index, factor)
    rest = index - coarse * factor
    first = int(coarse.min())
    out = np.zeros(int(coarse.max()) - first + 2)
    if upper:
        # factor is a power of two: rest / factor is exact, the products round by one ulp each
        right = masses * (rest / factor)
        np.add.at(out, coarse - first, (masses - right) * (1 + 2 * UNIT))
        np.add.at(out, coarse - first + 1, right * (1 + 2 * UNIT))
    else:
        np.add.at(out, coarse - first, masses)
    return first, out


def _band_jump(sigma, step, upper, lower_start):
    """One Y restricted to the band ``[BAND_CELLS step, 2 BAND_CELLS step)`` (above ``lower_start``
    for the lower law) on the lattice ``j step``: UPPER the spread with its errors added; LOWER each
    cell's mass, lowered by its error bound, at the cell's left end (moved down). ``(first, masses)``."""
    if upper:
        w, e, _ = _y_spread(sigma, step, 2 * BAND_CELLS, first=BAND_CELLS)
        return BAND_CELLS, w + e
    a, r = _log_y_moments(sigma)
    j = np.arange(BAND_CELLS, 2 * BAND_CELLS + 1, dtype=np.float64)
    edges = np.maximum(j * step, lower_start)
    with np.errstate(divide="ignore"):
        u = np.log(edges)
    m, em = _vec_normal_mass_edges(u, -a / 2, r)
    w = np.zeros(len(j))
    w[:-1] = np.maximum(m - em, 0.0) * (1 - 4 * UNIT)
    return BAND_CELLS, w


def _band_terms(bulk_one, t, sigma, bands, reach, upper, lower_start, max_cells):
    """The one-jump terms with the jump in band ``m`` (``m < bands``): ``t`` times the ``(t-1)``-fold
    bulk sum convolved with the band's law of Y, each on the band's own lattice (the bulk sum
    coarsened onto it by :func:`_coarsen`), by :func:`~dpproofs.accountant.pld.compose.compose_fourier`
    under several tilts. Returns a list of ``(grid, value, error, l2, below, above, above_x)``
    per band (positions of ``sum_i Y_i``), the band laws' ``(P-mass, first moment)`` sums (for the
    two-jump bound) and the set-apart ``(P-mass, Q-mass)`` of the bulk sum's outside mass; None over
    budget."""
    fine = bulk_one.step
    bulk = _band_bulk_sum(bulk_one, t - 1, upper, max_cells)
    if bulk is None:
        return None
    index, masses, outside_q, outside_x = bulk
    base = (t - 1) * bulk_one.shift
    out, jump_mass, jump_moment, apart_p, apart_q = [], 0.0, 0.0, 0.0, 0.0
    for m in range(bands):
        factor = (reach // BAND_CELLS) << m
        step = fine * factor
        first, coarse = _coarsen(index, masses, factor, upper)
        b_one = OneStep(step, first, base, coarse, 0.0, "upper")
        j_first, jw = _band_jump(sigma, step, upper, lower_start if m == 0 else 0.0)
        nz = np.flatnonzero(jw > 0)
        if nz.size == 0:
            continue
        j_one = OneStep(step, j_first + int(nz[0]), 0.0, jw[nz[0]:nz[-1] + 1], 0.0, "upper")
        j_pos = j_one.losses()
        j_mass = float(np.sum(j_one.masses))
        j_moment = float(np.sum(j_one.masses * j_pos))
        jump_mass += j_mass
        jump_moment += j_moment
        # the bulk sum's mass outside its windows, with a jump in this band: set apart (loss +inf in
        # both directions); its P-mass E_Q[S; .] = (E[B; out] P(J) + P(B out) E[J]) t / t
        apart_q += t * outside_q * j_mass
        apart_p += outside_x * j_mass + outside_q * j_moment
        pieces = _jump_pieces([(b_one, 1), (j_one, 1)], j_one, t, max_cells)
        if not pieces:
            return None
        acc = _Accumulator()
        top = float(b_one.losses()[-1]) + float(j_pos[-1])
        acc.term(pieces, top)
        found = acc.collect(step, max_cells)
        if found is None:
            return None
        out.append(_on_support(found, float(b_one.losses()[0]) + float(j_pos[0]), top, step))
    return out, (jump_mass, jump_moment), (apart_p, apart_q)


#: The bottom refinement (UPPER law, small t): every Y of the sum below one lattice step is where
#: the spread puts mass at S = 0 (loss +inf in the remove direction): ``w_0^t``, 0.038 at (t, sigma) =
#: (2, 0.6). It is used when ``w_0^t`` exceeds BOTTOM_SHARE of the budget; the finer lattice has
#: BOTTOM_CELLS cells in ``[0, G)`` (at sigma = 0.6 its own mass at 0 is 1.7e-13 a coordinate, against 0.195 at G).
BOTTOM_SHARE = 1e-3
BOTTOM_CELLS = 1 << 16
#: Largest t with a bottom refinement (t terms of t-fold convolutions; beyond it w_0^t is negligible
#: at every sigma the lattice serves: 0.195^32 = 1.9e-23 at sigma = 0.6).
BOTTOM_MAX_T = 32


class Bottom:
    """The parts of the bottom refinement: ``small`` (the spread of ``Y < G``: masses at 0 and G, as
    in the lattice law) and ``fine`` (``Y < G`` spread on the lattice ``fine_step = G /
    BOTTOM_CELLS``), each with its errors added."""

    def __init__(self, small, fine, fine_step):
        self.small, self.fine, self.fine_step = small, fine, fine_step


def _bottom_fine(bottom, t, max_cells):
    """The event that every Y is below one step G, on the finer lattice ``G / BOTTOM_CELLS``: the
    t-fold law of the fine spread of ``Y < G`` (the no-jump term takes out its coarse counterpart,
    the binomial law of the spread onto {0, G}: an exact decomposition, each part a product of
    spreads, valid for both directions). ``(grid, value, error, l2, below, above, above_x)`` or None
    over budget."""
    fine = OneStep(bottom.fine_step, 0, 0.0, bottom.fine, 0.0, "upper")
    pos = fine.losses()
    pieces = _power_pieces(fine, t, TILT_SPREADS, max_cells)
    if not pieces:
        return None
    fine_acc = _Accumulator()
    top = t * float(pos[-1])
    fine_acc.term(pieces, top)
    found = fine_acc.collect(bottom.fine_step, max_cells)
    if found is None:
        return None
    return _on_support(found, 0.0, top, bottom.fine_step, float(bottom.fine[0]), t)  # every Y at 0: exact


def _split_cut(t, sigma, budget):
    """``log B``: with ``p = P(Y >= B)``, the outputs with two or more of the t values ``Y_i >= B``
    have P-mass (add) at most ``t p E[Y; Y >= B] + R`` and Q-mass at most ``R = (t p)^2 / (2 (1 - t p))``;
    the smallest B (bisection) with both at most ``budget``."""
    a, r = _log_y_moments(sigma)

    def mass(x):
        first, p = _upper_tails(x, a, r)
        tp = t * p
        if tp >= 0.5:
            return math.inf
        return t * p * first + tp * tp / (2 * (1 - tp))

    return _least_log_cut(mass, budget, -a / 2, a / 2 + r * 40.0 + math.log(t) + 1.0)


@functools.lru_cache(maxsize=32)
def sum_law(t, sigma, kind, budget, max_cells=MAX_LATTICE, refinement=1):
    """The :class:`SumLaw` of one epoch (``kind``: "upper" (spread), "lower-add" or "lower-remove"
    (contraction moved down / up)); ``budget`` bounds the P-mass set apart (the event A, the outputs
    with two jumps). None if over ``max_cells``."""
    a, r = _log_y_moments(sigma)
    if a > MAX_LOG_VARIANCE:
        return None  # Y's tails put any lattice far over budget: the accountant falls back to RDP
    step = lattice_step(sigma, refinement)
    log_cut, _ = _jump_cut(t, sigma, budget / 2)
    cells = math.ceil(math.exp(log_cut) / step) if log_cut < 700 else math.inf
    split = math.exp(_split_cut(t, sigma, budget / 2))
    # the fine lattice reaches BAND_START steps and twice the split (the bulk and the nearest jumps
    # on the fine step), a power of two; the jump range beyond it in octave bands on coarser
    # lattices (the remove direction's lower bound drops every jump term: it needs the bulk only)
    reach = max(BAND_START, 1 << math.ceil(math.log2(2 * split / step + 2)))
    bands = 0
    if cells > reach:
        bands = 0 if kind == "lower-remove" else math.ceil(math.log2(cells / reach))
        if bands > MAX_BANDS:
            return None
        cells = reach
    if not cells <= max_cells:
        return None
    upper = kind == "upper"
    lower_start = 0.0
    bottom = None
    if upper:
        w, e, shift = _y_spread(sigma, step, cells)
        w = w + e  # the upper bound's masses: every error added
        cut = cells * step  # the spread's support: Y < cut, and cut >= e^{log_cut}
        if t <= BOTTOM_MAX_T:
            small, small_e, _ = _y_spread(sigma, step, 1)
            small = small + small_e
            if float(small[0]) ** t > BOTTOM_SHARE * budget:
                # the same law split by Y < G (cell 0: small) and Y >= G (the rest, atoms from 1)
                regular, regular_e, _ = _y_spread(sigma, step, cells, first=1)
                w = np.zeros(cells + 1)
                w[:2] += small
                w[1:] += regular + regular_e
                fine_step = step / BOTTOM_CELLS
                fine, fine_e, _ = _y_spread(sigma, fine_step, BOTTOM_CELLS)
                bottom = Bottom(small, fine + fine_e, fine_step)
    else:
        w, _, shift = _y_contraction(sigma, step, cells, kind.split("-")[1])
        cut = (cells + 0.5) * step
        if bands:
            lower_start = float(_best_edges(sigma, step, cells)[0][-1])  # the contraction's top edge
    # the bands' top: band m is [2^m, 2^(m+1)) times the fine lattice's reach
    cut = cut if not bands else cells * step * 2.0 ** bands
    split_index = min(max(math.ceil((split - shift) / step), 1), len(w))
    side = {"upper": "both", "lower-add": "high", "lower-remove": "low"}[kind]
    found = _power_law(w, shift, step, t, split_index, max_cells, side, bands, lower_start, sigma, bottom)
    if found is None:
        return None
    grid, q, err, l2, below, above, above_x, band_found = found
    band_parts, band_jump, band_apart = band_found if band_found is not None else ([], (0.0, 0.0), (0.0, 0.0))
    if not upper:
        total = err + sum(coef for coef, _ in l2)  # per cell (a lower bound needs no sums)
        parts = [(grid, np.maximum(q - total, 0.0))]
        for b_grid, b_value, b_error, b_l2, _, _, _ in band_parts:
            parts.append((b_grid, np.maximum(b_value - b_error - sum(coef for coef, _ in b_l2), 0.0)))
        grid = np.concatenate([g for g, _ in parts])
        q = np.concatenate([m for _, m in parts])
        order = np.argsort(grid, kind="stable")
        if not np.all(np.isfinite(q)):
            return None
        return SumLaw(grid[order] / t, q[order], np.zeros(len(q)), 0.0, 0.0, 0.0, 0.0, 0.0)
    grid, q, err, l2 = _merge([(grid, q, err, l2)] + [part[:4] for part in band_parts])
    for _, _, _, _, b_below, b_above, b_above_x in band_parts:
        below, above, above_x = below + b_below, above + b_above, above_x + b_above_x
    s = grid / t
    # the set-apart masses, from the lattice law itself (its masses already carry their errors):
    # A = {some Y_i >= cut} from the normal tails; two or more jumps from the lattice's jump part
    a_cut = math.log(cut)
    p_tail, q_tail = _upper_tails(a_cut, a, r)
    jump_p = p_tail + (t - 1) * q_tail + band_apart[0]
    jump_q = t * q_tail + band_apart[1]
    pos = np.arange(len(w)) * step + shift
    p_jump = float(np.sum(w[split_index:])) + band_jump[0]
    mean_jump = float(np.sum(w[split_index:] * pos[split_index:])) + band_jump[1]
    tp = t * p_jump
    if tp >= 0.5:
        return None
    two = tp * tp / (2 * (1 - tp))
    jump_p += t * p_jump * mean_jump + two
    jump_q += two
    margin = 1 + 1e-9  # the float sums above (a few thousand terms at most per ulp: 1e-9 covers them)
    law = SumLaw(s, q, err, below, above, above_x / t, jump_p * margin + SUBNORMAL_ERROR,
                 jump_q * margin + SUBNORMAL_ERROR)
    law.l2 = l2
    finite = [q, err] + [coef for coef, _ in l2]
    if not (all(np.all(np.isfinite(x)) for x in finite)
            and all(math.isfinite(x) for x in (law.below, law.above, law.above_p, law.jump_p, law.jump_q))):
        return None  # a bound that is valid but infinite (no window near the mass): over budget
    return law


def _merge(parts):
    """One list of atoms from several ``(positions, values, errors, l2)`` parts (each its own
    lattice), sorted by position: the pieces of each part's L2 error lists renumbered so that no
    two parts share one (each piece's Cauchy-Schwarz bound stays its own)."""
    if len(parts) == 1:
        return parts[0]
    sizes = [len(g) for g, _, _, _ in parts]
    total = sum(sizes)
    starts = np.concatenate(([0], np.cumsum(sizes)))
    grid = np.concatenate([g for g, _, _, _ in parts])
    value = np.concatenate([v for _, v, _, _ in parts])
    error = np.concatenate([e for _, _, e, _ in parts])
    l2, offset = [], 0
    for (_, _, _, part_l2), start, stop in zip(parts, starts[:-1], starts[1:]):
        used = 0
        for coef, piece in part_l2:
            full_coef = np.zeros(total)
            full_piece = np.full(total, -1, dtype=np.int64)
            full_coef[start:stop] = coef
            full_piece[start:stop] = np.where(piece >= 0, piece + offset, -1)
            used = max(used, int(piece.max()) + 1 if len(piece) else 0)
            l2.append((full_coef, full_piece))
        offset += used
    order = np.argsort(grid, kind="stable")
    return grid[order], value[order], error[order], [(c[order], p[order]) for c, p in l2]


class LatticePair:
    """A pair given by atoms of the likelihood ratio ``S`` (Q-masses ``q`` with absolute errors
    ``e`` at exact positions ``s``): "add" has loss ``log s`` and P-mass ``s q``; "remove" has loss
    ``-log s`` and P-mass ``q``. Same interface as the pairs of :mod:`dpproofs.math.pairs`
    (``cell_masses`` sums the atoms of each cell; ``atoms`` is empty: they are in the cells)."""

    def __init__(self, law, direction):
        self.direction = direction
        s, q, e = law.s, law.q, law.e
        coefs = [coef for coef, _ in law.l2]
        keep = (q > 0) | (e > 0)
        for coef in coefs:
            keep |= coef > 0
        l2 = law.l2
        if not keep.all():  # (the copies below cost seconds at millions of atoms: only where needed)
            s, q, e = s[keep], q[keep], e[keep]
            l2 = [(coef[keep], piece[keep]) for coef, piece in l2]
        positive = s > 0
        with np.errstate(divide="ignore"):
            loss = np.log(np.where(positive, s, 1.0))
        order = slice(None) if direction == "add" else slice(None, None, -1)
        if positive.all():
            positive = slice(None)  # every atom: views, not copies
        sp = s[positive][order]
        if direction == "add":
            self.loss = loss[positive]
            self.p = sp * q[positive]
            self.q = q[positive]
            # an atom's error is one error of its Q-mass, e^{loss} times it on P ("tied"), plus the
            # rounding of the product p = s q, P's own (upper_cell_masses keeps them apart)
            self.ep_tied = sp * e[positive] * (1 + 2 * UNIT)
            self.ep_own, self.eq_own = 2 * UNIT * self.p, np.zeros(len(self.p))
            self.ep = self.ep_tied + self.ep_own
            self.eq = e[positive]
            # the L2 parts: P-errors weigh s (rounded up), Q-errors 1
            self.l2_p = [(coef[positive] * sp * (1 + 2 * UNIT), piece[positive]) for coef, piece in l2]
            self.l2_q = [(coef[positive], piece[positive]) for coef, piece in l2]
            self.extra_above = law.jump_p + law.above_p          # to +inf
            # P-mass below the atoms: at most s_min times the Q-mass there
            self.extra_below = (s[0] if len(s) else 0.0) * law.below
        else:
            self.loss = -loss[positive][order]
            self.p = q[positive][order]
            self.q = sp * q[positive][order]
            self.ep = e[positive][order]
            self.eq = sp * e[positive][order] * (1 + 2 * UNIT) + 2 * UNIT * self.q
            self.ep_tied = self.ep  # Q's error is e^{-loss} = s times it; the product's rounding is Q's own
            self.ep_own, self.eq_own = np.zeros(len(self.p)), 2 * UNIT * self.q
            self.l2_p = [(coef[positive][order], piece[positive][order]) for coef, piece in l2]
            self.l2_q = [(coef[positive][order] * sp * (1 + 2 * UNIT), piece[positive][order]) for coef, piece in l2]
            zero = s <= 0
            zero_mass = float(np.sum(q[zero] + e[zero]) + sum(np.sum(c[zero]) for c, _ in l2))
            self.extra_above = law.jump_q + law.below + zero_mass  # S -> 0: loss +inf
            self.extra_below = law.above                              # S large: loss very negative
        self.pieces = 1 + max((int(piece.max()) for _, piece in l2 if len(piece)), default=0)
        self.atoms = ()
        self.min_loss = float(self.loss[0]) if len(self.loss) else 0.0
        self.max_loss = float(self.loss[-1]) if len(self.loss) else 0.0

    def _l2_tail_norms(self, parts, cell, n):
        """``R[k]`` for the cells ``k = 0..n-1`` (``cell`` as in :meth:`_l2_cell_errors`): the sum over
        pieces of the Euclidean norm of the piece's error coefficients in the cells ``k, k+1, ...,
        n-1`` (an upper bound on ``|sum of the errors of those cells, each weighted by at most 1|``,
        by Cauchy-Schwarz against the piece's error vector); non-increasing in ``k``, rounded up."""
        out = np.zeros(n + 1)
        inside = (cell >= 0) & (cell < n)
        cells = np.arange(n)
        for coef, piece in parts:
            has = inside & (piece >= 0) & (coef > 0)
            run_cell, run_piece, run_sum = _runs(cell[has], piece[has], coef[has] ** 2)
            for p in np.unique(run_piece):
                mine = run_piece == p
                at, sums = run_cell[mine], run_sum[mine]  # cells non-decreasing (atoms sorted by loss)
                suffix = np.concatenate((np.cumsum(sums[::-1])[::-1], [0.0]))  # over the runs from each on
                out[:-1] += np.sqrt(suffix[np.searchsorted(at, cells, side="left")])
            loose = inside & ~has & (coef > 0)  # coefficients without a piece (none are): plain sums
            out[:-1] += np.cumsum(np.bincount(cell[loose], weights=coef[loose], minlength=n)[::-1])[::-1]
        # (1 + 1e-8): the roundings of the squares, their running sums over up to 2^23 cells (a
        # relative 2^23 u = 9.3e-10 at most), the square roots and the sums over pieces
        return out * (1 + 1e-8)

    def _l2_cell_errors(self, parts, cell, n):
        """Per cell of the ``n`` (``cell`` the atoms' cell, -1 / n outside): the sum over pieces of the
        Euclidean norm of the piece's error coefficients in the cell (Cauchy-Schwarz against the
        piece's error vector, whose norm the coefficients carry), rounded up; and the plain sum of
        the coefficients outside the cells (below, above)."""
        out = np.zeros(n)
        below = above = 0.0
        inside = (cell >= 0) & (cell < n)
        for coef, piece in parts:
            has = inside & (piece >= 0) & (coef > 0)
            run_cell, _, run_sum = _runs(cell[has], piece[has], coef[has] ** 2)
            out += np.bincount(run_cell, weights=np.sqrt(run_sum), minlength=n)
            # coefficients without a piece (none are) or outside the cells: plain sums
            loose = inside & ~has & (coef > 0)
            out += np.bincount(cell[loose], weights=coef[loose], minlength=n)
            below += self._l2_norms(coef, piece, cell < 0)
            above += self._l2_norms(coef, piece, cell >= n)
        # (1 + 1e-9): the roundings of the squares, their bincount sums (at most a few thousand terms a
        # cell) and the square roots, each a few ulps
        return out * (1 + 1e-9), below * (1 + 1e-8), above * (1 + 1e-8)

    def _l2_norms(self, coef, piece, where):
        """The sum over pieces of the Euclidean norm of the coefficients at ``where`` (their errors'
        sum, by Cauchy-Schwarz; it was their plain sum: 2e-10 of P-mass sent to +inf at (t, sigma) =
        (1000, 0.6), where the tail allowance was 1e-12), plus the plain sum of those without a piece;
        rounding covered by the caller's 1e-8."""
        with_piece = where & (piece >= 0) & (coef > 0)
        squares = np.bincount(piece[with_piece], weights=coef[with_piece] ** 2, minlength=self.pieces)
        return float(np.sum(np.sqrt(squares))) + float(np.sum(coef[where & (piece < 0) & (coef > 0)]))

    def loss_range(self, tail_z):
        """Losses outside which the P-mass of the atoms is below ``Phi(-tail_z)`` on each side."""
        if len(self.loss) == 0:
            return 0.0, 0.0
        memo = self.__dict__.setdefault("_loss_ranges", {})  # the accountant asks ~10 times a pass
        if tail_z not in memo:
            memo[tail_z] = self._loss_range(tail_z)
        return memo[tail_z]

    def _loss_range(self, tail_z):
        cut = max(float(special.ndtr(-tail_z)), 1e-300)
        cum = np.cumsum(self.p)
        lo = int(np.searchsorted(cum, cut * 0.5, side="left"))
        # the mass above each atom as a sum from the top (``cum[-1] - cut / 2`` rounds to ``cum[-1]``
        # for cut below 1e-16: the range then stopped where the sum first reached its float total,
        # leaving 6.9e-13 of P-mass above it at (t, sigma) = (1000, 1), tail 3e-19, and over 100
        # epochs the upper end was infinite at delta = 1e-12)
        above = np.concatenate((np.cumsum(self.p[::-1])[::-1][1:], [0.0]))
        hi = int(np.argmax(above <= cut * 0.5))
        lo = min(max(lo, 0), len(self.loss) - 1)
        hi = min(max(hi, lo), len(self.loss) - 1)
        return float(self.loss[lo]), float(self.loss[hi])

    def cell_masses(self, edges):
        """P- and Q-masses of the atoms with loss in ``[edges[i], edges[i+1])``, with absolute error
        bounds (their own and the sums' roundings), and the P-masses below ``edges[0]`` and at or above
        ``edges[-1]`` (with the mass set apart: the jumps, the outside of the windows)."""
        p, q, ep, eq, below, above, l2p, l2q = self._cell_masses(edges)
        return p, q, ep + l2p, eq + l2q, below, above

    def upper_cell_masses(self, edges):
        """For the upper one-step PLD (:func:`dpproofs.accountant.pld.discretise.discretise`):
        :meth:`cell_masses` with the atoms' tied errors kept apart, as ``(p, q, ep, eq, below, above,
        l2_cells, l2_tails)``. Tied: one error of an atom's Q-mass and ``e^{loss}`` times it on its
        P-mass (the lattice law's errors, bounded in L2 per window or plainly per atom), so ``e^{l_i}``
        times the Q-error is at most the P-error in cell ``i`` and the bounds are P-side only.
        ``ep``, ``eq``: the other errors (the products' and sums' roundings); ``l2_cells[i]``: the
        tied errors' bound on cell ``i``'s P-mass; ``l2_tails[k]``: their bound on the P-mass error of
        the cells ``k, k+1, ...`` together, each atom's weighted by at most 1 (:meth:`_l2_tail_norms`
        plus the plain bounds' running sums; ``l2_tails[n] = 0``)."""
        p, q, ep, eq, below, above, l2p, tied = self._cell_masses(edges, split=True)
        n = len(p)
        tails = self._l2_tail_norms(self.l2_p, self._cells_of(edges, n), n)
        # the tied errors (P = e^{loss} Q atom by atom) take the same road, in L1: their running sums
        # from the top (2^23 cells at most: a relative 9.3e-10 of rounding, within 1e-8)
        tails[:-1] += np.cumsum(tied[::-1])[::-1] * (1 + 1e-8)
        return p, q, ep, eq, below, above, l2p + tied, tails

    def _cells_of(self, edges, n):
        return np.searchsorted(edges, self.loss, side="right") - 1  # -1 below, n at or above the top

    def _cell_masses(self, edges, split=False):
        """The body of :meth:`cell_masses` (``split``: of :meth:`upper_cell_masses`, with ``ep``,
        ``eq`` the own errors alone and the last item the tied P-errors per cell instead of the
        L2 bounds on Q)."""
        edges = np.asarray(edges, dtype=np.float64)
        idx = np.searchsorted(self.loss, edges, side="left")  # first atom with loss >= edge
        n = len(edges) - 1
        p, q, ep, eq, tied = (np.zeros(n) for _ in range(5))
        counts = idx[1:] - idx[:-1]
        nonempty = np.flatnonzero(counts > 0)
        if nonempty.size:
            starts = idx[:-1][nonempty]
            sources = ((self.p, p), (self.q, q), (self.ep_own, ep), (self.eq_own, eq), (self.ep_tied, tied)) if split \
                else ((self.p, p), (self.q, q), (self.ep, ep), (self.eq, eq))
            for src, dst in sources:
                dst[nonempty] = _segment_sums(src, starts, counts[nonempty])
            rounding = counts[nonempty] * UNIT * 2
            ep[nonempty] += rounding * p[nonempty]
            eq[nonempty] += rounding * q[nonempty]
            tied[nonempty] *= 1 + rounding
        ep += SUBNORMAL_ERROR
        eq += SUBNORMAL_ERROR
        cell = self._cells_of(edges, n)
        l2p, l2p_below, l2p_above = self._l2_cell_errors(self.l2_p, cell, n)
        last = tied if split else self._l2_cell_errors(self.l2_q, cell, n)[0]
        below_count = int(idx[0])
        above_start = int(idx[-1])
        below = float(np.sum(self.p[:below_count])) + self.extra_below
        below_e = (float(np.sum(self.ep[:below_count])) + below_count * UNIT * 2 * below + SUBNORMAL_ERROR
                   + l2p_below)
        above = float(np.sum(self.p[above_start:])) + self.extra_above
        above_e = (float(np.sum(self.ep[above_start:])) + (len(self.p) - above_start) * UNIT * 2 * above
                   + SUBNORMAL_ERROR + l2p_above)
        # atom positions are floats (log of a float lattice point): within a few ulp of the truth
        with np.errstate(invalid="ignore", divide="ignore"):
            width = edges[1:] - edges[:-1]
            err = 16 * UNIT * (np.abs(edges[:-1]) + np.abs(edges[1:]) + 2)
            self.edge_ratio = np.where(width > 0, (err / width) ** 2, 1.0)
        return p, q, ep, eq, (below, below_e), (above, above_e), l2p, last


def _runs(cell, piece, squares):
    """The runs of atoms (in loss order) with one cell and one piece: ``(cell, piece, sum of squares)``
    of each. A (cell, piece) in several runs gets the sum of their norms, at least the norm of its
    whole (the triangle inequality): the bounds stay valid. A run's square root is one norm; a
    dense (cells x pieces) table cost ~10 ms a call at (t, sigma) = (100, 1) (38 000 cells, 9 pieces)."""
    if len(cell) == 0:
        return cell, piece, squares
    starts = np.concatenate(([0], np.flatnonzero((cell[1:] != cell[:-1]) | (piece[1:] != piece[:-1])) + 1))
    return cell[starts], piece[starts], np.add.reduceat(squares, starts)


def _segment_sums(values, starts, counts):
    """Sums of ``values[starts[i] : starts[i] + counts[i]]`` (direct sums, not differences of a
    cumulative sum, which would cancel in the tails)."""
    out = np.add.reduceat(values, starts)
    # reduceat sums up to the next start; segments here are contiguous and ordered, but a segment
    # may be followed by atoms outside every cell (above the last edge): trim the last one
    last = starts[-1]
    out[-1] = float(np.sum(values[last:last + counts[-1]]))
    # inner segments run to the next start, which equals start + count (cells are contiguous)
    return out


def resolve(pair, bound, tail_z):
    """The :class:`LatticePair` of an :class:`~dpproofs.math.pairs.AllocationPair` for ``bound``
    ("upper"/"lower") at the accountant's tail ``Phi(-tail_z)``; None if over the lattice budget."""
    budget = max(float(special.ndtr(-tail_z)) / 4, 1e-300)
    if bound == "upper":
        kind = "upper"
    else:
        kind = "lower-add" if pair.direction == "add" else "lower-remove"
    key = (pair.steps, pair.sigma, kind, pair.direction, getattr(pair, "refinement", 1), getattr(pair, "windows", 1))
    kept = _STRICTEST.get(key)
    if kept is not None and kept[0] <= budget:
        return kept[1]  # a law with less mass set apart is valid for a looser budget too
    found = _lattice_pair(*key, budget)
    if found is not None:
        if len(_STRICTEST) > 64:
            _STRICTEST.clear()
        _STRICTEST[key] = (budget, found)
    return found


#: (steps, sigma, kind, direction, refinement, windows) -> (budget, LatticePair) of the strictest budget so far.
_STRICTEST = {}


@functools.lru_cache(maxsize=32)
def _lattice_pair(steps, sigma, kind, direction, refinement, windows, budget):
    law = sum_law(steps, sigma, kind, budget, max_cells=MAX_LATTICE * windows, refinement=refinement)
    return None if law is None else LatticePair(law, direction)


def forget():
    """Drops every memoised law and lattice pair (each may hold millions of atoms)."""
    sum_law.cache_clear()
    _lattice_pair.cache_clear()
    _STRICTEST.clear()


AllocationPair.resolver = staticmethod(resolve)
AllocationPair.forget = staticmethod(forget)
