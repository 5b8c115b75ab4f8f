"""Random k-of-t allocation is a post-processing of k composed 1-of-about-t/k allocations: the
decomposition :meth:`dpproofs.RandomAllocationGaussian.components` accounts k > 1 by.

The argument (this project's; docs/math.md, "Random allocation in the PLD accountant"; the same
floor/ceil decomposition is what pld-accounting 2.0 composes, its source not cited there): split the t
steps into k blocks of ``floor(t/k)`` or ``ceil(t/k)`` steps, use the record in one uniform step of
each block, independently (the composition of k one-of-m allocations), then permute the t outputs
uniformly at random. The record's steps become a uniform k-subset (the permuted law is exchangeable
over k-subsets), and Q (no record) is permutation invariant: the k-of-t pair is that post-processing
of the composition's pair, so every hockey stick of k-of-t is at most the composition's, in both
orders, and through any composition.

* ``feldman2025.allocation_decomposition.dominated``: for a FINITE base (binary randomized response
  keeping the bit with probability keep20/20; the record's bit 1 against 0), the k-of-t hockey stick
  at ``e^eps = gamma10/10`` is at most the decomposition's, both orders, every output in ``{0,1}^t``
  enumerated in exact rationals (t <= 6, k <= 3);
* mutant ``.mutant.k_draws_over_all_steps``: k independent uniform draws over all t steps (k epochs
  of 1-of-t, the over-amplified reading) is NOT an upper bound: refuted.
"""

import math

import sympy

from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.feldman2025 import quantities  # noqa: F401  (registers the functions)

__all__ = ["CLAIMS"]

SOURCE = ("this project's post-processing argument (a uniform permutation of the outputs of k composed "
          "1-of-floor/ceil(t/k) allocations), for the pair of Feldman & Shenfeld 2025 (arXiv 2502.08202v4)")

T = Variable("t", 3, 6, integer=True)
K = Variable("k", 1, 3, integer=True)
KEEP = Variable("keep20", 11, 19, integer=True)
GAMMA = Variable("gamma10", 10, 60, integer=True)
ORDER = Variable("order", 0, 1, integer=True)
_VARS = (T, K, KEEP, GAMMA, ORDER)
_ARGS = tuple(v.symbol for v in _VARS)

dominated = Claim(
    id="feldman2025.allocation_decomposition.dominated",
    source=SOURCE,
    statement=sympy.LessThan(F["allocation_k_delta"](*_ARGS), F["allocation_k_decomposed_delta"](*_ARGS)),
    variables=_VARS,
    title="k-of-t random allocation's hockey stick is at most that of k composed 1-of-about-t/k allocations",
    cost=0.5,
)

mutant_k_draws_over_all_steps = dominated.mutant(
    "k_draws_over_all_steps",
    statement=sympy.LessThan(F["allocation_k_delta"](*_ARGS), F["allocation_k_repeated_delta"](*_ARGS)),
    explanation="k epochs of 1-of-t (k independent uniform steps over all t) amplify more than k-of-t "
    "allows: refuted (e.g. t = 4, k = 2, keep 19/20, e^eps = 1)",
    pinned=({"t": 4, "k": 2, "keep20": 19, "gamma10": 10, "order": 0},),
)

CLAIMS = [dominated, mutant_k_draws_over_all_steps]


# --- figures (docs) ---------------------------------------------------------------------------------


def _figure_profiles(path):
    """The exact hockey sticks (add order) of 2-of-6 allocation, of its decomposition (2 blocks of 3),
    and of the mutant's reading (2 draws over all 6 steps), randomized response keeping 17/20."""
    from dpproofs.docgen import pyplot, save

    gammas = list(range(10, 61, 2))
    eps = [math.log(g / 10) for g in gammas]
    rows = (("2-of-6 allocation (exact)", "o-", quantities.allocation_k_delta),
            ("decomposition: 2 composed 1-of-3 (upper bound)", "s--", quantities.allocation_k_decomposed_delta),
            ("mutant: 2 draws over all 6 steps (not a bound)", "x:",
             lambda *a: quantities.allocation_k_decomposed_delta(*a, block_steps=6)))
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for label, style, fn in rows:
        ax.plot(eps, [float(fn(6, 2, 17, g, 0)) for g in gammas], style, label=label, markersize=3)
    ax.set_xlabel("epsilon (randomized response keeping 17/20; the record's bit 1 against 0)")
    ax.set_ylabel("delta(epsilon), P vs Q")
    ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("feldman2025_allocation_decomposition.png",
                   "k-of-t allocation below its decomposition into k composed 1-of-t/k allocations (exact, "
                   "randomized response), and the over-amplified reading below it", _figure_profiles),)


FIGURES = _figures()
