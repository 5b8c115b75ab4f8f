"""Balle, Barthe & Gaboardi 2018 (arXiv 1807.01647v2), Table 1: the amplified (eps', delta') bounds.

The table lists, per subsampling and relation, the parameters of ``M o S`` when ``M`` is
(eps, delta)-DP: Poisson(gamma) under remove/add, ``(log(1 + gamma(e^eps - 1)), gamma delta)``;
without replacement (m of n) under substitution, ``(log(1 + (m/n)(e^eps - 1)), (m/n) delta)``;
with replacement (m of n) under substitution, ``(log(1 + (1 - (1 - 1/n)^m)(e^eps - 1)),
sum_k C(m,k) n^-k (1 - 1/n)^(m-k) delta_k)``. The delta parts are Theorems 8-10 (their modules);
here each row is read for a pure-DP base (delta = 0, and for with-replacement the base's group
level at distance m, so that every ``delta_k`` vanishes): the subsampled pair's own pure-DP
level must not exceed ``eps'``. The paper proves the rows tight; the ``.tight`` claims check that
randomized response attains them (equality, on the instances that realise the bound).

Provenance (2026-12-01): not compared with the printed text (see :mod:`dpproofs_theorems.balle2018`).
The three rows above are the statements of :mod:`.theorem8` - :mod:`.theorem10`; secondary notes
reproduce a table of these three rows as "Table 1" (writing the with-replacement fraction as
``(1 - 1/n)^m``, which ``balle2018.theorem10.mutant.kept_probability`` refutes), and that is all
that could be confirmed.

Ids -> items:

* ``balle2018.table1.poisson``, ``.wor``, ``.replacement``: ``eps_subsampled <= eps'``;
* ``balle2018.table1.poisson.tight``, ``balle2018.table1.wor.tight``: equality for randomized
  response on ``d = (1, 0, ..., 0)`` against ``d' = (0, ..., 0)`` (Poisson: ``d' = (0, ..., 0)``
  one record shorter);
* ``balle2018.table1.poisson.mutant.linear_epsilon``, ``balle2018.table1.wor.mutant.linear_epsilon``:
  ``eps' = gamma eps``, refuted.
"""

import math
from fractions import Fraction

import sympy
from hypothesis import strategies as st

from dpproofs.checker.oracles import subsampled
from dpproofs.checker.claims import Claim
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.balle2018._common import poisson_instances, source, structured, wor_instances, wr_instances
from dpproofs_theorems.balle2018.theorem8 import amplified_epsilon

__all__ = ["CLAIMS"]

SOURCE = source("Table 1")

inst = structured("instance")
gamma, n = F["sampling_fraction"](inst), F["dataset_size"](inst)
eps_sub, eps_base = F["eps_subsampled"](inst), F["eps_base"](inst)

poisson = Claim(
    id="balle2018.table1.poisson",
    source=SOURCE + ", Poisson row (pure base)",
    statement=sympy.Le(eps_sub, amplified_epsilon(gamma, eps_base)),
    extra={"instance": poisson_instances()},
    title="Poisson: an eps-DP base gives a log(1 + gamma(e^eps - 1))-DP subsampled mechanism",
    cost=0.5,
)

wor = Claim(
    id="balle2018.table1.wor",
    source=SOURCE + ", without-replacement row (pure base)",
    statement=sympy.Le(eps_sub, amplified_epsilon(gamma, eps_base)),
    extra={"instance": wor_instances()},
    title="WOR m of n: an eps-DP base gives a log(1 + (m/n)(e^eps - 1))-DP subsampled mechanism",
    cost=0.5,
)

_M = 2
replacement = Claim(
    id="balle2018.table1.replacement",
    source=SOURCE + ", with-replacement row (pure at the base's group level, m = 2)",
    statement=sympy.Le(eps_sub, amplified_epsilon(1 - (1 - 1 / n) ** _M, F["eps_base_group"](_M, inst))),
    extra={"instance": wr_instances(_M)},
    title="with replacement, m = 2: eps_{M,2}-DP groups give log(1 + (1-(1-1/n)^2)(e^eps - 1))",
    cost=0.5,
)


def _rr_tight(sampling):
    """RR(keep) on d = (1, 0, ..., 0) vs d' = (0, ..., 0): the record is in the batch w.p. gamma."""

    @st.composite
    def draw(draw_):
        keep = Fraction(draw_(st.integers(11, 19)), 20)
        base = subsampled.randomized_response(keep)
        n_ = draw_(st.integers(1, 5))
        d = (1,) + (0,) * (n_ - 1)
        if sampling == "poisson":
            return subsampled.Subsampled(base, d, d[1:], "poisson", rate=Fraction(draw_(st.integers(1, 9)), 10))
        return subsampled.Subsampled(base, d, (0,) * n_, "fixed", batch_size=draw_(st.integers(1, n_)))

    return draw()


poisson_tight = Claim(
    id="balle2018.table1.poisson.tight",
    source=SOURCE + " (tightness)",
    statement=sympy.Eq(eps_sub, amplified_epsilon(gamma, eps_base)),
    extra={"instance": _rr_tight("poisson")},
    kind="support",
    title="Poisson row attained: RR on one differing record",
)

wor_tight = Claim(
    id="balle2018.table1.wor.tight",
    source=SOURCE + " (tightness)",
    statement=sympy.Eq(eps_sub, amplified_epsilon(gamma, eps_base)),
    extra={"instance": _rr_tight("fixed")},
    kind="support",
    title="WOR row attained: RR on one substituted record",
)

_RR = subsampled.randomized_response(Fraction(3, 4))
PIN_POISSON = {"instance": subsampled.Subsampled(_RR, (1,), (), "poisson", rate=Fraction(1, 2))}
PIN_WOR = {"instance": subsampled.Subsampled(_RR, (1, 0), (0, 0), "fixed", batch_size=1)}

poisson_linear = poisson.mutant(
    "linear_epsilon",
    statement=sympy.Le(eps_sub, gamma * eps_base),
    explanation="gamma eps < log(1 + gamma(e^eps - 1)): RR(3/4), d = (1,), d' = (), gamma = 1/2 is "
    "log 2-DP exactly, and (1/2) log 3 = 0.549 < log 2",
    pinned=(PIN_POISSON,),
)

wor_linear = wor.mutant(
    "linear_epsilon",
    statement=sympy.Le(eps_sub, gamma * eps_base),
    explanation="RR(3/4), d = (1, 0), d' = (0, 0), m = 1: log 2-DP exactly, above (1/2) log 3",
    pinned=(PIN_WOR,),
)

CLAIMS = [poisson, wor, replacement, poisson_tight, wor_tight, poisson_linear, wor_linear]



def _draw(path):
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    keeps = [Fraction(k, 40) for k in range(21, 40)]
    for rate in (Fraction(1, 10), Fraction(1, 2)):
        xs, exact, bound = [], [], []
        for keep in keeps:
            point = {"instance": subsampled.Subsampled(subsampled.randomized_response(keep), (1,), (), "poisson", rate=rate)}
            left, right = poisson.evaluate(point, 20)
            xs.append(math.log(keep / (1 - keep)))
            exact.append(float(left))
            bound.append(float(right))
        line, = ax.plot(xs, exact, "o", markersize=3, label=f"RR, exact eps of the subsampled pair, gamma = {rate}")
        ax.plot(xs, bound, "-", color=line.get_color(), label=f"log(1 + gamma(e^eps - 1)), gamma = {rate}")
    ax.set_xlabel("eps of the base (randomized response)")
    ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs_theorems.balle2018._common import figures

    return figures("balle2018_table1.png", "Table 1, Poisson row: attained by randomized response", _draw)


FIGURES = _figures()
