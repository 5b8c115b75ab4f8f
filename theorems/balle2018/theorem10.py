"""Balle, Barthe & Gaboardi 2018 (arXiv 1807.01647v2), Theorem 10: sampling with replacement.

Statement: let ``M' = M o S^wr_m`` (``m`` indices drawn uniformly with replacement from the ``n``
records; the batch is a multiset), neighbouring datasets under substitution. For every
``eps >= 0``, with ``eps' = log(1 + (1 - (1 - 1/n)^m)(e^eps - 1))``,

    delta_{M'}(eps') <= sum_{k=1}^{m} C(m, k) (1/n)^k (1 - 1/n)^(m-k) delta_{M,k}(eps),

``delta_{M,k}`` the group-privacy profile of ``M`` (batches at substitution distance <= k).

Checked per instance for ``m = 2`` and ``m = 3`` (one claim each: the sum is written out):
a random finite base, replace-one neighbours of 1..4 records, the ``n^m`` index sequences
enumerated exactly; ``delta_{M,k}`` over the instance's batches of size ``m`` at distance
``1..k`` (both orders). One step.

Provenance (2026-12-01): not compared with the printed text (see :mod:`dpproofs_theorems.balle2018`).
The number "Theorem 10" for sampling with replacement is corroborated only by a library's
documentation that cites it. The amplification fraction ``1 - (1 - 1/n)^m`` (the probability that
the substituted record is drawn at least once) is not confirmed from the text; one set of public
reading notes writes ``(1 - 1/n)^m``, which the mutant below refutes.

Ids -> items:

* ``balle2018.theorem10`` (m = 2) and ``balle2018.theorem10.batch3`` (m = 3);
* ``balle2018.theorem10.mutant.kept_probability``: ``(1 - 1/n)^m`` in place of
  ``1 - (1 - 1/n)^m`` in ``eps'`` (the probability that the record is *not* drawn; a misreading
  seen in secondary notes), refuted at RR(3/4), ``d = (1, 0)``, ``d' = (0, 0)``, ``m = 2``.
"""

from fractions import Fraction

import sympy

from dpproofs.checker.oracles import subsampled
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.balle2018._common import source, structured, sym, wr_instances
from dpproofs_theorems.balle2018.theorem8 import amplified_epsilon

__all__ = ["CLAIMS"]

SOURCE = source("Thm. 10 (sampling with replacement, substitution)")

eps, inst = sym("eps"), structured("instance")
n = F["dataset_size"](inst)


def _bound(m):
    return sympy.Add(*(sympy.binomial(m, k) * (1 / n) ** k * (1 - 1 / n) ** (m - k) * F["delta_base_group"](eps, k, inst)
                       for k in range(1, m + 1)))


def _claim(m, suffix=""):
    return Claim(
        id="balle2018.theorem10" + suffix,
        source=SOURCE,
        statement=sympy.Le(F["delta_subsampled"](amplified_epsilon(1 - (1 - 1 / n) ** m, eps), inst), _bound(m)),
        variables=(Variable("eps", 0, 3),),
        extra={"instance": wr_instances(m)},
        title=f"with replacement, m = {m}: delta'(log(1 + (1-(1-1/n)^m)(e^eps-1))) <= sum_k C(m,k) n^-k (1-1/n)^(m-k) delta_k(eps)",
        cost=0.5,
    )


statement = _claim(2)
batch3 = _claim(3, ".batch3")

PIN = {"eps": 1.1, "instance": subsampled.Subsampled(subsampled.randomized_response(Fraction(3, 4)), (1, 0), (0, 0),
                                                    "replacement", batch_size=2)}

mutant_kept_probability = statement.mutant(
    "kept_probability",
    statement=sympy.Le(F["delta_subsampled"](amplified_epsilon((1 - 1 / n) ** 2, eps), inst), _bound(2)),
    explanation="(1 - 1/n)^m is the probability that the record is never drawn; with it RR(3/4) on "
    "d = (1, 0), d' = (0, 0), m = 2 (the pair ((1/2, 1/2), (3/4, 1/4)), log 2-DP) gets eps' = 0.41 "
    "and delta = 0.125 > 0, the base being log 3-DP at every group distance's level 1.1",
    pinned=(PIN,),
)

CLAIMS = [statement, batch3, mutant_kept_probability]



def _draw(path):
    from dpproofs_theorems.balle2018._common import sides_figure

    base = subsampled.geometric_count(Fraction(1, 2), 3)
    points = [PIN, {"instance": subsampled.Subsampled(base, (1, 1, 0), (1, 0, 0), "replacement", batch_size=2)}]
    sides_figure(path, statement, points, ["RR(3/4), n = 2", "geometric count, n = 3"],
                 "Thm. 10 (m = 2): exact delta'(eps') against the group-profile sum")


def _figures():
    from dpproofs_theorems.balle2018._common import figures

    return figures("balle2018_theorem10.png", "Amplification with replacement: both sides along eps", _draw)


FIGURES = _figures()
