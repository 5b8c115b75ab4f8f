"""The Gaussian sum query under replace-one: the per-step bound that Theorem 2 gives (issue 12).

Setting (the contract's convention): records are clipped 1-D contributions in ``[-1, 1]``
(clipping norm C = 1), the query adds ``N(0, sigma^2)`` to the batch's sum, ``sigma`` = noise
standard deviation over C; neighbours differ in one record (replace-one), so the sum moves by
up to 2. With ``g`` the Poisson rate or ``b/n``, write one step as ``X = (1-g) R + g A``,
``Y = (1-g) R + g B`` (``R``: the record not in the batch). Advanced joint convexity
(Balle, Barthe & Gaboardi 2018, arXiv 1807.01647v2, Thm. 2, :mod:`.theorem2`) with
``eps' = log(1 + g(e^eps - 1))`` and then joint convexity and the coupling of batches (every pair
among R, A, B a mixture of Gaussian pairs at distance <= 2) give, for ``eps >= 0``,

    H_{e^eps}(X || Y) <= H_{e^eps}(P1),   P1 = ((1-g) N(0, s^2) + g N(2, s^2), N(0, s^2)),

whose profile is ``delta_sampled_gaussian_add(eps, g, sigma/2)`` (the vocabulary's profile of
the pair ``((1-q) N(0) + q N(1), N(0))`` alone at noise ``sigma/2``, i.e. the same pair scaled by
1/2; note ``delta_sampled_gaussian`` is the max of both directions, not this pair's profile).

Provenance: not a printed result; this project's derivation from Theorem 2 (whose printed text
could not be read, see :mod:`dpproofs_theorems.balle2018`), written out in docs/math.md.

Checked on concrete configurations (:class:`dpproofs.checker.oracles.subsampled.GaussianSubsampled`: records
``k/4``, at most 4 records, sigma in {1/2, 3/4, 1, 3/2, 2}, rate in {0.1, ..., 0.9} or batch
``b <= 3``, either order), the left side the exact profile of the enumerated Gaussian mixture
pair (level-set CDFs; a rigorous arb enclosure for certification).

Ids -> items:

* ``balle2018.gaussian_dominance.wor`` and ``.poisson``: the bound, both samplings;
* ``balle2018.gaussian_dominance.wor_realised``: equality on the WOR configurations that realise
  ``P1`` (every other record equals ``x'``, ``x = -x'``, ``|x| = 1``);
* ``balle2018.gaussian_dominance.wor.mutant.add_remove_pair``: the bound with ``sigma`` instead of
  ``sigma/2`` (sensitivity 1: the add/remove pair), refuted on a realising configuration;
* ``balle2018.gaussian_dominance.poisson_symmetric``: a conjecture, tested and never relied on
  (issue 12's notes): under Poisson, every configuration's one-step profile is below that of
  ``P* = ((1-q) N(0) + q N(1), (1-q) N(0) + q N(-1))`` (the pair dp_accounting's PLD takes for
  Poisson under replace-one; realised by ``x = 1``, ``x' = -1``, no other record);
* ``balle2018.gaussian_dominance.poisson_symmetric.mutant.add_remove_pair``: the add/remove pair
  ``((1-q) N(0) + q N(1), N(0))`` in place of ``P*``, refuted at ``d = (1,)``, ``d' = (-1,)``.
"""

import dataclasses
from fractions import Fraction

import sympy
from hypothesis import strategies as st

from dpproofs.checker.oracles import subsampled
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.balle2018._common import source, structured, sum_query_configs, sym

__all__ = ["CLAIMS", "realising_configs"]

SOURCE = source("Thm. 2 applied to the Gaussian sum query under replace-one (issue 12 derivation)")

eps, config = sym("eps"), structured("config")
g, s = F["gamma_sum_query"](config), F["sigma_sum_query"](config)
_TRUE = F["delta_sum_query"](eps, config)
_P1 = F["delta_sampled_gaussian_add"](eps, g, s / 2)

EPS = Variable("eps", 0, 3)

wor = Claim(
    id="balle2018.gaussian_dominance.wor",
    source=SOURCE,
    statement=sympy.Le(_TRUE, _P1),
    variables=(EPS,),
    extra={"config": sum_query_configs("fixed")},
    kind="support",
    title="WOR, replace-one: the Gaussian sum query's profile <= that of P1 = ((1-g)N(0)+gN(2), N(0))",
    cost=0.5,
)

poisson = Claim(
    id="balle2018.gaussian_dominance.poisson",
    source=SOURCE,
    statement=sympy.Le(_TRUE, _P1),
    variables=(EPS,),
    extra={"config": sum_query_configs("poisson")},
    kind="support",
    title="Poisson, replace-one: the Gaussian sum query's profile <= that of P1",
    cost=0.5,
)


def realising_configs():
    """WOR configurations realising P1: ``d = (x, x', ..., x')``, ``d' = (x', ..., x')``, ``x = -x'``."""

    @st.composite
    def draw(draw_):
        n = draw_(st.integers(1, 4))
        b = draw_(st.integers(1, min(n, 3)))
        xp = Fraction(draw_(st.sampled_from([-1, 1])))
        sigma = draw_(st.sampled_from([Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(3, 2), Fraction(2)]))
        return subsampled.GaussianSubsampled((-xp,) + (xp,) * (n - 1), (xp,) * n, "fixed", sigma, batch_size=b)

    return draw()


wor_realised = Claim(
    id="balle2018.gaussian_dominance.wor_realised",
    source=SOURCE + " (P1 realised)",
    statement=sympy.Eq(_TRUE, _P1),
    variables=(EPS,),
    extra={"config": realising_configs()},
    kind="support",
    title="WOR realises P1: d = (-x', x', ..., x') against d' = (x', ..., x')",
)

PIN = {"eps": 0.5, "config": subsampled.GaussianSubsampled((Fraction(-1), Fraction(1)), (Fraction(1), Fraction(1)),
                                                           "fixed", Fraction(1), batch_size=1)}

wor_add_remove = wor.mutant(
    "add_remove_pair",
    statement=sympy.Le(_TRUE, F["delta_sampled_gaussian_add"](eps, g, s)),
    explanation="under replace-one the sum moves by 2, not 1: at d = (-1, 1), d' = (1, 1), b = 1, "
    "sigma = 1, eps = 1/2 the configuration's profile is that of P1 (0.2701), above the add/remove "
    "pair's (0.0799)",
    pinned=(PIN,),
)

_PSTAR = F["delta_pstar_sum_query"](eps, config)

poisson_symmetric = Claim(
    id="balle2018.gaussian_dominance.poisson_symmetric",
    source="issue 12 notes: conjecture (P* dominates Poisson replace-one); not a printed result",
    statement=sympy.Le(_TRUE, _PSTAR),
    variables=(EPS,),
    extra={"config": sum_query_configs("poisson")},
    kind="support",
    title="Poisson, replace-one (conjecture): the Gaussian sum query's profile <= that of P*",
    cost=0.5,
)

PIN_PSTAR = {"eps": 0.5, "config": subsampled.GaussianSubsampled((Fraction(1),), (Fraction(-1),), "poisson",
                                                                 Fraction(1), rate=Fraction(1, 2))}

poisson_symmetric_add_remove = poisson_symmetric.mutant(
    "add_remove_pair",
    statement=sympy.Le(_TRUE, F["delta_sampled_gaussian_add"](eps, g, s)),
    explanation="the add/remove pair ((1-q)N(0)+qN(1), N(0)) is below P* itself: d = (1,), d' = (-1,), "
    "q = 1/2, sigma = 1, eps = 1/2",
    pinned=(PIN_PSTAR,),
)

# always evaluated first: the configurations the notes single out (P1 realised; the
# symmetric x = 1 against x' = -1 with a shared record; P* itself under Poisson)
_ONE, _HALF = Fraction(1), Fraction(1, 2)
_SYMMETRIC_WOR = {"eps": 0.5, "config": subsampled.GaussianSubsampled((_ONE, Fraction(0)), (-_ONE, Fraction(0)), "fixed",
                                                                      _ONE, batch_size=1)}
wor = dataclasses.replace(wor, pinned=(PIN, _SYMMETRIC_WOR))
poisson = dataclasses.replace(poisson, pinned=(PIN_PSTAR,))
poisson_symmetric = dataclasses.replace(poisson_symmetric, pinned=(PIN_PSTAR,))

CLAIMS = [wor, poisson, wor_realised, wor_add_remove, poisson_symmetric, poisson_symmetric_add_remove]



def _draw(path):
    from dpproofs_theorems.balle2018._common import sides_figure

    half, one = Fraction(1, 2), Fraction(1)
    points = [
        PIN,
        {"config": subsampled.GaussianSubsampled((one, -one, half), (-one, -one, half), "fixed", one, batch_size=1)},
        {"config": subsampled.GaussianSubsampled((one, -one), (-one, -one), "poisson", one, rate=half)},
    ]
    sides_figure(path, poisson, points, ["WOR realising P1", "WOR, d = (1, -1, 1/2)", "Poisson, rate 1/2"],
                 "Gaussian sum query, replace-one, sigma = 1: exact profile against P1's", xs=[i / 10 for i in range(31)])


def _figures():
    from dpproofs_theorems.balle2018._common import figures

    return figures("balle2018_gaussian_dominance.png", "Per-step dominance by P1: exact profiles against P1's", _draw)


FIGURES = _figures()
