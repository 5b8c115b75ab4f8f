"""Abadi et al. 2016 (arXiv 1607.00133v2), Theorem 2: composability and tail bound of log moments.

Statement: (1) for an adaptive sequence ``M_1..M_k``, ``alpha_M(lam) <= sum_i alpha_{M_i}(lam)``;
(2) for any eps > 0, ``M`` is (eps, delta)-DP for ``delta = min_lam exp(alpha_M(lam) - lam eps)``.
Part (2) is checked in its stronger per-order form ``delta_M(eps) <= exp(alpha_M(lam) - lam eps)``
for every lam > 0, against exact privacy profiles (docs/math.md#exact-quantities).

Ids -> printed items:

* ``abadi2016.theorem2.composability.finite`` -- (1) on exactly enumerated adaptive compositions
  of finite mechanisms: joint log moment (both orderings) vs the sum over steps of the max over
  prefixes and orderings;
* ``abadi2016.theorem2.composability.gaussian_product`` -- (1) with equality for T independent
  Gaussians (sympy);
* ``abadi2016.theorem2.step.loss_is_sum.finite`` -- proof (1): the composite loss is the sum of the
  per-step losses given the prefix (exact, in rationals);
* ``abadi2016.theorem2.step.factorisation.finite`` -- proof (1): conditioning on the prefix
  factorises the MGF (an equality, checked by recursion over the prefix tree);
* ``abadi2016.theorem2.tail.{randomized_response,gaussian,laplace,sampled_gaussian,
  sampled_gaussian.add,finite}`` -- (2) against exact profiles;
* ``abadi2016.theorem2.tail.gaussian.min_lambda`` -- (2) with the minimum over lam in closed form;
* ``abadi2016.theorem2.step.markov.{gaussian,sampled_gaussian.add,finite}`` -- proof (2):
  ``Pr[c >= eps] <= exp(alpha - lam eps)``;
* ``abadi2016.theorem2.step.event_split.{gaussian,finite}`` -- proof (2): with ``B = {c >= eps}``,
  ``P(S) <= e^eps Q(S) + P(B)``, i.e. ``delta(eps) <= P(B)``;
* ``abadi2016.theorem2.step.final.finite`` -- ``P(S) <= e^eps Q(S) + exp(alpha - lam eps)`` over
  every event S of random finite pairs;
* mutants: ``exp(alpha - 2 lam eps)``; the final inequality without ``+ delta``; composability with
  the min over prefixes instead of the max.
"""

from fractions import Fraction

import sympy
from hypothesis import strategies as st

from dpproofs.checker.oracles import finite
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE
from dpproofs_theorems.abadi2016._common import source

__all__ = ["CLAIMS", "SOURCE"]

SOURCE = source("Theorem 2")
SOURCE_1 = SOURCE + ".1 (composability)"
SOURCE_2 = SOURCE + ".2 (tail bound)"
PROOF = source("Theorem 2, proof (App. A)")

lam, eps, eps0, sigma, b, q = sympy.symbols("lam eps eps0 sigma b q", positive=True)
T = sympy.Symbol("T", positive=True, integer=True)
F = NAMESPACE
# vocabulary types (drawn through Claim.extra): a finite pair (P, Q) and an adaptive composition
pair, composition = sympy.Symbol("pair"), sympy.Symbol("composition")


def both_orderings(quantity, of):
    """``Max(f(of), f(swapped(of)))`` for ``quantity = f``, a function of a pair."""
    return sympy.Max(quantity(of), quantity(F["swapped"](of)))


JOINT = F["joint"](composition)

LAM = Variable("lam", 1e-3, 64)
LAM_INT = Variable("lam", 1, 64, integer=True)
EPS = Variable("eps", 1e-3, 10)
SIGMA = Variable("sigma", 0.1, 20)
Q = Variable("q", 1e-4, 1, high_open=True)

# ------------------------------------------------------------------------------------------------
# (1) composability on finite adaptive compositions
# ------------------------------------------------------------------------------------------------

# Compositions in which every step is the identity pair are left out: every side is then exactly
# 0 and finite.log_moment returns a rounding residue (~1e-131) with no relative accuracy.
_COMPOSITIONS = st.integers(2, 3).flatmap(
    lambda k: finite.adaptive_compositions(steps=k, max_outcomes=3 if k == 2 else 2)
).filter(lambda c: any(pair.p != pair.q for step in c.steps for pair in step.values()))


composability_finite = Claim(
    id="abadi2016.theorem2.composability.finite",
    source=SOURCE_1,
    title="alpha_M(lam) <= sum_i alpha_{M_i}(lam) on exact adaptive compositions of finite mechanisms",
    statement=sympy.Le(both_orderings(lambda p: F["log_moment_pair"](lam, p), JOINT),
                       F["sum_step_log_moments"](lam, composition)),
    variables=(Variable("lam", 1e-2, 32),),
    extra={"composition": _COMPOSITIONS},
)


# Step 1 is the identity pair on two outcomes, step 2 is identical after outcome 0 and far apart
# after outcome 1: the min over prefixes of step 2 is 0 while the composition leaks.
_HALF = (Fraction(1, 2), Fraction(1, 2))
_ADAPTIVE_COUNTEREXAMPLE = finite.AdaptiveComposition((
    {(): finite.Pair(_HALF, _HALF)},
    {(0,): finite.Pair(_HALF, _HALF),
     (1,): finite.Pair((Fraction(9, 10), Fraction(1, 10)), (Fraction(1, 10), Fraction(9, 10)))},
))

mutant_min_over_prefixes = composability_finite.mutant(
    "min_over_prefixes",
    statement=sympy.Le(composability_finite.lhs, F["sum_step_log_moments_min_aux"](lam, composition)),
    explanation="alpha_{M_i} is a max over the aux input (the prefix); an adaptive step that leaks "
    "only after some prefixes breaks the bound with the min",
    pinned=({"lam": 1.0, "composition": _ADAPTIVE_COUNTEREXAMPLE},),
)


step_loss_is_sum = Claim(
    id="abadi2016.theorem2.step.loss_is_sum.finite",
    source=PROOF + ", (1): the loss of the composite is the sum of per-step losses",
    kind="step",
    title="c(o; M) = sum_i c(o_i; M_i, o_<i): max_o |e^{c(o;M)} - prod_i e^{c_i}| = 0 in rationals",
    statement=sympy.Eq(F["loss_sum_gap"](composition), 0),
    extra={"composition": _COMPOSITIONS},
)


step_factorisation = Claim(
    id="abadi2016.theorem2.step.factorisation.finite",
    source=PROOF + ", (1): conditioning on the prefix factorises the MGF",
    kind="step",
    title="E_P[(P/Q)^lam] = sum_{o1} P1(o1)^{lam+1} Q1(o1)^{-lam} E[(P/Q)^lam | o1] (recursively): equality",
    statement=sympy.Eq(F["log_moment_pair"](lam, JOINT), F["log_moment_factorised"](lam, composition)),
    variables=(Variable("lam", 1e-2, 32),),
    extra={"composition": _COMPOSITIONS},
)

_GAUSS_T = lam * F["rdp_gaussian"](lam + 1, sigma / sympy.sqrt(T))
_GAUSS_SUM = T * lam * F["rdp_gaussian"](lam + 1, sigma)


def _prove_gaussian_product():
    a = lam * (lam + 1) / (2 * (sigma / sympy.sqrt(T)) ** 2)
    c = T * lam * (lam + 1) / (2 * sigma**2)
    return "lam (lam+1) / (2 (sigma/sqrt T)^2) - T lam (lam+1) / (2 sigma^2) simplifies to 0" if sympy.simplify(
        a - c
    ) == 0 else None


composability_gaussian_product = Claim(
    id="abadi2016.theorem2.composability.gaussian_product",
    source=SOURCE_1 + " (equality for a non-adaptive product of Gaussians)",
    title="log moment of T independent N(0, sigma^2) steps = that of one step with noise sigma/sqrt(T) "
    "= T alpha(lam)",
    statement=sympy.Eq(_GAUSS_T, _GAUSS_SUM),
    variables=(LAM, Variable("sigma", 0.1, 20), Variable("T", 1, 10**4, integer=True)),
    prover=_prove_gaussian_product,
)

# ------------------------------------------------------------------------------------------------
# (2) tail bound against exact privacy profiles
# ------------------------------------------------------------------------------------------------

_RR_MOMENT = lam * F["rdp_randomized_response"](lam + 1, eps0)
_GAUSS_MOMENT = lam * F["rdp_gaussian"](lam + 1, sigma)
_LAPLACE_MOMENT = lam * F["rdp_laplace"](lam + 1, b)

tail_rr = Claim(
    id="abadi2016.theorem2.tail.randomized_response",
    source=SOURCE_2,
    title="delta_RR(eps) <= exp(alpha(lam) - lam eps) for eps0-randomized response",
    statement=sympy.Le(F["delta_randomized_response"](eps, eps0), sympy.exp(_RR_MOMENT - lam * eps)),
    variables=(LAM, EPS, Variable("eps0", 1e-3, 5)),
)

tail_gaussian = Claim(
    id="abadi2016.theorem2.tail.gaussian",
    source=SOURCE_2,
    title="delta_Gauss(eps) <= exp(lam (lam + 1) / (2 sigma^2) - lam eps)",
    statement=sympy.Le(F["delta_gaussian"](eps, sigma), sympy.exp(_GAUSS_MOMENT - lam * eps)),
    variables=(LAM, EPS, SIGMA),
)

mutant_two_lambda_eps = tail_gaussian.mutant(
    "two_lambda_eps",
    statement=sympy.Le(F["delta_gaussian"](eps, sigma), sympy.exp(_GAUSS_MOMENT - 2 * lam * eps)),
    explanation="doubling the exponent's lam eps is too optimistic: at sigma = 1, eps = 3 the exact "
    "delta is about 1.5e-3 while min_lam exp(lam(lam+1)/2 - 6 lam) is about 2.7e-7",
    pinned=({"lam": 5.5, "eps": 3.0, "sigma": 1.0},),
)

_LAMBDA_STAR = sigma**2 * eps - sympy.Rational(1, 2)
tail_gaussian_min = Claim(
    id="abadi2016.theorem2.tail.gaussian.min_lambda",
    source=SOURCE_2 + " (delta = min over lam, in closed form for the Gaussian)",
    title="delta_Gauss(eps) <= min_lam exp(alpha(lam) - lam eps) = exp(-(sigma eps - 1/(2 sigma))^2 / 2)",
    statement=sympy.Le(F["delta_gaussian"](eps, sigma), sympy.exp(-((sigma * eps - 1 / (2 * sigma)) ** 2) / 2)),
    variables=(EPS, SIGMA),
    hypotheses=(sympy.Gt(_LAMBDA_STAR, 0),),
    explanation="the minimiser lam* = sigma^2 eps - 1/2 is positive under the hypothesis",
)

tail_laplace = Claim(
    id="abadi2016.theorem2.tail.laplace",
    source=SOURCE_2,
    title="delta_Laplace(eps) <= exp(lam D_{lam+1}(Laplace_b) - lam eps)",
    statement=sympy.Le(F["delta_laplace"](eps, b), sympy.exp(_LAPLACE_MOMENT - lam * eps)),
    variables=(LAM, EPS, Variable("b", 0.1, 20)),
)

tail_sampled_gaussian = Claim(
    id="abadi2016.theorem2.tail.sampled_gaussian",
    source=SOURCE_2,
    title="delta_SG(eps) <= exp(log max(E1, E2) - lam eps), both directions (E1 needs an integral)",
    statement=sympy.Le(F["delta_sampled_gaussian"](eps, q, sigma), sympy.exp(F["log_moment"](lam, q, sigma) - lam * eps)),
    variables=(LAM_INT, Variable("eps", 1e-3, 5), Variable("q", 1e-3, 1, high_open=True), Variable("sigma", 0.5, 10)),
    cost=0.15,
)


tail_sampled_gaussian_add = Claim(
    id="abadi2016.theorem2.tail.sampled_gaussian.add",
    source=SOURCE_2 + " (add direction: P = mu, Q = mu0, E2 = A_{lam+1})",
    title="delta_SG,add(eps) <= exp(log A_{lam+1} - lam eps), integer lam (exact binomial sum)",
    statement=sympy.Le(F["delta_sampled_gaussian_add"](eps, q, sigma),
                       sympy.exp(F["log_moment_add"](lam, q, sigma) - lam * eps)),
    variables=(LAM_INT, Variable("eps", 1e-3, 5), Variable("q", 1e-4, 1, high_open=True), Variable("sigma", 0.3, 20)),
)

# --- finite pairs ---------------------------------------------------------------------------------

_PAIRS = {"pair": finite.pairs(min_size=2, max_size=6).filter(lambda pr: pr.p != pr.q)}


FIN_EPS = Variable("eps", 1e-3, 5)
FIN_LAM = Variable("lam", 1e-2, 32)
#: ``exp(alpha(lam) - lam eps)`` for the pair in one ordering, ``alpha = lam D_{lam+1}(P || Q)``
_PAIR_BOUND = sympy.exp(F["log_moment_pair"](lam, pair) - lam * eps)

tail_finite = Claim(
    id="abadi2016.theorem2.tail.finite",
    source=SOURCE_2,
    title="delta_{P,Q}(eps) <= exp(lam D_{lam+1}(P || Q) - lam eps) on random finite pairs",
    statement=sympy.Le(F["delta_pair"](eps, pair), _PAIR_BOUND),
    variables=(FIN_LAM, FIN_EPS),
    extra=_PAIRS,
)

# --- printed steps of (2) -------------------------------------------------------------------------

def _normal_sf(x):
    """``1 - Phi(x)`` as ``erfc(x / sqrt 2) / 2``: accurate in the far tail (``1 - Phi`` cancels)."""
    return sympy.erfc(x / sympy.sqrt(2)) / 2


_GAUSS_TAIL = _normal_sf(sigma * eps - 1 / (2 * sigma))  # Pr_{z ~ N(1, s^2)}[(2z - 1)/(2 s^2) >= eps]

markov_gaussian = Claim(
    id="abadi2016.theorem2.step.markov.gaussian",
    source=PROOF + ", (2): Markov on e^{lam c}",
    kind="step",
    title="Gaussian: Pr[c >= eps] = 1 - Phi(sigma eps - 1/(2 sigma)) <= exp(alpha(lam) - lam eps)",
    statement=sympy.Le(_GAUSS_TAIL, sympy.exp(_GAUSS_MOMENT - lam * eps)),
    variables=(LAM, EPS, SIGMA),
)

event_split_gaussian = Claim(
    id="abadi2016.theorem2.step.event_split.gaussian",
    source=PROOF + ", (2): P(S) <= e^eps Q(S \\ B) + P(B) with B = {c >= eps}",
    kind="step",
    title="Gaussian: delta(eps) = sup_S P(S) - e^eps Q(S) <= P(B) = Pr[c >= eps]",
    statement=sympy.Le(F["delta_gaussian"](eps, sigma), _GAUSS_TAIL),
    variables=(EPS, SIGMA),
)

# add direction of the sampled Gaussian: c(z) = log r(z) >= eps iff z >= z* (see precise)
_Z_STAR = sigma**2 * sympy.log((sympy.exp(eps) - 1 + q) / q) + sympy.Rational(1, 2)
_SG_TAIL = (1 - q) * _normal_sf(_Z_STAR / sigma) + q * _normal_sf((_Z_STAR - 1) / sigma)


markov_sampled_gaussian_add = Claim(
    id="abadi2016.theorem2.step.markov.sampled_gaussian.add",
    source=PROOF + ", (2): Markov on e^{lam c}",
    kind="step",
    title="sampled Gaussian (add): Pr_mu[log r(z) >= eps] <= exp(log A_{lam+1} - lam eps), integer lam",
    statement=sympy.Le(_SG_TAIL, sympy.exp(F["log_moment_add"](lam, q, sigma) - lam * eps)),
    variables=(LAM_INT, Variable("eps", 1e-3, 5), Variable("q", 1e-4, 1, high_open=True), Variable("sigma", 0.3, 20)),
)

markov_finite = Claim(
    id="abadi2016.theorem2.step.markov.finite",
    source=PROOF + ", (2): Markov on e^{lam c}",
    kind="step",
    title="finite pairs: Pr_P[log(p/q) >= eps] <= exp(lam D_{lam+1}(P || Q) - lam eps)",
    statement=sympy.Le(F["loss_tail_pair"](eps, pair), _PAIR_BOUND),
    variables=(FIN_LAM, FIN_EPS),
    extra=_PAIRS,
)

event_split_finite = Claim(
    id="abadi2016.theorem2.step.event_split.finite",
    source=event_split_gaussian.source,
    kind="step",
    title="finite pairs: delta(eps) <= Pr_P[log(p/q) >= eps]",
    statement=sympy.Le(F["delta_pair"](eps, pair), F["loss_tail_pair"](eps, pair)),
    variables=(FIN_EPS,),
    extra=_PAIRS,
)


final_finite = Claim(
    id="abadi2016.theorem2.step.final.finite",
    source=PROOF + ", (2): Pr[M(d) in S] <= e^eps Pr[M(d') in S] + exp(alpha - lam eps)",
    kind="step",
    title="finite pairs: max over every event S of P(S) - e^eps Q(S) <= exp(alpha(lam) - lam eps)",
    statement=sympy.Le(F["max_event_excess_pair"](eps, pair), _PAIR_BOUND),
    variables=(FIN_LAM, FIN_EPS),
    extra=_PAIRS,
)

mutant_delta_dropped = final_finite.mutant(
    "delta_dropped",
    statement=sympy.Le(F["max_event_excess_pair"](eps, pair), 0),
    explanation="without the + delta the inequality is pure eps-DP, false whenever eps is below "
    "max log(p/q)",
    pinned=({"lam": 1.0, "eps": 0.5,
             "pair": finite.Pair((Fraction(3, 4), Fraction(1, 4)), (Fraction(1, 4), Fraction(3, 4)))},),
)

CLAIMS = [
    composability_finite,
    composability_gaussian_product,
    step_loss_is_sum,
    step_factorisation,
    tail_rr,
    tail_gaussian,
    tail_gaussian_min,
    tail_laplace,
    tail_sampled_gaussian,
    tail_sampled_gaussian_add,
    tail_finite,
    markov_gaussian,
    markov_sampled_gaussian_add,
    markov_finite,
    event_split_gaussian,
    event_split_finite,
    final_finite,
    mutant_two_lambda_eps,
    mutant_delta_dropped,
    mutant_min_over_prefixes,
]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen). The tail bound min_lam exp(alpha(lam) - lam eps) is
# the classic conversion at alpha = lam + 1 (dpproofs.math.conversions.classic_log_delta) applied to the
# evaluator's Gaussian RDP; the exact profile is the evaluator's.


def _figure_tail_bound(path):
    """Theorem 2.2's tail bound against the exact Gaussian privacy profile."""
    import numpy as np

    from dpproofs.math.conversions import classic_log_delta
    from dpproofs.docgen import pyplot, save
    from dpproofs.math import fast
    from dpproofs.math import precise

    plt = pyplot()
    sigma_value = 1.0
    eps_values = np.linspace(0.25, 6, 40)
    exact = [float(precise.delta_gaussian(e, sigma_value, dps=20)) for e in eps_values]
    orders = 1 + np.geomspace(1e-3, 200, 4000)  # alpha = lam + 1, lam > 0
    rdp = fast.rdp_gaussian(orders, sigma_value)
    tail = [float(np.exp(np.min(classic_log_delta(rdp, orders, e)))) for e in eps_values]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.semilogy(eps_values, exact, label=f"exact delta(eps) of the Gaussian, sigma = {sigma_value:g}")
    ax.semilogy(eps_values, tail, "--", label="Theorem 2.2 tail bound min_l exp(alpha(l) - l eps)")
    ax.set_xlabel("eps")
    ax.set_ylabel("delta")
    ax.legend(fontsize=8)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("theorem2_tail_bound.png", "Theorem 2.2 tail bound against the exact Gaussian profile",
                   _figure_tail_bound),)


FIGURES = _figures()
