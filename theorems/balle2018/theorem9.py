"""Balle, Barthe & Gaboardi 2018 (arXiv 1807.01647v2), Theorem 9: sampling without replacement.

Statement: let ``M' = M o S_m`` (a uniformly random subset of ``m`` of the ``n`` records, no
replacement), neighbouring datasets under substitution (replace-one), ``M`` a mechanism on
batches of size ``m`` with the substitution relation. For every ``eps >= 0``, with
``eps' = log(1 + (m/n)(e^eps - 1))``, ``delta_{M'}(eps') <= (m/n) delta_M(eps)``.

Checked per instance: a random finite base, replace-one neighbours of 1..5 records, batch size
``1 <= m <= min(n, 3)``; exact enumeration of the ``C(n, m)`` batches; ``delta_M`` the base's
profile over the instance's batches of size ``m`` differing in one record (both orders). One step.

Provenance (2026-12-01): not compared with the printed text (see :mod:`dpproofs_theorems.balle2018`).
The number "Theorem 9" for sampling without replacement is corroborated only by a library's
documentation that cites it; the substitution relation and the amplified pair are the standard
statement.

Ids -> items:

* ``balle2018.theorem9``: the statement;
* ``balle2018.theorem9.mutant.squared_fraction``: ``eps' = log(1 + (m/n)^2 (e^eps - 1))``,
  refuted at RR(3/4), ``d = (1, 0)``, ``d' = (0, 0)``, ``m = 1``, ``eps = 1.1``.
"""

from fractions import Fraction

import sympy

from dpproofs.checker.oracles import subsampled
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.balle2018._common import source, structured, sym, wor_instances
from dpproofs_theorems.balle2018.theorem8 import amplified_epsilon

__all__ = ["CLAIMS"]

SOURCE = source("Thm. 9 (sampling without replacement, substitution)")

eps, inst = sym("eps"), structured("instance")
gamma = F["sampling_fraction"](inst)  # m / n

statement = Claim(
    id="balle2018.theorem9",
    source=SOURCE,
    statement=sympy.Le(F["delta_subsampled"](amplified_epsilon(gamma, eps), inst),
                       gamma * F["delta_base"](eps, inst)),
    variables=(Variable("eps", 0, 3),),
    extra={"instance": wor_instances()},
    title="delta_{M o WOR(m of n)}(log(1 + (m/n)(e^eps - 1))) <= (m/n) delta_M(eps), replace-one",
    cost=0.5,
)

PIN = {"eps": 1.1, "instance": subsampled.Subsampled(subsampled.randomized_response(Fraction(3, 4)), (1, 0), (0, 0),
                                                    "fixed", batch_size=1)}

mutant_squared_fraction = statement.mutant(
    "squared_fraction",
    statement=sympy.Le(F["delta_subsampled"](amplified_epsilon(gamma**2, eps), inst),
                       gamma * F["delta_base"](eps, inst)),
    explanation="an amplification by (m/n)^2 in e^eps - 1 is too strong: RR(3/4), d = (1, 0), d' = (0, 0), "
    "m = 1 gives ((1/2, 1/2), (3/4, 1/4)), which is exactly log 2-DP; log(1 + (1/4)(e^1.1 - 1)) = 0.41 "
    "leaves delta = 0.125 > 0 = (m/n) delta_M(1.1)",
    pinned=(PIN,),
)

CLAIMS = [statement, mutant_squared_fraction]



def _draw(path):
    from dpproofs_theorems.balle2018._common import sides_figure

    base = subsampled.geometric_count(Fraction(1, 2), 3)
    points = [PIN, {"instance": subsampled.Subsampled(base, (1, 1, 0, 1), (1, 0, 0, 1), "fixed", batch_size=2)}]
    sides_figure(path, statement, points, ["RR(3/4), m/n = 1/2", "geometric count, m/n = 2/4"],
                 "Thm. 9: exact delta'(eps') against (m/n) delta(eps), WOR, substitution")


def _figures():
    from dpproofs_theorems.balle2018._common import figures

    return figures("balle2018_theorem9.png", "Amplification without replacement: both sides along eps", _draw)


FIGURES = _figures()
