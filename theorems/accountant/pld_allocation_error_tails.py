"""Random allocation's upper one-step PLD against every error its lattice law allows (ids
``accountant.pld.allocation_error_tails.*``).

A lattice law of ``S`` (random allocation's one epoch, :mod:`dpproofs.accountant.pld.allocation`)
carries error bounds of two kinds: per atom (plain, L1) and per FFT window (the window's error vector
has Euclidean norm at most a known bound, so an atom's error is ``c_j u_j`` with ``sum u_j^2 <= 1``).
An atom's P-mass is ``e^{loss}`` times its Q-mass, so both kinds are tied between P and Q. The upper
one-step PLD (:func:`dpproofs.accountant.pld.discretise.discretise` with
``LatticePair.upper_cell_masses``) bounds them as one bound for every tail: mass
``w (R_i - R_{i+1})`` at each cell's top edge, ``R`` the tail norms (docs/math.md, "Errors in L2: one
bound for the whole tail").

The claim takes 4 001 atoms of ``S`` on ``[0.2, 5]`` with lognormal-shaped masses and errors of
``share`` of each mass (kind 0: in L2, one window; kind 1: plain), in the add order (``remove = 0``)
or the remove order, and the error that most raises the tail above the loss ``above`` (L2: ``u``
along the coefficients there; plain: every atom there at its bound). Its exact one-step delta at
``eps``, from the float atoms in mpmath or arb, must be at most that of the upper one-step PLD at
grid step 1e-3 (its float masses, exactly). Mutant ``.mutant.tails_dropped``: the tail masses
taken out of the upper PLD, refuted at ``(kind, remove, share, eps, above) = (0, 0, 0.01, 0.8, 0.8)``.
"""

import functools

import mpmath
import numpy as np
import sympy

from dpproofs.accountant.pld import allocation as al
from dpproofs.accountant.pld import discretise as pld_discretise
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = ["CLAIMS", "TAILS_DROPPED_PIN"]

SOURCE = ("dpproofs PLDAccountant: the upper one-step PLD of random allocation's lattice laws (docs/math.md, "
          "'Errors in L2: one bound for the whole tail'; Cauchy-Schwarz per FFT window); connect-the-dots: "
          "Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, arXiv:2207.04380v1")

#: The loss grid step of the one-step PLD (about a hundredth of the atoms' loss spread).
STEP = 1e-3

kind, remove, share, eps, above = (sympy.Symbol(n, real=True) for n in ("kind", "remove", "share", "eps", "above"))
adversarial_delta = sympy.Function("allocation_lattice_adversarial_delta")
upper_delta = sympy.Function("allocation_lattice_upper_one_step_delta")
upper_delta_dropped = sympy.Function("allocation_lattice_upper_one_step_delta_tails_dropped")


def _law(plain, fraction):
    s = np.geomspace(0.2, 5.0, 4001)
    q = np.exp(-0.5 * (np.log(s) / 0.4) ** 2)
    q /= q.sum()
    law = al.SumLaw(s, q, fraction * q if plain else np.zeros_like(q), 0.0, 0.0, 0.0, 0.0, 0.0)
    if not plain:
        law.l2 = [(fraction * q, np.zeros(len(q), dtype=np.int64))]
    return law


@functools.lru_cache(maxsize=64)
def _upper(plain, direction, fraction, tails_dropped):
    """``(losses as multiples of STEP, masses, infinity)`` of the upper one-step PLD (floats)."""
    pair = al.LatticePair(_law(plain, fraction), direction)
    one = pld_discretise.discretise(pair, STEP, "upper")
    masses = one.masses.copy()
    indices = one.offset + np.arange(len(masses))
    if tails_dropped:
        grid = indices * STEP
        tails = pair.upper_cell_masses(grid)[7]
        extra = pld_discretise._l2_tail_masses(tails, np.minimum(pair.edge_ratio, 1.0), STEP)
        masses[1:] = np.maximum(masses[1:] - extra, 0.0)
    return indices, masses, one.infinity


def _adversary(point):
    """The law's atoms with the error that most raises the tail above ``above``: ``(s, true Q-mass
    as (q, c, unit) with q_true = q + c unit)`` in floats; ``unit`` the weights to scale."""
    plain, direction = bool(int(point["kind"])), "remove" if int(point["remove"]) else "add"
    law = _law(plain, float(point["share"]))
    loss = np.log(law.s) if direction == "add" else -np.log(law.s)
    chosen = loss > float(point["above"])
    coefficient = law.e if plain else law.l2[0][0]
    return law, direction, chosen, coefficient


def _sides(tails_dropped=False):
    def upper_of(point):
        plain, direction = bool(int(point["kind"])), "remove" if int(point["remove"]) else "add"
        return _upper(plain, direction, float(point["share"]), tails_dropped)

    def precise_side(point, dps):
        law, direction, chosen, c = _adversary(point)
        indices, masses, infinity = upper_of(point)
        with mpmath.workdps(dps + precise.GUARD_DPS):
            e = precise.to_mpf(point["eps"])
            norm = mpmath.sqrt(mpmath.fsum(mpmath.mpf(x) ** 2 for x in c[chosen]))
            exact = []
            for s, q, cj, on in zip(law.s, law.q, c, chosen):
                s, q_true = mpmath.mpf(s), mpmath.mpf(q)
                if on:
                    q_true += mpmath.mpf(cj) if int(point["kind"]) else mpmath.mpf(cj) ** 2 / norm
                loss = mpmath.log(s) if direction == "add" else -mpmath.log(s)
                if loss > e:
                    exact.append((s * q_true if direction == "add" else q_true) * -mpmath.expm1(e - loss))
            bound = [mpmath.mpf(infinity)]
            for k, m in zip(indices, masses):
                loss = int(k) * mpmath.mpf(STEP)
                if m > 0 and loss > e:
                    bound.append(mpmath.mpf(m) * -mpmath.expm1(e - loss))
            return mpmath.fsum(exact), mpmath.fsum(bound)

    def ball_side(point, prec):
        law, direction, chosen, c = _adversary(point)
        indices, masses, infinity = upper_of(point)
        with ball.precision(prec):
            e = ball.to_arb(float(point["eps"]))
            norm = sum((ball.to_arb(float(x)) ** 2 for x in c[chosen]), ball.to_arb(0)).sqrt()
            exact = ball.to_arb(0)
            for s, q, cj, on in zip(law.s, law.q, c, chosen):
                s_b, q_true = ball.to_arb(float(s)), ball.to_arb(float(q))
                if on:
                    cb = ball.to_arb(float(cj))
                    q_true += cb if int(point["kind"]) else cb * cb / norm
                loss = s_b.log() if direction == "add" else -s_b.log()
                term = (s_b * q_true if direction == "add" else q_true) * -(e - loss).expm1()
                exact += ball.positive_part(term)
            bound = ball.to_arb(float(infinity))
            step = ball.to_arb(STEP)
            for k, m in zip(indices, masses):
                if m > 0:
                    bound += ball.positive_part(ball.to_arb(float(m)) * -(e - int(k) * step).expm1())
            return exact, bound

    return Sides(precise_side, ball_side)


VARIABLES = (Variable("kind", 0, 1, integer=True), Variable("remove", 0, 1, integer=True),
             Variable("share", 1e-4, 0.05), Variable("eps", 0.0, 1.5), Variable("above", -1.0, 2.0))

upper = Claim(
    id="accountant.pld.allocation_error_tails.upper",
    source=SOURCE,
    statement=sympy.Le(adversarial_delta(kind, remove, share, eps, above), upper_delta(kind, remove, share, eps)),
    variables=VARIABLES,
    title="random allocation's upper one-step PLD covers the worst error its lattice law allows on any tail",
    explanation="the error (L2 per window or plain per atom, tied between P and Q) that most raises the tail above "
    "a loss, at its bound: the exact one-step delta stays at most the upper PLD's",
    sides=_sides(),
    cost=0.5,
)

#: L2 errors of 1 % in the add order; the tail above loss 0.8 at its bound, delta at 0.8.
TAILS_DROPPED_PIN = {"kind": 0, "remove": 0, "share": 0.01, "eps": 0.8, "above": 0.8}
tails_dropped = upper.mutant(
    "tails_dropped",
    statement=sympy.Le(adversarial_delta(kind, remove, share, eps, above),
                       upper_delta_dropped(kind, remove, share, eps)),
    sides=_sides(tails_dropped=True),
    explanation="the upper PLD without its tail masses: the errors it no longer covers lift the exact delta above it",
    pinned=(TAILS_DROPPED_PIN,),
)

CLAIMS = [upper, tails_dropped]
