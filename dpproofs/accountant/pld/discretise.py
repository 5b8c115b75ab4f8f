"""One step of a mechanism as two certified discrete privacy-loss distributions (PLDs).

Used by :class:`dpproofs.PLDAccountant` (:mod:`dpproofs.accountant.pld.accountant`); the
composition of the discrete PLDs built here, by FFT with its error bounds, is in
:mod:`dpproofs.accountant.pld.compose`.

A mechanism's step is given as a neighbouring pair (:class:`GaussianPair`,
:class:`TwoSidedGaussianPair`, :class:`LaplacePair`, :class:`FinitePair`) written on a line along
which the privacy loss increases. :func:`discretise` replaces it by a :class:`OneStep` on the grid
``{k h}`` of losses that provably gives LARGER hockey-stick divergences than the true pair at every
level (``bound="upper"``) or one that provably gives SMALLER ones (``bound="lower"``);
:func:`symmetrised` turns an upper one-step PLD into one that dominates both neighbouring
directions at once. Every float64 error of the one-step masses (normal CDFs, Gauss-Legendre
quadrature) is bounded and turned into a move of mass that keeps the bound's side.

Representation. A discrete "PLD" here is a finite non-negative measure ``w`` on losses ``l_k``
(P-masses) plus a P-mass ``infinity`` at loss +inf. Its hockey stick is
    delta(eps) = infinity + sum_k w_k (1 - e^{eps - l_k})_+ ,
and the hockey stick of a composition of independent steps is the same expectation over the sum
of the losses, E[(1 - e^{eps - L_1 - ... - L_T})_+]. That expression is non-decreasing in every
mass and in every loss. Hence (no normalisation needed):
  * any measure obtained by ADDING mass or moving loss UP keeps an upper bound,
  * any measure obtained by REMOVING mass or moving loss DOWN keeps a lower bound,
through any number of compositions. Every float error below is turned into such a move.

One step (a neighbouring pair P, Q written on a line u along which L(u) = log dP/dQ increases):
  * upper, "connect the dots" (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022,
    arXiv:2207.04380v1, Sec. 3): the outputs with loss in [l_i, l_{i+1}) (P-mass P_i, Q-mass
    Q_i) are split between l_i and l_{i+1} preserving both masses; in x = e^loss under Q this is
    a mean-preserving spread, and delta(eps) = E_Q[(X - e^eps)_+] is convex in X, so the split
    dominates, and domination survives composition (a coordinatewise spread of a product
    measure; Jensen coordinate by coordinate). Split P-masses:
       left  = (e^h Q'_i - P_i) / expm1(h),   right = e^h (P_i - Q'_i) / expm1(h),  Q'_i = e^{l_i} Q_i.
  * lower, "own loss on a shifted grid": the same cells, each replaced by ONE atom at its own
    loss log(P_i / Q_i) (a contraction under Q: Jensen the other way), then moved DOWN to the
    shifted grid point l_i + rho (or l_{i-1} + rho when the own loss is below l_i + rho). rho is
    one constant per one-step PLD, so the composed lower PLD lives on the uniform grid
    {k h + sum_j n_j rho_j}; since own losses sit near the cell middle, the moves are O(h^2).
    Near a finite loss limit (log(1 - q) for a sampled Gaussian's add direction) the density is
    steep and the averaged cells' own losses are not at their middles: those cells are re-cut one
    by one (:func:`_align_boundary`). Then a share of each grid point's atoms joins the next grid
    point's group where that group's excess P - e^g Q pays for it (a merge: the group's own loss
    stays at least its grid point), which cancels the moves' drift to first order
    (:func:`_lifted_masses`).
"""

import math

import numpy as np

__all__ = [
    "NDTR_RELATIVE",
    "UNIT",
    "GaussianPair",
    "TwoSidedGaussianPair",
    "LaplacePair",
    "FinitePair",
    "OneStep",
    "symmetrised",
    "discretise",
]

# The neighbouring pairs a mechanism describes itself by (GaussianPair, TwoSidedGaussianPair,
# LaplacePair, FinitePair), with their certified cell masses, live in the math layer
# (dpproofs.math.pairs): the mechanisms build them, this module discretises them.
from dpproofs.math.pairs import (  # noqa: F401 (re-exported: the pairs' public home is dpproofs.math.pairs)
    NDTR_RELATIVE,
    SUBNORMAL_ERROR,
    UNIT,
    FinitePair,
    GaussianPair,
    LaplacePair,
    TwoSidedGaussianPair,
    _edge_ratio,
    _vec_normal_mass,
)

class OneStep:
    """A one-step discrete PLD: P-masses ``masses[i]`` at loss ``(offset + i) step + shift``, P-mass
    ``infinity`` at +inf; ``bound`` 'upper' or 'lower' (see the module docstring)."""

    def __init__(self, step, offset, shift, masses, infinity, bound):
        self.step, self.offset, self.shift = float(step), int(offset), float(shift)
        self.masses = np.asarray(masses, dtype=np.float64)
        self.infinity, self.bound = float(infinity), bound

    def losses(self):
        return (self.offset + np.arange(len(self.masses))) * self.step + self.shift

    def log_mgf(self, thetas):
        """log sum_k w_k e^{theta l_k} for each theta (finite part only), as float log-sum-exp
        (used for the tilt and for Chernoff windows, never for a bound's value without its own
        error allowance). Memoised per theta; evaluated by :func:`blocked_log_mgf` (one matrix
        product per group of tilts instead of one exponential per (tilt, cell))."""
        thetas = np.atleast_1d(np.asarray(thetas, dtype=np.float64))
        memo = self.__dict__.setdefault("_mgf_memo", {})
        missing = [t for t in dict.fromkeys(thetas.tolist()) if t not in memo]
        if missing:
            keep = np.flatnonzero(self.masses > 0)
            if keep.size == 0:
                values = np.full(len(missing), -np.inf)
            else:
                first, last = int(keep[0]), int(keep[-1])
                base = (self.offset + first) * self.step + self.shift
                values = blocked_log_mgf(self.masses[first:last + 1], base, self.step, np.array(missing))
            if len(memo) > 4096:
                memo.clear()
            memo.update(zip(missing, values.tolist()))
        return np.array([memo[t] for t in thetas.tolist()], dtype=np.float64)


#: Largest |theta| (block length - 1) step inside one block of :func:`blocked_log_mgf`: the factors
#: e^{theta j step} stay within e^{+-BLOCK_EXPONENT}, far from float overflow (e^709) together with
#: masses <= 1 and block sums of at most 2^26 terms.
BLOCK_EXPONENT = 200.0


def blocked_log_mgf(w, base, step, thetas):
    """``log sum_k w_k e^{theta (base + k step)}`` for each ``theta`` (``w >= 0``, ``w[0] > 0``).

    Blocked evaluation: with ``B`` cells a block, ``sum_k = sum_b e^{theta l_{bB + r}} sum_j
    w_{bB+j} e^{theta (j - r) step}`` (``r = 0`` for theta >= 0, ``r = B - 1`` below, so every factor
    is in [1, e^{BLOCK_EXPONENT}]), ``B`` at most about sqrt(len(w)): the inner sums of all tilts sharing a block length are ONE
    matrix product (blocks x B) @ (B x tilts), and only the (blocks x tilts) outer terms go
    through log-sum-exp. Same float accuracy class as the direct sum (each factor e^{x} with
    |x| <= BLOCK_EXPONENT has relative error <= (|x| + 1) u, as e^{log w + theta l} had; sums of
    positive terms)."""
    w = np.asarray(w, dtype=np.float64)
    n = len(w)
    out = np.empty(len(thetas))
    # the block length of each tilt: a power of two with |theta| (B - 1) step <= BLOCK_EXPONENT, at
    # most about sqrt(n) (then the factor table and the outer terms both hold ~sqrt(n) per tilt)
    top = 1 << max(0, (math.isqrt(max(n - 1, 0)) + 1).bit_length())
    with np.errstate(divide="ignore"):
        ideal = np.where(np.abs(thetas) * step > 0, BLOCK_EXPONENT / (np.abs(thetas) * step) + 1, top)
    lengths = np.minimum(top, 2.0 ** np.floor(np.log2(np.maximum(ideal, 1.0)))).astype(np.int64)
    for length in np.unique(lengths):
        length = int(length)
        chosen = np.flatnonzero(lengths == length)
        t = thetas[chosen]
        blocks = -(-n // length)
        padded = np.zeros(blocks * length)
        padded[:n] = w
        grid = padded.reshape(blocks, length)
        j = np.arange(length, dtype=np.float64)
        anchor = np.where(t >= 0, 0.0, length - 1.0)  # r of each tilt
        factors = np.exp(np.outer(j, t * step) - anchor[None, :] * (t * step)[None, :])  # (B, tilts)
        inner = grid @ factors  # (blocks, tilts)
        with np.errstate(divide="ignore"):
            logs = np.log(inner)
        starts = base + step * (length * np.arange(blocks, dtype=np.float64))
        logs += np.outer(starts, t) + (anchor * t * step)[None, :]
        peak = np.max(logs, axis=0)
        peak = np.where(np.isfinite(peak), peak, 0.0)
        with np.errstate(under="ignore"):
            out[chosen] = peak + np.log(np.sum(np.exp(logs - peak[None, :]), axis=0))
    return out


#: Largest number of cells :func:`symmetrised` moves a one-step PLD's positive part up to make room.
SYMMETRISE_MAX_SHIFT = 64


def symmetrised(one):
    """The symmetrised pair of an upper one-step PLD ``U`` (replace-one; docs/math.md, "Replace-one
    neighbours"): U's P-masses on losses ``l > 0`` and at ``+inf``; at ``-l`` the mirrored mass
    ``e^{-l} w`` (rounded down); the rest of the unit mass at loss 0 (rounded up). When U's positive
    part is too heavy for a symmetric pair (``sum w (1 + e^{-l}) + inf > 1``: an atom carrying
    nearly all the mass, as randomized response's, with U's rounding margins on it), that part is
    first moved up by 1, 2, 4, ... cells (at most :data:`SYMMETRISE_MAX_SHIFT`), the first shift
    that makes room (each cell lowers every mirrored mass by ``e^{-h}``); the moved U is again an
    upper bound at every ``eps >= 0`` (mass moved to larger losses). None when no shift makes room.

    Why it is an upper bound: a symmetric pair ``S`` (``S ~ swap(S)``) has P-mass ``e^{-l} w`` at
    ``-l`` whenever it has ``w`` at ``l``, so its hockey stick at ``eps >= 0`` uses only the losses
    ``> eps`` (U's), and at ``eps < 0`` it is ``1 - e^eps + e^eps delta_S(-eps)``. Hence ``S``
    dominates, at every ``eps`` in R, every pair whose profile in BOTH orders is below U's at
    ``eps >= 0``. Rounding the mirrored masses down moves mass from ``-l`` up to 0, and the margin
    on the mass at 0 only adds mass: both keep an upper bound (module docstring)."""
    if one.bound != "upper" or one.shift != 0.0:
        raise ValueError("symmetrised() takes an upper one-step PLD on the grid {k h}")
    k = one.offset + np.arange(len(one.masses))
    positive = (k > 0) & (one.masses > 0)
    kp, wp = k[positive], one.masses[positive]
    total = math.fsum(wp)
    for shift in (0, *(1 << i for i in range(SYMMETRISE_MAX_SHIFT.bit_length()))):
        mirror = wp * np.exp(-(kp + shift) * one.step) * (1 - 4 * UNIT)
        rest = 1.0 - one.infinity - (total + math.fsum(mirror))
        if rest >= 0:
            break
    else:
        return None
    kp = kp + shift
    top = int(kp.max()) if len(kp) else 1
    masses = np.zeros(2 * top + 1)  # index j <-> loss (j - top) h
    masses[kp + top] = wp
    masses[top - kp] = mirror
    # 1 - (sums) is exact up to three roundings of numbers <= 1: an absolute 4 ulp covers them
    masses[top] = rest + 4 * UNIT
    return OneStep(one.step, -top, 0.0, masses, one.infinity, "upper")


#: Atoms of P-mass below this are not put into cells (their Q-mass ``P e^{-l}`` may overflow, and a
#: subnormal P-mass has no relative accuracy): the upper bound sends them to +inf, the lower drops
#: them (module docstring: both moves keep their side). An atom of P-mass > 0 at a loss below -700
#: has P-mass < e^{-700} (its Q-mass is at most 1), so every such atom is below this floor.
ATOM_FLOOR = 1e-300


def _atoms_into_cells(pair, grid, p, q, ep, eq):
    """Add the pair's atoms to the cells [grid[i], grid[i+1]) (exact P, Q = P e^{-l}); returns an
    upper bound on the P-mass of the atoms left out (below :data:`ATOM_FLOOR`)."""
    left_out = 0.0
    for loss, weight in pair.atoms:
        if weight < ATOM_FLOOR:
            left_out += weight * (1 + 4 * UNIT) + SUBNORMAL_ERROR if weight > 0 else 0.0
            continue
        i = int(np.searchsorted(grid, loss, side="right")) - 1
        i = min(max(i, 0), len(p) - 1)
        p[i] += weight
        q[i] += weight * math.exp(-loss)
        ep[i] += 4 * UNIT * weight
        eq[i] += 4 * UNIT * weight * math.exp(-loss)
    return left_out


#: Cells next to a finite loss limit (the add direction of a sampled Gaussian starts at
#: ``log(1 - q)``, where much of its mass sits) whose edges :func:`_align_boundary` solves one by one
#: so that their own losses sit at the cells' middles, at most this many from the limit. The
#: neighbour-averaging pass cannot: at (q, sigma) = (1e-3, 0.8), h = 1.5e-4, it left a mean downward
#: move of 0.066 h per step (0.1 h for remove), the solved cells 0.013 h (0.006 h).
BOUNDARY_CELLS = 128
#: Widest re-cut cell, in steps: a wider one would merge outputs of distant losses (a valid lower
#: bound, but one that averages rare large losses into the bulk); where the middle needs more, the
#: averaged edges are kept from there on.
BOUNDARY_WIDTH = 4.0
#: Widest re-cut cell where BOUNDARY_WIDTH does not reach the next middle (the cell after a bulk
#: that sits within a fraction of a cell of the limit): at (q, sigma, h) = (1e-5, 0.5, 4.5e-5) that
#: cell's own loss needed more than 4 h and, left averaged, moved down by 0.51 h with 14 % of the
#: mass (a mean move of 0.074 h a step).
BOUNDARY_WIDE = 64.0
#: A finite loss limit within this fraction of a step below the next grid point (above, for an
#: upper limit), whose cell holds less than this share of the P-mass of the next BOUNDARY_WIDTH
#: steps, starts the walk at the next cell: at (q, sigma, h) = (1e-5, 0.5, 1e-5) the limit
#: log(1 - q) = -1.000005 h left a sliver cell (0.5 % of the mass) whose own loss set the walk's
#: offset (mean move 0.081 h a step).
BOUNDARY_SLIVER = 1.0 / 8
#: The walk stops where a solved edge is within this many steps of the averaged one. It was 1e-2:
#: at (q, sigma, h) = (3e-3, 1.1, 1.8e-4) the next averaged cell's own loss then sat 0.011 h below
#: its middle, the shared shift followed it, and every cell of the bulk moved down by about 0.01 h
#: a step; 1e-3 still left 0.0014 h at (1e-5, 1, 6.5e-7) (a 1e7-step run 4.6e-3 wide).
BOUNDARY_MEET = 1e-5
#: Lattice points a step of the mass table that the edge solves read (:class:`_MassTable`). The
#: table and its polish replaced two, then three, refinements of 64 candidates, each a certified
#: mass call: 0.09-0.14 s per lower one-step PLD of 1e4-1e5 cells, ten times the upper one; now
#: 0.03-0.08 s with own losses within about 1e-5 h of their targets.
BOUNDARY_RESOLUTION = 64
#: Points of the polish of each solved edge (float masses of the pair) per lattice cell of its
#: bracket (the bracket and a cell on each side: 3 BOUNDARY_POLISH + 1 points).
BOUNDARY_POLISH = 16
#: Steps of the first mass table beyond the limit (it grows fourfold when a walk needs more).
BOUNDARY_TABLE = 32.0


class _MassTable:
    """Cumulative P- and Q-masses of ``pair`` on a lattice of BOUNDARY_RESOLUTION points a step over
    ``[low, high]`` (one mass call: the pair's float masses where it has them), linearly interpolated
    in between: the edge solves of :func:`_align_boundary` bracket their root in it, then polish it
    with one mass call of 3 BOUNDARY_POLISH + 1 points (instead of three certified calls of 64
    candidates). The edges are choices (any edges give a valid lower bound); they only decide how
    closely the own losses land on their targets."""

    def __init__(self, pair, low, high, step):
        count = max(2, int(math.ceil((high - low) / step * BOUNDARY_RESOLUTION)))
        # float masses where the pair has them (a choice needs no error bounds), else certified ones
        self.masses = getattr(pair, "float_cell_masses", None) or (lambda edges: pair.cell_masses(edges)[:2])
        self.x = np.linspace(low, high, count + 1)
        p, q = self.masses(self.x)
        self.p = np.concatenate(([0.0], np.cumsum(p)))
        self.q = np.concatenate(([0.0], np.cumsum(q)))

    def own(self, a, b):
        """``log(P/Q)`` of the cell between ``a`` and ``b`` (one mass call; nan or inf where empty)."""
        p, q = self.masses(np.array([min(a, b), max(a, b)]))
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.log(p[0] / q[0]))

    def solve(self, near, far, target):
        """The edge between ``near`` (a fixed edge) and ``far`` at which the cell between them has
        own loss ``target``: for ``far > near`` (walking up from a lower limit: the own loss grows
        with the far edge) the nearest such edge, for ``far < near`` (walking down from an upper
        limit: it shrinks) the farthest; None if the whole range lies on one side of the target or
        reaches beyond the table."""
        if not (self.x[0] <= min(near, far) and max(near, far) <= self.x[-1]):
            return None
        up = far > near
        lo_i = int(np.searchsorted(self.x, min(near, far), side="right"))
        hi_i = int(np.searchsorted(self.x, max(near, far), side="left"))
        x = self.x[lo_i:hi_i]
        x = np.concatenate((x, [far])) if up else np.concatenate(([far], x))
        pn, qn = np.interp(near, self.x, self.p), np.interp(near, self.x, self.q)
        px, qx = np.interp(x, self.x, self.p), np.interp(x, self.x, self.q)
        i = _first_reached(px - pn, qx - qn, target)
        if i is None or (i == 0 and not up):
            return None  # up: even the widest cell is below the target; down: even the widest above
        if i == 0:
            return float(x[0])  # up: the narrowest candidate cell already reaches it
        # polish with the pair's own masses over the lattice bracket, widened by a lattice cell on each
        # side as a guard against an interpolated crossing one cell off (a guard only: the case that
        # prompted it turned out to be the walk's stopping rule, BOUNDARY_MEET)
        lattice = self.x[1] - self.x[0]
        candidates = np.linspace(x[i - 1] - lattice, x[i] + lattice, 3 * BOUNDARY_POLISH + 1)
        candidates = candidates[(candidates > near) if up else (candidates < near)]
        if len(candidates) < 2:
            return float(x[i])
        if up:
            p, q = self.masses(np.concatenate(([near], candidates)))
            dp, dq = np.cumsum(p), np.cumsum(q)
        else:
            p, q = self.masses(np.concatenate((candidates, [near])))
            dp, dq = np.cumsum(p[::-1])[::-1], np.cumsum(q[::-1])[::-1]
        j = _first_reached(dp, dq, target)
        if j is None or j == 0:
            return float(x[i])  # the crossing is not in the widened bracket: the lattice's edge
        g0, g1 = _excess(dp[j - 1], dq[j - 1], target), _excess(dp[j], dq[j], target)
        x0, x1 = candidates[j - 1], candidates[j]
        return float(x0 + (x1 - x0) * (-g0) / (g1 - g0)) if g1 != g0 else float(x1)


def _excess(dp, dq, target):
    """``|dP| e^{-target} - |dQ|``: non-negative exactly where the own loss is at least ``target``."""
    return np.abs(dp) * math.exp(min(max(-target, -700.0), 700.0)) - np.abs(dq)


def _first_reached(dp, dq, target):
    reached = np.flatnonzero(_excess(dp, dq, target) >= 0)
    return int(reached[0]) if len(reached) else None


def _sliver(pair, points):
    """Whether the P-mass between the limit ``points[0]`` and the grid point ``points[1]`` is below
    BOUNDARY_SLIVER of the mass between the limit and ``points[2]`` (BOUNDARY_WIDTH steps further)."""
    edges = np.sort(np.asarray(points, dtype=np.float64))
    p = pair.cell_masses(edges)[0]
    near = p[0] if points[0] < points[1] else p[1]
    return bool(near < BOUNDARY_SLIVER * (p[0] + p[1]))


def _align_boundary(pair, grid, edges, step):
    """Re-cut the cells next to a finite loss limit of an atom-free pair so that each cell's own loss
    is a grid middle ``l_j + h/2`` (module docstring: any edges give a valid lower bound; these make
    the downward moves small): walking away from the limit, each cell takes the next middle at
    least ``h/4`` past its starting edge (cells it skips are left empty), until a solved edge meets
    the averaged one within BOUNDARY_MEET steps (edges solved in a :class:`_MassTable`). Where the
    bulk sits within a fraction of a cell of the limit (q = 1e-5: no cell of at most BOUNDARY_WIDTH
    steps reaches a middle) the limit's cell is kept, the
    other averaged cuts are moved by its own offset, and the walk aims the next cells at that offset
    (hand-off as before), so that one shift places them all
    (at (q, sigma) = (1e-5, 0.5), h = 2.7e-5, the mean move fell from 0.11 h to below 1e-4 h).
    Changes ``edges`` in place."""
    if pair.atoms:
        return
    n = len(edges) - 1
    averaged = edges.copy()
    middles = grid[:-1] + step / 2
    if math.isfinite(pair.min_loss) and grid[0] < pair.min_loss < grid[-1]:
        k = int(np.searchsorted(grid, pair.min_loss, side="right")) - 1
        if (k + 2 < len(grid) and pair.min_loss > grid[k + 1] - BOUNDARY_SLIVER * step
                and _sliver(pair, [pair.min_loss, grid[k + 1], grid[k + 1] + BOUNDARY_WIDTH * step])):
            # the limit sits just below a grid point (q = 1e-5, h = 1e-5: at -1.000005 h) and its cell
            # holds a sliver of the bulk, whose own loss would set the walk's offset: start one up
            k += 1
        # the walk's first cell starts at the limit (the averaging pass may have moved its edge above
        # it: at h = 1.00001e-5 to -0.875 h, leaving 48 % of the mass unaligned below)
        edges[k] = min(edges[k], pair.min_loss)
        left = edges[k]
        extent = BOUNDARY_TABLE
        table = _MassTable(pair, pair.min_loss, min(pair.min_loss + extent * step, grid[-1]), step)
        for step_index in range(BOUNDARY_CELLS):
            j = int(np.searchsorted(middles, max(left, pair.min_loss) + step / 4))
            if j >= n - 1:
                return
            while (left + BOUNDARY_WIDE * step > table.x[-1] and table.x[-1] < grid[-1]
                   and extent < 4 * BOUNDARY_CELLS):  # at most 512 steps: 32 769 table points
                extent *= 4
                table = _MassTable(pair, pair.min_loss, min(pair.min_loss + extent * step, grid[-1]), step)
            top = table.solve(left, left + BOUNDARY_WIDTH * step, middles[j])
            if top is None and step_index > 0:
                top = table.solve(left, left + BOUNDARY_WIDE * step, middles[j])
            if top is None and step_index == 0:
                # the bulk sits within a fraction of a cell of the limit (q = 1e-5): keep its cell, and
                # aim the next cells at ITS offset, so that one shift places them all
                own = table.own(max(left, pair.min_loss), averaged[k + 1])
                if not np.isfinite(own):
                    return
                offset = min(max(own - grid[k], 0.0), step * (1 - 2.0**-20))
                middles = grid[:-1] + offset
                # the cells beyond the walk keep the averaged cuts, moved by the same offset
                edges[k + 2:-1] += offset - step / 2
                averaged = edges.copy()
                k, left = k + 1, edges[k + 1]
                continue
            if top is None:
                return
            edges[k + 1:j + 1] = left  # cells k .. j-1 empty
            edges[j + 1] = top
            if abs(top - averaged[j + 1]) <= step * BOUNDARY_MEET:
                return
            k, left = j + 1, top
    if math.isfinite(pair.max_loss) and grid[0] < pair.max_loss < grid[-1]:
        averaged = edges.copy()
        middles = grid[:-1] + step / 2
        k = int(np.searchsorted(grid, pair.max_loss, side="left")) - 1
        if (k >= 1 and pair.max_loss < grid[k] + BOUNDARY_SLIVER * step
                and _sliver(pair, [pair.max_loss, grid[k], grid[k] - BOUNDARY_WIDTH * step])):
            k -= 1  # the mirror: the limit just above a grid point
        edges[k + 1] = max(edges[k + 1], pair.max_loss)
        right = edges[k + 1]
        extent = BOUNDARY_TABLE
        table = _MassTable(pair, max(pair.max_loss - extent * step, grid[0]), pair.max_loss, step)
        for step_index in range(BOUNDARY_CELLS):
            j = int(np.searchsorted(middles, min(right, pair.max_loss) - step / 4, side="right")) - 1
            if j <= 0:
                return
            while (right - BOUNDARY_WIDE * step < table.x[0] and table.x[0] > grid[0]
                   and extent < 4 * BOUNDARY_CELLS):
                extent *= 4
                table = _MassTable(pair, max(pair.max_loss - extent * step, grid[0]), pair.max_loss, step)
            near = min(right, pair.max_loss)
            bottom = table.solve(near, right - BOUNDARY_WIDTH * step, middles[j])
            if bottom is None and step_index > 0:
                bottom = table.solve(near, right - BOUNDARY_WIDE * step, middles[j])
            if bottom is None and step_index == 0:
                # the mirror of the bulk near the lower limit: keep its cell, aim the others at its offset
                own = table.own(averaged[k], near)
                if not np.isfinite(own):
                    return
                offset = min(max(own - grid[k], 0.0), step * (1 - 2.0**-20))
                middles = grid[:-1] + offset
                edges[1:k] += offset - step / 2
                averaged = edges.copy()
                k, right = k - 1, edges[k]
                continue
            if bottom is None:
                return
            edges[j + 1:k + 1] = right  # cells j+1 .. k empty
            edges[j] = bottom
            if abs(bottom - averaged[j]) <= step * BOUNDARY_MEET:
                return
            k, right = j - 1, bottom


#: A cell, or two adjacent cells, carrying at least this share of the P-mass get the grid centred on
#: their own loss as alternative lower grids (as an atom does; :func:`_heavy_losses`). Where a
#: sampled Gaussian's bulk (q = 1e-5, sigma = 0.5: losses within ~1e-4 of 0) sits inside one cell
#: of a grid made coarse by its long loss range, the plain grid moved that cell down by 6.3e-6 on
#: average, and 10^5 steps moved the lower end from 2.8237 to 2.1914 (delta 1e-10); centred, the
#: mean move is 6e-11. Two cells: SampledGaussian(1.9e-5, 2.71) at step 2.66e-5 has 57 % and 42 %
#: of its mass in two cells; centred on the first, the add direction's mean move was 1.5e-6 (12.7
#: over 8.3e6 steps), on both 4.5e-12 (the remove direction's: 6.5e-6 plain and on the first,
#: 1.1e-7 on both).
HEAVY_CELL_SHARE = 0.5


def _heavy_losses(pair, p, q):
    """The losses the lower grid is centred on as alternatives: the heaviest atom's; else the own
    loss ``log(P / Q)`` of the cell, and that of the two adjacent cells, that carry the most P-mass,
    each when it carries at least :data:`HEAVY_CELL_SHARE` of it (float masses ``p``, ``q`` of the
    plain grid's cells: only a grid offset depends on them, and any offset gives a valid lower bound).
    Two cells: a bulk about a cell wide may straddle an edge."""
    if pair.atoms:
        return [max(pair.atoms, key=lambda atom: atom[1])[0]]
    if len(p) < 2:
        return []
    total = float(np.sum(p))
    both = p[:-1] + p[1:]
    i, j = int(np.argmax(p)), int(np.argmax(both))
    found = []
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        for mass, q_mass in ((p[i], q[i]), (both[j], q[j] + q[j + 1])):
            if mass > 0 and q_mass > 0 and mass >= HEAVY_CELL_SHARE * total:
                own = math.log(mass / q_mass)
                if math.isfinite(own) and own not in found:
                    found.append(own)
    return found


#: The upper grid of a pair with loss atoms has a point ATOM_GAP steps below its heaviest atom
#: (:func:`_atom_shift`): the atom's cell keeps all but about ATOM_GAP of it on that point (the
#: connect-the-dots split). A point exactly on the atom would leave to float rounding which of two
#: cells the atom falls in; measured, 0 and +-2^-20 steps give the same brackets to 1e-9 relative
#: (Laplace(0.5) x 30 at 1e-3, Laplace(1) x 10 at 1e-6, SampledLaplace(1.6e-4, 0.81) x 3.1e6).
ATOM_GAP = 2.0**-20


def _grid_offset(point, step):
    """The offset in [-step, 0) of the grid ``{k step + offset}`` that has ``point`` on it (up to
    float rounding)."""
    return point % step - step


def _atom_shift(pair, step):
    """The offset of the grid that has a point :data:`ATOM_GAP` steps below ``pair``'s heaviest loss
    atom (:func:`_grid_offset`); 0 for a pair without atoms."""
    if not pair.atoms:
        return 0.0
    heaviest = max(pair.atoms, key=lambda atom: atom[1])[0]
    return _grid_offset(heaviest - ATOM_GAP * step, step)


def _centring_offset(centre, step):
    """The offset in [-step, 0) of the grid whose cells are centred on the loss ``centre``."""
    return _grid_offset(centre - step / 2, step)


def _centred_lower_one_step(pair, grid, step, k0, centre):
    """:func:`_lower_one_step` on ``grid`` moved by :func:`_centring_offset` of ``centre``."""
    offset = _centring_offset(centre, step)
    shifted = grid + offset
    masses = [m.copy() for m in pair.cell_masses(shifted)[:4]]
    _atoms_into_cells(pair, shifted, *masses)
    return _lower_one_step(pair, shifted, masses, step, k0, offset)


def discretise(pair, step, bound, tail_z=38.0, max_cells=None, plain_grid=False, negligible_move=0.0):
    """The one-step discrete PLD of ``pair`` on the grid ``{k step}`` bounding it from ``bound``'s
    side (module docstring); an upper one with loss atoms on that grid moved by :func:`_atom_shift`
    unless ``plain_grid`` (:func:`symmetrised` mirrors about 0 on ``{k step}``). A lower one whose
    plain grid moves its P-mass down by at most ``negligible_move`` a step on average (the caller's
    allowance: any grid gives a valid lower bound) skips the alternative grids of
    :func:`_heavy_losses`, each another lower one-step PLD with its boundary walk. Outputs beyond
    ``tail_z`` noise standard deviations: upper: mass below the grid rounded up to its bottom, mass
    above sent to +inf; lower: dropped. None when the grid would have more than ``max_cells`` cells
    (nothing is allocated: a one-step grid costs about 2 KB a cell in temporaries, 1.7 GB at
    771 621 cells)."""
    resolved = getattr(pair, "resolved", None)
    if resolved is not None:  # a pair known only through a computed law (AllocationPair)
        pair = resolved(bound, tail_z)
        if pair is None:
            return None
    low, high = pair.loss_range(tail_z)
    k0 = math.floor(low / step) - 1
    k1 = math.ceil(high / step) + 1
    if pair.atoms:
        k0 = min(k0, math.floor(pair.min_loss / step) - 1)
        k1 = max(k1, math.ceil(pair.max_loss / step) + 1)
    if max_cells is not None and k1 - k0 + 1 > max_cells:
        return None
    ks = np.arange(k0, k1 + 1)
    # upper, with loss atoms: the grid moved by shift in [-step, 0) so that a grid point sits just
    # below the heaviest atom (_atom_shift; any grid gives a valid upper bound). On the plain grid an
    # atom between two points is split between them: Laplace(1) x 10 (atoms at +-1, a step 2 / 1171)
    # had its top at 10.0085, and the bracket at delta 1e-6 ended at 10.00009 where the tight epsilon
    # is 9.99898
    shift = _atom_shift(pair, step) if bound == "upper" and not plain_grid else 0.0
    grid = ks * step + shift
    split = getattr(pair, "upper_cell_masses", None) if bound == "upper" else None
    if split is not None:  # tied atom errors, bounded per tail (random allocation's lattice laws)
        p, q, ep, eq, below, above, l2_cells, l2_tails = split(grid)
    else:
        p, q, ep, eq, below, above = pair.cell_masses(grid)
        l2_cells = l2_tails = None
    continuous = (p, q, ep, eq)  # the cells' masses without the atoms (read only)
    p, q, ep, eq = p.copy(), q.copy(), ep.copy(), eq.copy()
    left_out = _atoms_into_cells(pair, grid, p, q, ep, eq)
    # 1 - e^{-h}: the split below is written with e^{-h} (e^h / (e^h - 1) = 1 / (1 - e^{-h})), so
    # that a coarse grid (h > 709, e.g. the probe of a loss range of 1e6 at sigma = 1e-3) does not
    # overflow
    spread = -math.expm1(-step)
    if bound == "upper":
        ratio = getattr(pair, "edge_ratio", None)
        ratio = np.zeros(len(p)) if ratio is None or len(ratio) != len(p) else np.minimum(ratio, 1.0)
        # Q'_i = e^{l_i} Q_i, from the float masses where e^{l_i} is finite (l_i <= 700); elsewhere
        # (and wherever it is smaller) the lower bound that the cell's losses give: they lie below
        # l_{i+1} plus the edge's overshoot (a fraction ~ sqrt(ratio) of h, _edge_ratio; twice it
        # here), so Q_i >= e^{-l_{i+1} - 2 sqrt(ratio) h} P_i and Q'_i >= e^{-h (1 + 2 sqrt(ratio))} P_i
        with np.errstate(over="ignore", invalid="ignore"):
            x = np.exp(np.minimum(grid[:-1], 700.0))
        finite = grid[:-1] <= 700.0
        overshoot = np.exp(-step * (1 + 2 * np.sqrt(ratio)))

        def q_prime(p, q, ep, eq):
            """Q' = e^{l_i} Q_i from the float masses, and a lower bound on it."""
            with np.errstate(over="ignore", invalid="ignore"):
                qx = np.where(finite, x * q, 0.0)
                eqx = np.where(finite, x * eq * (1 + 4 * UNIT) + 4 * UNIT * x * q, 0.0)
            if l2_cells is None:
                floor = overshoot * np.maximum(p - ep, 0.0) * (1 - 4 * UNIT)
            else:
                # Q'_i here bounds e^{l_i} (Q_i less its tied error) from below: e^{-h'} (P_i less every
                # error) less e^{l_i} |the tied part of Q_i's error|, which is at most l2_cells_i
                floor = np.maximum(overshoot * np.maximum(p - ep - l2_cells, 0.0) * (1 - 4 * UNIT)
                                   - l2_cells * (1 + 4 * UNIT), 0.0)
            return qx, np.maximum(qx - eqx, floor)

        qx, qx_low = q_prime(p, q, ep, eq)
        # edge rounding (see _edge_ratio): a margin of 4 ratio (P + Q') on both split masses. Of the
        # continuous mass only: an atom is put in its cell by its own loss, no edge's rounding moves it
        # (with its mass in, the cell a few ulp wide that a grid point next to the end of Laplace's
        # continuous loss range makes, edge_ratio ~ 1, took the atom into its margin: Laplace(0.5)'s
        # one-step upper PLD had total mass 204)
        if pair.atoms:
            margin_p = continuous[0]
            margin_q = np.maximum(*q_prime(*continuous))
        else:
            margin_p, margin_q = p, np.maximum(qx, qx_low)
        margin = 4 * ratio * (margin_p + margin_q) / spread
        # the right part at its largest, the left part the rest of the cell's largest P-mass: the
        # exact split moved UP (right grows) plus extra mass (the cell's mass error), both keep an
        # upper bound; the cell's total is then P + its error, not P + 2 error / h as when each
        # part carries the error of the cancelling difference (that made T-fold masses drift)
        right_core = np.maximum((p + ep) - qx_low, 0.0) / spread * (1 + 8 * UNIT)
        left = np.maximum((p + ep) * (1 + 4 * UNIT) - right_core, 0.0) + margin
        right = right_core + margin
        masses = np.zeros(len(grid))
        masses[:-1] += left
        masses[1:] += right
        if l2_tails is not None:
            masses[1:] += _l2_tail_masses(l2_tails, ratio, step)
        masses[0] += (below[0] + below[1]) * (1 + 4 * UNIT)  # rounded up to the bottom
        infinity = (above[0] + above[1]) * (1 + 4 * UNIT) + left_out
        return OneStep(step, k0, shift, masses, infinity, "upper")
    # lower (_lower_one_step). A pair with loss atoms also gets the grid whose cells are centred on
    # its heaviest atom (a pair with a heavy cell or pair of cells: on their own loss, _heavy_losses),
    # and keeps whichever moves its P-mass down less on average (any grid gives a valid lower
    # bound). On the plain grid an atom shares its cell with continuous mass on one side only, and
    # the cell moved down by up to a step: SampledLaplace(1.63e-4, 0.81) x 3.1e6 at delta
    # 2.5e-9 had its lower end at 1.140 where the upper end is 1.826 (1.771 centred). Centred alone
    # was worse where a second mechanism's atoms are not a whole number of steps apart (_align serves
    # the first one): RandomizedResponse + Laplace went from [1977.18, 1979.26] to [1972.71, 1979.25]
    # ([1976.15, 1979.28] with the choice of the two)
    found = _lower_one_step(pair, grid, (p, q, ep, eq), step, k0, 0.0)
    if found[1] <= negligible_move:
        return found[0]  # the plain grid's moves are already negligible for the caller
    for centre in _heavy_losses(pair, p, q):
        centred = _centred_lower_one_step(pair, grid, step, k0, centre)
        if centred[1] < found[1]:
            found = centred
    return found[0]


def _lower_one_step(pair, grid, masses, step, k0, offset):
    """The lower one-step PLD on the cells of ``grid`` (``k0`` steps from 0, plus ``offset``), from
    their masses ``(p, q, ep, eq)`` with the atoms in; and the size of its mean move (P-weighted,
    signed: down less the lifted shares' step up; a dropped cell counts a step). Cells whose own
    loss sits near the middle of [l_i, l_{i+1}): one correction pass moves each inner edge by the
    mean deviation (own loss - cell middle) of its two neighbours, which leaves deviations of second
    order; any edges give a valid lower bound (only the size of the downward moves depends on them)."""
    p, q, ep, eq = masses
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        own0 = np.log(p / q)
    dev = np.where(np.isfinite(own0), own0 - (grid[:-1] + step / 2), 0.0)
    dev = np.clip(dev, -step / 4, step / 4)
    edges = grid.copy()
    edges[1:-1] -= (dev[:-1] + dev[1:]) / 2
    edges = np.maximum.accumulate(edges)
    _align_boundary(pair, grid, edges, step)
    edges = np.maximum.accumulate(edges)
    p, q, ep, eq, _, _ = pair.cell_masses(edges)
    p, q, ep, eq = p.copy(), q.copy(), ep.copy(), eq.copy()
    _atoms_into_cells(pair, edges, p, q, ep, eq)
    p_low = p - ep
    q_high = q + eq
    ok = p_low > 0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        own = np.where(ok & (q_high > 0), np.log(p_low / q_high), -np.inf)
        own = np.where(np.isfinite(own), own, -np.inf)  # P/Q overflowed: no bound from it
        # the cell's own loss is also at least its bottom edge less the edge's overshoot (2 sqrt(ratio)
        # of the cell's width, as in the upper bound): the bound that counts where Q is not resolved
        # (huge losses: at sigma = 1e-3 the loss is 5e5, Q underflows and log(p_low / q_high) is
        # only about log(p_low) + 735) or P/Q overflows; such a cell moves down by at most a cell
        ratio = getattr(pair, "edge_ratio", None)
        ratio = np.zeros(len(p)) if ratio is None or len(ratio) != len(p) else np.minimum(ratio, 1.0)
        bottom = edges[:-1] - 2 * np.sqrt(ratio) * (edges[1:] - edges[:-1])
        bottom = bottom - 4 * UNIT * (np.abs(bottom) + 1)
        own = np.where(ok, np.fmax(own, np.where(np.isfinite(bottom), bottom, -np.inf)), -np.inf)
    ok = ok & np.isfinite(own)
    # true own loss >= log(p_low / q_high) >= the float value minus 4 ulp (log of a ratio)
    rel = own - grid[:-1] - 4 * UNIT * (np.abs(own) + np.abs(grid[:-1]) + 1)
    # an own loss lies below the cell's top edge, which is below l_{i+1} + step/4
    rel = np.where(ok, np.minimum(rel, 1.25 * step), -np.inf)
    rho = _best_shift(rel, np.where(ok, p_low, 0.0), step)
    idx = np.arange(len(rel))
    # atom i goes to the largest grid point l_j + rho <= own loss: j = i + floor((rel - rho)/step)
    index = idx + np.floor(np.where(ok, rel - rho, 0.0) / step).astype(np.int64)
    keep = ok & (index >= 0)
    moved = np.where(keep, rel - ((index - idx) * step + rho), 0.0)
    slots = len(grid) + 2
    masses, lifted = _lifted_masses(index[keep] + 1, moved[keep], p_low[keep], (p + ep)[keep], step, slots,
                                    UNIT * (np.abs(own) + np.abs(grid[:-1]) + 1)[keep])
    total = float(np.sum(np.where(ok, p_low, 0.0)))
    move = (float(np.sum(np.where(keep, p_low * moved, 0.0))) - lifted * step
            + float(np.sum(np.where(ok & ~keep, p_low, 0.0))) * step) / total if total > 0 else math.inf
    return OneStep(step, k0 - 1, rho + offset, masses, 0.0, "lower"), abs(move)


#: Relative margins of the lifted shares' float sums and quotients (:func:`_lifted_masses`): a slot's
#: sum of n terms errs by at most (n - 1) u relative, far below 1e-12 for n < 4000.
LIFT_SUM_MARGIN = 1e-12
LIFT_SHARE_MARGIN = 1e-9


def _lifted_masses(slot, moved, p_low, p_high, step, slots, scale):
    """The lower one-step masses from atoms at slots ``slot`` (each at a grid point at most its own
    loss, ``moved`` above it; true P-mass in [p_low, p_high]), with a share of each slot's atoms
    merged into the next slot's group: a merge (a post-processing) whose own loss is still at least
    the next grid point, because the next slot's atoms' excess ``P - e^g Q`` pays for the lifted
    atoms' deficit. ``scale``: the float error scale of each ``moved`` (units of u). Returns
    ``(masses, lifted P-mass)``."""
    # a lower bound of each atom's true height above its grid point (its float error: a few u of the
    # operands of rel and of the subtraction); the excess and deficit products (a sum, expm1 and a
    # product: each a few u) rounded down and up by 8 u
    above = np.maximum(moved - 8 * (scale + 3 * UNIT * step), 0.0)
    excess = p_low * -np.expm1(-above) * (1 - 8 * UNIT)
    deficit = p_high * np.expm1((step - above) * (1 + 2 * UNIT)) * (1 + 8 * UNIT)
    ex = np.bincount(slot, weights=excess, minlength=slots + 1) * (1 - LIFT_SUM_MARGIN)
    de = np.bincount(slot, weights=deficit, minlength=slots + 1) * (1 + LIFT_SUM_MARGIN)
    mass = np.bincount(slot, weights=p_low, minlength=slots + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # c_j >= f_j: the share slot j can lift at most; f_j: slot j's lifted share, paid by what slot
        # j + 1 keeps, (1 - f_{j+1}) ex_{j+1} >= (1 - c_{j+1}) ex_{j+1}
        c = np.where(de[:-1] > 0, np.minimum(1.0, ex[1:] / de[:-1]), 0.0)
        f = np.zeros(slots + 1)
        share = np.where(de[:-2] > 0, np.minimum(1.0, (1 - c[1:]) * ex[1:-1] / de[:-2]), 0.0)
        f[:-2] = share * (1 - LIFT_SHARE_MARGIN)
    f = np.where(np.isfinite(f), np.clip(f, 0.0, 1.0), 0.0)
    kept = (1 - f) * mass
    masses = kept[:slots] * (1 - 4 * UNIT)
    masses[1:] += (f * mass)[:slots - 1] * (1 - 4 * UNIT)
    return masses, float(np.sum(f * mass))


def _l2_tail_masses(tails, ratio, step):
    """Masses at the top edges ``l_{i+1}`` of the cells whose tail sums bound, at every level, the
    upper one-step PLD's error from a pair's tied atom errors (``upper_cell_masses``: random
    allocation's lattice laws; docs/math.md, "Errors in L2: one bound for the whole tail"). The
    split of a cell is linear in its masses; the error of the P-masses at or above ``l_k``, with
    cell ``k - 1``'s right part, is a sum of atom errors each
    weighted by at most ``(1 - e^{-h'}) / (1 - e^{-h})`` (``h'``: the cell with its edge's
    overshoot), at most ``tails[k - 1]`` times that weight; so mass ``w (tails[i] - tails[i+1])`` at
    ``l_{i+1}``, ``w`` the largest weight, rounded up."""
    grown = -np.expm1(-step * (1 + 2 * np.sqrt(np.max(ratio, initial=0.0)))) / -math.expm1(-step)
    weight = max(float(grown), 1.0) * (1 + 16 * UNIT)
    # tails is non-increasing (a running sum of non-negative terms from the top, rounded monotonically):
    # each difference is non-negative and exact or within an ulp of itself (2 ulp of the weight cover it)
    return np.maximum(tails[:-1] - tails[1:], 0.0) * weight


def _best_shift(rel, weight, step):
    """The shift rho in [0, step) minimising the expected downward move
    E[rel - rho] + step P(rel < rho) (weights ``weight``), over candidate values of ``rel``."""
    good = np.isfinite(rel) & (weight > 0)
    r, w = rel[good], weight[good]
    if len(r) == 0:
        return 0.0
    r = np.clip(r, 0.0, step)
    order = np.argsort(r)
    r, w = r[order], w[order]
    below = np.concatenate(([0.0], np.cumsum(w)[:-1]))  # weight strictly below candidate r_j
    cost = -r + step * below / w.sum()
    return float(r[int(np.argmin(cost))])
