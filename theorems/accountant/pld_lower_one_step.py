"""The lower one-step PLD of a sampled Gaussian against its exact one-step profile (ids
``accountant.pld.lower_one_step.*``).

The lower one-step PLD (:func:`dpproofs.accountant.pld.discretise.discretise`, ``bound="lower"``)
replaces each cell of outputs by one atom at its own loss (merging outputs: a post-processing) and
puts the atoms on a grid of step ``h``, each at a grid point at most its own loss. Two of its rules
are checked here, at the grid steps where they act:

* ``.heavy_cell`` -- a cell, or two adjacent cells, with most of the P-mass get the grid centred on
  their own loss as an alternative (``HEAVY_CELL_SHARE``). At small sampling rates the sampled
  Gaussian's losses are within about ``q e^{1/sigma^2}`` of 0 for nearly all of its P-mass, while
  its long loss range makes the grid coarse. Domain: ``q`` in [1e-6, 1e-4], sigma in [0.5, 1], steps
  1e-3..1e-2, eps in [0, 0.01]; the add direction keeps the centred grid there (the remove
  direction's plain grid often moves less, and is kept). Mutant ``.mutant.offset_dropped``: the
  centred grid's offset forgotten when its losses are read (each atom up to a step too high),
  refuted at :data:`OFFSET_DROPPED_PIN`.
* ``.lifted`` -- a share of each grid point's atoms is merged into the next grid point's group, paid
  by that group's excess ``P - e^g Q`` (``_lifted_masses``): the merged group's own loss is still at
  least its grid point. Domain: ``q`` in [1e-3, 1], sigma in [0.5, 3], steps 2e-3..0.05, eps in
  [0, 3]. Mutant ``.mutant.lift_doubled``: every lifted share doubled (the excess counted twice),
  refuted at :data:`LIFT_DOUBLED_PIN`.

The claim in both: in either direction (``remove`` 0: add, 1: remove) the lower one-step PLD's
hockey stick at ``eps`` (its float masses at their exact losses ``(offset + i) step + shift``, summed
in mpmath or arb) is at most the exact one-step profile
(:func:`dpproofs.math.formulas.delta_sampled_gaussian`, in closed form).
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

from dpproofs_theorems.accountant._common import library_attribute

__all__ = ["CLAIMS", "OFFSET_DROPPED_PIN", "LIFT_DOUBLED_PIN", "lower_one_step", "centred_is_kept"]

SOURCE = ("dpproofs PLDAccountant: the lower one-step PLD (docs/math.md, 'pld: the accountant's bracket', "
          "one-step lower end); a cell merged into its own loss, and groups of atoms merged, are post-processings")

#: Normal standard deviations kept by the claim's one-step grids (the accountant's default is 38):
#: the cells beyond carry P-mass below 1e-15 and are dropped, which keeps a lower bound, and the sum
#: over cells stays a few thousand terms.
TAIL_Z = 8.0

q, sigma, step, eps, remove = (sympy.Symbol(n, real=True) for n in ("q", "sigma", "step", "eps", "remove"))
exact_delta = sympy.Function("sampled_gaussian_one_step_delta")
lower_delta = sympy.Function("pld_lower_one_step_delta")
lower_delta_offset_dropped = sympy.Function("pld_lower_one_step_delta_offset_dropped")
lower_delta_lift_doubled = sympy.Function("pld_lower_one_step_delta_lift_doubled")


def _pair(point):
    direction = "remove" if int(point["remove"]) else "add"
    return dp.SampledGaussian(float(point["q"]), float(point["sigma"])).pld_pairs("add_remove")[direction], direction


@functools.lru_cache(maxsize=128)
def _one_step(q_value, sigma_value, step_value, remove_value, mutant):
    point = dict(q=q_value, sigma=sigma_value, step=step_value, remove=remove_value)
    pair, _ = _pair(point)
    if mutant == "lift_doubled":
        # every share doubled: the library's lifted-share margin set to -1 while it discretises
        with library_attribute(pld_discretise, "LIFT_SHARE_MARGIN", -1.0):
            return pld_discretise.discretise(pair, step_value, "lower", TAIL_Z)
    one = pld_discretise.discretise(pair, step_value, "lower", TAIL_Z)
    if mutant == "offset_dropped" and not 0.0 <= one.shift < one.step:
        # the centred grid's one-step PLD read without its offset (the plain grid is discretise's:
        # k0 = offset + 1, two cells fewer than the lower PLD's masses)
        k0 = one.offset + 1
        grid = (k0 + np.arange(len(one.masses) - 2)) * step_value
        p, q_mass = pair.cell_masses(grid)[:2]
        for centre in pld_discretise._heavy_losses(pair, p, q_mass):
            # the candidate centre discretise kept: the one whose centred PLD it returned
            centred = pld_discretise._centred_lower_one_step(pair, grid, step_value, k0, centre)[0]
            if centred.shift == one.shift and np.array_equal(centred.masses, one.masses):
                offset = pld_discretise._centring_offset(centre, step_value)
                return pld_discretise.OneStep(one.step, one.offset, one.shift - offset, one.masses, 0.0, "lower")
    return one


def lower_one_step(point, mutant=None):
    """The lower one-step PLD the claims read at ``point`` (``mutant``: 'offset_dropped' or
    'lift_doubled' for the mutants')."""
    return _one_step(float(point["q"]), float(point["sigma"]), float(point["step"]), int(point["remove"]), mutant)


def centred_is_kept(point):
    """Whether the lower one-step PLD at ``point`` is on the centred grid (the plain grid's shift is
    its rho alone, in [0, step))."""
    one = lower_one_step(point)
    return not 0.0 <= one.shift < one.step


def _sides(mutant=None):
    def precise_side(point, dps):
        one = lower_one_step(point, mutant)
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
        one = lower_one_step(point, mutant)
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


def _statement(lower):
    """``lower(q, sigma, step, eps, remove)``, a lower one-step PLD's delta, at most the exact profile."""
    return sympy.Le(lower(q, sigma, step, eps, remove), exact_delta(q, sigma, eps, remove))


def _claim(name, domain, title, explanation):
    """The claim ``accountant.pld.lower_one_step.<name>`` over ``domain``, the ranges of (q, sigma,
    step, eps), in both directions."""
    names = ("q", "sigma", "step", "eps")
    variables = tuple(Variable(n, low, high) for n, (low, high) in zip(names, domain))
    return Claim(id=f"accountant.pld.lower_one_step.{name}", source=SOURCE, statement=_statement(lower_delta),
                 variables=variables + (Variable("remove", 0, 1, integer=True),), title=title,
                 explanation=explanation, sides=_sides(), cost=1.0)


heavy_cell = _claim(
    "heavy_cell", ((1e-6, 1e-4), (0.5, 1.0), (1e-3, 1e-2), (0.0, 0.01)),
    "the lower one-step PLD on a grid centred on a heavy cell stays below the exact one-step profile",
    "a sampled Gaussian at q <= 1e-4 on a grid of step >= 1e-3: nearly all its P-mass in one cell, "
    "whose own loss the grid is centred on; every atom at or below its own loss")

#: q = 1e-4, sigma = 0.5, step 5e-3, the add direction, delta at eps = 0 (the total variation).
OFFSET_DROPPED_PIN = {"q": 1e-4, "sigma": 0.5, "step": 5e-3, "eps": 0.0, "remove": 0}
offset_dropped = heavy_cell.mutant(
    "offset_dropped",
    statement=_statement(lower_delta_offset_dropped),
    sides=_sides("offset_dropped"),
    explanation="the centred grid's losses read without its offset: the heavy cell's atom half a step above "
    "its own loss, and the hockey stick at 0 above the total variation",
    pinned=(OFFSET_DROPPED_PIN,),
)

lifted = _claim(
    "lifted", ((1e-3, 1.0), (0.5, 3.0), (2e-3, 0.05), (0.0, 3.0)),
    "the lower one-step PLD with lifted shares merged into the next grid point stays below the exact profile",
    "each grid point's group keeps an own loss at least its grid point: the lifted atoms' deficit is "
    "paid by the excess of the atoms it joins")

#: q = 1e-3, sigma = 0.5, step 1e-2, the add direction, delta at eps = 1.55 (2.6e-4 relative above the exact).
LIFT_DOUBLED_PIN = {"q": 1e-3, "sigma": 0.5, "step": 1e-2, "eps": 1.55, "remove": 0}
lift_doubled = lifted.mutant(
    "lift_doubled",
    statement=_statement(lower_delta_lift_doubled),
    sides=_sides("lift_doubled"),
    explanation="every lifted share doubled: the merged groups' own losses fall below their grid points",
    pinned=(LIFT_DOUBLED_PIN,),
)

CLAIMS = [heavy_cell, offset_dropped, lifted, lift_doubled]
