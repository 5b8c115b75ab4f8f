"""The PLD accountant's exact answer in trivial cases (ids ``accountant.pld_trivial.*``).

A step that uses a record with probability at most q has total variation ``delta(0) <= q`` on
neighbouring datasets (the two output laws share the part where the record is not used), and T
such steps at most ``1 - (1 - q)^T`` (a step-by-step maximal coupling); the privacy profile is
non-increasing, so at any ``delta`` at least that bound the tight epsilon is exactly 0
(docs/math.md, "pld: trivial cases"). ``dp.PLDAccountant`` answers ``Bounds(0, 0, "exact")`` there
without building a grid.

* ``.one_step_total_variation``: the exact profile of one sampled-Gaussian step at epsilon = 0
  (the vocabulary's ``delta_sampled_gaussian``, both directions; Balle & Wang 2018's Gaussian profile
  mixed at rate q) is at most ``q``; arb-certified. Mutant ``.mutant.half``: at most ``q/2`` (refuted
  at ``q = 0.5, sigma = 0.1``, where ``delta(0) = q erf(1/(2 sqrt 2 sigma)) = 0.4999997``).
* ``.zero``: ``PLDAccountant().compose(SampledGaussian(q, sigma), T).epsilon(delta)`` is 0 at
  ``delta = slack (1 - (1 - q)^T)``, ``slack >= 1.001`` (the delta passed is that real number rounded
  up to a float). Mutant ``.mutant.half_rate``: the same at the bound of half the rate,
  ``slack (1 - (1 - q/2)^T)``, is refuted at ``(q, sigma, T, slack) = (1e-4, 0.05, 1000, 1.001)``, where
  ``delta = 0.0488`` is below ``delta(0) = 1 - (1 - 1e-4)^1000 = 0.0952`` (sigma = 0.05 separates the
  sampled part almost fully) and the tight epsilon is about 190: the rate q cannot be halved.
"""

import fractions
import functools
import math

import sympy

import dpproofs as dp
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise

from dpproofs_theorems.accountant._common import BALLE_WANG, F

__all__ = ["CLAIMS", "delta_at", "upper_at", "HALF_PIN", "HALF_RATE_PIN"]

SOURCE = (f"dpproofs.PLDAccountant (its exact short-circuit, docs/math.md 'pld: trivial cases'); {BALLE_WANG}; "
          "coupling characterisation of total variation: Levin, Peres & Wilmer 2017, Prop. 4.7")

q, sigma, T, slack = (sympy.Symbol(name, positive=True) for name in ("q", "sigma", "T", "slack"))
pld_epsilon = sympy.Function("pld_epsilon_upper")


def delta_at(q_value, steps, slack_value, rate_factor=1):
    """``slack (1 - (1 - rate_factor q)^T)`` exactly (floats are exact rationals), rounded UP to a
    float: the delta a user passes is then never below the real number of the statement."""
    rate = fractions.Fraction(q_value) * fractions.Fraction(rate_factor)
    exact = fractions.Fraction(slack_value) * (1 - (1 - rate) ** int(steps))
    value = float(exact)
    if fractions.Fraction(value) < exact:
        value = math.nextafter(value, math.inf)
    return value


@functools.lru_cache(maxsize=256)
def upper_at(q_value, sigma_value, steps, delta_value):
    """The PLD accountant's epsilon, as a user calls it."""
    return dp.PLDAccountant().compose(dp.SampledGaussian(q_value, sigma_value), int(steps)).epsilon(delta_value)


def _zero_sides(rate_factor):
    def value(point):
        q_value, steps = float(point["q"]), int(point["T"])
        return upper_at(q_value, float(point["sigma"]), steps, delta_at(q_value, steps, float(point["slack"]), rate_factor))

    def precise_side(point, dps):
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            return precise.to_mpf(value(point)), precise.mp.zero

    def ball_side(point, prec):
        with ball.precision(prec):
            return ball.to_arb(value(point)), ball.to_arb(0)

    return Sides(precise_side, ball_side)


# ----- one step: the exact profile at 0 is at most q -------------------------------------------

HALF_PIN = {"q": 0.5, "sigma": 0.1}

one_step_total_variation = Claim(
    id="accountant.pld_trivial.one_step_total_variation",
    source=SOURCE,
    statement=sympy.Le(F["delta_sampled_gaussian"](0, q, sigma), q),
    variables=(Variable("q", 1e-9, 1.0), Variable("sigma", 0.05, 50.0)),
    kind="statement",
    title="one SampledGaussian(q, sigma) step: the exact profile at epsilon = 0 (total variation) is <= q",
    explanation="delta(0) = q (2 Phi(1/(2 sigma)) - 1) in both directions: the mixture shares its (1 - q) part "
    "with the other side, and the Gaussian's total variation is below 1",
    pinned=({"q": 0.01, "sigma": 4.0}, {"q": 1e-9, "sigma": 1.0}, {"q": 1.0, "sigma": 0.05}),
)
one_step_total_variation_half = one_step_total_variation.mutant(
    "half",
    statement=sympy.Le(F["delta_sampled_gaussian"](0, q, sigma), q / 2),
    explanation="at sigma = 0.1 the Gaussian part is almost fully separated (erf(3.54) = 1 - 5.6e-7): "
    "delta(0) = 0.4999997 at q = 0.5, above q/2",
    pinned=(HALF_PIN,),
)

# ----- the accountant: epsilon = 0 at any delta above the bound --------------------------------

_BOUND = 1 - (1 - q) ** T
HALF_RATE_PIN = {"q": 1e-4, "sigma": 0.05, "T": 1000, "slack": 1.001}

zero = Claim(
    id="accountant.pld_trivial.zero",
    source=SOURCE,
    statement=sympy.Le(pld_epsilon(q, sigma, T, slack * _BOUND), 0),
    variables=(Variable("q", 1e-12, 1e-4), Variable("sigma", 0.05, 50.0), Variable("T", 1, 1000, integer=True),
               Variable("slack", 1.001, 9.0)),
    kind="statement",
    title="PLDAccountant's epsilon for T SampledGaussian(q, sigma) steps is 0 at delta >= 1 - (1 - q)^T",
    explanation="the accountant's total variation bound (1 - (1 - q erf(1/(2 sqrt 2 sigma)))^T, rounded up) is "
    "below delta = slack (1 - (1 - q)^T) for slack >= 1.001: it answers Bounds(0, 0, 'exact') without a grid",
    sides=_zero_sides(1),
    pinned=({"q": 1e-9, "sigma": 1.0, "T": 1, "slack": 1.001}, {"q": 1e-6, "sigma": 4.0, "T": 1000, "slack": 1.5}),
    cost=0.5,
)
zero_half_rate = zero.mutant(
    "half_rate",
    statement=sympy.Le(pld_epsilon(q, sigma, T, slack * (1 - (1 - q / 2) ** T)), 0),
    sides=_zero_sides(fractions.Fraction(1, 2)),
    explanation="at delta = 1.001 (1 - (1 - 5e-5)^1000) = 0.0488, 1000 SampledGaussian(1e-4, 0.05) steps have "
    "delta(0) = 1 - (1 - 1e-4)^1000 = 0.0952 > delta: the tight epsilon is about 190, and so is the accountant's",
    pinned=(HALF_RATE_PIN,),
)

# ----- the RDP accountant's total variation bound ------------------------------------------------
# dp.Accountant.total_variation_bound(): the smaller of the composed one-step bounds and the Rényi
# one, sqrt(1 - exp(-D)) at the smallest composed RDP of the grid (Bretagnolle-Huber with KL <= D_alpha;
# dpproofs.math.total_variation). Where it is at most delta the accountant answers epsilon = 0 (and it
# caps delta): it must be at least the exact total variation. T Gaussian(sigma) steps are one
# Gaussian(sigma / sqrt T) exactly (Dong, Roth & Su 2019, arXiv 1905.02383v3, Corollary 2: GDP
# composes as sqrt(sum mu_i^2)), whose total variation is the vocabulary's delta_gaussian at 0.

RENYI_SQUARED_PIN = {"sigma": 2.0, "T": 1}

rdp_gaussian_total_variation = Claim(
    id="accountant.pld_trivial.rdp_gaussian_total_variation",
    source=f"dpproofs.Accountant.total_variation_bound; {BALLE_WANG}; Bretagnolle-Huber inequality (Tsybakov 2009, "
           "Lemma 2.6); van Erven & Harremoes 2014, arXiv 1206.2459v2, Theorem 3",
    statement=sympy.Ge(F["accountant_tv_gaussian"](sigma, T, 0), F["delta_gaussian"](0, sigma / sympy.sqrt(T))),
    variables=(Variable("sigma", 0.1, 1000.0), Variable("T", 1, 10**6, integer=True)),
    kind="statement",
    title="the RDP accountant's total variation bound for T Gaussian(sigma) steps is at least the exact one",
    explanation="T Gaussian steps are one Gaussian of noise sigma/sqrt(T); its exact profile at 0 is "
    "erf(sqrt(T)/(2 sqrt 2 sigma)); the accountant's bound is the smaller of 1 - (1 - erf(1/(2 sqrt 2 sigma)))^T "
    "and sqrt(1 - exp(-D)) at its smallest order's composed RDP: both are upper bounds",
    pinned=({"sigma": 1.0, "T": 1}, {"sigma": 100.0, "T": 10}, RENYI_SQUARED_PIN, {"sigma": 1000.0, "T": 10**6}),
)
rdp_gaussian_total_variation_squared = rdp_gaussian_total_variation.mutant(
    "renyi_without_square_root",
    statement=sympy.Ge(sympy.Min(F["accountant_tv_gaussian"](sigma, T, 0), 1 - sympy.exp(-T / (2 * sigma**2))),
                       F["delta_gaussian"](0, sigma / sympy.sqrt(T))),
    explanation="a Rényi bound 1 - exp(-D) (no square root) at D = T/(2 sigma^2): at sigma = 2, T = 1 it is "
    "0.1175, below the exact total variation erf(1/(2 sqrt 2 * 2)) = 0.1974",
    pinned=(RENYI_SQUARED_PIN,),
)

rdp_sampled_gaussian_total_variation = Claim(
    id="accountant.pld_trivial.rdp_sampled_gaussian_total_variation",
    source=SOURCE,
    statement=sympy.Ge(F["accountant_tv_sampled_gaussian"](q, sigma, 1, 0), F["delta_sampled_gaussian"](0, q, sigma)),
    variables=(Variable("q", 1e-9, 1.0), Variable("sigma", 0.1, 1000.0)),
    kind="statement",
    title="the RDP accountant's total variation bound for one SampledGaussian(q, sigma) step is at least the exact one",
    explanation="the exact one-step profile at 0, both directions, against the accountant's bound (the smaller "
    "of q erf(1/(2 sqrt 2 sigma)) rounded up and the Rényi bound)",
    pinned=({"q": 0.01, "sigma": 4.0}, {"q": 1.0, "sigma": 0.1}, {"q": 1e-9, "sigma": 1.0}),
)

CLAIMS = [one_step_total_variation, one_step_total_variation_half, zero, zero_half_rate,
          rdp_gaussian_total_variation, rdp_gaussian_total_variation_squared, rdp_sampled_gaussian_total_variation]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen).


def _figure_one_step_total_variation(path):
    """One sampled-Gaussian step's exact delta(0) against q, beside the bound q (the statement)."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    rates = [10 ** (-4 + 4 * i / 24) for i in range(25)]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.loglog(rates, rates, "k--", label="bound q (the short-circuit's)")
    for sigma_value, marker in ((0.1, "o"), (1.0, "s"), (4.0, "^")):
        values = [float(precise.delta_sampled_gaussian(0, rate, sigma_value, dps=30)) for rate in rates]
        ax.loglog(rates, values, marker + "-", ms=3, label=f"exact delta(0), sigma = {sigma_value}")
    ax.set_xlabel("sampling rate q")
    ax.set_ylabel("total variation delta(0)")
    ax.legend(fontsize=8)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_pld_trivial_total_variation.png", "One sampled-Gaussian step's exact delta(0) "
                   "(its total variation) against q, below the bound q the short-circuit uses",
                   _figure_one_step_total_variation),)


FIGURES = _figures()
