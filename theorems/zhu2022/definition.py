"""Zhu, Dong & Wang 2022 (arXiv 2106.08567v3), Definition 7: the definition of a dominating pair,
and the dominating pair every other module here builds on.

Definition: ``(P, Q)`` dominates a mechanism ``M`` when ``H_{e^eps}(M(D) || M(D')) <= H_{e^eps}(P || Q)``
for every neighbouring ``D, D'`` and every real ``eps`` (``e^eps`` in ``[0, inf)``).

The base dominating pair used by ``zdw_pair``: an ``eps0``-DP mechanism is dominated by ``eps0``-RR,
``((e^eps0, 1), (1, e^eps0)) / (1 + e^eps0)``, in both orders and at every real eps (Kairouz, Oh &
Viswanath 2015: every eps0-DP pair is a post-processing of RR).

Provenance (2026-12-01): not compared with the printed text (no full text found; see
:mod:`dpproofs_theorems.zhu2022`). Secondary sources number the definition "Definition 7"; the
"every real eps" reading (``e^eps`` over ``[0, inf)``) is the one the composition theorem needs.

Ids -> items:

* ``zhu2022.definition.randomized_response``: random finite pairs ``(P, Q)`` (either order):
  ``hockey_stick_pair(eps, pair) <= hockey_stick_pair(eps, rr_dominating_pair(pair))``, eps in [-3, 3];
* ``zhu2022.definition.randomized_response.mutant.half_profile``: half RR's profile is not enough
  (refuted at P = (3/4, 1/4), Q = (1/4, 3/4) itself, eps = 0: the bound is attained).
"""

from fractions import Fraction

import sympy

from dpproofs.checker.oracles import finite
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.zhu2022._common import source, structured, sym

__all__ = ["CLAIMS"]

SOURCE = source("Definition 7 (dominating pair)")

eps, pair = sym("eps"), structured("pair")
_H = F["hockey_stick_pair"]

randomized_response = Claim(
    id="zhu2022.definition.randomized_response",
    source=SOURCE,
    statement=sympy.Le(_H(eps, pair), _H(eps, F["rr_dominating_pair"](pair))),
    variables=(Variable("eps", -3, 3),),
    extra={"pair": finite.either_order(finite.pairs(min_size=2, max_size=5))},
    kind="support",
    title="eps0-RR dominates every eps0-DP finite pair at every real eps (the base pair of zdw_pair)",
)

_RR = finite.Pair((Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4)))
mutant_half_profile = randomized_response.mutant(
    "half_profile",
    statement=sympy.Le(_H(eps, pair), _H(eps, F["rr_dominating_pair"](pair)) / 2),
    explanation="the bound is attained: randomized response is its own dominating pair (RR(3/4): total "
    "variation 1/2 > 1/4)",
    pinned=({"eps": 0.0, "pair": _RR},),
)

CLAIMS = [randomized_response, mutant_half_profile]


# --- figures (docs) ---------------------------------------------------------------------------------

_EXAMPLE = finite.Pair((Fraction(1, 2), Fraction(3, 10), Fraction(1, 5)), (Fraction(3, 10), Fraction(3, 10), Fraction(2, 5)))


def _figure_dominance(path):
    """A finite pair's profile against its randomized-response dominating pair, at every real eps."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    grid = [-3 + 6 * i / 80 for i in range(81)]
    sides = [randomized_response.evaluate({"eps": e, "pair": _EXAMPLE}, 20) for e in grid]
    ax.plot(grid, [float(s[0]) for s in sides], label="P = (1/2, 3/10, 1/5), Q = (3/10, 3/10, 2/5)")
    ax.plot(grid, [float(s[1]) for s in sides], "--", label="eps0-randomized response at the pair's eps0")
    ax.set_xlabel("eps")
    ax.set_ylabel("H_{e^eps}")
    ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("zhu2022_definition_dominance.png",
                   "Randomized response at the pair's level dominates a finite pair at every real eps",
                   _figure_dominance),)


FIGURES = _figures()
