"""Mironov 2017 (arXiv 1702.07476v3), Proposition 1: adaptive composition of RDP.

Statement: if ``f`` is (alpha, eps1)-RDP and ``g : R1 x D -> R2`` is (alpha, eps2)-RDP then
``(X, Y)``, ``X ~ f(D)``, ``Y ~ g(X, D)``, is (alpha, eps1 + eps2)-RDP. Checked on finite adaptive
compositions enumerated exactly (:mod:`dpproofs.finite`): ``eps_i`` is the worst
``D_alpha`` of step ``i`` over every prefix, and the joint ``D_alpha`` must not exceed their sum.

Ids: ``mironov2017.proposition1`` (2 steps, up to 3 outcomes each), ``.three_steps``;
``.mutant.max_instead_of_sum`` (refuted on a composition of two identical steps).
"""

from fractions import Fraction

import sympy

from dpproofs import finite
from dpproofs.claims import Claim, Sides, Variable
from dpproofs.evaluator import ball, precise

from dpproofs_theorems.mironov2017._common import source

__all__ = ["CLAIMS", "step_budgets", "step_budgets_ball"]

SOURCE = source("Prop. 1")


def step_budgets(composition, alpha_value, dps):
    """``[max over prefixes of D_alpha(step i pair)]`` for each step (mp)."""
    return [max(finite.rdp(pair, alpha_value, dps) for pair in composition.step_pairs(i))
            for i in range(len(composition.steps))]


def step_budgets_ball(composition, alpha_value, prec):
    """Enclosures of :func:`step_budgets`."""
    budgets = []
    with ball.precision(prec):
        for i in range(len(composition.steps)):
            values = [finite.rdp_ball(pair, alpha_value, prec) for pair in composition.step_pairs(i)]
            top = values[0]
            for v in values[1:]:
                top = top.max(v)
            budgets.append(top)
    return budgets


def _sides(combine):
    """``D_alpha(joint) <= combine(step budgets)``; ``combine`` is sum (the statement) or max."""

    def precise_sides(point, dps):
        comp, a = point["composition"], point["alpha"]
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            return finite.rdp(comp.joint(), a, dps), combine(step_budgets(comp, a, dps))

    def ball_sides(point, prec):
        comp, a = point["composition"], point["alpha"]
        with ball.precision(prec):
            budgets = step_budgets_ball(comp, a, prec)
            if combine is max:
                total = budgets[0]
                for b in budgets[1:]:
                    total = total.max(b)
            else:
                total = sum(budgets[1:], budgets[0])
            return finite.rdp_ball(comp.joint(), a, prec), total

    return Sides(precise_sides, ball_sides)


# alpha >= 1.001: the joint and the step divergences can be equal (independent steps), and
# finite.rdp loses absolute accuracy ~1e-65/(alpha-1) as alpha -> 1 (log of a sum near 1)
ALPHA = Variable("alpha", 1.001, 32)
LHS, RHS = sympy.Symbol("D_alpha_joint"), sympy.Symbol("sum_eps_i")

statement = Claim(
    id="mironov2017.proposition1",
    source=SOURCE,
    statement=sympy.Le(LHS, RHS),
    variables=(ALPHA,),
    extra={"composition": finite.adaptive_compositions(steps=2, max_outcomes=3)},
    kind="support",
    title="D_alpha of an adaptive 2-step composition <= sum of per-step worst D_alpha",
    sides=_sides(sum),
)

three_steps = Claim(
    id="mironov2017.proposition1.three_steps",
    source=SOURCE + " (applied twice)",
    statement=sympy.Le(LHS, RHS),
    variables=(ALPHA,),
    extra={"composition": finite.adaptive_compositions(steps=3, max_outcomes=2)},
    kind="support",
    title="D_alpha of an adaptive 3-step composition <= sum of per-step worst D_alpha",
    sides=_sides(sum),
    cost=0.5,
)

_half = (Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4))
_pair = finite.Pair(*_half)
PINNED_COMPOSITION = finite.AdaptiveComposition(({(): _pair}, {(0,): _pair, (1,): _pair}))
MUTANT_PIN = {"alpha": 2.0, "composition": PINNED_COMPOSITION}

mutant_max_instead_of_sum = statement.mutant(
    "max_instead_of_sum",
    statement=sympy.Le(LHS, sympy.Symbol("max_eps_i")),
    sides=_sides(max),
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
    from dpproofs.evaluator import precise

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
