"""Zhu, Dong & Wang 2022 (arXiv 2106.08567v3): composition of dominating pairs (Theorem 10), and
the composition question for sampling without replacement under replace-one.

Statement (composition theorem, Theorem 10): if ``(P_i, Q_i)`` dominates ``M_i`` (every real eps),
then ``(P_1 x P_2, Q_1 x Q_2)`` dominates the composition ``(M_1, M_2)``.

Provenance (2026-12-02): not compared with the printed text (no full text found; see
:mod:`dpproofs_theorems.zhu2022`). Three secondary sources cite the adaptive composition of
dominating pairs as "Theorem 10"; the statement above is the standard one.

The question of the issue (Lebeda, Regehr, Kamath & Steinke 2024, arXiv 2405.20769, "worst-case
datasets may not survive composition"): an accountant for sampling without replacement would
compose the per-step pair ``P1 = ((1-g) Q + g P, Q)`` (and take ``max(P1^k, P2^k)`` with its swap
``P2``, as PLD accountants do for the remove and add pairs of Poisson sampling: dp_accounting's
``PrivacyLossDistribution`` keeps both and reports the larger profile). dp_accounting's PLD does
not offer sampling without replacement at all (checked on dp_accounting 0.6.0:
``pld/pld_privacy_accountant.py`` composes ``PoissonSampledDpEvent`` and
``TruncatedSubsampledGaussianDpEvent``; ``SampledWithoutReplacementDpEvent`` is handled by its RDP
accountant only). ``P1`` bounds each step only for ``eps >= 0``
(``zhu2022.subsampling.wor.negative_eps``), so the composition theorem does not apply; the pair
that does dominate is the SYMMETRISED one, ``Sym(P1)``: the outcomes of positive privacy loss of
``P1``, their mirrors ``(q, p)``, and the remaining mass at loss 0 (its profile equals ``P1``'s for
``eps >= 0`` and, being symmetric, it dominates both orders of every configuration below ``P1``
at every real eps).

Ids -> items (``zhu2022.composition`` + suffix):

* ``.poisson``: two Poisson instances ``i1, i2`` (add/remove, either order):
  ``H(pair(i1) x pair(i2)) <= H(zdw_pair(i1) x zdw_pair(i2))`` at ``eps`` in [-2, 4];
* ``.adaptive``: random adaptive compositions of two steps (step 2's pair depends on step 1's
  outcome): ``H(joint) <= H(RR(eps_1) x RR(eps_2))``, ``eps_i`` the max pure-DP level of step ``i`` over
  its prefixes (one dominating pair per step, valid for every prefix), ``eps`` in [-2, 4];
* ``.wor.k2`` and ``.wor.k3`` (FINDINGS, expected to fail): a WOR replace-one configuration composed
  k times is NOT below ``max(H(P1^k), H(P2^k))``. Pinned: randomized response (3/4) on the parity,
  n = 3, b = 1, D = (1, 1, 0), D' = (0, 1, 0) (one step: the symmetric pair ((5/12,7/12),(7/12,5/12))):
  k = 2 at eps = 0.34: 0.096363 > 0.085802; k = 3 at eps = 0: 107/432 = 0.24769 > 193/864 = 0.22338;
* ``.wor.symmetrised_k2`` and ``.wor.symmetrised_k3`` (expected to hold): the same configurations,
  composed, are below ``H(Sym(P1)^k)`` at every ``eps`` in [-2, 4];
* mutant ``.poisson.mutant.one_step_pair`` (two steps bounded by one step's pair: refuted at the
  realising configuration D = (1,), D' = () twice, rate 1/2, eps = 0).
"""

from fractions import Fraction

import sympy

from dpproofs.checker.oracles import finite
from dpproofs.checker.oracles import subsampled
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.zhu2022._common import LEBEDA_INSTANCE, poisson_instances, source, structured, sym, wor_instances

__all__ = ["CLAIMS"]

SOURCE = source("Theorem 10 (composition of dominating pairs)")
LEBEDA = "Lebeda, Regehr, Kamath & Steinke 2024 (arXiv 2405.20769)"

eps, inst, i1, i2 = sym("eps"), structured("inst"), structured("i1"), structured("i2")
H = F["hockey_stick_pair"]


def _pair(i):
    return F["instance_pair"](i)


poisson = Claim(
    id="zhu2022.composition.poisson",
    source=SOURCE,
    statement=sympy.Le(
        H(eps, F["product_pair"](_pair(i1), _pair(i2))),
        H(eps, F["product_pair"](F["zdw_pair"](i1), F["zdw_pair"](i2))),
    ),
    variables=(Variable("eps", -2, 4),),
    extra={"i1": poisson_instances(max_n=4), "i2": poisson_instances(max_n=4)},
    title="Two Poisson-subsampled steps: the product of the dominating pairs dominates the composition",
    cost=0.5,
)

C = structured("C")
adaptive = Claim(
    id="zhu2022.composition.adaptive",
    source=SOURCE,
    statement=sympy.Le(H(eps, F["joint"](C)), H(eps, F["product_pair"](F["rr_step_pair"](C, 0), F["rr_step_pair"](C, 1)))),
    variables=(Variable("eps", -2, 4),),
    extra={"C": finite.adaptive_compositions(steps=2, max_outcomes=3)},
    title="Adaptive composition of two steps: the product of one dominating pair per step (eps_i-RR at the "
    "step's level over every prefix) dominates the joint pair at every real eps",
)

_REALISING = subsampled.Subsampled(subsampled.randomized_response(Fraction(3, 4)), (1,), (), "poisson",
                                   rate=Fraction(1, 2))
mutant_one_step_pair = poisson.mutant(
    "one_step_pair",
    statement=sympy.Le(H(eps, F["product_pair"](_pair(i1), _pair(i2))), H(eps, F["zdw_pair"](i1))),
    explanation="two steps leak more than one: the realising configuration composed twice is above the "
    "one-step pair (total variation 0.3125 > 0.25 at eps = 0)",
    pinned=({"eps": 0.0, "i1": _REALISING, "i2": _REALISING},),
)


def _max_of_pair_and_swap(k):
    p1 = F["zdw_pair"](inst)
    return sympy.Max(H(eps, F["power_pair"](p1, k)), H(eps, F["power_pair"](F["swapped"](p1), k)))


def _wor_claims(k, pin_eps, numbers):
    lhs = H(eps, F["power_pair"](_pair(inst), k))
    finding = Claim(
        id=f"zhu2022.composition.wor.k{k}",
        source=f"{SOURCE}; {LEBEDA}",
        statement=sympy.Le(lhs, _max_of_pair_and_swap(k)),
        variables=(Variable("eps", 0, 3),),
        extra={"inst": wor_instances()},
        expected="fails",
        kind="finding",
        title=f"{k} steps without replacement (replace-one): the per-step pair and its swap, composed, "
        "are not the worst case",
        explanation=f"randomized response (3/4) on the parity, n = 3, b = 1, D = (1,1,0), D' = (0,1,0), "
        f"{k} steps: {numbers}; the configuration is symmetric per step (5/12, 7/12) vs (7/12, 5/12), "
        "below P1 for eps >= 0 at one step but not after composition",
        pinned=({"eps": pin_eps, "inst": LEBEDA_INSTANCE},),
        cost=0.5,
    )
    holds = Claim(
        id=f"zhu2022.composition.wor.symmetrised_k{k}",
        source=f"{SOURCE}; {LEBEDA}",
        statement=sympy.Le(lhs, H(eps, F["power_pair"](F["symmetrised"](F["zdw_pair"](inst)), k))),
        variables=(Variable("eps", -2, 4),),
        extra={"inst": wor_instances()},
        title=f"{k} steps without replacement (replace-one): the symmetrised pair Sym(P1)^{k} dominates",
        cost=0.5,
    )
    return finding, holds


wor_k2, wor_symmetrised_k2 = _wor_claims(2, 0.34, "H_{e^0.34} = 0.096363 > 0.085802 = max(P1^2, P2^2)")
wor_k3, wor_symmetrised_k3 = _wor_claims(3, 0.0, "total variation 107/432 = 0.24769 > 193/864 = 0.22338")

CLAIMS = [poisson, mutant_one_step_pair, adaptive, wor_k2, wor_symmetrised_k2, wor_k3, wor_symmetrised_k3]


# --- figures (docs) ---------------------------------------------------------------------------------


def _figure_composed(path):
    """k = 1, 2, 3 steps: the configuration, max(P1^k, P2^k) and Sym(P1)^k."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.6))
    grid = [1.5 * i / 60 for i in range(61)]
    for ax, (finding, holds) in zip(axes, ((wor_k2, wor_symmetrised_k2), (wor_k3, wor_symmetrised_k3))):
        left = [finding.evaluate({"eps": e, "inst": LEBEDA_INSTANCE}, 20) for e in grid]
        sym_side = [float(holds.evaluate({"eps": e, "inst": LEBEDA_INSTANCE}, 20)[1]) for e in grid]
        ax.plot(grid, [float(s[0]) for s in left], label="configuration, composed")
        ax.plot(grid, [float(s[1]) for s in left], "--", label="max(P1^k, P2^k)")
        ax.plot(grid, sym_side, ":", label="Sym(P1)^k")
        ax.set_title(finding.id)
        ax.set_xlabel("eps")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("H_{e^eps}")
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("zhu2022_wor_composition.png",
                   "Composed without replacement (replace-one): a symmetric configuration rises above the per-step "
                   "pair and its swap; the symmetrised pair stays above it", _figure_composed),)


FIGURES = _figures()
