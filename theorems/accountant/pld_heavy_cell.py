"""The lower one-step PLD of a sampled Gaussian whose bulk sits inside one grid cell (ids
``accountant.pld.heavy_cell.*``).

At small sampling rates the sampled Gaussian's losses are within about ``q e^{1/sigma^2}`` of 0 for
nearly all of its P-mass, while its long loss range (small sigma, small delta) makes the grid coarse:
one cell carries most of the mass. The lower one-step PLD
(:func:`dpproofs.accountant.pld.discretise.discretise`, ``bound="lower"``) then also tries the grid
whose cells are centred on that cell's own loss (``HEAVY_CELL_SHARE``) and keeps the grid that moves
the P-mass down less. Any grid gives a valid lower bound: each cell is replaced by one atom at its own
loss (merging outputs, a post-processing) and moved down to a grid point.

The claim: in either direction (``remove`` 0: add, 1: remove) the lower one-step PLD's hockey stick
at ``eps`` (its float masses at their exact losses ``(offset + i) step + shift``, summed in mpmath or
arb) is at most the exact one-step profile (closed form, Balle & Wang 2018, arXiv 1805.06530v2,
Thm 8 style; :func:`dpproofs.math.formulas.delta_sampled_gaussian`) over ``q`` in [1e-6, 1e-4],
sigma in [0.5, 1], grid steps 1e-3..1e-2 and eps in [0, 0.01]; there the add direction keeps the
centred grid (the remove direction's plain grid often moves less, and is kept). Mutant ``.mutant.offset_dropped``: the centred grid's offset forgotten when its losses are read
(each atom up to a step too high), refuted at :data:`OFFSET_DROPPED_PIN`.
"""

import functools

import mpmath
import numpy as np
import sympy

import dpproofs as dp
from dpproofs.accountant.pld import discretise as pld_discretise
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = ["CLAIMS", "OFFSET_DROPPED_PIN", "lower_one_step", "centred_is_kept"]

SOURCE = ("dpproofs PLDAccountant: the lower one-step PLD on a grid centred on a heavy cell (docs/math.md, "
          "'The lower one-step PLD'); a cell merged into its own loss is a post-processing")

#: Normal standard deviations kept by the claim's one-step grids (the accountant's default is 38):
#: the cells beyond carry P-mass below 1e-15 and are dropped, which keeps a lower bound, and the sum
#: over cells stays a few thousand terms.
TAIL_Z = 8.0

q, sigma, step, eps, remove = (sympy.Symbol(n, real=True) for n in ("q", "sigma", "step", "eps", "remove"))
exact_delta = sympy.Function("sampled_gaussian_one_step_delta")
lower_delta = sympy.Function("pld_heavy_cell_lower_one_step_delta")
lower_delta_dropped = sympy.Function("pld_heavy_cell_lower_one_step_delta_offset_dropped")


def _pair(point):
    direction = "remove" if int(point["remove"]) else "add"
    return dp.SampledGaussian(float(point["q"]), float(point["sigma"])).pld_pairs("add_remove")[direction], direction


@functools.lru_cache(maxsize=128)
def _one_step(q_value, sigma_value, step_value, remove_value, offset_dropped):
    point = dict(q=q_value, sigma=sigma_value, step=step_value, remove=remove_value)
    pair, _ = _pair(point)
    one = pld_discretise.discretise(pair, step_value, "lower", TAIL_Z)
    if offset_dropped and not 0.0 <= one.shift < one.step:
        # the mutant: the centred grid's one-step PLD read without its offset (the plain grid is
        # discretise's: k0 = offset + 1, two cells fewer than the lower PLD's masses)
        grid = (one.offset + 1 + np.arange(len(one.masses) - 2)) * step_value
        p, q_mass = pair.cell_masses(grid)[:2]
        centre = pld_discretise._heavy_loss(pair, p, q_mass)
        if centre is not None:
            offset = pld_discretise._centring_offset(centre, step_value)
            one = pld_discretise.OneStep(one.step, one.offset, one.shift - offset, one.masses, 0.0, "lower")
    return one


def lower_one_step(point, offset_dropped=False):
    """The lower one-step PLD the claim reads at ``point`` (``offset_dropped``: the mutant's)."""
    return _one_step(float(point["q"]), float(point["sigma"]), float(point["step"]), int(point["remove"]),
                     offset_dropped)


def centred_is_kept(point):
    """Whether the lower one-step PLD at ``point`` is on the centred grid (its shift is not the plain
    grid's rho alone: the plain grid's shift is in [0, step))."""
    one = lower_one_step(point)
    return not 0.0 <= one.shift < one.step


def _sides(offset_dropped=False):
    def precise_side(point, dps):
        one = lower_one_step(point, offset_dropped)
        _, direction = _pair(point)
        with mpmath.workdps(dps + precise.GUARD_DPS):
            e = precise.to_mpf(point["eps"])
            h, shift = mpmath.mpf(one.step), mpmath.mpf(one.shift)
            terms = []
            for i in np.flatnonzero(one.masses > 0):
                loss = (one.offset + int(i)) * h + shift
                if loss > e:
                    terms.append(mpmath.mpf(float(one.masses[i])) * -mpmath.expm1(e - loss))
            exact = precise.delta_sampled_gaussian(e, point["q"], point["sigma"], direction=direction, dps=dps)
            return mpmath.fsum(terms), exact

    def ball_side(point, prec):
        one = lower_one_step(point, offset_dropped)
        _, direction = _pair(point)
        with ball.precision(prec):
            e = ball.to_arb(float(point["eps"]))
            h, shift = ball.to_arb(one.step), ball.to_arb(one.shift)
            total = ball.to_arb(0)
            for i in np.flatnonzero(one.masses > 0):
                loss = (one.offset + int(i)) * h + shift
                total += ball.positive_part(ball.to_arb(float(one.masses[i])) * -(e - loss).expm1())
            exact = ball.delta_sampled_gaussian(e, point["q"], point["sigma"], direction=direction, prec=prec)
            return total, exact

    return Sides(precise_side, ball_side)


VARIABLES = (Variable("q", 1e-6, 1e-4), Variable("sigma", 0.5, 1.0), Variable("step", 1e-3, 1e-2),
             Variable("eps", 0.0, 0.01), Variable("remove", 0, 1, integer=True))

lower = Claim(
    id="accountant.pld.heavy_cell.lower",
    source=SOURCE,
    statement=sympy.Le(lower_delta(q, sigma, step, eps, remove), exact_delta(q, sigma, eps, remove)),
    variables=VARIABLES,
    title="the lower one-step PLD on a grid centred on a heavy cell stays below the exact one-step profile",
    explanation="a sampled Gaussian at q <= 1e-4 on a grid of step >= 1e-3: nearly all its P-mass in one cell, "
    "whose own loss the grid is centred on; every atom at or below its own loss",
    sides=_sides(),
    cost=1.0,
)

#: q = 1e-4, sigma = 0.5, step 5e-3, the add direction, delta at eps = 0 (the total variation).
OFFSET_DROPPED_PIN = {"q": 1e-4, "sigma": 0.5, "step": 5e-3, "eps": 0.0, "remove": 0}
offset_dropped = lower.mutant(
    "offset_dropped",
    statement=sympy.Le(lower_delta_dropped(q, sigma, step, eps, remove), exact_delta(q, sigma, eps, remove)),
    sides=_sides(offset_dropped=True),
    explanation="the centred grid's losses read without its offset: the heavy cell's atom half a step above "
    "its own loss, and the hockey stick at 0 above the total variation",
    pinned=(OFFSET_DROPPED_PIN,),
)

CLAIMS = [lower, offset_dropped]
