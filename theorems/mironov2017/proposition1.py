"""Mironov 2017 (arXiv 1702.07476v3), Proposition 1: adaptive composition of RDP.

Statement: if ``f`` is (alpha, eps1)-RDP and ``g : R1 x D -> R2`` is (alpha, eps2)-RDP then
``(X, Y)``, ``X ~ f(D)``, ``Y ~ g(X, D)``, is (alpha, eps1 + eps2)-RDP. Checked on finite adaptive
compositions ``C`` enumerated exactly (:mod:`dpproofs.checker.oracles.finite`), in either order of the neighbours:
``rdp_step(alpha, C, i)`` is the worst ``D_alpha`` of step ``i`` over every prefix, and
``rdp_pair(alpha, joint(C))``, the joint ``D_alpha``, must not exceed their sum.

Ids: ``mironov2017.proposition1`` (2 steps, up to 3 outcomes each), ``.three_steps``;
``.mutant.max_instead_of_sum`` (refuted on a composition of two identical steps).
"""

from fractions import Fraction

import sympy

from dpproofs.checker.oracles import finite
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.mironov2017._common import source, structured, sym

__all__ = ["CLAIMS"]

SOURCE = source("Prop. 1")

alpha, C = sym("alpha"), structured("C")
rdp_pair, joint, rdp_step = F["rdp_pair"], F["joint"], F["rdp_step"]


def _budget_sum(steps):
    """``eps_1 + ... + eps_steps``, ``eps_i`` = worst D_alpha of step i over its prefixes."""
    return sympy.Add(*(rdp_step(alpha, C, i) for i in range(steps)))


# alpha >= 1.001: the joint and the step divergences can be equal (independent steps), and
# rdp_pair loses absolute accuracy ~1e-65/(alpha-1) as alpha -> 1 (log of a sum near 1)
ALPHA = Variable("alpha", 1.001, 32)

statement = Claim(
    id="mironov2017.proposition1",
    source=SOURCE,
    statement=sympy.Le(rdp_pair(alpha, joint(C)), _budget_sum(2)),
    variables=(ALPHA,),
    extra={"C": finite.either_order(finite.adaptive_compositions(steps=2, max_outcomes=3))},
    kind="support",
    title="D_alpha of an adaptive 2-step composition <= sum of per-step worst D_alpha",
)

three_steps = Claim(
    id="mironov2017.proposition1.three_steps",
    source=SOURCE + " (applied twice)",
    statement=sympy.Le(rdp_pair(alpha, joint(C)), _budget_sum(3)),
    variables=(ALPHA,),
    extra={"C": finite.either_order(finite.adaptive_compositions(steps=3, max_outcomes=2))},
    kind="support",
    title="D_alpha of an adaptive 3-step composition <= sum of per-step worst D_alpha",
    cost=0.5,
)

_half = (Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))
_pair = finite.Pair(*_half)
PINNED_COMPOSITION = finite.AdaptiveComposition(({(): _pair}, {(0,): _pair, (1,): _pair}))
MUTANT_PIN = {"alpha": 2.0, "C": PINNED_COMPOSITION}

mutant_max_instead_of_sum = statement.mutant(
    "max_instead_of_sum",
    statement=sympy.Le(rdp_pair(alpha, joint(C)), sympy.Max(rdp_step(alpha, C, 0), rdp_step(alpha, C, 1))),
    explanation="two independent copies of the same pair have twice its divergence, more than the "
    "max of the steps (3/4 vs 1/4 RR, alpha = 2: 2 log(5/3) > log(5/3))",
    pinned=(MUTANT_PIN,),
)

CLAIMS = [statement, three_steps, mutant_max_instead_of_sum]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the Renyi divergence of the product of two
# randomized responses, computed on its four outcomes by the evaluator (precise.rdp_finite),
# against the sum of the evaluator's two RR curves.


def _figure_composition(path):
    """RDP of a composition of two randomized responses against the sum of their curves."""
    import math

    from dpproofs.docgen import pyplot, save
    from dpproofs.math import precise

    plt = pyplot()
    e1, e2 = 0.5, 1.0
    p1, p2 = math.exp(e1) / (1 + math.exp(e1)), math.exp(e2) / (1 + math.exp(e2))
    first, second = (p1, 1 - p1), (p2, 1 - p2)  # one RR under D; under D' the outcomes swap
    P = [a * b for a in first for b in second]
    Q = [a * b for a in first[::-1] for b in second[::-1]]
    alphas = [1.05 + (16 - 1.05) * i / 39 for i in range(40)]
    joint = [float(precise.rdp_finite(a, P, Q, dps=20)) for a in alphas]
    total = [float(precise.rdp_randomized_response(a, e1, dps=20) + precise.rdp_randomized_response(a, e2, dps=20))
             for a in alphas]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(alphas, total, label=f"eps1(alpha) + eps2(alpha): RR({e1}) and RR({e2:g})")
    ax.plot(alphas, joint, "o", ms=3, label="D_alpha of the composed pair (computed on 4 outcomes)")
    ax.set_xlabel("alpha")
    ax.set_ylabel("Renyi divergence")
    ax.set_title("Prop. 1: composition adds RDP (equality for independent steps)")
    ax.legend(fontsize=8)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("proposition1_composition.png",
                   "RDP of a composition of two randomized responses against the sum of their curves",
                   _figure_composition),)


FIGURES = _figures()
