"""Mironov 2017 (arXiv 1702.07476v3), Proposition 1: adaptive composition of RDP.

Statement: if ``f`` is (alpha, eps1)-RDP and ``g : R1 x D -> R2`` is (alpha, eps2)-RDP then
``(X, Y)``, ``X ~ f(D)``, ``Y ~ g(X, D)``, is (alpha, eps1 + eps2)-RDP. Checked on finite adaptive
compositions ``C`` enumerated exactly (:mod:`dpproofs.finite`), in either order of the neighbours:
``rdp_step(alpha, C, i)`` is the worst ``D_alpha`` of step ``i`` over every prefix, and
``rdp_pair(alpha, joint(C))``, the joint ``D_alpha``, must not exceed their sum.

Ids: ``mironov2017.proposition1`` (2 steps, up to 3 outcomes each), ``.three_steps``;
``.mutant.max_instead_of_sum`` (refuted on a composition of two identical steps).
"""

from fractions import Fraction

import sympy

from dpproofs import finite
from dpproofs.claims import Claim, Variable
from dpproofs.vocabulary import NAMESPACE as F

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
