"""Balle, Barthe & Gaboardi 2018 (arXiv 1807.01647v2), Theorem 2: advanced joint convexity.

Statement (``D_a`` the alpha-divergence of the paper, ``D_a(mu || mu') = sup_E mu(E) - a mu'(E)``,
the hockey-stick divergence at ``a = e^eps``): if ``mu = (1-eta) mu0 + eta mu1`` and
``mu' = (1-eta) mu0 + eta mu1'``, then for ``a >= 1``, with ``a' = 1 + eta (a - 1)`` and
``beta = a'/a``,

    D_{a'}(mu || mu') = eta D_a(mu1 || (1 - beta) mu0 + beta mu1').

The amplification proofs follow it with joint convexity,
``D_a(mu1 || (1-beta) mu0 + beta mu1') <= (1-beta) D_a(mu1 || mu0) + beta D_a(mu1 || mu1')``.

Checked on random triples ``(mu0, mu1, mu1')`` of rational distributions (``hs_triple(c, a, b,
T) = sum_i (a.nu(i) - c b.nu(i))_+``, exact up to ``e^eps``), ``eps`` in [0, 3], ``eta`` in [0, 1].

Provenance (2026-12-01): not compared with the printed text (the stored full-text copies listed in
:mod:`dpproofs_theorems.balle2018` are reachable only through their opening). The number
"Theorem 2" and its form as an identity (not an inequality) are corroborated by another paper's
proof that cites it so; the joint-convexity step is the one that proof takes after it.

Ids -> items:

* ``balle2018.theorem2``: the identity (``==``: the two sides' balls must overlap);
* ``balle2018.theorem2.joint_convexity``: the step after it;
* ``balle2018.theorem2.mutant.beta_one``: ``beta = 1`` (the plain mixture identity
  ``D_{a'}(mu||mu') = eta D_a(mu1 || mu1')``), refuted at a pinned triple with ``mu1 = mu0``;
* ``balle2018.theorem2.mutant.order_not_shifted``: the same order ``a`` on both sides, refuted.
"""

from fractions import Fraction

import sympy

from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.balle2018._common import source, structured, sym
from dpproofs_theorems.balle2018.quantities import Triple, triples

__all__ = ["CLAIMS"]

SOURCE = source("Thm. 2 (advanced joint convexity)")

eps, eta, T = sym("eps"), sym("eta"), structured("T")
hs = F["hs_triple"]

a = sympy.exp(eps)
a_shifted = 1 + eta * (a - 1)
beta = a_shifted / a

# mu = (1-eta) mu0 + eta mu1 and mu' = (1-eta) mu0 + eta mu1' as coefficient triples of (mu0, mu1, mu1')
_LHS = hs(a_shifted, 1 - eta, eta, 0, 1 - eta, 0, eta, T)
_RHS = eta * hs(a, 0, 1, 0, 1 - beta, 0, beta, T)

EPS = Variable("eps", 0, 3)
# eta >= 1e-6: both sides are O(eta) differences of mixtures sharing (1-eta) mu0, and
# a' = 1 + eta(e^eps - 1) is rounded at the working precision; at 50 digits an eta below ~1e-40
# is lost against the shared part (eta -> 0 is the trivial limit 0 = 0)
ETA = Variable("eta", 1e-6, 1)

statement = Claim(
    id="balle2018.theorem2",
    source=SOURCE,
    statement=sympy.Eq(_LHS, _RHS),
    variables=(EPS, ETA),
    extra={"T": triples()},
    title="D_{a'}((1-eta)mu0 + eta mu1 || (1-eta)mu0 + eta mu1') = eta D_a(mu1 || (1-beta)mu0 + beta mu1')",
)

joint_convexity = Claim(
    id="balle2018.theorem2.joint_convexity",
    source=source("proofs of Thms. 8-10 (joint convexity after Thm. 2)"),
    statement=sympy.Le(hs(a, 0, 1, 0, 1 - beta, 0, beta, T),
                       (1 - beta) * hs(a, 0, 1, 0, 1, 0, 0, T) + beta * hs(a, 0, 1, 0, 0, 0, 1, T)),
    variables=(EPS, ETA),
    extra={"T": triples()},
    kind="step",
    title="D_a(mu1 || (1-beta)mu0 + beta mu1') <= (1-beta) D_a(mu1||mu0) + beta D_a(mu1||mu1')",
)

_PIN = {
    "eps": 0.5, "eta": 0.5,
    "T": Triple((Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 2), Fraction(1, 2)),
                           (Fraction(9, 10), Fraction(1, 10))),
}

mutant_beta_one = statement.mutant(
    "beta_one",
    statement=sympy.Eq(_LHS, eta * hs(a, 0, 1, 0, 0, 0, 1, T)),
    explanation="without the shared component in the second argument the identity fails: with "
    "mu1 = mu0 = (1/2, 1/2), mu1' = (9/10, 1/10), eta = 1/2, eps = 1/2 the left side is "
    "eta D_a(mu0 || (1-beta)mu0 + beta mu1') = 0.103 but eta D_a(mu0 || mu1') = 0.168",
    pinned=(_PIN,),
)

mutant_order_not_shifted = statement.mutant(
    "order_not_shifted",
    statement=sympy.Eq(hs(a, 1 - eta, eta, 0, 1 - eta, 0, eta, T), _RHS),
    explanation="the mixture's divergence is at the smaller order a' = 1 + eta(a - 1), not at a: "
    "at the pinned triple D_a(mu || mu') = 0.0054, not eta D_a(mu1 || (1-beta)mu0 + beta mu1') = 0.103",
    pinned=(_PIN,),
)

CLAIMS = [statement, joint_convexity, mutant_beta_one, mutant_order_not_shifted]



def _draw(path):
    from dpproofs_theorems.balle2018._common import sides_figure

    sides_figure(path, statement, [{"eta": 0.5, "T": _PIN["T"]}, {"eta": 0.1, "T": _PIN["T"]}],
                 ["eta = 1/2", "eta = 1/10"], "Thm. 2 on mu0 = mu1 = (1/2, 1/2), mu1' = (9/10, 1/10)")


def _figures():
    from dpproofs_theorems.balle2018._common import figures

    return figures("balle2018_theorem2.png", "Advanced joint convexity: both sides along eps", _draw)


FIGURES = _figures()
