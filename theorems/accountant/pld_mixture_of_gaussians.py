"""The mixture-of-Gaussians mechanism in the PLD accountant (ids ``accountant.pld.mixture_of_gaussians.*``).

``dp.MixtureOfGaussians(s, c, p)`` (Choquette-Choo, Ganesh, Steinke & Thakurta 2023, arXiv
2310.15526; dp_accounting's ``MixtureOfGaussiansDpEvent``): one dataset gives ``N(0, s^2)``, its
neighbour ``sum_i p_i N(c_i, s^2)``. The family checked here is ``c = (0, 1, c)``,
``p = ((1 - w)/2, (1 - w)/2, w)``: a component at 0 (the loss has a floor ``log p_0``), one at 1, and
the largest ``c`` of weight ``w``.

The exact one-step profile, the max over both orders of the hockey stick of the two mixtures, is
computed by :mod:`dpproofs.checker.oracles.mixtures` (the level set of ``p - e^eps q`` located and
its mass summed from exact normal CDFs; in arb, :func:`~dpproofs.checker.oracles.mixtures.delta_mixture_ball`,
a rigorous enclosure: verdicts are certified), at the probabilities divided by their exact sum (the
mechanism's reading).

Claims (the shipped answers, called as a user calls them):

* ``.upper``: ``PLDAccountant().compose(MixtureOfGaussians(s, c, p)).epsilon_bounds(delta).upper``
  has exact delta at most ``delta``;
* ``.lower``: the lower end has exact delta at least ``delta`` (or is 0);
* mutant ``.upper.mutant.largest_dropped`` (refuted at a pinned, ball-certified point): the upper end
  of the mixture whose largest component is dropped (its probability moved to sensitivity 0, as if
  that record were never sampled), the loss a pair that ignores the farthest component understates.
"""

import functools
from fractions import Fraction

import mpmath
import sympy

import dpproofs as dp
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.checker.oracles import mixtures as oracle
from dpproofs.checker.oracles.subsampled import MixturePair
from dpproofs.math import ball

__all__ = ["CLAIMS", "mechanism", "exact_pair", "DROPPED_PIN"]

SOURCE = ("dpproofs.MixtureOfGaussians in dpproofs.PLDAccountant (mixture of Gaussians: Choquette-Choo, Ganesh, "
          "Steinke & Thakurta 2023, arXiv 2310.15526; connect-the-dots: Doroshenko, Ghazi, Kamath, Kumar & "
          "Manurangsi 2022, arXiv:2207.04380v1)")

sigma, c, w, delta = (sympy.Symbol(n, positive=True) for n in ("sigma", "c", "w", "delta"))
pld_lower = sympy.Function("pld_epsilon_lower_mixture_of_gaussians")
pld_upper = sympy.Function("pld_epsilon_upper_mixture_of_gaussians")
pld_upper_dropped = sympy.Function("pld_epsilon_upper_mixture_of_gaussians_largest_dropped")
tight_delta = sympy.Function("tight_delta_mixture_of_gaussians")


def _components(c_value, w_value):
    rest = (1 - float(w_value)) / 2
    return (0.0, 1.0, float(c_value)), (rest, rest, float(w_value))


def mechanism(sigma_value, c_value, w_value):
    """``MixtureOfGaussians(s, (0, 1, c), ((1 - w)/2, (1 - w)/2, w))``."""
    sensitivities, probabilities = _components(c_value, w_value)
    return dp.MixtureOfGaussians(float(sigma_value), sensitivities, probabilities)


def exact_pair(sigma_value, sensitivities, probabilities):
    """The add pair as the oracle's exact MixturePair (probabilities over their exact sum)."""
    total = sum(Fraction(p) for p in probabilities if p > 0)
    kept = [(Fraction(x), Fraction(p) / total) for x, p in zip(sensitivities, probabilities) if p > 0]
    return MixturePair(tuple(p for _, p in kept), tuple(x for x, _ in kept), (Fraction(1),), (Fraction(0),),
                       Fraction(sigma_value))


@functools.lru_cache(maxsize=256)
def _bracket(sigma_value, c_value, w_value, delta_value, dropped=False):
    m = mechanism(sigma_value, c_value, w_value)
    if dropped:  # mutant: the largest component's probability moved to sensitivity 0
        rest = m.probabilities[1]
        m = dp.MixtureOfGaussians(m.sigma, (0.0, 1.0), (m.probabilities[0] + m.probabilities[2], rest))
    return dp.PLDAccountant().compose(m).epsilon_bounds(delta_value)


def _sides(which, dropped=False):
    """Sides ``(delta_exact(end) [+ delta if a lower end is 0], delta)`` of one step."""

    def end(point):
        b = _bracket(float(point["sigma"]), float(point["c"]), float(point["w"]), float(point["delta"]), dropped)
        return b.upper if which == "upper" else b.lower

    def pair(point):
        sensitivities, probabilities = _components(point["c"], point["w"])
        return exact_pair(float(point["sigma"]), sensitivities, probabilities)

    def precise_side(point, dps):
        e, p = end(point), pair(point)
        with mpmath.workdps(dps + 10):
            d = mpmath.mpf(point["delta"])
            value = max(oracle.delta_mixture(p, e, dps), oracle.delta_mixture(p.swapped(), e, dps))
            return value + (d if which == "lower" and e == 0 else 0), d

    def ball_side(point, prec):
        e, p = end(point), pair(point)
        with ball.precision(prec):
            d = ball.to_arb(point["delta"])
            value = oracle.delta_mixture_ball(p, e, prec).max(oracle.delta_mixture_ball(p.swapped(), e, prec))
            return value + (d if which == "lower" and e == 0 else 0), d

    return Sides(precise_side, ball_side)


VARIABLES = (Variable("sigma", 0.5, 4.0), Variable("c", 1.0, 3.0), Variable("w", 0.05, 0.5),
             Variable("delta", 1e-10, 1e-3))

upper = Claim(
    id="accountant.pld.mixture_of_gaussians.upper",
    source=SOURCE,
    statement=sympy.Le(tight_delta(pld_upper(sigma, c, w, delta), sigma, c, w), delta),
    variables=VARIABLES,
    title="PLDAccountant upper end for one MixtureOfGaussians step: delta_exact(upper) <= delta",
    sides=_sides("upper"),
    cost=0.5,
)
lower = Claim(
    id="accountant.pld.mixture_of_gaussians.lower",
    source=SOURCE,
    statement=sympy.Ge(tight_delta(pld_lower(sigma, c, w, delta), sigma, c, w)
                       + delta * sympy.KroneckerDelta(pld_lower(sigma, c, w, delta), 0), delta),
    variables=VARIABLES,
    title="PLDAccountant lower end for one MixtureOfGaussians step: delta_exact(lower) >= delta",
    sides=_sides("lower"),
    cost=0.5,
)

#: sigma = 1, the farthest component at 3 with weight 0.3: dropping it understates the loss a lot.
DROPPED_PIN = {"sigma": 1.0, "c": 3.0, "w": 0.3, "delta": 1e-6}
largest_dropped = upper.mutant(
    "largest_dropped",
    statement=sympy.Le(tight_delta(pld_upper_dropped(sigma, c, w, delta), sigma, c, w), delta),
    sides=_sides("upper", dropped=True),
    explanation="the pair without its farthest component N(3, 1) (weight 0.3, moved to 0) has a far lighter "
                "tail of losses: its upper end is below the exact epsilon of the full mixture",
    pinned=(DROPPED_PIN,),
)

CLAIMS = [upper, lower, largest_dropped]
