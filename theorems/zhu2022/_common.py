"""Shared pieces of the Zhu, Dong & Wang 2022 modules: source, symbols, strategies of subsampled
instances (:class:`dpproofs.checker.oracles.subsampled.Subsampled`), and the pinned configuration of the finding.

Nothing here is a claim. The quantities (the instance's exact pair, the dominating pair built on
the base's randomized-response pair, products, the symmetrised pair, hockey-stick divergences at
every real eps) are vocabulary functions registered by :mod:`.quantities` (and, for the instance's
pair, by the Wang-Balle-Kasiviswanathan 2019 package's).
"""

from fractions import Fraction

import sympy
from hypothesis import strategies as st

from dpproofs.checker.oracles import subsampled

__all__ = [
    "PAPER",
    "source",
    "sym",
    "structured",
    "wor_instances",
    "poisson_instances",
    "LEBEDA_INSTANCE",
    "P1_INSTANCE",
]

PAPER = "Zhu, Dong & Wang 2022 (arXiv 2106.08567v3)"

#: Largest dataset and batch of a drawn instance (every batch is enumerated; composing k = 3 steps
#: of a base with up to 4 outcomes gives 64 joint outcomes).
MAX_N = 5
MAX_B = 3


def source(item):
    """``"Zhu, Dong & Wang 2022 (arXiv 2106.08567v3), <item>"``."""
    return f"{PAPER}, {item}"


def sym(name):
    return sympy.Symbol(name, real=True)


def structured(name):
    """The symbol of a structured argument (a subsampled instance): not a real number."""
    return sympy.Symbol(name)


@st.composite
def wor_instances(draw, universe=2, max_n=MAX_N, max_b=MAX_B):
    """Fixed-size batches (b of n, without replacement) of a finite base on replace-one neighbours."""
    base = draw(subsampled.finite_bases(universe))
    d, d2 = draw(subsampled.neighbouring_datasets("replace_one", universe, min_size=1, max_size=max_n))
    b = draw(st.integers(1, min(max_b, len(d))))
    return subsampled.Subsampled(base, d, d2, "fixed", batch_size=b)


@st.composite
def poisson_instances(draw, universe=2, max_n=MAX_N):
    """Poisson sampling (rate k/20) of a finite base on add/remove neighbours (either order)."""
    base = draw(subsampled.finite_bases(universe))
    d, d2 = draw(subsampled.neighbouring_datasets("add_remove", universe, min_size=1, max_size=max_n))
    rate = Fraction(draw(st.integers(1, 19)), 20)
    return subsampled.Subsampled(base, d, d2, "poisson", rate=rate)


#: The configuration of the finding: randomized response on the parity of the batch (truthful with
#: probability 3/4, eps = log 3), n = 3, a batch of b = 1 (gamma = 1/3), D = (1, 1, 0) and
#: D' = (0, 1, 0). One step gives the symmetric pair ((5/12, 7/12), (7/12, 5/12)).
LEBEDA_INSTANCE = subsampled.Subsampled(
    subsampled.randomized_response(Fraction(3, 4)), (1, 1, 0), (0, 1, 0), "fixed", batch_size=1
)

#: The configuration that realises the per-step pair ((1-g) Q + g P, Q) itself: every other record
#: equals the replaced one's new value (here D = (1, 0, 0), D' = (0, 0, 0), b = 1).
P1_INSTANCE = subsampled.Subsampled(
    subsampled.randomized_response(Fraction(3, 4)), (1, 0, 0), (0, 0, 0), "fixed", batch_size=1
)


_SIGMAS = st.sampled_from([Fraction(1, 2), Fraction(3, 4), Fraction(1), Fraction(3, 2), Fraction(2)])
_RECORDS = st.integers(-4, 4).map(lambda k: Fraction(k, 4))


@st.composite
def wor_sum_query_configs(draw, max_n=4, max_b=3):
    """Gaussian sum query (records k/4 in [-1, 1], clipping norm 1), fixed-size batches, replace-one."""
    d, d2 = draw(subsampled.neighbouring_datasets("replace_one", min_size=1, max_size=max_n, records=_RECORDS))
    b = draw(st.integers(1, min(len(d), max_b)))
    return subsampled.GaussianSubsampled(d, d2, "fixed", draw(_SIGMAS), batch_size=b)


@st.composite
def poisson_sum_query_configs(draw, max_n=4):
    """Gaussian sum query, Poisson sampling (rate k/10), add/remove (either order)."""
    d, d2 = draw(subsampled.neighbouring_datasets("add_remove", min_size=1, max_size=max_n, records=_RECORDS))
    rate = Fraction(draw(st.integers(1, 9)), 10)
    return subsampled.GaussianSubsampled(d, d2, "poisson", draw(_SIGMAS), rate=rate)


#: The symmetric Gaussian configuration P* (every other record 0, x = +1 replaced by x' = -1),
#: n = 2, b = 1, sigma = 1: ((1/2) N(0) + (1/2) N(1), (1/2) N(0) + (1/2) N(-1)).
SYMMETRIC_GAUSSIAN = subsampled.GaussianSubsampled((1, 0), (-1, 0), "fixed", Fraction(1), batch_size=1)
