"""Random allocation (balls-in-bins) in the PLD accountant against its exact one-epoch profile (ids
``accountant.pld.allocation.*``).

``dp.RandomAllocationGaussian(t, s)`` is one epoch: one record in exactly one of ``t`` Gaussian
steps, uniform and hidden. Its add/remove pair (Feldman & Shenfeld, arXiv 2502.08202v4, Section 2;
Chua et al., arXiv 2412.16802) is ``P = (1/t) sum_i N(e_i, s^2 I_t)`` against ``Q = N(0, s^2 I_t)``,
both orders; with ``S = dP/dQ`` the exact profile is ``max(E_Q[(S - e^eps)_+], E_Q[(1 - e^eps S)_+])``,
computed by :func:`dpproofs.math.allocation_exact.delta_exact` (the lognormal call/put in closed
form inside one quadrature per further step, split at the kinks; its docstring derives it).

Claims (the shipped bracket, called as a user calls it):

* ``.upper``: the exact delta at ``eps`` is at most
  ``PLDAccountant().compose(RandomAllocationGaussian(t, s)).delta_bounds(eps).upper``;
* ``.lower``: the bracket's lower end is at most the exact delta;
* mutant ``.upper.mutant.twice_the_steps``: the upper end of ``RandomAllocationGaussian(2 t, s)``
  (more amplification than the run has) is refuted at ``(t, sigma, eps) = (1, 1, 1)``: exact
  0.12694 (the Gaussian) against the exact two-step value 0.05921, which the bracket contains;
* mutant ``.lower.mutant.remove_only``: the exact side written with the remove direction only
  (``E_Q[(1 - e^eps S)_+]``) is refuted at ``(2, 2, 1)``: remove 4.790e-4 < add 6.461e-4, so any
  lower end within 25% of the exact value is above it. The add direction dominates on the whole
  domain as far as measured: on the grid sigma = 0.7 + i 3.3/7 (i < 8) x eps = 0.25 j (j <= 12)
  at t = 2 the certified enclosures give add > remove at 93 of 104 points; at eps = 0 (8 points)
  both are the total variation; at the 3 others (sigma >= 3.5, eps >= 2.75) the values are below
  1e-38 and the 128-bit enclosures overlap (mpmath: add larger, 1.9e-39, 1.2e-43, 5.6e-50 against
  remove 7.6e-52, 6.5e-56, 7.0e-66). So the "add only where remove dominates"
  mutant has no point to pin on this domain; the mirror mutant is pinned instead.

* ``.every_step.lower``: for ``k`` of ``k`` steps (the record in every step, ``k`` in 2..6) the
  lower end, which for ``k > 1`` comes from the sum of the epoch's outputs
  (``RandomAllocationGaussian.pld_lower_post_processing``), is at most the exact delta of ``k``
  Gaussian steps; there the sum is sufficient and the two meet. Mutant
  ``.mutant.sensitivity_1_2k`` (the sum read at sensitivity ``1.2 k``) is refuted at
  ``(k, sigma, eps) = (2, 2, 1)``: 0.07723 against 0.03963.

Domain: ``t`` in {1, 2}, ``sigma`` in [0.7, 4], ``eps`` in [0, 3]. ``t = 3`` is implemented by
``allocation_exact`` (a 2-D quadrature) but takes 10-50 s a value at dps 8-20 (minutes at the
checker's digits) and has no certified enclosure: too slow for a claim.

Ball side (certified verdicts): :func:`dpproofs.math.allocation_exact.delta_direction_ball`, the
closed form at ``t = 1`` and at ``t = 2`` flint's certified ``acb.integral`` of the closed-form
integrand on ``[-L, z* - eta]`` plus rigorously bounded tails; it agrees with the mpmath value to
the ball's width (about 1e-17 relative at 128 bits) at the pins.
"""

import functools

import mpmath
import sympy

import dpproofs as dp
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import allocation_exact
from dpproofs.math import ball
from dpproofs.math import precise

from dpproofs_theorems.accountant._common import F

__all__ = ["CLAIMS", "TWICE_PIN", "REMOVE_ONLY_PIN"]

SOURCE = ("dpproofs.RandomAllocationGaussian in dpproofs.PLDAccountant (random allocation: Feldman & Shenfeld, "
          "arXiv 2502.08202v4, Section 2; balls-and-bins: Chua et al., arXiv 2412.16802), held against the exact "
          "one-epoch profile (dpproofs.math.allocation_exact)")

t, sigma, eps = sympy.Symbol("t", integer=True, positive=True), *(sympy.Symbol(n, real=True) for n in ("sigma", "eps"))
exact_delta = sympy.Function("allocation_exact_delta")
exact_remove = sympy.Function("allocation_exact_delta_remove")
pld_upper = sympy.Function("pld_allocation_delta_upper")
pld_lower = sympy.Function("pld_allocation_delta_lower")
pld_upper_twice = sympy.Function("pld_allocation_delta_upper_twice_the_steps")


@functools.lru_cache(maxsize=256)
def _bracket(steps, s, e):
    return dp.PLDAccountant().compose(dp.RandomAllocationGaussian(steps, s), 1).delta_bounds(e)


def _key(point):
    return int(point["t"]), float(point["sigma"]), float(point["eps"])


def _end(point, which, steps_factor=1):
    steps, s, e = _key(point)
    bounds = _bracket(steps_factor * steps, s, e)
    return bounds.upper if which == "upper" else bounds.lower


@functools.lru_cache(maxsize=256)
def _exact(steps, s, e, dps, remove_only):
    if remove_only:
        return allocation_exact.delta_remove_exact(e, steps, s, dps)
    return allocation_exact.delta_exact(e, steps, s, dps)


def _exact_ball(steps, s, e, prec, remove_only):
    """A certified enclosure of the exact value (:func:`~dpproofs.math.allocation_exact.delta_direction_ball`:
    the closed form at t = 1, flint's certified ``acb.integral`` plus bounded tails at t = 2)."""
    remove = allocation_exact.delta_direction_ball(e, steps, s, False, prec)
    if remove_only:
        return remove
    return allocation_exact.delta_direction_ball(e, steps, s, True, prec).max(remove)


def _sides(which, steps_factor=1, remove_only=False):
    """``(exact, end)`` for ``.upper`` (exact <= upper end), ``(end, exact)`` for ``.lower``."""

    def order(exact, end):
        return (exact, end) if which == "upper" else (end, exact)

    def precise_side(point, dps):
        steps, s, e = _key(point)
        end = _end(point, which, steps_factor)  # first: a refusal costs no quadrature
        exact = _exact(steps, s, e, dps + 5, remove_only)
        with mpmath.workdps(dps + precise.GUARD_DPS):
            return order(mpmath.mpf(exact), precise.to_mpf(end))

    def ball_side(point, prec):
        steps, s, e = _key(point)
        end = _end(point, which, steps_factor)
        with ball.precision(prec):
            return order(_exact_ball(steps, s, e, prec, remove_only), ball.to_arb(end))

    return Sides(precise_side, ball_side)


VARIABLES = (Variable("t", 1, 2, integer=True), Variable("sigma", 0.7, 4.0), Variable("eps", 0.0, 3.0))

upper = Claim(
    id="accountant.pld.allocation.upper",
    source=SOURCE,
    statement=sympy.Le(exact_delta(t, sigma, eps), pld_upper(t, sigma, eps)),
    variables=VARIABLES,
    title="random allocation: the exact one-epoch delta <= the PLD bracket's upper end",
    explanation="max over both orders of E_Q[(S - e^eps)_+], E_Q[(1 - e^eps S)_+], S = (1/t) sum_i Y_i",
    sides=_sides("upper"),
    cost=0.5,
)
lower = Claim(
    id="accountant.pld.allocation.lower",
    source=SOURCE,
    statement=sympy.Le(pld_lower(t, sigma, eps), exact_delta(t, sigma, eps)),
    variables=VARIABLES,
    title="random allocation: the PLD bracket's lower end <= the exact one-epoch delta",
    explanation="the same exact value; the lower end must not overstate it",
    sides=_sides("lower"),
    cost=0.5,
    # found by the random search: the Gaussian closed form took mu = 1/sigma as a float (0.8 for
    # sigma = 1.25), a lower end 2e-19 above the exact delta; mu^2 is now an exact rational
    pinned=({"t": 1, "sigma": 1.25, "eps": 2.0},),
)

#: One step: the exact value is the Gaussian's 0.12694; RandomAllocationGaussian(2, 1) is 0.05921.
TWICE_PIN = {"t": 1, "sigma": 1.0, "eps": 1.0}
twice_the_steps = upper.mutant(
    "twice_the_steps",
    statement=sympy.Le(exact_delta(t, sigma, eps), pld_upper_twice(t, sigma, eps)),
    sides=_sides("upper", steps_factor=2),
    explanation="accounting an epoch of t steps as one of 2t (more amplification than the run has): at (1, 1, 1) "
    "the exact delta 0.12694 is above the two-step upper end (the two-step exact value is 0.05921)",
    pinned=(TWICE_PIN,),
)

#: Two steps, sigma 2, eps 1: remove 4.790e-4 < add 6.461e-4 (the exact value).
REMOVE_ONLY_PIN = {"t": 2, "sigma": 2.0, "eps": 1.0}
remove_only = lower.mutant(
    "remove_only",
    statement=sympy.Le(pld_lower(t, sigma, eps), exact_remove(t, sigma, eps)),
    sides=_sides("lower", remove_only=True),
    explanation="the exact side with the remove direction E_Q[(1 - e^eps S)_+] only: at (2, 2, 1) it is 4.790e-4, "
    "below the add direction's 6.461e-4 and below the bracket's lower end",
    pinned=(REMOVE_ONLY_PIN,),
)

# ----- k of t steps: the lower end from the sum of the epoch's outputs --------------------------
# At k = t the record is in every step: the epoch is k Gaussian(sigma) steps, whose exact delta is the
# Gaussian profile at noise sigma / sqrt(k) (Balle & Wang 2018, arXiv 1805.06530v2, Thm 8). The sum of
# the outputs is then sufficient, so the lower end (RandomAllocationGaussian.pld_lower_post_processing,
# the sum's Gaussian(sigma sqrt(t) / k)) meets the exact value: its scaling is checked where it is tight.

k = sympy.Symbol("k", integer=True, positive=True)
pld_lower_every = sympy.Function("pld_allocation_every_step_delta_lower")
pld_lower_every_wide = sympy.Function("pld_allocation_every_step_delta_lower_sensitivity_1_2k")
delta_gaussian = F["delta_gaussian"]


@functools.lru_cache(maxsize=256)
def _every_step_lower(steps, s, e, factor):
    mechanism = dp.RandomAllocationGaussian(steps, s, k=steps)
    if factor == 1.0:
        return dp.PLDAccountant().compose(mechanism, 1).delta_bounds(e).lower
    # the mutant: the sum read with sensitivity factor * k
    stand_in = dp.Gaussian(s * steps ** 0.5 / (factor * steps))
    return dp.PLDAccountant().compose(stand_in, 1).delta_bounds(e).lower


def _every_step_sides(factor=1.0):
    def precise_side(point, dps):
        steps, s, e = int(point["k"]), float(point["sigma"]), float(point["eps"])
        end = _every_step_lower(steps, s, e, factor)
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            noise = precise.to_mpf(s) / precise.mp.sqrt(steps)
            return precise.to_mpf(end), precise.delta_gaussian(e, noise, dps=dps)

    def ball_side(point, prec):
        steps, s, e = int(point["k"]), float(point["sigma"]), float(point["eps"])
        end = _every_step_lower(steps, s, e, factor)
        with ball.precision(prec):
            noise = ball.to_arb(s) / ball.to_arb(steps).sqrt()
            return ball.to_arb(end), ball.delta_gaussian(e, noise, prec=prec)

    return Sides(precise_side, ball_side)


every_step_lower = Claim(
    id="accountant.pld.allocation.every_step.lower",
    source=f"{SOURCE}; the sum of the outputs as a post-processing (docs/math.md, 'k of t steps'); Gaussian "
           "profile: Balle & Wang 2018, arXiv 1805.06530v2, Thm 8",
    statement=sympy.Le(pld_lower_every(k, sigma, eps), delta_gaussian(eps, sigma / sympy.sqrt(k))),
    variables=(Variable("k", 2, 6, integer=True), Variable("sigma", 0.7, 4.0), Variable("eps", 0.0, 3.0)),
    title="k of k steps: the PLD lower end (the sum of the outputs) <= the exact delta of k Gaussian steps",
    explanation="RandomAllocationGaussian(k, sigma, k=k) uses the record in every step; its lower end is that of "
    "Gaussian(sigma sqrt(k) / k), which is exactly the composition",
    sides=_every_step_sides(),
    cost=0.2,
)

#: sigma 2, eps 1, k = 2: the exact delta 0.03963 against the sum read at sensitivity 2.4 (mu = 0.849): 0.07723
WIDE_SUM_PIN = {"k": 2, "sigma": 2.0, "eps": 1.0}
every_step_lower_wide = every_step_lower.mutant(
    "sensitivity_1_2k",
    statement=sympy.Le(pld_lower_every_wide(k, sigma, eps), delta_gaussian(eps, sigma / sympy.sqrt(k))),
    sides=_every_step_sides(factor=1.2),
    explanation="the sum of the outputs read with sensitivity 1.2 k (noise sigma sqrt(k) / (1.2 k)): its lower end "
    "is above the exact delta of the k steps",
    pinned=(WIDE_SUM_PIN,),
)

CLAIMS = [upper, lower, twice_the_steps, remove_only, every_step_lower, every_step_lower_wide]
