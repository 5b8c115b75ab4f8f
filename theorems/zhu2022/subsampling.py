"""Zhu, Dong & Wang 2022 (arXiv 2106.08567v3): dominating pairs of subsampled mechanisms.

Statements (``(P, Q)`` a dominating pair of the base mechanism on neighbouring batches, ``g`` the
sampling rate; ``H_{e^eps}(X || Y) = sup_S X(S) - e^eps Y(S)`` at every real ``eps``):

* Poisson sampling, add/remove (Theorem 11): removal (``D = D' + x``, the pair ``(M(S(D)), M(S(D')))``) is
  dominated by ``((1-g) Q + g P, Q)``; addition by ``(Q, (1-g) Q + g P)``;
* sampling without replacement (a batch of ``b`` of ``n``, ``g = b/n``), replace-one: dominated by
  ``((1-g) Q + g P, Q)``.

Provenance (2026-12-02): not compared with the printed text (no full text found; see
:mod:`dpproofs_theorems.zhu2022`). The Poisson statement is Theorem 11 (the number as the issue's
review of the sources gives it, and as a public review of Lebeda et al. cites it: "the point-wise
maximum [of the add and remove relations], as in Theorem 11 of Zhu et al."); the number of the
without-replacement statement was not confirmed.

Ground truth: random finite bases (randomized response on the parity, randomized counts,
truncated geometric counts, arbitrary tables) on random small neighbouring datasets, every batch
enumerated (:class:`dpproofs.checker.oracles.subsampled.Subsampled`). The base's dominating pair is the
randomized-response pair at the base's pure-DP level on the instance (``zdw_pair`` builds it: every
``eps0``-DP pair is dominated, in both orders and at every real eps, by ``eps0``-RR; Kairouz, Oh &
Viswanath 2015), so the check covers every base, not only those whose worst case is known.

Ids -> items (``zhu2022.subsampling`` + suffix):

* ``.poisson``: ``hockey_stick_pair(eps, instance_pair(inst)) <= hockey_stick_pair(eps, zdw_pair(inst))``,
  Poisson instances (either order), ``eps`` in [-3, 3] (negative eps included: a dominating pair);
* ``.wor``: the same for fixed-size batches under replace-one at ``eps`` in [0, 3] (expected to hold);
* ``.wor.negative_eps`` (a FINDING, expected to fail): the same at ``eps`` in [-3, 0]: the pair
  ``((1-g) Q + g P, Q)`` bounds every configuration's profile for ``eps >= 0`` but is NOT a
  dominating pair in the sense the composition theorem needs. Pinned: randomized response
  (truthful w.p. 3/4) on the parity, n = 3, b = 1, D = (1, 1, 0), D' = (0, 1, 0), eps = -0.3: the
  configuration's pair is ((5/12, 7/12), (7/12, 5/12)), H = 0.274659 > 0.259182 = H of
  ((7/12, 5/12), (3/4, 1/4)). (For eps < 0, H_{e^eps}(X||Y) = 1 - e^eps + e^eps H_{e^-eps}(Y||X): the
  per-step pair's swap is smaller than the configuration's swap there.)
* mutants: ``.wor.mutant.extra_gamma`` (``<= g H(zdw_pair)``: refuted at the configuration that
  realises the pair, D = (1, 0, 0), D' = (0, 0, 0), eps = 0), ``.poisson.mutant.wrong_direction``
  (removal bounded by the addition pair ``(Q, (1-g) Q + g P)``: refuted at D = (1,), D' = (), rate
  1/2, eps = 1/2).
"""

from fractions import Fraction

import sympy

from dpproofs.checker.oracles import subsampled
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.zhu2022._common import (
    LEBEDA_INSTANCE,
    P1_INSTANCE,
    poisson_instances,
    source,
    structured,
    sym,
    wor_instances,
)

__all__ = ["CLAIMS"]

SOURCE_POISSON = source("Theorem 11 (dominating pairs of Poisson subsampling, add/remove)")
SOURCE_WOR = source("dominating pair of sampling without replacement, replace-one (result number not confirmed)")

eps, inst = sym("eps"), structured("inst")
_LHS = F["hockey_stick_pair"](eps, F["instance_pair"](inst))
_RHS = F["hockey_stick_pair"](eps, F["zdw_pair"](inst))

poisson = Claim(
    id="zhu2022.subsampling.poisson",
    source=SOURCE_POISSON,
    statement=sympy.Le(_LHS, _RHS),
    variables=(Variable("eps", -3, 3),),
    extra={"inst": poisson_instances()},
    title="Poisson sampling, add/remove: the configuration's profile is below the dominating pair's "
    "at every real eps (both directions)",
    cost=0.5,
)

wor = Claim(
    id="zhu2022.subsampling.wor",
    source=SOURCE_WOR,
    statement=sympy.Le(_LHS, _RHS),
    variables=(Variable("eps", 0, 3),),
    extra={"inst": wor_instances()},
    title="Without replacement, replace-one: the configuration's profile is below ((1-g)Q + gP, Q)'s "
    "for eps >= 0",
    cost=0.5,
)

NEGATIVE_PIN = {"eps": -0.3, "inst": LEBEDA_INSTANCE}
wor_negative_eps = Claim(
    id="zhu2022.subsampling.wor.negative_eps",
    source=SOURCE_WOR,
    statement=sympy.Le(_LHS, _RHS),
    variables=(Variable("eps", -3, 0),),
    extra={"inst": wor_instances()},
    expected="fails",
    kind="finding",
    title="Without replacement, replace-one: ((1-g)Q + gP, Q) is NOT a dominating pair at eps < 0",
    explanation="randomized response (3/4) on the parity, n = 3, b = 1, D = (1,1,0), D' = (0,1,0): the "
    "configuration's pair ((5/12,7/12),(7/12,5/12)) has H_{e^-0.3} = 0.274659 > 0.259182 of "
    "((7/12,5/12),(3/4,1/4)); the composition theorem needs every real eps, so this pair may not be "
    "composed as a dominating pair (see zhu2022.composition.wor)",
    pinned=(NEGATIVE_PIN,),
)

mutant_extra_gamma = wor.mutant(
    "extra_gamma",
    statement=sympy.Le(_LHS, F["sampling_fraction"](inst) * _RHS),
    explanation="the per-step pair is realised (every other record equal to the new value): its "
    "profile cannot be scaled down by another factor gamma",
    pinned=({"eps": 0.0, "inst": P1_INSTANCE},),
)

_ADD_PAIR = F["swapped"](F["zdw_pair"](inst))
mutant_wrong_direction = poisson.mutant(
    "wrong_direction",
    statement=sympy.Le(_LHS, F["hockey_stick_pair"](eps, _ADD_PAIR)),
    explanation="removal's pair ((1-g)Q + gP, Q) and addition's (Q, (1-g)Q + gP) differ for eps > 0: "
    "D = (1,), D' = () at rate 1/2 realises the removal pair, above the addition pair at eps = 1/2",
    pinned=({"eps": 0.5, "inst": subsampled.Subsampled(subsampled.randomized_response(Fraction(3, 4)), (1,), (),
                                                       "poisson", rate=Fraction(1, 2))},),
)

CLAIMS = [poisson, wor, wor_negative_eps, mutant_extra_gamma, mutant_wrong_direction]


# --- figures (docs) ---------------------------------------------------------------------------------


def _figure_negative_eps(path):
    """The symmetric configuration's profile against P1 at every real eps."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    grid = [-2 + 4 * i / 80 for i in range(81)]
    sides = [wor_negative_eps.evaluate({"eps": e, "inst": LEBEDA_INSTANCE}, 20) for e in grid]
    ax.plot(grid, [float(s[0]) for s in sides], label="configuration D = (1,1,0), D' = (0,1,0), b = 1")
    ax.plot(grid, [float(s[1]) for s in sides], "--", label="P1 = ((1-g)Q + gP, Q), g = 1/3")
    ax.axvline(0, color="k", lw=0.5)
    ax.set_xlabel("eps (randomized response 3/4 on the parity)")
    ax.set_ylabel("H_{e^eps}")
    ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("zhu2022_wor_negative_eps.png",
                   "Without replacement, replace-one: P1 bounds the configuration for eps >= 0 only",
                   _figure_negative_eps),)


FIGURES = _figures()
