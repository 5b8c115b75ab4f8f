"""The PLD bracket of ledgers with loss atoms (ids ``accountant.pld.atom_grid.*``).

Randomized response and the Laplace mechanism have privacy losses with atoms: eps-RR's loss is
``+-eps``; Laplace(b)'s is ``+1/b`` with P-mass 1/2, ``-1/b`` with P-mass ``e^{-1/b}/2``, and
continuous in between. Their upper one-step PLD (:func:`dpproofs.accountant.pld.discretise.discretise`,
``bound="upper"``) is built on a grid moved so that a grid point sits ``ATOM_GAP`` steps below the
heaviest atom (``_atom_shift``; any grid gives a valid upper bound, the connect-the-dots split of
Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, arXiv:2207.04380v1), and the composition reads
every loss at ``(offset + i) step + shift`` summed over the steps. The claims hold the public
accountant, called as a user calls it, against exact profiles:

* ``.randomized_response.upper`` / ``.lower``: ``PLDAccountant().compose(RandomizedResponse(eps0),
  T).epsilon_bounds(delta)`` against the exact T-fold profile of eps0-RR, the optimal composition of
  T eps0-DP mechanisms (Kairouz, Oh & Viswanath 2015, arXiv:1311.0776v4, Theorem 3.3): the upper end
  has ``delta_exact(upper) <= delta``, the lower end ``delta_exact(lower) >= delta`` (or is 0);
* ``.laplace.upper`` / ``.lower``: one Laplace(b) step against its exact profile
  ``(1 - e^{(eps - 1/b)/2})_+``;
* mutant ``.randomized_response.upper.mutant.shift_doubled``: the upper one-step PLD recorded with
  twice the grid's shift (every loss read ``|shift|`` too low), refuted at :data:`SHIFT_DOUBLED_PIN`.

Both exact sides are closed forms in mpmath and arb (:mod:`dpproofs.math.formulas`): every verdict is
certified.
"""

import contextlib
import functools

import sympy

import dpproofs as dp
from dpproofs.accountant.pld import discretise as pld_discretise
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise

from dpproofs_theorems.accountant._common import F, library_attribute

__all__ = ["CLAIMS", "SHIFT_DOUBLED_PIN", "bracket"]

SOURCE = ("dpproofs PLDAccountant: the upper one-step PLD on a grid with a point just below the heaviest loss "
          "atom (docs/math.md, 'Loss atoms on the upper grid'); connect-the-dots: Doroshenko, Ghazi, Kamath, "
          "Kumar & Manurangsi 2022, arXiv:2207.04380v1; the T-fold RR profile: Kairouz, Oh & Viswanath 2015, "
          "arXiv:1311.0776v4, Theorem 3.3")

eps0, steps, delta, b = (sympy.Symbol(n, positive=True) for n in ("eps0", "steps", "delta", "b"))
rr_upper = sympy.Function("pld_epsilon_upper_randomized_response")
rr_lower = sympy.Function("pld_epsilon_lower_randomized_response")
rr_upper_shift_doubled = sympy.Function("pld_epsilon_upper_randomized_response_shift_doubled")
laplace_upper = sympy.Function("pld_epsilon_upper_laplace")
laplace_lower = sympy.Function("pld_epsilon_lower_laplace")
rr_delta = F["delta_composed_pure"]
laplace_delta = F["delta_laplace"]


def _shift_doubled():
    """The library's discretisation with every upper one-step PLD's shift recorded twice (the mutant),
    for the duration."""
    original = pld_discretise.discretise

    def doubled(pair, step, bound, *args, **kwargs):
        one = original(pair, step, bound, *args, **kwargs)
        if one is None or bound != "upper":
            return one
        return pld_discretise.OneStep(one.step, one.offset, 2 * one.shift, one.masses, one.infinity, one.bound)

    return library_attribute(pld_discretise, "discretise", doubled)


@functools.lru_cache(maxsize=256)
def bracket(kind, parameter, count, delta_value, mutant=None):
    """``epsilon_bounds(delta_value)`` of a fresh ``PLDAccountant`` with ``count`` steps of
    ``RandomizedResponse(parameter)`` (``kind`` 'rr') or ``Laplace(parameter)`` ('laplace')."""
    mechanism = dp.RandomizedResponse(parameter) if kind == "rr" else dp.Laplace(parameter)
    context = _shift_doubled() if mutant == "shift_doubled" else contextlib.nullcontext()
    with context:
        return dp.PLDAccountant().compose(mechanism, count).epsilon_bounds(delta_value)


def _sides(kind, which, mutant=None):
    """Sides ``(delta_exact(end) [+ delta if a lower end is 0], delta)``, mpmath and arb."""
    lower = which == "lower"

    def end(point):
        parameter = float(point["eps0"] if kind == "rr" else point["b"])
        count = int(point["steps"]) if kind == "rr" else 1
        found = bracket(kind, parameter, count, float(point["delta"]), mutant)
        return found.lower if lower else found.upper

    def exact(ctx_module, e, point, **precision):
        if kind == "rr":
            return ctx_module.delta_composed_pure(e, point["eps0"], int(point["steps"]), **precision)
        return ctx_module.delta_laplace(e, point["b"], **precision)

    def precise_side(point, dps):
        e = end(point)
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            d = precise.to_mpf(point["delta"])
            return exact(precise, e, point, dps=dps) + (d if lower and e == 0 else 0), d

    def ball_side(point, prec):
        e = end(point)
        with ball.precision(prec):
            d = ball.to_arb(point["delta"])
            return exact(ball, e, point, prec=prec) + (d if lower and e == 0 else 0), d

    return Sides(precise_side, ball_side)


def _statements(upper, lower, exact, *args):
    """``exact(upper(args), ...) <= delta`` and ``exact(lower(args), ...) + delta [lower = 0] >= delta``."""
    parameters = args[:-1]
    return (sympy.Le(exact(upper(*args), *parameters), delta),
            sympy.Ge(exact(lower(*args), *parameters) + delta * sympy.KroneckerDelta(lower(*args), 0), delta))


_RR_VARIABLES = (Variable("eps0", 0.1, 5.0), Variable("steps", 1, 100, integer=True),
                 Variable("delta", 1e-10, 1e-2))
_rr_up, _rr_low = _statements(rr_upper, rr_lower, rr_delta, eps0, steps, delta)
rr_upper_claim = Claim(
    id="accountant.pld.atom_grid.randomized_response.upper", source=SOURCE, statement=_rr_up,
    variables=_RR_VARIABLES, title="PLDAccountant upper end for T randomized-response steps: delta_exact(upper) <= delta",
    explanation="eps0-RR composed T times, eps0 in [0.1, 5], T up to 100, delta 1e-10..1e-2, against the optimal "
    "composition of T eps0-DP mechanisms (exact for RR)", sides=_sides("rr", "upper"))
rr_lower_claim = Claim(
    id="accountant.pld.atom_grid.randomized_response.lower", source=SOURCE, statement=_rr_low,
    variables=_RR_VARIABLES, title="PLDAccountant lower end for T randomized-response steps: delta_exact(lower) >= delta",
    explanation="as the upper end; a lower end of 0 is always valid", sides=_sides("rr", "lower"))

_LAPLACE_VARIABLES = (Variable("b", 0.2, 20.0), Variable("delta", 1e-10, 0.3))
_lap_up, _lap_low = _statements(laplace_upper, laplace_lower, laplace_delta, b, delta)
laplace_upper_claim = Claim(
    id="accountant.pld.atom_grid.laplace.upper", source=SOURCE, statement=_lap_up, variables=_LAPLACE_VARIABLES,
    title="PLDAccountant upper end for one Laplace step: delta_exact(upper) <= delta",
    explanation="Laplace(b), b in [0.2, 20], delta 1e-10..0.3, against (1 - e^((eps - 1/b)/2))_+",
    sides=_sides("laplace", "upper"))
laplace_lower_claim = Claim(
    id="accountant.pld.atom_grid.laplace.lower", source=SOURCE, statement=_lap_low, variables=_LAPLACE_VARIABLES,
    title="PLDAccountant lower end for one Laplace step: delta_exact(lower) >= delta",
    explanation="as the upper end; a lower end of 0 is always valid", sides=_sides("laplace", "lower"))

#: RandomizedResponse(3) x 10 at delta 1e-3: the tight epsilon is 29.998; with the shift doubled every
#: loss is read a shift too low.
SHIFT_DOUBLED_PIN = {"eps0": 3.0, "steps": 10, "delta": 1e-3}
shift_doubled = rr_upper_claim.mutant(
    "shift_doubled",
    statement=sympy.Le(rr_delta(rr_upper_shift_doubled(eps0, steps, delta), eps0, steps), delta),
    sides=_sides("rr", "upper", "shift_doubled"),
    explanation="the upper one-step PLD's grid shift recorded twice: every one-step loss is read up to a step "
    "below the grid point its mass was put on, and the upper end falls below the tight epsilon",
    pinned=(SHIFT_DOUBLED_PIN,),
)

CLAIMS = [rr_upper_claim, rr_lower_claim, shift_doubled, laplace_upper_claim, laplace_lower_claim]
