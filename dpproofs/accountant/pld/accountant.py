"""Tight (privacy-loss distribution) accounting with a certified bracket: :class:`PLDAccountant`.

The accountant composes the privacy-loss distributions (PLDs) of its mechanisms and reports the
tight ``epsilon(delta)`` of the composition as a bracket ``(lower, upper)`` that provably contains
the exact value; :meth:`PLDAccountant.epsilon` is the upper end (a certified upper bound).

How (the discretisation and its proofs are in :mod:`dpproofs.accountant.pld.discretise`, section "Vectorised
certified discretisation"):

* every mechanism gives its own neighbouring pair per direction
  (:meth:`dpproofs.mechanisms.Mechanism.pld_pairs`, pairs of :mod:`dpproofs.math.pairs`): a sampled
  one has two (``SampledGaussian``: ``add``: P = (1-q) N(0,s^2) + q N(1,s^2) vs Q = N(0,s^2);
  ``remove``: the reverse; ``SampledLaplace`` likewise with Laplace components), the others are
  symmetric and have one. Each direction is composed separately and the larger of the two
  composed hockey-stick curves is taken (the same neighbouring relation holds at every step);
* each one-step PLD is replaced by an upper (connect-the-dots; Doroshenko, Ghazi, Kamath, Kumar &
  Manurangsi 2022, arXiv:2207.04380v1) and a lower (own losses moved down onto a shifted grid)
  discrete PLD on a grid of step ``h``; both are composed by one real FFT each, a pointwise power
  and one inverse FFT on a window chosen from Chernoff tail bounds, after exponential tilting;
  FFT round-off is bounded from Higham (2002) Theorem 24.2 and the data, wrapped-around tail mass
  from Chernoff bounds, float errors of the one-step masses from the accuracy of ``ndtr``; every
  error is turned into a move of mass that keeps the bound's side;
* ``h`` is chosen from the target relative width (default ``1e-3``): a coarse first pass, then
  refinement until the bracket is narrow enough; brackets from several passes are intersected;
* trivial cases are answered exactly, before any grid: where the composition's total variation
  bound ``1 - prod_i (1 - tv_i)^{n_i}`` (each mechanism's own
  :meth:`~dpproofs.mechanisms.Mechanism.total_variation`, composed by
  :func:`dpproofs.math.total_variation.composed`) is at most ``delta``, the privacy profile at 0 is
  at most ``delta`` and the tight epsilon is exactly 0 (``Bounds(0, 0, "exact")``; docs/math.md,
  "pld: trivial cases"); where the RDP bound is 0, so is the tight epsilon;
* where the tight computation cannot meet its budget (too many grid cells, or a round-off bound
  too large, e.g. at extreme ``delta`` or very long runs) the answer falls back to the RDP bound
  of :class:`dpproofs.Accountant` (also an upper bound). The result's ``source`` says which:
  ``"pld"`` (the bracket is the tight computation's) or ``"rdp"`` (upper end from RDP; lower end
  the best PLD lower bound found, else 0).
"""

import math
from collections.abc import Sequence

import numpy as np
from scipy import special

from dpproofs import _validate
from dpproofs.accountant.base import Bounds, PrivacyAccountant
from dpproofs.accountant.rdp import DEFAULT_ORDERS, Accountant
from dpproofs.accountant.pld import allocation as _allocation  # noqa: F401 (registers the AllocationPair resolver)
from dpproofs.accountant.pld import compose as _compose
from dpproofs.accountant.pld import discretise as _pld
from dpproofs.accountant.pld import gaussian_closed_form as _gaussian
from dpproofs.math import conversions, total_variation
from dpproofs.mechanisms import Mechanism

__all__ = ["PLDAccountant", "Bounds", "DEFAULT_RELATIVE_WIDTH", "DEFAULT_DELTA_RELATIVE_WIDTH"]

#: Default target relative width (upper - lower) / upper of a bracket.
DEFAULT_RELATIVE_WIDTH = 1e-3
#: Default target relative width of a delta bracket (delta moves ~10x faster than epsilon).
DEFAULT_DELTA_RELATIVE_WIDTH = 1e-2
#: Least growth of the tail allowance's z (standard deviations) for which delta's search resizes it
#: from a pass's lower end and repeats the pass (below it the tails already sit far under the gap).
TAIL_Z_RESIZE = 0.05
#: Relative width of a PLD bracket beyond which a cheap provisional RDP bound (random allocation's
#: Gaussian one) is replaced by the mechanism's own, which may be below the bracket's upper end; not
#: at every missed width, since allocation's own RDP bound is a quadrature per order (17-26 s).
RDP_CHECK_WIDTH = 0.1
#: Largest refinement of a computed law's lattice (random allocation) when a bracket stops narrowing:
#: each doubling about doubles the law's cost; measured at 4x (120 cells a standard deviation of one
#: Y), five 100-epoch rows of the allocation grid went from 1.1e-3..2.8e-3 wide to 2e-4..6.5e-4.
MAX_LATTICE_REFINEMENT = 4
#: Largest factor by which a computed law's composition windows (random allocation: MAX_LATTICE cells
#: a window) grow, asked for when a finer lattice is over that budget. At (t, sigma, E, delta) =
#: (10^4, 0.6, 100, 1e-12) the default windows leave the untilted bulk's round-off over the one-epoch
#: losses 1 to 3.3 (P-mass bounds 4.6e-7 above loss 1 where the lower law has 2.2e-11), and over 100
#: epochs the upper end was 6.9 (the RDP bound 5.71 answered); windows of 2^23 cells fit the bulk's
#: tilted sums, and the bracket is [4.98986, 4.99289] (15 s a pass, 8.4 GB at the peak).
MAX_LAW_WINDOWS = 2
#: Fitted order of convergence in the grid step below which a computed law's bracket is taken to be
#: held by the law's lattice (PLDAccountant._search: its lattice is refined at the same grid step). The
#: grid's own errors shrink with order 1 to 2. At (t, sigma, E, delta) = (437, 15.6, 50, 3.9e-5) the
#: widths went 5.2e-3, 4.4e-3, 2.4e-3, 2.1e-3 over steps 2.7, 6.3 and 3.4 times finer (orders 0.17,
#: 0.34, 0.10) and the search ended 2.1e-3 wide; on a lattice twice and four times finer, 7.5e-4.
LATTICE_ORDER = 0.5
#: The grid width model of the first step (PLDAccountant._search): relative width ~ WIDTH_MODEL z T h^2 /
#: (sd epsilon). Fitted on four rows of the peer grid (0.097..0.138: the Abadi points, (1e-3, 10, 1e5,
#: 1e-6), (5e-4, 2, 1e5, 1e-8)); 1/8 is the spread's h^2/4 variance in a Gaussian-like sum.
WIDTH_MODEL = 0.125
#: Share of the RDP epsilon taken as the answer in the width model (the RDP bound is 10-50 % high).
WIDTH_MODEL_EPSILON = 0.8
#: Largest factor by which the width model may refine the spread's first step.
WIDTH_MODEL_REACH = 4.0
#: Default largest composition window, in grid cells (a power of two).
DEFAULT_MAX_CELLS = 1 << 21
#: Share of the target delta that the one-step tails beyond the loss grid may carry in total.
TAIL_SHARE = 3e-5
#: The bulk/jump split is tried for a direction whose single-tilt bracket is wider than this
#: many times the target (a refinement pass narrows ordinary brackets enough; the split costs
#: several FFTs and only pays where rare large losses carry the answer and the single tilt's
#: bracket stays wide).
SPLIT_AFTER = 4.0
#: ... and wider than this relative width in any case (ordinary first passes are narrower).
SPLIT_WIDTH = 0.005
#: ... but on the search's first pass only above this width (a refinement usually narrows such a
#: first bracket for less than the split costs: at (0.5, 20, 1e5, 1e-12) the split tried on the
#: first pass tripled the call's time and changed neither end)
SPLIT_FIRST_WIDTH = 0.05
#: The first grid step is the composed loss's standard deviation divided by this (the first
#: pass's lower end is O(h) loose, so a coarse first pass is mostly wasted).
INITIAL_CELLS_PER_SD = 1500
#: The order of convergence assumed when planning the second pass's step (width ~ h^order; later
#: passes fit it), and the share of the width target the planned pass aims at.
PLANNING_ORDER = 2.0
#: Runs of at most this many steps start at a grid step of at least INITIAL_EPSILON_SHARE x the
#: width target x the RDP epsilon (a floor on the composed-spread step above): their answer is
#: carried by few steps' losses, whose grid error is about a step each. Measured on the peer grid
#: (benchmarks/pld_peer_grid.py, rows in one process): (1e-4, 1, 1000, 1e-12) 0.41 -> 0.13 s,
#: (4.9e-4, 0.889, 866, 1e-12) 0.49 -> 0.08 s, (2.4e-4, 0.658, 3078, 1.6e-11) 0.49 -> 0.06 s, no
#: row slower; without the gate, long runs got slower (the lower end's per-step moves add up over
#: T steps and ask for a finer grid: (1e-6, 1, 1e7) 2.1 -> 4.7 s). A share of 0.2 made 8 rows slower.
SHORT_RUN = 10**4
INITIAL_EPSILON_SHARE = 0.1
#: Share of the target width that a lower one-step PLD's mean downward move may cost over the run
#: before its alternative grids are tried (discretise's ``negligible_move``: this share times the
#: target times the planning epsilon, WIDTH_MODEL_EPSILON x the RDP bound, then each pass's upper end
#: where smaller, over the total step count). Each alternative is another lower one-step PLD with its boundary walk: at (q, sigma, T,
#: delta) = (1e-4, 1, 1000, 1e-12) the plain grid moved 1.4e-7 h (add) and 1.5e-9 h (remove), the
#: alternatives slightly more, and the three cost 73 ms instead of 25 a pass (the call: 0.27 s ->
#: 0.18 s, the same bracket). A tolerance of 1e-6 h instead, blind to T, lowered the lower end of
#: (1e-4, 2, 10^9, 1e-6) from 8.791 to 8.604.
NEGLIGIBLE_DRIFT_SHARE = 0.01
PLANNING_MARGIN = 0.7
#: The calibration's fixed grid step is the composed loss's standard deviation (at the RDP sigma)
#: divided by this (its upper end is then within ~1e-4 of its limit).
CALIBRATION_CELLS_PER_SD = 1700
#: Refinement passes before giving up on the width target.
MAX_PASSES = 6
#: Largest one-step privacy loss (in absolute value, over the loss range kept) a grid is built for;
#: beyond it the answer is the RDP bound. The grid machinery was seen to fail past ~1e40 (at
#: Gaussian(5e-21), loss 2e40, a KeyError on a nan tilt; at Gaussian(1e-22), loss 5e43, an upper end
#: of 0 where epsilon is about 5e43: wrong). 1e15 keeps every loss and its grid positions within
#: float64's exact-integer range times the step, far below both, and every sigma above ~2e-8.
MAX_ONE_STEP_LOSS = 1e15
#: A first pass's Chernoff order for delta above TILT_CHECK is compared with the order whose tilted
#: mean is the RDP epsilon (an upper bound on the answer), and replaced by it where it is more than
#: TILT_OVERSHOOT times larger (:meth:`PLDAccountant._tilt`; any theta >= 0 is valid). Below 2000
#: (the former largest tilt) no comparison is made where no mechanism has loss atoms: it costs a
#: second tilt choice, 0.6 ms at the Abadi point. Legitimately large orders (tiny epsilon) have both
#: orders large. With atoms the comparison is always made: at Laplace(1) x 10, delta = 1e-3, the top
#: atom (P-mass 2^-10 at loss 10) draws the Chernoff order to 126 and then 423, where the lower
#: composition underflows below the top cells: [0, 9.627] (the RDP bound) after two passes; the
#: order whose tilted mean is the RDP epsilon is 2.8.
TILT_CHECK = 2000.0
TILT_OVERSHOOT = 10.0
#: A pass whose single tilt gives no bracket tilts its bulk/jump split at the RDP bound's half, then
#: at the earlier passes' epsilon (:meth:`PLDAccountant._attempt_split`); in the other order where
#: the RDP half is more than SPLIT_HINT_FAR times that epsilon (an RDP bound far above the answer: a
#: stand-in's, 4.1e5 at (1e-4, 0.7, 1e5, 1e-6) under replace-one, where a split tilted at its half
#: costs 0.7 s and answers [0, 1.1e4]; or RDP's own at tiny q and delta, 18 times the answer 0.088 at
#: (1.27e-5, 0.7909, 351810, 1.2e-10)). At (1e-4, 0.6, 1e6, 1e-12) the RDP half is 0.58 times the
#: earlier epsilon and goes first (the split tilted at the latter is over budget there). Any tilt is
#: valid; only the time and the width change.
SPLIT_HINT_FAR = 2.0
#: A split bracket wider than this ratio (upper / lower), from a guess above its lower end, is
#: computed once more with its tilts at that lower end (:meth:`PLDAccountant._attempt_split`).
SPLIT_REHINT = 2.0
#: A later direction of a sampled mechanism (``remove`` after ``add``) is first composed on a grid
#: DOMINATED_COARSENING times coarser, where its Chernoff epsilon there, at the first direction's
#: tilt, is at least DOMINATED_GATE (relative) below the first direction's at the pass's step (two
#: evaluations of K, not a search over orders): its upper end at the coarse grid is
#: valid, and where it is at most the first direction's lower end it changes neither end of the
#: maximum (:meth:`PLDAccountant._dominated_coarsely`); otherwise the direction is composed at the
#: pass's step, as without the check. At the Abadi points the remove direction is 1.0 % and 0.5 %
#: below (Chernoff: 1.3 % and 0.7 %), and its upper end two steps coarse, 0.93836 and 2.02455, is
#: under the add direction's lower end, 0.94670 and 2.03265 (four steps coarse: 2.03378 at T = 4e4,
#: above); at (1e-4, 50, 1e6, 1e-5) the two directions' Chernoff epsilons are 1e-4 apart and the
#: gate keeps the fine composition.
DOMINATED_COARSENING = 2.0
DOMINATED_GATE = 0.005
#: The Rényi orders of the provisional RDP bound an epsilon search starts from (its planning input
#: and the answer's cap): the default orders up to 64. The default grid's orders above 64 are
#: integers costing O(alpha) each for a sampled Gaussian: 2.1 of the 3.4 ms of its RDP curve, out
#: of a 13 ms call at the Abadi point. Any subset of orders gives a valid (larger or equal) bound;
#: where its best order is its largest (64) the whole default grid is used from the start, and
#: otherwise the whole grid is computed only where the answer is read from RDP or the bracket is
#: wide (as for a dominating stand-in, :meth:`PLDAccountant._rdp_quick`).
PLANNING_ORDERS = tuple(order for order in DEFAULT_ORDERS if order <= 64)
#: The own RDP bound of a ledger whose curves are costly (one with a dominating stand-in,
#: :meth:`PLDAccountant._rdp_quick`) is computed on the default orders in increasing chunks of this
#: many, and stops where no larger order can give a smaller epsilon (:meth:`PLDAccountant._own_rdp_epsilon`).
#: Random allocation's remove-direction curve is a quadrature per order: at (t, sigma, k, E) =
#: (100, 0.33, 3, 16) the whole grid took 80 s of a 100 s call.
OWN_RDP_CHUNK = 16
#: Relative margin of that stop (the float curves' monotonicity in the order holds to about 1e-10).
OWN_RDP_STOP_MARGIN = 1e-6


def _exact_zero():
    result = Bounds(0.0, 0.0, "exact")
    result.target_met = True
    return result


#: Neighbouring relations (``relation=`` of the constructor).
RELATIONS = ("add_remove", "replace_one")

def _pairs(mechanism):
    """``{"add": pair, "remove": pair}`` under add/remove for a mechanism with non-zero privacy
    loss, else None: the mechanism's own :meth:`~dpproofs.mechanisms.Mechanism.pld_pairs`."""
    return mechanism.pld_pairs("add_remove")


def _replace_one_plan(mechanism):
    """Under replace-one, ``(dominating, {"R0": directions, "R1": directions})`` or None: the
    mechanism's own :meth:`~dpproofs.mechanisms.Mechanism.pld_pairs` (the upper end composes the
    SYMMETRISED dominating pair, :func:`dpproofs.accountant.pld.discretise.symmetrised`; the lower
    end the best realised neighbouring datasets)."""
    return mechanism.pld_pairs("replace_one")


def _exact_directions(mechanism):
    """Under replace-one, the mechanism's realised pair R1 when it is also its dominating pair (the
    same object for both orders: a symmetric pair that dominates every configuration at every
    epsilon and is realised, e.g. the Gaussian at sensitivity 2 or Poisson sampling's two-sided
    mixture), else None. Such a pair is accounted like an add/remove pair: both ends compose it."""
    plan = _replace_one_plan(mechanism)
    if plan is None:
        return None
    dominating, realised = plan
    r1 = realised.get("R1")
    if r1 is not None and r1["add"] is dominating and r1["remove"] is dominating:
        return r1
    return None


def _tail_z(tail):
    """Standard deviations beyond which a normal tail is below ``tail`` (clamped to [6, 38])."""
    tail = min(max(tail, 1e-320), 1e-9)
    return float(min(38.0, max(6.0, -special.ndtri(tail))))


def _fitted_order(seen, step, width):
    """The order of convergence of a bracket's relative width in the grid step, from the last finished
    pass in ``seen`` ((step, width) pairs) to this one (``step``, ``width``); inf when it cannot be
    fitted (no earlier pass, the same or a coarser step, a width not finite or not positive)."""
    if not seen or not (math.isfinite(width) and width > 0):
        return math.inf
    last_step, last_width = seen[-1]
    if not (last_step > step and math.isfinite(last_width) and last_width > 0):
        return math.inf
    return math.log(last_width / width) / math.log(last_step / step)


class PLDAccountant(PrivacyAccountant):
    """Tight accountant over privacy-loss distributions (see the module docstring).

    ``relative_width``: target (upper - lower) / upper of the brackets, in ``[1e-6, 0.5]``.
    ``max_cells``: largest composition window in grid cells, in ``[2**10, 2**26]``.
    ``grid_step``: a fixed grid step instead of the adaptive choice (one pass), in ``(0, 1]``.
    ``delta_relative_width``: the same target for :meth:`delta_bounds`, in ``[1e-6, 0.5]``.
    ``relation``: ``"add_remove"`` (default) or ``"replace_one"`` (one record changed). sigma is
    always the noise standard deviation divided by the clipping norm C; under replace-one the
    clipped sum moves by up to 2C and the accountant accounts for it (never rescale sigma).
    Under replace-one, a composition of mechanisms whose dominating pair is realised and symmetric
    (``Gaussian``, Poisson ``SampledGaussian``: docs/math.md, "Poisson sampling under replace-one:
    the dominating pair") is accounted exactly like an add/remove one (:func:`_exact_directions`).
    Otherwise (fixed-size batches) the bracket is ``(lower, upper)`` with ``upper`` from the
    symmetrised dominating pair and ``lower`` from neighbouring datasets that exist (see
    :func:`_replace_one_plan`): the exact worst case over datasets lies in between, and the gap
    between the two is the analysis', not the grid's (``target_met`` is then often False).

    Results are :class:`Bounds`; ``result.target_met`` says whether the width target was met
    within the budget (if not, the bracket is still valid, only wider). Every query takes one
    value or a sequence (then a list), as the interface :class:`dpproofs.accountant.base.PrivacyAccountant`.
    """

    kind = "pld"

    def __init__(self, *, relative_width: float = DEFAULT_RELATIVE_WIDTH, max_cells: int = DEFAULT_MAX_CELLS,
                 grid_step: float | None = None, delta_relative_width: float = DEFAULT_DELTA_RELATIVE_WIDTH,
                 relation: str = "add_remove") -> None:
        self._relation = _validate.choice("relation", relation, RELATIONS)
        self._relative_width = _validate.real("relative_width", relative_width, 1e-6, 0.5)
        self._delta_relative_width = _validate.real("delta_relative_width", delta_relative_width, 1e-6, 0.5)
        self._max_cells = _validate.integer("max_cells", max_cells, 1 << 10, 1 << 26)
        self._grid_step = None if grid_step is None else _validate.real("grid_step", grid_step, 0, 1, low_open=True)
        self._ledger = {}  # mechanism -> steps (in order of first compose)
        self._cache = {}   # (mechanism, direction, bound, h, tail_z) -> OneStep
        self._hint = None  # a rough epsilon (the RDP bound's half) for tilts of the bulk/jump split
        self._tilt_epsilon = None  # the last pass's epsilon, at which the next pass centres its tilt
        self._tilt_cap_epsilon = None  # the RDP epsilon of an epsilon search (see _tilt)
        self._atom_ledger = False  # a mechanism of the search has loss atoms (see _tilt)
        self._negligible_move = 0.0  # a lower one-step PLD's negligible mean move (NEGLIGIBLE_DRIFT_SHARE)
        self._lattice_refinement = 1  # computed laws (random allocation) on lattices this many times finer
        self._law_windows = 1  # ... with composition windows up to this many times their default
        self._only_constant = False  # the last pass's upper delta was its grid-free constant alone
        self._first_pass = True  # the search's first pass: the split is tried there only when wide
        # the last search met a grid over its budget (a one-step grid, or a single tilt's window): a
        # fixed grid_step that does not serve this ledger (calibrate_sigma's coarse search reads it)
        self._over_budget = False
        self._pairwise = self._relation == "add_remove"  # set per query by _active()

    # --- composition -------------------------------------------------------------------------

    def compose(self, mechanism: Mechanism, steps: int = 1) -> "PLDAccountant":
        """Add ``steps`` (an integer >= 0) applications of ``mechanism``; return ``self``. A failed
        compose leaves the accountant unchanged."""
        return super().compose(mechanism, steps)

    def _compose_checked(self, mechanism, steps):
        steps = _validate.integer("steps", steps, 0)
        if steps:
            self._ledger[mechanism] = self._ledger.get(mechanism, 0) + steps

    @property
    def ledger(self) -> list[tuple[Mechanism, int]]:
        """The composed mechanisms as a list of ``(mechanism, steps)`` (a copy)."""
        return list(self._ledger.items())

    def _plan(self, mechanism):
        return _pairs(mechanism) if self._relation == "add_remove" else _replace_one_plan(mechanism)

    def _active(self):
        """The ledger with each mechanism that has :meth:`~dpproofs.mechanisms.Mechanism.pld_components`
        replaced by that dominating composition (``self._decomposed`` then says the lower end is
        not a lower bound of the ledger), and mechanisms of zero privacy loss left out."""
        active = {}
        self._decomposed = False
        # every mechanism's pairs composed as add/remove pairs: under add/remove, and under
        # replace-one when every mechanism's dominating pair is realised (_exact_directions)
        self._pairwise = self._relation == "add_remove"
        for m, n in self._ledger.items():
            parts = m.pld_components() if n > 0 else None
            if parts is not None:
                self._decomposed = True
            for part, count in parts or ((m, 1),):
                if n > 0 and self._plan(part) is not None:
                    active[part] = active.get(part, 0) + n * count
        if not self._pairwise:
            self._pairwise = all(_exact_directions(m) is not None for m in active)
        return list(active.items())

    def _directions(self, mechanism):
        """``{"add": pair, "remove": pair}`` composed for ``mechanism`` when ``self._pairwise``."""
        return _pairs(mechanism) if self._relation == "add_remove" else _exact_directions(mechanism)

    def _rdp(self, orders=None):
        acc = Accountant(orders, relation=self._relation)
        for mechanism, steps in self._ledger.items():
            acc.compose(mechanism, steps)
        return acc

    def _own_rdp_epsilon(self, delta):
        """The ledger's own RDP epsilon at ``delta``: the minimum over the default orders, visited in
        increasing chunks of :data:`OWN_RDP_CHUNK`. Rényi divergences are non-decreasing in the order
        (van Erven & Harremoës 2014, arXiv 1206.2459v2, Theorem 3), so after a chunk whose last order
        is beta, every larger order's epsilon is at least the conversion of the constant curve at the
        composed RDP of beta (the conversion grows with the RDP value); once the smallest of those
        exceeds the best epsilon found (by a relative margin, :data:`OWN_RDP_STOP_MARGIN`), the
        remaining orders are not computed. Any subset of orders gives a valid bound; this one is the
        whole grid's minimum wherever the computed curves are non-decreasing in the order like the
        divergences they bound (tests compare the two)."""
        log_delta = math.log(delta)
        return self._own_rdp_bound(
            lambda accountant: accountant.epsilon(delta),
            lambda level, terms: conversions.epsilon_at("improved", level, terms, log_delta))

    def _own_rdp_delta(self, epsilon):
        """The ledger's own RDP delta at ``epsilon``, by chunks as :meth:`_own_rdp_epsilon` (the log
        delta conversion grows with the RDP value too)."""
        return self._own_rdp_bound(
            lambda accountant: accountant.delta(epsilon),
            lambda level, terms: np.exp(conversions.log_delta_at("improved", level, terms, epsilon)))

    def _own_rdp_bound(self, bound_of, floor_of):
        orders = sorted(DEFAULT_ORDERS)
        best = math.inf
        for start in range(0, len(orders), OWN_RDP_CHUNK):
            chunk, rest = orders[start:start + OWN_RDP_CHUNK], orders[start + OWN_RDP_CHUNK:]
            accountant = self._rdp(tuple(chunk))
            best = min(best, bound_of(accountant))
            if not rest:
                break
            rest = np.array(rest)
            level = np.full(len(rest), float(accountant.rdp[-1]))
            with np.errstate(over="ignore", invalid="ignore"):
                floor = float(np.min(floor_of(level, conversions.order_terms(rest))))
            if floor > best * (1 + OWN_RDP_STOP_MARGIN) + OWN_RDP_STOP_MARGIN:
                break
        return best

    def _rdp_quick(self):
        """The RDP accountant of the ledger with each mechanism whose own RDP curve is costly
        (``rdp_dominating(relation)`` not None: random allocation's remove direction is a quadrature per
        order, 5 s for one epoch; a sampled Gaussian's replace-one curve, 50 ms cold) replaced by a
        cheap dominating one; None when no mechanism has one. Its bound is valid and looser: the PLD
        search starts from it, and the exact RDP bound is computed only where the answer falls back
        to RDP or the bracket is wide (:meth:`_search`)."""
        swapped = {m: m.rdp_dominating(self._relation) for m in self._ledger}
        if all(v is None for v in swapped.values()):
            return None
        acc = Accountant(relation=self._relation)
        for mechanism, steps in self._ledger.items():
            acc.compose(swapped[mechanism] or mechanism, steps)
        return acc

    # --- queries -----------------------------------------------------------------------------

    def epsilon(self, delta: float | Sequence[float]) -> float | list[float]:
        """A certified upper bound on the tight epsilon at ``delta`` (in ``(0, 1)``; or a list for
        a sequence): the upper end of :meth:`epsilon_bounds`. (A search on the upper end alone needs two passes to see that
        it converged, where the bracket usually meets its width target in one: at the Abadi
        point 0.29 s against 0.04 s. Calibration, at a fixed grid step, uses the upper end alone.)"""
        return super().epsilon(delta)

    def epsilon_bounds(self, delta: float | Sequence[float]) -> Bounds | list[Bounds]:
        """:class:`Bounds` ``(lower, upper)`` containing the tight epsilon at ``delta`` (or a list)."""
        return super().epsilon_bounds(delta)

    def _epsilon_one(self, delta):
        return self._epsilon_search(delta, upper_only=False).upper

    def _epsilon_bounds_one(self, delta):
        return self._epsilon_search(delta, upper_only=False)

    def _epsilon_search(self, delta, upper_only):
        delta = _validate.real("delta", delta, 0, 1, low_open=True, high_open=True)
        active = self._active()
        if not active or self.total_variation_bound() <= delta:
            # the profile at 0 is at most the total variation bound, and the profile is
            # non-increasing: epsilon(delta) = 0 exactly (docs/math.md, "pld: trivial cases")
            return _exact_zero()
        closed = self._gaussian_closed_form(active, delta=delta)
        if closed is not None:
            return closed
        quick = self._rdp_quick()
        exact_rdp = lambda: self._rdp().epsilon(delta)  # noqa: E731 (the whole default grid, when asked)
        if quick is not None:
            rdp_eps = quick.epsilon(delta)
            exact_rdp = lambda: self._own_rdp_epsilon(delta)  # noqa: E731 (costly curves: by chunks)
        else:
            rdp_eps, order = self._rdp(PLANNING_ORDERS).epsilon_and_order(delta)
            if not order < PLANNING_ORDERS[-1]:  # its best order is its largest (or pure DP's infinity)
                rdp_eps, exact_rdp = exact_rdp(), None
        if rdp_eps == 0:
            result = Bounds(0.0, 0.0, "rdp")  # an upper bound of 0 is the exact value
            result.target_met = True
            return result
        self._hint = rdp_eps / 2
        return self._search(active, delta=delta, rdp_value=rdp_eps, upper_only=upper_only, exact_rdp=exact_rdp,
                            stand_in=quick is not None)

    def total_variation_bound(self) -> float:
        """An upper bound on the total variation distance of the composition (its privacy profile at
        epsilon = 0): ``1 - prod_i (1 - tv_i)^{n_i}`` over the ledger, ``tv_i`` the mechanism's own
        :meth:`~dpproofs.mechanisms.Mechanism.total_variation` under the accountant's relation
        (:func:`dpproofs.math.total_variation.composed`: a coupling argument, valid for adaptive
        composition; rounded up). At any ``delta`` at least this bound, :meth:`epsilon_bounds` is
        ``Bounds(0, 0, "exact")`` without building a grid."""
        return total_variation.composed(
            (mechanism.total_variation(self._relation), steps) for mechanism, steps in self._ledger.items())

    def delta(self, epsilon: float | Sequence[float]) -> float | list[float]:
        """A certified upper bound on the tight delta at ``epsilon`` (``>= 0``; or a list)."""
        return super().delta(epsilon)

    def delta_bounds(self, epsilon: float | Sequence[float]) -> Bounds | list[Bounds]:
        """:class:`Bounds` ``(lower, upper)`` containing the tight delta at ``epsilon`` (or a list)."""
        return super().delta_bounds(epsilon)

    def _delta_one(self, epsilon):
        return self._delta_bounds_one(epsilon).upper

    def _delta_bounds_one(self, epsilon):
        active = self._active()
        if not active:
            return _exact_zero()
        closed = self._gaussian_closed_form(active, epsilon=epsilon)
        if closed is not None:
            return closed
        quick = self._rdp_quick()
        rdp_delta = (quick or self._rdp()).delta(epsilon)
        exact_rdp = None if quick is None else (lambda: self._own_rdp_delta(epsilon))
        return self._search(active, epsilon=epsilon, rdp_value=rdp_delta, exact_rdp=exact_rdp)

    def _gaussian_closed_form(self, active, *, delta=None, epsilon=None):
        """A ledger of Gaussians only: its exact profile in closed form, the bracket certified in arb
        (:mod:`dpproofs.accountant.pld.gaussian_closed_form`: no grid at any number of steps or any
        noise), or None (another mechanism in the ledger, no certified bracket, or a ``grid_step``
        asked for: then the grid is what the user wants)."""
        if self._grid_step is not None:
            return None
        mu2 = _gaussian.gaussian_mu(active, self._relation)
        if mu2 is None:
            return None
        found = _gaussian.epsilon_bracket(mu2, delta) if delta is not None else _gaussian.delta_bracket(mu2, epsilon)
        if found is None:
            return None
        result = Bounds(found[0], found[1], "pld")
        result.target_met = True
        return result

    # --- the tight computation ---------------------------------------------------------------

    def _one_step(self, mechanism, direction, bound, step, tail_z, realisation=None):
        """The discretised pair of ``mechanism``: add/remove: ``direction`` of :func:`_pairs`;
        replace-one: ``direction`` of ``realisation`` ("R0"/"R1"), or the symmetrised dominating
        pair (``direction="sym"``, upper only; None if it cannot be symmetrised)."""
        negligible = self._negligible_move if bound == "lower" else 0.0
        key = (mechanism, direction, bound, step, tail_z, realisation, self._lattice_refinement, self._law_windows,
               negligible)
        if key in self._cache:
            return self._cache[key]
        if len(self._cache) > 64:
            self._cache.clear()
        # replace-one: a one-step grid gets the first pass's budget (see _search). Its upper end is
        # the analysis' (a finer grid rarely moves it) and its realised pairs at small sigma reach
        # 771 621 cells (1.7 GB) at (q, sigma, delta) = (1e-3, 0.5, 1e-10) for nothing; add/remove
        # keeps the whole budget (the bulk/jump split needs fine one-step grids)
        cells = self._max_cells // 8
        if self._pairwise and realisation is None and direction != "sym":
            pair = self._refined(self._directions(mechanism)[direction])
            one = _pld.discretise(pair, step, bound, tail_z, negligible_move=negligible)
        elif direction == "sym":
            dominating, _ = _replace_one_plan(mechanism)
            one = _pld.discretise(dominating, step, "upper", tail_z, cells, plain_grid=True)
            one = None if one is None else _pld.symmetrised(one)
        else:
            _, realised = _replace_one_plan(mechanism)
            one = _pld.discretise(realised[realisation][direction], step, bound, tail_z, cells,
                                  negligible_move=negligible)
        self._cache[key] = one
        return one

    def _refined(self, pair):
        """``pair`` on the search's current lattice and windows (a computed law's :meth:`refined`), else
        itself."""
        if (self._lattice_refinement != 1 or self._law_windows != 1) and hasattr(pair, "refined"):
            return pair.refined(self._lattice_refinement, self._law_windows)
        return pair

    def _all_pairs(self, mechanism):
        if self._pairwise:
            return [self._refined(pair) for pair in self._directions(mechanism).values()]
        dominating, realised = _replace_one_plan(mechanism)
        return [dominating] + [p for r in realised.values() if r is not None for p in r.values()]

    def _composed_sd(self, active):
        """The composed loss's standard deviation, from a probe discretisation of each one-step PLD."""
        var = 0.0
        for mechanism, steps in active:
            pair = self._refined(self._directions(mechanism)["add"]) if self._pairwise else _replace_one_plan(mechanism)[0]
            low, high = pair.loss_range(6.0)
            span = max(high - low, 1e-12)
            one = _pld.discretise(pair, span / 256, "upper", 6.0)
            keep = one.masses > 0  # empty cells: their (l - m)^2 may overflow (losses of 1e300)
            l, w = one.losses()[keep], one.masses[keep]
            with np.errstate(over="ignore", invalid="ignore"):
                m = float(np.sum(w * l) / np.sum(w))
                var += steps * float(np.sum(w * (l - m) ** 2) / np.sum(w))
        # +inf when the losses are beyond float range squared (Laplace(1e-300)): the grid is then
        # far over budget, and the search falls back to the RDP bound
        return math.sqrt(max(var, 1e-300)) if math.isfinite(var) else math.inf

    def _initial_step(self, active, cells_per_sd=None, sd=None):
        """The first grid step: the composed loss's standard deviation (``sd``, else from a probe)
        / ``cells_per_sd`` (default INITIAL_CELLS_PER_SD), within [1e-9, 0.05] (0.05 if the
        standard deviation is not finite)."""
        sd = self._composed_sd(active) if sd is None else sd
        if not math.isfinite(sd):
            return 0.05
        return min(max(sd / (cells_per_sd or INITIAL_CELLS_PER_SD), 1e-9), 0.05)

    def _align(self, active, step):
        """For mechanisms with loss atoms (randomized response, Laplace), shrink ``step`` so that
        the first such mechanism's atoms +-a are a whole number of steps apart (exact lower
        bound for them)."""
        for mechanism, _ in active:
            spans = [pair.max_loss - pair.min_loss for pair in self._all_pairs(mechanism) if pair.atoms]
            if spans:
                span = min(spans)  # the atoms of the other pairs are a whole number of these apart
                if not span / step <= 2.0**62:
                    # atoms further apart than any budget allows (RandomizedResponse(1e300)): the cell
                    # count (_cells) exceeds the budget at this step anyway, and the search stops
                    return step
                return span / math.ceil(span / step)
        return step

    def _tilt(self, items, delta, epsilon):
        """The tilt of a composition: for epsilon at ``delta`` after a first pass, the order whose
        tilted mean is that pass's epsilon (K'(theta) = epsilon, where the hockey stick is read:
        the round-off allowance, weighted by e^{K - theta l}, is least there); else the Chernoff
        order for ``delta`` (or ``epsilon``). The Chernoff order for delta overshoots where the
        Chernoff epsilon is far above the true one: at (q, sigma, T, delta) = (1e-4, 50, 1e6, 1e-5)
        theta 2423 against 1002 left the bracket 2.0e-3 wide after four passes. A first Chernoff
        order above :data:`TILT_CHECK` (any order where a mechanism has loss atoms) that is more than
        :data:`TILT_OVERSHOOT` times the order whose tilted mean is the RDP epsilon is replaced by the
        latter. Any theta >= 0 is valid."""
        if delta is not None and self._tilt_epsilon is not None:
            return _compose.choose_tilt(items, epsilon=self._tilt_epsilon)
        theta = _compose.choose_tilt(items, delta=delta, epsilon=epsilon)
        if (delta is not None and (theta > TILT_CHECK or self._atom_ledger)
                and self._tilt_cap_epsilon is not None):
            # bounded losses whose top carries more than delta (pure-DP-like ledgers) draw the
            # Chernoff order far up: at Laplace(0.5693) x 5, delta = 0.00188 (top atom 1/32), theta
            # 1.4e4 and 5.2e4 put the windows on the top 15 cells and gave [0, 8.779], where the
            # order whose tilted mean is the RDP epsilon gives [8.72493, 8.72504]
            capped = _compose.choose_tilt(items, epsilon=self._tilt_cap_epsilon)
            if theta > TILT_OVERSHOOT * capped:
                return capped
        return theta

    def _compose_fourier(self, items, theta):
        """:func:`dpproofs.accountant.pld.compose.compose_fourier` within the window budget; a None
        (over budget, or a useless round-off bound) is recorded in ``_over_budget``."""
        composed = _compose.compose_fourier(items, theta, max_cells=self._max_cells)
        if composed is None:
            self._over_budget = True
        return composed

    def _value(self, items, delta, epsilon):
        """The composed bound's epsilon at ``delta`` (or delta at ``epsilon``); None if over budget."""
        theta = self._tilt(items, delta, epsilon)
        composed = self._compose_fourier(items, theta)
        if composed is None:
            return None
        return composed.epsilon(delta) if delta is not None else composed.delta(epsilon)

    def _attempt(self, active, step, tail_z, delta=None, epsilon=None, upper_only=False):
        """(lower, upper) at one grid step; None if over budget. ``upper_only``: the lower end is
        not computed (0.0) unless needed for the bulk/jump split."""
        if not self._pairwise:
            return self._attempt_replace_one(active, step, tail_z, delta, epsilon)
        lows, ups = [], []
        # a mechanism whose two orders differ (a sampled one) is composed in both directions
        directions = ("add", "remove") if any(
            (lambda d: d["add"] is not d["remove"])(self._directions(m)) for m, _ in active) else ("add",)
        target = self._relative_width if delta is not None else self._delta_relative_width
        self._only_constant = epsilon is not None
        first_upper = None  # the first direction's (upper one-step items, tilt): the dominated check's reference
        for direction in directions:
            values = {}
            theta = None
            if lows and first_upper is not None and delta is not None and not upper_only:
                coarse = self._dominated_coarsely(active, direction, step, tail_z, delta, *first_upper, max(lows))
                if coarse is not None:
                    # its upper end on a coarser grid is at most another direction's lower end: it
                    # changes neither end of the maximum
                    lows.append(coarse)
                    ups.append(coarse)
                    continue
            for bound in ("upper",) if upper_only else ("upper", "lower"):
                if bound == "lower" and values["upper"] is not None and lows and values["upper"] <= max(lows):
                    # this direction's upper end is below another direction's lower end: it cannot
                    # change either end of the maximum, so its lower end is not needed (at the
                    # Abadi point "remove" is dominated by "add": one composition in four saved)
                    break
                items = [(self._one_step(m, direction, bound, step, tail_z), n) for m, n in active]
                if any(one is None for one, _ in items):
                    self._over_budget = True
                    return None  # a one-step grid over its budget: the previous pass stands
                if theta is None:  # one tilt per direction (any theta >= 0 is valid)
                    theta = self._tilt(items, delta, epsilon)
                if bound == "upper" and first_upper is None:
                    first_upper = (items, theta)
                composed = self._compose_fourier(items, theta)
                values[bound] = None if composed is None else (
                    composed.epsilon(delta) if delta is not None else composed.delta(epsilon))
                if epsilon is not None and bound == "upper":
                    self._only_constant &= composed is not None and composed.only_constant(epsilon)
            low, up = values.get("lower", 0.0), values["upper"]
            if upper_only and up is not None:
                pass  # the single-tilt upper end is all that is asked
            elif up is not None and lows and up <= max(lows):
                low = up  # below another direction's lower end: it changes neither end of the maximum
            elif delta is not None and len(active) == 1 and (
                    low is None or up is None
                    or not up - low <= (SPLIT_FIRST_WIDTH if self._first_pass else SPLIT_AFTER * target) * up):
                # rare large losses may carry the answer: the bulk/jump split (evaluator.pld),
                # intersected with the single-tilt bracket (both are valid)
                split = self._attempt_split(active[0], direction, step, tail_z, delta, low, up)
                if split is not None:
                    low = split[0] if low is None else max(low, split[0])
                    up = split[1] if up is None else min(up, split[1])
            if low is None or up is None:
                return None
            lows.append(low)
            ups.append(up)
        return max(lows), max(ups)

    def _dominated_coarsely(self, active, direction, step, tail_z, delta, reference, theta, ceiling):
        """The upper end of ``direction`` at ``delta`` on a grid DOMINATED_COARSENING times coarser
        than ``step``, tilted by ``theta``, when it is at most ``ceiling`` (another direction's lower
        end); None when the Chernoff gate at ``theta`` (DOMINATED_GATE against the ``reference``
        items, that direction's upper one-step PLDs at ``step``, composed at ``theta``) says it is
        not worth trying, or the coarse upper end is above ``ceiling``, or anything is over budget.
        Any grid step and any tilt give a valid upper end."""
        if not theta > 0:
            return None
        coarse = self._align(active, DOMINATED_COARSENING * step)
        items = [(self._one_step(m, direction, "upper", coarse, tail_z), n) for m, n in active]
        if any(one is None for one, _ in items):
            return None
        own, other = _compose.chernoff_epsilon(items, delta, theta), _compose.chernoff_epsilon(reference, delta, theta)
        if not (math.isfinite(own) and math.isfinite(other) and own <= (1 - DOMINATED_GATE) * other):
            return None
        composed = _compose.compose_fourier(items, theta, max_cells=self._max_cells)
        if composed is None:
            return None
        value = composed.epsilon(delta)
        return value if value <= ceiling else None

    def _attempt_split(self, entry, direction, step, tail_z, delta, low, up):
        """(lower, upper) of one direction of a single repeated mechanism by the bulk/jump split of
        :func:`dpproofs.accountant.pld.compose.compose_split`; None if it does not apply."""
        mechanism, count = entry
        if low is not None and up is not None and math.isfinite(up) and up > 0:
            hints = [(low + up) / 2]
        else:
            # this pass's single tilt gave no bracket (over budget): the RDP bound's half, then, where
            # that split gives no lower end, the earlier passes' epsilon; that one first where the RDP
            # half is far above it (SPLIT_HINT_FAR). Poisson replace-one's provisional RDP bound is its
            # stand-in's, which ignores the sampling (4.1e5 at (1e-4, 0.7, 1e5, 1e-6), epsilon 0.505):
            # a split tilted there answered [0, 1.1e4], one at the earlier bracket [0.50465, 0.50476].
            # At (1e-4, 0.6, 1e6, 1e-12) the split at the earlier bracket is over budget, and the one
            # at the RDP bound's half gives [4.99958, 4.99984]
            hints = [self._hint if self._hint is not None else 1.0]
            if self._tilt_epsilon is not None:
                far = hints[0] > SPLIT_HINT_FAR * self._tilt_epsilon
                hints.insert(0 if far else 1, self._tilt_epsilon)
        result = None
        for hint in hints:
            found = self._split_at(mechanism, count, direction, step, tail_z, delta, hint)
            if found is not None:  # (both brackets are valid: so is their intersection)
                result = found if result is None else (max(result[0], found[0]), min(result[1], found[1]))
            if result is not None and result[0] > 0:
                break
        if result is not None and 0 < result[0] < hint and result[1] > SPLIT_REHINT * result[0]:
            # a wide split bracket from a guess above its lower end: once more, tilted at that lower
            # end. At (q, sigma, T, delta) = (1.27e-5, 0.7909, 351810, 1.2e-10) the RDP bound's half
            # (0.80, nine times the answer) gave [0.0505, 0.636], and the accountant's answer stayed
            # [0.078, 0.636] (its next pass over budget); tilted at 0.0505 the split gives
            # [0.0878, 0.0885] at the same step
            found = self._split_at(mechanism, count, direction, step, tail_z, delta, result[0])
            if found is not None:
                result = (max(result[0], found[0]), min(result[1], found[1]))
        return result

    def _split_at(self, mechanism, count, direction, step, tail_z, delta, hint):
        """(lower, upper) of :meth:`_attempt_split` with its tilts at ``hint``; None if it does not
        apply."""
        found = []
        for bound in ("upper", "lower"):
            one = self._one_step(mechanism, direction, bound, step, tail_z)
            if one is None:
                return None
            composed = _compose.compose_split(one, count, delta=delta, epsilon_hint=hint, max_cells=self._max_cells)
            if composed is None:
                return None
            found.append(composed.epsilon(delta))
        return found[1], found[0]

    def _attempt_replace_one(self, active, step, tail_z, delta, epsilon):
        """Upper: the symmetrised dominating pairs composed (one curve: they are symmetric).
        Lower: the best realised neighbouring datasets (R0, and R1 when every mechanism has it),
        both orders."""
        items = [(self._one_step(m, "sym", "upper", step, tail_z), n) for m, n in active]
        if any(one is None for one, _ in items):
            return None
        theta = self._tilt(items, delta, epsilon)
        composed = self._compose_fourier(items, theta)
        if composed is None:
            return None
        upper = composed.epsilon(delta) if delta is not None else composed.delta(epsilon)
        self._only_constant = epsilon is not None and composed.only_constant(epsilon)
        lows = []
        for realisation in ("R0", "R1"):
            if any(_replace_one_plan(m)[1][realisation] is None for m, _ in active):
                continue
            for direction in ("add", "remove"):
                items = [(self._one_step(m, direction, "lower", step, tail_z, realisation), n) for m, n in active]
                if any(one is None for one, _ in items):
                    return None
                value = self._value(items, delta, epsilon)
                if value is None:
                    return None
                lows.append(value)
        return max(lows), upper

    def _post_processed_lower(self, *, delta=None, epsilon=None):
        """The lower end of a ledger accounted through dominating compositions
        (:meth:`~dpproofs.mechanisms.Mechanism.pld_components`, whose own lower end bounds nothing):
        the lower end of the ledger with each such mechanism replaced by its
        :meth:`~dpproofs.mechanisms.Mechanism.pld_lower_post_processing` (a post-processing of its
        realised pair, composed with the rest: a post-processing of the whole, so no hockey stick
        grows); 0.0 when one has none."""
        replaced = {}
        for mechanism, steps in self._ledger.items():
            if steps > 0 and mechanism.pld_components() is not None:
                stand_in = mechanism.pld_lower_post_processing()
                if stand_in is None:
                    return 0.0
                replaced[mechanism] = stand_in
        other = PLDAccountant(relation=self._relation, **self._options())
        for mechanism, steps in self._ledger.items():
            other.compose(replaced.get(mechanism, mechanism), steps)
        bounds = other.epsilon_bounds(delta) if delta is not None else other.delta_bounds(epsilon)
        return bounds.lower

    def _loss_extent(self, active, tail_z):
        """The largest ``|loss|`` of the one-step loss ranges (``inf`` or nan beyond float range)."""
        extent = 0.0
        for mechanism, _ in active:
            for pair in self._all_pairs(mechanism):
                low, high = pair.loss_range(tail_z)
                extent = max(extent, abs(low), abs(high)) if not (math.isnan(low) or math.isnan(high)) else math.nan
        return extent

    def _cells(self, active, step, tail_z):
        """Grid cells of the longest one-step PLD at ``step`` (predicted from the loss ranges)."""
        longest = 0
        for mechanism, _ in active:
            for pair in self._all_pairs(mechanism):
                low, high = pair.loss_range(tail_z)
                longest = max(longest, (high - low) / step)
        return longest

    def _search(self, active, *, delta=None, epsilon=None, rdp_value, upper_only=False, exact_rdp=None,
                stand_in=None):
        """The grid passes for epsilon at ``delta`` (or delta at ``epsilon``). ``rdp_value``: a
        provisional RDP bound; ``exact_rdp``: None if it is the default grid's, else a function
        giving that one (called only where the answer falls back to RDP or the bracket is wide);
        ``stand_in``: whether ``rdp_value`` is a dominating stand-in's (default: ``exact_rdp`` set)."""
        stand_in = exact_rdp is not None if stand_in is None else stand_in
        decomposed = getattr(self, "_decomposed", False)
        lower_asked = not upper_only
        upper_only = upper_only or decomposed  # a dominating composition's lower end bounds nothing
        total = sum(n for _, n in active)
        scale = delta if delta is not None else max(min(rdp_value, 1.0), 1e-300)
        # one-step P-mass beyond the loss range: the upper bound sends it to +inf, the lower drops it;
        # over ``total`` steps that moves delta by at most TAIL_SHARE * delta (union bound), i.e.
        # epsilon by about TAIL_SHARE / (theta epsilon) relative, theta epsilon >= ~1 here
        tail_z = _tail_z(TAIL_SHARE * scale / total)
        target = self._relative_width if delta is not None else self._delta_relative_width
        lower, upper, used, upper_step = 0.0, math.inf, None, None
        self._over_budget = False
        seen = []  # (step, relative width) of the finished passes
        # the computed laws' first lattice (every probe below reads the same laws): the finest any of
        # them asks for its count and the width asked (random allocation: twice coarser for one or two
        # epochs, AllocationPair.first_refinement)
        self._lattice_refinement, self._law_windows = 1.0, 1
        self._lattice_refinement = max(
            (pair.first_refinement(n, target) for m, n in active for pair in self._all_pairs(m)
             if self._pairwise and hasattr(pair, "first_refinement")), default=1.0)
        if not self._loss_extent(active, tail_z) <= MAX_ONE_STEP_LOSS:
            # a one-step loss beyond float range (Gaussian noise below sigma ~ 1e-154, whose loss
            # 1/(2 sigma^2) overflows), or beyond MAX_ONE_STEP_LOSS: no grid is trusted with it, the
            # answer is the RDP bound
            step, passes = None, 0
        elif self._grid_step:
            step, passes = self._grid_step, 1
        else:
            sd = self._composed_sd(active)
            step, passes = self._initial_step(active, sd=sd), MAX_PASSES
            if (delta is not None and self._relation == "add_remove" and math.isfinite(sd) and sd > 0
                    and 0 < rdp_value < math.inf):
                # the grid's own width model: the connect-the-dots upper end spreads each step's loss
                # by about h^2/4 of variance, which moves epsilon by about z T h^2 / (8 sd) (z the
                # normal quantile of delta); the step that meets PLANNING_MARGIN x the target at
                # epsilon ~ WIDTH_MODEL_EPSILON x the RDP bound, when finer than the spread's
                z = math.sqrt(2 * math.log(1 / delta))
                epsilon_guess = WIDTH_MODEL_EPSILON * rdp_value
                modelled = math.sqrt(PLANNING_MARGIN * target * sd * epsilon_guess / (WIDTH_MODEL * z * total))
                step = min(step, max(modelled, step / WIDTH_MODEL_REACH, 1e-9))
            # long one-step loss ranges (small T): start coarser, up to 0.05 or, for losses spread
            # over more than 0.75 (small noise), up to a fifteenth of their standard deviation (at
            # Gaussian(1e-3) the loss is N(5e5, 1e6): step 5 instead of no grid within the budget)
            coarsest = max(0.05, sd / 15) if math.isfinite(sd) else 0.05
            while step < coarsest and self._cells(active, self._align(active, step), tail_z) > self._max_cells / 8:
                step *= 10
            if (delta is not None and total <= SHORT_RUN and self._pairwise and math.isfinite(rdp_value)
                    and not stand_in
                    and not any(getattr(pair, "resolved", None) for m, _ in active for pair in self._all_pairs(m))):
                # a short run: its answer is carried by few steps' losses, whose grid error is about
                # a step each; the composed spread (above) can ask for a far finer first grid. Not for
                # pairs known through a computed law (random allocation: an epoch is itself t steps,
                # and its lattice law's own error stops the refinement early: 4 of 13 rows of the
                # allocation grid went from below 1e-3 to 1.2e-3..3.5e-3 wide). Nor when the RDP
                # epsilon is a dominating stand-in's (stand_in): a sampled Gaussian's replace-one
                # stand-in ignores the sampling, and its epsilon set a grid ten times too coarse at
                # (0.05, 2, 1000, 1e-8): 7.0e-4 wide where the composed spread's step gives 6.4e-5
                step = max(step, min(INITIAL_EPSILON_SHARE * target * rdp_value, 0.05))
        resized = False  # the last pass resized delta's tail allowance (see below)
        refined = False  # the last pass refined the computed laws' lattices (see below)
        self._tilt_epsilon = None
        self._tilt_cap_epsilon = rdp_value if delta is not None and 0 < rdp_value < math.inf else None
        self._atom_ledger = any(pair.atoms for m, _ in active for pair in self._all_pairs(m))
        # epsilon at delta only (a move's effect on delta at epsilon scales with the tilt), and not from a
        # dominating stand-in's RDP epsilon (Poisson replace-one's ignores the sampling: 4.1e5 at (1e-4,
        # 0.7, 1e5, 1e-6), epsilon 0.505; the allowance then skipped every alternative, the first pass
        # had no lower end, and the call took 0.90 s instead of 0.48): 0 skips nothing
        allowance = (NEGLIGIBLE_DRIFT_SHARE * target / total if delta is not None and not stand_in else 0.0)
        planned = allowance * WIDTH_MODEL_EPSILON * rdp_value
        self._negligible_move = planned if math.isfinite(planned) else 0.0
        refinable = self._pairwise and any(hasattr(pair, "refined") for m, _ in active for pair in self._all_pairs(m))
        for index in range(passes):
            self._first_pass = index == 0
            step = self._align(active, step)
            cells = self._cells(active, step, tail_z)
            if cells > self._max_cells:
                self._over_budget = True
                if math.isinf(cells) and refined and self._law_windows < MAX_LAW_WINDOWS:
                    # the refined computed law is itself over its window budget: the lattice before the
                    # refinement, with windows twice larger (see MAX_LAW_WINDOWS), at the grid step of
                    # the best upper end so far (a finer grid's own composition may be what is wide:
                    # at (10^4, 0.6, 100, 1e-12) the upper end was 6.9 at the first step and 76.8 at
                    # a ten times finer one, with either windows)
                    self._lattice_refinement /= 2
                    self._law_windows *= 2
                    step = upper_step
                    # the laws on the default windows are not read again: their memory goes first (at
                    # (10^4, 0.6, 100, 1e-12) the peak is 8.4 GB instead of 12.4 GB)
                    self._cache.clear()
                    for kind in {type(pair) for m, _ in active for pair in self._directions(m).values()}:
                        if getattr(kind, "forget", None) is not None:
                            kind.forget()
                    continue
                if (refinable and used is not None and lower > 0 and math.isfinite(cells)
                        and self._law_windows == 1 and self._lattice_refinement < MAX_LATTICE_REFINEMENT):
                    # no finer grid fits the budget, and a computed law's lattice may be what holds the
                    # bracket: its lattice twice finer at the last grid step. At (t, sigma, E, delta) =
                    # (5767, 8.13, 1, 5.6e-4) three passes on the coarse first lattice each narrowed the
                    # bracket by more than a tenth and stopped at the budget 4.4e-3 wide (epsilon 1.9e-4);
                    # on lattices two and four times finer it is 4.7e-4
                    step = used
                    self._lattice_refinement *= 2
                    refined = True
                    continue
                break  # the one-step PLDs alone would exceed the budget
            try:
                found = self._attempt(active, step, tail_z, delta=delta, epsilon=epsilon, upper_only=upper_only)
            except (FloatingPointError, OverflowError, ZeroDivisionError, ValueError, MemoryError):
                found = None
            if found is None and resized and self._cells(active, step * 4, tail_z) >= 64:
                # the wider loss range of a resized tail allowance is over budget at this step: coarser
                step *= 4
                continue
            after_resize, resized = resized, False
            after_refine, refined = refined, False
            if found is None:
                break
            previous, previous_width = upper, (upper - lower if math.isfinite(upper) else math.inf)
            if found[1] <= upper:
                upper_step = step  # the grid step of the best upper end so far
            lower, upper, used = max(lower, found[0]), min(upper, found[1]), step
            if upper < rdp_value:
                # the next passes' allowance from this bracket's upper end: the RDP epsilon may be far
                # above the answer (170x at (1.04e-5, 0.929, 670, 4.5e-11): the allowance then skipped
                # alternatives that moved the lower end by 11 % of the target, 7.8e-4 wide for 5.2e-4)
                self._negligible_move = min(self._negligible_move, allowance * upper)
            if delta is not None and 0 < upper < math.inf and (lower > 0 or upper < rdp_value):
                # an upper end alone (no lower yet) only when it is below the RDP bound: at (1e-2, 1,
                # 1e8, 1e-15) the first pass's upper end is 2.4x the RDP bound, and a tilt centred
                # there lost the next pass's lower end (9051 -> 0)
                self._tilt_epsilon = (lower + upper) / 2 if lower > 0 else upper
            if not math.isfinite(found[1]):
                # the upper end's infinite-loss mass (one-step tails and the composition's window,
                # both sized from delta, not from the grid step) is above delta: a finer grid cannot
                # make it finite (at delta = 1e-300 three passes took 29 s for nothing)
                break
            if delta is None and self._only_constant and not found[1] < rdp_value:
                # likewise for delta at an epsilon beyond every cell (epsilon = 1e300): the upper end
                # is that mass alone, above the RDP bound, and a finer grid does not lower it
                break
            width = (upper - lower) / upper if upper > 0 and math.isfinite(upper) else math.inf
            if upper_only or width <= target:  # upper_only: calibration's one pass at a fixed step
                break
            if delta is None and lower > 0 and _tail_z(TAIL_SHARE * lower / total) > tail_z + TAIL_Z_RESIZE:
                # delta's tail allowance was sized from the RDP delta, which may be far above the
                # answer: the one-step tails sent to +inf then carry the gap (at (q, sigma, T) =
                # (2e-4, 12.5, 5), epsilon = 1.4e-4: 26 % wide at every step). Resized from the lower
                # end found and the pass repeated at the same step
                tail_z = _tail_z(TAIL_SHARE * lower / total)
                resized = True
                continue
            stopped = upper - lower > 0.9 * previous_width
            # a computed law's bracket that narrows far slower than any grid error (width ~ h^order,
            # order below LATTICE_ORDER from the last two passes) is held by the law's lattice too
            slow = refinable and _fitted_order(seen, step, width) < LATTICE_ORDER
            if not (after_resize or after_refine) and (stopped or slow):
                # a finer grid no longer narrows the bracket (its ends are limited elsewhere); a pass
                # that only resized the tails refined nothing: at (5.73e-2, 1.3, 78324), epsilon = 163,
                # stopping there left [6.8e-8, 4.4e-6] where the next step gives [3.39e-6, 3.41e-6]
                if (refinable and self._law_windows == 1 and self._lattice_refinement < MAX_LATTICE_REFINEMENT
                        and found[0] > 0):
                    # a computed law's own gap (random allocation's lattice: second order in its step,
                    # added up over the epochs) is what remains: its lattice twice finer, same grid step.
                    # (1000, 0.8, 100 epochs, 1e-6) stayed 1.2e-3 wide at every grid step. Not after a
                    # pass without a lower end (its compositions failed, not the lattice: at (10^4, 0.6,
                    # 10, 1e-9) [0, 23.0] after [2.49, 2.81], and the refined pass took 21 s for the
                    # same). A pass whose bracket is only wider is refined: at (1000, 0.6, 100, 1e-3)
                    # twice finer gave [3.996, 4.188] and four times [4.1857, 4.1880]
                    self._lattice_refinement *= 2
                    refined = True
                    continue
                if stopped:
                    break
            if not self._pairwise and math.isfinite(previous) and previous - upper <= target * upper / 4:
                break  # the upper end has converged (replace-one: the rest of the gap is the analysis')
            # plan the next step from the width's order of convergence in h: 2 (the connect-the-dots
            # upper end, and the lower end with a tilt: at the Abadi point 4.1e-3 -> 9.0e-4 from
            # h = 4e-4 to 2e-4) but as low as 1 (the lower end's downward moves are O(h) per step
            # when the tilt is small): fitted from the last two passes once there are two
            order = PLANNING_ORDER
            fitted = _fitted_order(seen, step, width)
            if 0 < fitted < math.inf:  # the bracket narrowed from the last pass to this one
                order = min(max(fitted, 1.0), 2.0)
            if math.isfinite(width):
                seen.append((step, width))
            factor = (PLANNING_MARGIN * target / width) ** (1 / order) if math.isfinite(width) else 0.25
            step *= min(max(factor, 0.1), 0.7)
        if delta is None:
            upper = min(upper, 1.0)
        # (an upper end alone, as calibration asks, has no width: its lower end is 0 by design)
        wide = not upper_only and not (math.isfinite(upper) and upper - lower <= RDP_CHECK_WIDTH * upper)
        if exact_rdp is not None and (used is None or not upper < rdp_value or wide):
            # the provisional bound was a cheap dominating one; a bracket far wider than asked may
            # have an upper end above the exact RDP bound (random allocation at (t, sigma, E, delta)
            # = (10^4, 0.6, 10, 1e-9): 34.1 from the PLD against 3.68 from its own RDP bound)
            rdp_value = min(rdp_value, exact_rdp())
        if used is None or not upper < rdp_value:
            result = Bounds(min(lower, rdp_value), rdp_value, "rdp", used)
        else:
            result = Bounds(lower, upper, "pld", used)
        if decomposed:
            lower = self._post_processed_lower(delta=delta, epsilon=epsilon) if lower_asked else 0.0
            result = Bounds(lower, result.upper, result.source, result.grid_step)
        width = (result.upper - result.lower) / result.upper if result.upper > 0 else 0.0
        result.target_met = width <= target and not upper_only
        return result

    # --- serialisation -----------------------------------------------------------------------

    def _options(self):
        return {"relative_width": self._relative_width, "max_cells": self._max_cells,
                "grid_step": self._grid_step, "delta_relative_width": self._delta_relative_width}

    @classmethod
    def _option_names(cls):
        return ("relative_width", "max_cells", "grid_step", "delta_relative_width")

    def __repr__(self):
        return f"PLDAccountant(relation={self._relation!r}, ledger={self.ledger!r})"
