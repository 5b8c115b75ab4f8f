"""Abadi et al. 2016 (arXiv 1607.00133v2), Lemma C.1: log moments of an eps-DP mechanism.

Statement: if ``M`` is eps-DP then for every ``lam > 0``
``alpha_M(lam) <= lam eps (e^eps - 1) + lam^2 eps^2 e^{2 eps} / 2``.

Checked on the worst case, eps-randomized response (``alpha = lam D_{lam+1}(RR_eps)``, the exact
maximum over eps-DP pairs, docs/math.md#randomized-response), and on random finite pairs whose log-ratios are
bounded by eps (both orderings). With ``Z = c(o)``, ``o ~ M(d)``, the printed proof uses
``E Z <= eps (e^eps - 1)``, ``|Z| <= eps``, ``|Z - E Z| <= eps e^eps`` and Hoeffding's lemma.

Ids -> printed items:

* ``abadi2016.lemma_c1`` -- the statement, worst case RR, lam in [1e-3, 64], eps in [1e-3, 5];
* ``abadi2016.lemma_c1.certified_box`` -- the same, certified by ball arithmetic on a box;
* ``abadi2016.lemma_c1.finite`` -- the statement on random finite eps-DP pairs;
* ``abadi2016.lemma_c1.step.mean[.finite]`` -- ``E Z <= eps (e^eps - 1)`` (``E Z`` = KL);
* ``abadi2016.lemma_c1.step.range.finite`` -- ``|Z| <= eps``;
* ``abadi2016.lemma_c1.step.centred_range[.finite]`` -- ``|Z - E Z| <= eps e^eps``;
* ``abadi2016.lemma_c1.step.hoeffding[.finite]`` -- ``log E e^{lam (Z - E Z)} <= lam^2 eps^2 e^{2 eps}/2``;
* ``abadi2016.lemma_c1.variant.range_2eps[.finite]`` -- a sharper true bound: ``Z - E Z`` lies in an
  interval of length ``2 eps``, so Hoeffding gives ``lam eps (e^eps - 1) + lam^2 eps^2 / 2``;
* mutants (expected to fail): the second term halved; the first term dropped.
"""

import sympy
from hypothesis import strategies as st
from mpmath import mp

from dpproofs.checker.oracles import finite
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.checker.vocabulary import NAMESPACE
from dpproofs_theorems.abadi2016._common import expression_sides, source

__all__ = ["CLAIMS", "SOURCE", "bound", "tight_bound"]

SOURCE = source("Lemma C.1")

lam, eps = sympy.symbols("lam eps", positive=True)
pair = sympy.Symbol("pair")  # a finite pair (P, Q), a vocabulary type (drawn through Claim.extra)
F = NAMESPACE

#: The log moment of eps-RR, the worst case over eps-DP mechanisms.
RR_LOG_MOMENT = F["log_moment_randomized_response"](lam, eps)
#: ``E Z = KL(RR_eps) = eps tanh(eps / 2)`` (the alpha -> 1 limit of D_alpha(RR_eps)).
RR_MEAN = F["loss_mean_randomized_response"](eps)


def bound(lam_, eps_):
    """The printed bound ``lam eps (e^eps - 1) + lam^2 eps^2 e^{2 eps} / 2`` (any number type)."""
    return lam_ * eps_ * (sympy.exp(eps_) - 1) + lam_**2 * eps_**2 * sympy.exp(2 * eps_) / 2


def tight_bound(lam_, eps_):
    """The sharper Hoeffding bound ``lam eps (e^eps - 1) + lam^2 eps^2 / 2``."""
    return lam_ * eps_ * (sympy.exp(eps_) - 1) + lam_**2 * eps_**2 / 2


LAM = Variable("lam", 1e-3, 64)
EPS = Variable("eps", 1e-3, 5)

# The ball evaluation of log_moment_randomized_response over a box uses its corners (it is
# non-decreasing in lam and eps, see dpproofs.math.ball); each bound is a sum of products of
# non-negative non-decreasing factors, each variable occurring once per factor, so plain interval
# evaluation encloses it tightly.

# --- finite pairs: eps is the pair's own pure-DP level, both orderings --------------------------

# p == q is left out: there every side is exactly 0 and finite.log_moment returns a rounding
# residue (~1e-131) with no relative accuracy, which the relative-radius comparison would call a
# violation.
_PAIR = {
    "pair": st.floats(0.01, 3)
    .flatmap(lambda e: finite.pairs(max_log_ratio=e))
    .filter(lambda pair: pair.p != pair.q)
}

PAIR_EPS = F["eps_pair"](pair)  # max_i |log p_i/q_i|, the same for both orderings


def both_orderings(quantity):
    """``Max(f(pair), f(swapped(pair)))`` for ``quantity = f``, a function of a pair: the mechanism
    is eps-DP in both orders of the neighbouring datasets, and alpha_M is the max over them."""
    return sympy.Max(quantity(pair), quantity(F["swapped"](pair)))


PAIR_LOG_MOMENT = both_orderings(lambda p: F["log_moment_pair"](lam, p))
_FINITE_LAM = (Variable("lam", 1e-3, 64),)

statement = Claim(
    id="abadi2016.lemma_c1",
    source=SOURCE,
    title="Log moment of an eps-DP mechanism (worst case: randomized response)",
    statement=sympy.Le(RR_LOG_MOMENT, bound(lam, eps)),
    variables=(LAM, EPS),
    explanation="eps-RR is the exact worst case over eps-DP pairs at every order (Mironov 2017, Prop. 5; docs/math.md#randomized-response)",
)

certified_box = Claim(
    id="abadi2016.lemma_c1.certified_box",
    source=SOURCE,
    title="Lemma C.1 on RR, certified by ball arithmetic on lam in [1, 8], eps in [0.01, 4]",
    statement=sympy.Le(RR_LOG_MOMENT, bound(lam, eps)),
    variables=(Variable("lam", 1, 8, log_scale=True), Variable("eps", 0.01, 4)),
    # custom sides: corner enclosure of the (monotone) bound; plain intervals need 4063 > 4000 boxes
    sides=expression_sides(RR_LOG_MOMENT, bound(lam, eps), monotone={"rhs": {"lam": 1, "eps": 1}}),
    certify=True,
    cost=0.3,
    explanation="corner enclosures are valid because both sides are non-decreasing in lam and eps",
)

statement_finite = Claim(
    id="abadi2016.lemma_c1.finite",
    source=SOURCE,
    title="Lemma C.1 on random finite pairs (both orderings), eps = the pair's max |log p/q|",
    statement=sympy.Le(PAIR_LOG_MOMENT, bound(lam, PAIR_EPS)),
    variables=_FINITE_LAM,
    extra=_PAIR,
)

step_mean = Claim(
    id="abadi2016.lemma_c1.step.mean",
    source=SOURCE + ", proof: E[Z] <= eps (e^eps - 1)",
    kind="step",
    title="E Z = KL(RR_eps) = eps tanh(eps/2) <= eps (e^eps - 1)",
    statement=sympy.Le(RR_MEAN, eps * (sympy.exp(eps) - 1)),
    variables=(Variable("eps", 1e-3, 5),),
    certify=True,
)

step_mean_finite = Claim(
    id="abadi2016.lemma_c1.step.mean.finite",
    source=SOURCE + ", proof: E[Z] <= eps (e^eps - 1)",
    kind="step",
    title="E Z = KL(P || Q) <= eps (e^eps - 1) on random finite eps-DP pairs",
    statement=sympy.Le(both_orderings(F["kl_pair"]), PAIR_EPS * (sympy.exp(PAIR_EPS) - 1)),
    extra=_PAIR,
)


def _range_precise(point, dps):
    bound_, drawn = point["bounded"]
    return finite.epsilon_dp(drawn, dps), mp.mpf(bound_)


def _range_ball(point, prec):
    bound_, drawn = point["bounded"]
    return finite.epsilon_dp_ball(drawn, prec), ball.to_arb(bound_)


step_range_finite = Claim(
    id="abadi2016.lemma_c1.step.range.finite",
    source=SOURCE + ", proof: |Z| <= eps",
    kind="step",
    title="|Z| <= eps: every |log p_i/q_i| of a pair drawn with bound eps is at most eps",
    statement=sympy.Le(PAIR_EPS, eps),
    extra={"bounded": st.floats(0.01, 3).flatmap(
        lambda e: finite.pairs(max_log_ratio=e).map(lambda pair: (e, pair)))},
    # custom sides: eps is the generator's bound, drawn jointly with the pair as one value
    sides=Sides(precise=_range_precise, ball=_range_ball),
    explanation="the definition of eps-DP; checks that the finite-pair generator honours it",
)

step_centred_range = Claim(
    id="abadi2016.lemma_c1.step.centred_range",
    source=SOURCE + ", proof: |Z - E Z| <= eps e^eps",
    kind="step",
    title="RR: Z = +-eps, so max |Z - E Z| = eps + eps tanh(eps/2) <= eps e^eps (divided by eps > 0)",
    # divided by eps (max |Z - E Z| = eps (1 + tanh(eps/2))): each side then has eps once, so its
    # interval enclosure over a box is exact, and the margin stays relative as eps -> 0
    statement=sympy.Le(1 + sympy.tanh(eps / 2), sympy.exp(eps)),
    variables=(Variable("eps", 1e-3, 5),),
    certify=True,
)

step_centred_range_finite = Claim(
    id="abadi2016.lemma_c1.step.centred_range.finite",
    source=SOURCE + ", proof: |Z - E Z| <= eps e^eps",
    kind="step",
    title="max_i |log(p_i/q_i) - KL(P || Q)| <= eps e^eps on random finite eps-DP pairs",
    statement=sympy.Le(both_orderings(F["loss_centred_range_pair"]), PAIR_EPS * sympy.exp(PAIR_EPS)),
    extra=_PAIR,
)

_RR_CENTRED_LOG_MGF = RR_LOG_MOMENT - lam * RR_MEAN
_HOEFFDING = lam**2 * eps**2 * sympy.exp(2 * eps) / 2

step_hoeffding = Claim(
    id="abadi2016.lemma_c1.step.hoeffding",
    source=SOURCE + ", proof: Hoeffding's lemma on |Z - E Z| <= eps e^eps",
    kind="step",
    title="RR: log E e^{lam (Z - E Z)} = alpha(lam) - lam E Z <= lam^2 eps^2 e^{2 eps} / 2",
    statement=sympy.Le(_RR_CENTRED_LOG_MGF, _HOEFFDING),
    variables=(LAM, EPS),
)

step_hoeffding_finite = Claim(
    id="abadi2016.lemma_c1.step.hoeffding.finite",
    source=SOURCE + ", proof: Hoeffding's lemma on |Z - E Z| <= eps e^eps",
    kind="step",
    title="log E_P e^{lam (Z - E Z)} <= lam^2 eps^2 e^{2 eps} / 2 on random finite eps-DP pairs",
    statement=sympy.Le(both_orderings(lambda p: F["log_moment_pair"](lam, p) - lam * F["kl_pair"](p)),
                       lam**2 * PAIR_EPS**2 * sympy.exp(2 * PAIR_EPS) / 2),
    variables=_FINITE_LAM,
    extra=_PAIR,
)

variant_range_2eps = Claim(
    id="abadi2016.lemma_c1.variant.range_2eps",
    source=SOURCE + " (sharpened: Z - E Z lies in [-eps - E Z, eps - E Z], of length 2 eps)",
    kind="variant",
    title="alpha(lam) <= lam eps (e^eps - 1) + lam^2 eps^2 / 2 (the factor e^{2 eps} is not needed)",
    statement=sympy.Le(RR_LOG_MOMENT, tight_bound(lam, eps)),
    variables=(LAM, EPS),
    explanation="Hoeffding's lemma needs the length of the range (2 eps), not twice its radius "
    "bound (2 eps e^eps); so dropping e^{2 eps} is a true sharpening, not a mutant",
)

variant_range_2eps_finite = Claim(
    id="abadi2016.lemma_c1.variant.range_2eps.finite",
    source=variant_range_2eps.source,
    kind="variant",
    title="the sharpened bound on random finite eps-DP pairs (both orderings)",
    statement=sympy.Le(PAIR_LOG_MOMENT, tight_bound(lam, PAIR_EPS)),
    variables=_FINITE_LAM,
    extra=_PAIR,
)

_HALVED = lam * eps * (sympy.exp(eps) - 1) + lam**2 * eps**2 * sympy.exp(2 * eps) / 4
mutant_second_term_halved = statement.mutant(
    "second_term_halved",
    statement=sympy.Le(RR_LOG_MOMENT, _HALVED),
    explanation="for small eps alpha(lam) ~ lam (lam + 1) eps^2 / 2 exceeds lam eps^2 + lam^2 eps^2 / 4 "
    "once lam > 2",
    pinned=({"lam": 64.0, "eps": 0.01},),
)

_FIRST_DROPPED = lam**2 * eps**2 * sympy.exp(2 * eps) / 2
mutant_first_term_dropped = statement.mutant(
    "first_term_dropped",
    statement=sympy.Le(RR_LOG_MOMENT, _FIRST_DROPPED),
    explanation="for small lam the mean term lam E Z ~ lam eps^2 / 2 dominates lam^2 eps^2 / 2",
    pinned=({"lam": 0.01, "eps": 0.01},),
)

CLAIMS = [
    statement,
    certified_box,
    statement_finite,
    step_mean,
    step_mean_finite,
    step_range_finite,
    step_centred_range,
    step_centred_range_finite,
    step_hoeffding,
    step_hoeffding_finite,
    variant_range_2eps,
    variant_range_2eps_finite,
    mutant_second_term_halved,
    mutant_first_term_dropped,
]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the two sides of the statement claim (Claim.evaluate).


def _figure_bound(path):
    """Lemma C.1's bound against the exact log moment of randomized response."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    claim = next(c for c in CLAIMS if c.id == "abadi2016.lemma_c1")
    eps_values = [0.02 + (2 - 0.02) * i / 59 for i in range(60)]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
    for ax, lam_value in zip(axes, (1, 8)):
        sides = [claim.evaluate({"lam": lam_value, "eps": e}, 20) for e in eps_values]
        ax.plot(eps_values, [float(s[0]) for s in sides], label="exact log moment of eps-RR (worst eps-DP pair)")
        ax.plot(eps_values, [float(s[1]) for s in sides], "--", label="Lemma C.1 bound")
        ax.set_yscale("log")
        ax.set_xlabel("eps")
        ax.set_title(f"lambda = {lam_value}")
        ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("lemma_c1_bound.png", "Lemma C.1 against the exact log moment of randomized response",
                   _figure_bound),)


FIGURES = _figures()
