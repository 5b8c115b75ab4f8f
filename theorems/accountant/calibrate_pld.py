"""``calibrate_sigma(..., accountant="pld")`` never overshoots (ids ``accountant.calibrate_pld.*``).

With ``sigma_c = dp.calibrate_sigma(epsilon=eps, delta=delta, q=q, steps=T, accountant="pld")``,
the statement is what a user checks: ``dp.PLDAccountant().compose(dp.SampledGaussian(q, sigma_c),
T).epsilon(delta) <= eps`` (the certified upper end at the default width). Points where the target
is unreachable (InvalidArgument) are not examples.

Mutant ``.never_overshoots.mutant.below_tolerance``: a calibration returning ``sigma_c (1 - 2e-3)``
(twice its tolerance below) overshoots (refuted at the Abadi pin): the claim can see a sigma that
is too small by the tolerance.

``.smallest``: at ``sigma_c (1 - 1e-3)`` (one tolerance below) the certified upper end is above the
target, so ``sigma_c`` is the smallest certified sigma to the tolerance. Mutant
``.smallest.mutant.above_tolerance``: a calibration returning ``sigma_c (1 + 2e-3)`` is refuted (one
tolerance below it is still certified).
"""

import functools

import sympy

import dpproofs as dp
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = ["CLAIMS", "PIN", "TOLERANCE", "above_tolerance", "calibrated", "below_tolerance"]

SOURCE = "dpproofs.calibrate_sigma(accountant='pld') and dpproofs.PLDAccountant (their documented contract)"
epsilon, delta, q, steps = (sympy.Symbol(name, real=True) for name in ("epsilon", "delta", "q", "T"))
pld_epsilon = sympy.Function("pld_epsilon_upper")
calibrated_sigma = sympy.Function("calibrated_sigma_pld")

#: the Abadi target (epsilon = 1 at delta = 1e-5, q = 0.01, 10 000 steps), checked first
PIN = {"epsilon": 1.0, "delta": 1e-5, "q": 0.01, "T": 10000}


@functools.lru_cache(maxsize=128)
def calibrated(eps, delta_value, q_value, steps_value):
    return dp.calibrate_sigma(epsilon=eps, delta=delta_value, q=q_value, steps=steps_value, accountant="pld")


def below_tolerance(eps, delta_value, q_value, steps_value):
    """The mutant: the calibrated sigma lowered by twice the calibration's tolerance (1e-3)."""
    return calibrated(eps, delta_value, q_value, steps_value) * (1 - 2e-3)


def _upper_at(calibrate):
    def value(point):
        args = (float(point["epsilon"]), float(point["delta"]), float(point["q"]), int(point["T"]))
        sigma = calibrate(*args)
        return dp.PLDAccountant().compose(dp.SampledGaussian(args[2], sigma), args[3]).epsilon(args[1])
    return value


def _sides(value):
    def precise_side(point, dps):
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            return precise.to_mpf(value(point)), precise.to_mpf(point["epsilon"])

    def ball_side(point, prec):
        with ball.precision(prec):
            return ball.to_arb(value(point)), ball.to_arb(point["epsilon"])

    return Sides(precise_side, ball_side)


# a box where the calibrated sigma is about 1 or more (each example is one calibration, about a
# second; below sigma ~ 0.8 one calibration takes 5-20 s, so those are left to the Abadi-style pins)
VARIABLES = (Variable("epsilon", 0.5, 3.0), Variable("delta", 1e-8, 1e-4),
             Variable("q", 0.01, 0.1), Variable("T", 10, 1000, integer=True))
_statement = sympy.Le(pld_epsilon(q, calibrated_sigma(epsilon, delta, q, steps), steps, delta), epsilon)

never_overshoots = Claim(
    id="accountant.calibrate_pld.never_overshoots",
    source=SOURCE,
    statement=_statement,
    variables=VARIABLES,
    kind="statement",
    title="PLDAccountant's certified epsilon at calibrate_sigma(accountant='pld')'s sigma is <= the target",
    sides=_sides(_upper_at(calibrated)),
    pinned=(PIN,),
    cost=0.1,
)
mutant_below_tolerance = never_overshoots.mutant(
    "below_tolerance",
    statement=sympy.Le(pld_epsilon(q, calibrated_sigma(epsilon, delta, q, steps) * (1 - sympy.Rational(2, 1000)),
                                   steps, delta), epsilon),
    sides=_sides(_upper_at(below_tolerance)),
    explanation="epsilon falls about 1.1 times as fast as sigma rises at the Abadi pin, so a sigma 2e-3 below "
    "the calibrated one gives an epsilon about 2e-3 above the target",
    pinned=(PIN,),
)

#: calibrate_sigma's default relative tolerance for accountant="pld"
TOLERANCE = 1e-3


def above_tolerance(eps, delta_value, q_value, steps_value):
    """The mutant of ``smallest``: a calibration returning twice its tolerance too much noise."""
    return calibrated(eps, delta_value, q_value, steps_value) * (1 + 2 * TOLERANCE)


def _one_tolerance_below(calibrate):
    return lambda *args: calibrate(*args) * (1 - TOLERANCE)


def _sides_reversed(value):
    """``(epsilon, value)``: the target below the upper end at the point."""
    forward = _sides(value)
    return Sides(lambda point, dps: forward.precise(point, dps)[::-1],
                 lambda point, prec: forward.ball(point, prec)[::-1])


smallest = Claim(
    id="accountant.calibrate_pld.smallest",
    source=SOURCE,
    statement=sympy.Lt(epsilon, pld_epsilon(q, calibrated_sigma(epsilon, delta, q, steps) * (1 - sympy.Rational(1, 1000)),
                                            steps, delta)),
    variables=VARIABLES,
    kind="statement",
    title="one tolerance below calibrate_sigma(accountant='pld')'s sigma, PLDAccountant's certified epsilon is "
    "above the target: the calibrated sigma is the smallest certified one to the tolerance",
    explanation="the calibration ends on a certified sigma with an evaluated uncertified one at most the "
    "tolerance (1e-3 relative) below it (calibrate._smallest_certified); the certified upper end moves with "
    "the accountant's grid, so this is shown point by point, not by monotonicity",
    sides=_sides_reversed(_upper_at(_one_tolerance_below(calibrated))),
    pinned=(PIN,),
    cost=0.1,
)
mutant_above_tolerance = smallest.mutant(
    "above_tolerance",
    statement=sympy.Lt(epsilon, pld_epsilon(q, calibrated_sigma(epsilon, delta, q, steps)
                                            * (1 + sympy.Rational(2, 1000)) * (1 - sympy.Rational(1, 1000)),
                                            steps, delta)),
    sides=_sides_reversed(_upper_at(_one_tolerance_below(above_tolerance))),
    explanation="a calibration that returns twice its tolerance too much noise: one tolerance below it is "
    "still certified",
    pinned=(PIN,),
)

CLAIMS = [never_overshoots, mutant_below_tolerance, smallest, mutant_above_tolerance]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the sigma each accountant calibrates, as a user calls them.


def _figure_calibrated_sigma(path):
    """Calibrated sigma against the target epsilon, RDP and PLD, Abadi run (q = 0.01, 10 000 steps)."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    targets = [0.5, 1.0, 2.0, 4.0, 8.0]
    rdp = [dp.calibrate_sigma(epsilon=e, delta=1e-5, q=0.01, steps=10000) for e in targets]
    pld = [calibrated(e, 1e-5, 0.01, 10000) for e in targets]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(targets, rdp, "o--", label="calibrate_sigma (RDP)")
    ax.plot(targets, pld, "s-", label="calibrate_sigma(accountant='pld')")
    ax.set_xscale("log")
    ax.set_xlabel("target epsilon (delta = 1e-5, q = 0.01, T = 10 000)")
    ax.set_ylabel("calibrated sigma")
    ax.legend(fontsize=8)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_calibrate_pld_sigma.png", "Calibrated sigma against the target epsilon, RDP and "
                   "PLD (Abadi run)", _figure_calibrated_sigma),)


FIGURES = _figures()
