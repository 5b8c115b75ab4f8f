"""Balle, Barthe & Gaboardi 2018 (arXiv 1807.01647v2), Theorem 8: Poisson subsampling.

Statement: let ``M' = M o S_gamma`` (Poisson subsampling: each record kept independently with
probability ``gamma``), neighbouring datasets under add/remove-one. For every ``eps >= 0``, with
``eps' = log(1 + gamma (e^eps - 1))``, the privacy profiles satisfy
``delta_{M'}(eps') <= gamma delta_M(eps)``.

Checked per instance (:class:`dpproofs.checker.oracles.subsampled.Subsampled`): a random finite base (randomized
response, randomized and truncated-geometric counts, arbitrary seeded tables), two add/remove
neighbours of at most 4 records in either order, a rate in {0.1, ..., 0.9}; the left side is the
exact hockey-stick divergence of the enumerated subsampled pair, ``delta_M(eps)`` the base's
profile over the instance's neighbouring batches (see ``_common``). One step (the theorem says
nothing about composition).

Provenance (2026-12-01): not compared with the printed text (see :mod:`dpproofs_theorems.balle2018`).
The number "Theorem 8" and the relation (Poisson under remove/add) are corroborated only by
secondary reading notes; the statement is the standard one. The proof steps below are this
project's derivation through Theorem 2, not a transcription of the printed proof.

Ids -> items:

* ``balle2018.theorem8``: the statement;
* ``balle2018.theorem8.mutant.linear_epsilon``: ``eps' = gamma eps`` (smaller than
  ``log(1 + gamma(e^eps - 1))`` by convexity), refuted at randomized response with keep 3/4,
  ``d = (1,)``, ``d' = ()``, ``gamma = 1/2``, ``eps = 1.1 > log 3``.

The proof's steps (``big = small + (y,)``, ``R = M(S(small))``, ``A = E_T M(T + (y,))``):

* ``balle2018.theorem8.decomposition``: ``M(S(big)) = (1 - gamma) R + gamma A`` exactly;
* ``balle2018.theorem8.remove_direction``: ``H_{e^eps'}(M(S(big)) || R) = gamma H_{e^eps}(A || R)``
  (Theorem 2 with ``mu1' = mu0 = R``), which joint convexity over ``T`` bounds by ``gamma delta(eps)``;
* ``balle2018.theorem8.add_direction``: ``H_{e^eps'}(R || M(S(big))) = gamma H_{e^eps}(R || (1-beta) R
  + beta A)`` (Theorem 2 with ``mu1 = mu0 = R``), at most ``gamma beta delta(eps)``;
* ``balle2018.theorem8.remove_direction.mutant.unshifted``: ``eps`` for ``eps'`` on the left, refuted.
"""

from fractions import Fraction

import sympy

from dpproofs.checker.oracles import subsampled
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.balle2018._common import poisson_instances, source, structured, sym

__all__ = ["CLAIMS", "amplified_epsilon"]

SOURCE = source("Thm. 8 (Poisson subsampling, add/remove)")

eps, inst = sym("eps"), structured("instance")
gamma = F["sampling_fraction"](inst)


def amplified_epsilon(fraction, epsilon):
    """``log(1 + gamma (e^eps - 1))`` as a sympy expression."""
    return sympy.log(1 + fraction * (sympy.exp(epsilon) - 1))


statement = Claim(
    id="balle2018.theorem8",
    source=SOURCE,
    statement=sympy.Le(F["delta_subsampled"](amplified_epsilon(gamma, eps), inst),
                       gamma * F["delta_base"](eps, inst)),
    variables=(Variable("eps", 0, 3),),
    extra={"instance": poisson_instances()},
    title="delta_{M o Poisson}(log(1 + gamma(e^eps - 1))) <= gamma delta_M(eps), add/remove",
    cost=0.5,
)

PIN = {"eps": 1.1, "instance": subsampled.Subsampled(subsampled.randomized_response(Fraction(3, 4)), (1,), (),
                                                    "poisson", rate=Fraction(1, 2))}

mutant_linear_epsilon = statement.mutant(
    "linear_epsilon",
    statement=sympy.Le(F["delta_subsampled"](gamma * eps, inst), gamma * F["delta_base"](eps, inst)),
    explanation="eps' = gamma eps is the folklore small-eps reading; it is below log(1 + gamma(e^eps-1)): "
    "RR(3/4) on d = (1,), d' = (), gamma = 1/2 gives the pair ((1/2, 1/2), (3/4, 1/4)), whose "
    "profile at 0.55 is 0.067 while the base is log 3-DP (delta_M(1.1) = 0)",
    pinned=(PIN,),
)

def _ordered(added_first):
    return poisson_instances().filter(lambda i: (len(i.d) == len(i.d2) + 1) == added_first)


_E, _EPS_PRIME = sympy.exp(eps), amplified_epsilon(gamma, eps)
_BETA = (1 + gamma * (_E - 1)) / _E

decomposition = Claim(
    id="balle2018.theorem8.decomposition",
    source=SOURCE + ", proof",
    statement=sympy.Eq(F["decomposition_gap"](inst), 0),
    extra={"instance": poisson_instances()},
    kind="step",
    title="M(S(big)) = (1 - gamma) M(S(small)) + gamma E_T M(T + y), exactly",
    cost=0.5,
)

remove_direction = Claim(
    id="balle2018.theorem8.remove_direction",
    source=SOURCE + ", proof (Thm. 2 with mu1' = mu0)",
    statement=sympy.Eq(F["delta_subsampled"](_EPS_PRIME, inst), gamma * F["hs_decomposed"](_E, 0, 1, 1, 0, inst)),
    variables=(Variable("eps", 0, 3),),
    extra={"instance": _ordered(True)},
    kind="step",
    title="H_{e^eps'}(M(S(big)) || M(S(small))) = gamma H_{e^eps}(A || R)",
    cost=0.5,
)

add_direction = Claim(
    id="balle2018.theorem8.add_direction",
    source=SOURCE + ", proof (Thm. 2 with mu1 = mu0)",
    statement=sympy.Eq(F["delta_subsampled"](_EPS_PRIME, inst),
                       gamma * F["hs_decomposed"](_E, 1, 0, 1 - _BETA, _BETA, inst)),
    variables=(Variable("eps", 0, 3),),
    extra={"instance": _ordered(False)},
    kind="step",
    title="H_{e^eps'}(M(S(small)) || M(S(big))) = gamma H_{e^eps}(R || (1-beta) R + beta A)",
    cost=0.5,
)

mutant_unshifted = remove_direction.mutant(
    "unshifted",
    statement=sympy.Eq(F["delta_subsampled"](eps, inst), gamma * F["hs_decomposed"](_E, 0, 1, 1, 0, inst)),
    explanation="the identity holds at the amplified level eps' only: RR(3/4), d = (1,), d' = (), gamma = 1/2, "
    "eps = 1/2: H_{e^eps}(M(S(d)) || M(S(d'))) = 0.088, gamma H_{e^eps}(A || R) = 0.169",
    pinned=({"eps": 0.5, "instance": PIN["instance"]},),
)

CLAIMS = [statement, mutant_linear_epsilon, decomposition, remove_direction, add_direction, mutant_unshifted]



def _draw(path):
    from dpproofs_theorems.balle2018._common import sides_figure

    base = subsampled.geometric_count(Fraction(1, 2), 3)
    points = [PIN, {"instance": subsampled.Subsampled(base, (1, 1, 0), (1, 0), "poisson", rate=Fraction(1, 4))}]
    sides_figure(path, statement, points, ["RR(3/4), gamma = 1/2", "geometric count, gamma = 1/4"],
                 "Thm. 8: exact delta'(eps') against gamma delta(eps), Poisson, add/remove")


def _figures():
    from dpproofs_theorems.balle2018._common import figures

    return figures("balle2018_theorem8.png", "Poisson amplification: both sides along eps", _draw)


FIGURES = _figures()
