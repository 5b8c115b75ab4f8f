"""Zhu, Dong & Wang 2022 (arXiv 2106.08567v3): the Gaussian instances of the subsampling theorems,
the pairs a PLD accountant composes, against the exact Gaussian sum query.

Provenance (2026-12-02): instances of :mod:`.subsampling`, whose printed text was not found (see
:mod:`dpproofs_theorems.zhu2022`).

The sum query ``sum(batch) + N(0, sigma^2)`` on 1-D clipped records in ``[-1, 1]`` (clipping norm
``C = 1``; sigma = noise std / C): its output on a dataset is a finite Gaussian mixture, whose
hockey-stick divergence is computed from exact normal CDFs on the located level set and enclosed
rigorously (:mod:`dpproofs.checker.oracles.mixtures`, ``delta_sum_query``). The base's dominating pair is
``(N(1), N(0))`` under add/remove and ``(N(2), N(0))`` under replace-one (sensitivity 2), so:

* Poisson, add/remove (Theorem 11): ``((1-q) N(0) + q N(1), N(0))`` (removal) and its swap (addition):
  ``.poisson``, ``delta_sum_query(eps, c) <= delta_sampled_gaussian(eps, q, sigma)`` (the max of
  both directions) at ``eps`` in [0, 3];
* without replacement, replace-one: ``P1 = ((1-g) N(0) + g N(2), N(0))``: ``.wor``,
  ``delta_sum_query(eps, c) <= delta_sampled_gaussian_add(eps, g, sigma/2)`` at ``eps`` in [0, 3]
  (``N(2)`` vs ``N(0)`` at noise sigma is ``N(1)`` vs ``N(0)`` at sigma/2);
* ``.wor.negative_eps`` (a FINDING, expected to fail): ``delta_sum_query(eps, c) <=
  delta_sum_query(eps, wor_p1_configuration(c))`` (P1 realised at the same n, b, sigma) at ``eps`` in
  [-2, 0]: P1 is not a dominating pair for eps < 0. Pinned: the symmetric configuration P*
  (n = 2, b = 1, sigma = 1, D = (1, 0), D' = (-1, 0)) at eps = -1/2: 0.511137 > 0.437243.
* mutant ``.wor.mutant.sensitivity_one``: replace-one read with sensitivity 1,
  ``<= delta_sampled_gaussian_add(eps, g, sigma)``: refuted at the P1 configuration (n = 2, b = 1,
  sigma = 1, eps = 1/2).
"""

from fractions import Fraction

import sympy

from dpproofs.checker.oracles import subsampled
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.zhu2022._common import (
    SYMMETRIC_GAUSSIAN,
    poisson_sum_query_configs,
    source,
    structured,
    sym,
    wor_sum_query_configs,
)

__all__ = ["CLAIMS"]

#: The eps range of the one-step claims (the profiles of these small configurations are below 1e-60
#: beyond it).
EPS_MIN, EPS_MAX = 0, 3

SOURCE_POISSON = source("Theorem 11 (Poisson subsampling, add/remove), Gaussian mechanism")
SOURCE = source("dominating pair of sampling without replacement, replace-one (result number not confirmed), "
                "Gaussian mechanism")

eps, config = sym("eps"), structured("config")
_LHS = F["delta_sum_query"](eps, config)
_GAMMA, _SIGMA = F["gamma_sum_query"](config), F["sigma_sum_query"](config)

poisson = Claim(
    id="zhu2022.gaussian.poisson",
    source=SOURCE_POISSON,
    statement=sympy.Le(_LHS, F["delta_sampled_gaussian"](eps, _GAMMA, _SIGMA)),
    variables=(Variable("eps", EPS_MIN, EPS_MAX),),
    extra={"config": poisson_sum_query_configs()},
    title="Poisson, add/remove: the Gaussian sum query on any neighbours is below ((1-q)N(0) + qN(1), N(0)) "
    "and its swap",
    cost=0.5,
)

_P1 = F["delta_sampled_gaussian_add"](eps, _GAMMA, _SIGMA / 2)
wor = Claim(
    id="zhu2022.gaussian.wor",
    source=SOURCE,
    statement=sympy.Le(_LHS, _P1),
    variables=(Variable("eps", EPS_MIN, EPS_MAX),),
    extra={"config": wor_sum_query_configs()},
    title="Without replacement, replace-one: the Gaussian sum query on any neighbours is below "
    "P1 = ((1-g)N(0) + gN(2), N(0)) for eps >= 0",
    cost=0.5,
)

wor_negative_eps = Claim(
    id="zhu2022.gaussian.wor.negative_eps",
    source=SOURCE,
    statement=sympy.Le(_LHS, F["delta_sum_query"](eps, F["wor_p1_configuration"](config))),
    variables=(Variable("eps", -2, 0),),
    extra={"config": wor_sum_query_configs()},
    expected="fails",
    kind="finding",
    title="Without replacement, replace-one: P1 is not a dominating pair of the Gaussian sum query at eps < 0",
    explanation="the symmetric configuration P* = ((N(0) + N(1))/2, (N(0) + N(-1))/2) (n = 2, b = 1, "
    "sigma = 1) has H_{e^-0.5} = 0.511137 > 0.437243 = H_{e^-0.5}(P1): P1 may not be composed as a "
    "dominating pair",
    pinned=({"eps": -0.5, "config": SYMMETRIC_GAUSSIAN},),
    cost=0.5,
)

_P1_CONFIG = subsampled.GaussianSubsampled((1, -1), (-1, -1), "fixed", Fraction(1), batch_size=1)
mutant_sensitivity_one = wor.mutant(
    "sensitivity_one",
    statement=sympy.Le(_LHS, F["delta_sampled_gaussian_add"](eps, _GAMMA, _SIGMA)),
    explanation="replace-one moves the clipped sum by up to 2C: the realised P1 (x = 1 replaced by -1, the "
    "other record -1) is above the sensitivity-1 pair",
    pinned=({"eps": 0.5, "config": _P1_CONFIG},),
)

CLAIMS = [poisson, wor, wor_negative_eps, mutant_sensitivity_one]


# --- figures (docs) ---------------------------------------------------------------------------------


def _figure_symmetric_gaussian(path):
    """P* against P1 at every real eps (n = 2, b = 1, sigma = 1)."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    grid = [-2 + 4 * i / 40 for i in range(41)]
    sides = [wor_negative_eps.evaluate({"eps": e, "config": SYMMETRIC_GAUSSIAN}, 20) for e in grid]
    ax.plot(grid, [float(s[0]) for s in sides], label="P* = ((N(0)+N(1))/2, (N(0)+N(-1))/2)")
    ax.plot(grid, [float(s[1]) for s in sides], "--", label="P1 = ((N(0)+N(2))/2, N(0))")
    ax.axvline(0, color="k", lw=0.5)
    ax.set_xlabel("eps (sigma = 1, b = 1 of n = 2)")
    ax.set_ylabel("H_{e^eps}")
    ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("zhu2022_gaussian_symmetric.png",
                   "The Gaussian sum query without replacement: the symmetric configuration P* against P1",
                   _figure_symmetric_gaussian),)


FIGURES = _figures()
