"""Abadi et al. 2016 (arXiv 1607.00133v2), Theorem 1: the noise level of DP-SGD.

Statement: there are constants c1, c2 such that for any ``eps < c1 q^2 T`` DP-SGD (Poisson rate q,
T steps) is (eps, delta)-DP for any delta > 0 if ``sigma >= c2 q sqrt(T log(1/delta)) / eps``.
Proof as printed: by Thm 2.1 and Lemma 3, ``alpha(lam) <= T q^2 lam^2 / sigma^2``; it suffices that
(i) ``T q^2 lam^2 / sigma^2 <= lam eps / 2``, (ii) ``exp(-lam eps / 2) <= delta``,
(iii) ``lam <= sigma^2 log(1/(q sigma))``.

Checked, as printed: with ``lam* = ceil(2 log(1/delta) / eps)`` (the proof's choice, (ii)),
``eps = u c1 q^2 T`` (u in [0.05, 1]: every eps up to c1 q^2 T, down to a twentieth of it) and
``sigma`` a free variable with ``sigma >= c2 q sqrt(T log(1/delta)) / eps`` (every sigma at or above
the bound, not only the bound itself), the exact moments accountant certifies
``T alpha(lam*) - lam* eps <= log delta`` (``alpha`` = log max(E1, E2), both directions).
Explicit constants: **c1 = 1, c2 = 1.6** on the domain q in [1e-3, 0.05], T in [100, 1e5],
delta in [1e-10, 1e-2], *provided Lemma 3's hypotheses are carried over* (sigma >= 1,
q sigma < 1/16, lam* <= sigma^2 ln(1/(q sigma))) and eps <= 1. c2 = 1.5 fails (pinned). Without
the carried-over hypotheses the statement fails for every constant (pinned findings).

Hypotheses beyond the printed statement, and why: Lemma 3's three (its moment bound is only
proved under them, and without ``sigma >= 1`` or with ``eps > 2 log(1/delta)`` the statement is
false: the findings below) and ``eps <= 1`` (the regime of the paper; above it the integer
``lam*`` is small and condition (i) is what fails, see ``finding.eps_above_2_log_1_over_delta``).
There is no lower bound on eps other than the one the domain gives (``eps >= q^2 T / 20``): an
earlier version also assumed ``eps >= 1/20`` without saying why; it is not needed and has been
dropped: Lemma 3's ``q sigma < 1/16`` with ``sigma >= bound`` gives ``u sqrt(T) > 16 c2
sqrt(log(1/delta))``, hence ``eps = u q^2 T >= u^2 q^2 T > (16 c2 q)^2 log(1/delta)`` and
``lam* < 2 / (16 c2 q)^2 + 1 <= 3053`` at q >= 1e-3, inside ``log_moment``'s range (lam <= 9999).
The sigma box [1, 62.5) holds every admissible sigma: Lemma 3 asks sigma >= 1 and
q sigma < 1/16 with q >= 1e-3.

Ids -> printed items:

* ``abadi2016.theorem1`` -- the statement with c1 = 1, c2 = 1.6 (hypotheses carried over);
* ``abadi2016.theorem1.mutant.c2_too_small`` -- c2 = 1.5;
* ``abadi2016.theorem1.finding.without_sigma_ge_1`` -- eps up to c1 q^2 T with no lower bound on sigma;
* ``abadi2016.theorem1.finding.eps_above_2_log_1_over_delta`` -- all of Lemma 3's hypotheses hold but
  2 log(1/delta) / eps < 1: the integer lam* = 1 breaks (i);
* ``abadi2016.theorem1.step.printed_bound`` -- finding: ``alpha(lam) <= q^2 lam^2 / sigma^2`` per step
  (T cancels) is false on Lemma 3's domain; ``.variant.bound_e_minus_1`` -- with the factor e - 1;
* ``abadi2016.theorem1.step.condition_i_algebra``, ``.step.condition_iii_algebra`` -- sympy.
"""

import math

import sympy

from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE
from dpproofs_theorems.abadi2016._common import source

__all__ = ["CLAIMS", "SOURCE", "C1", "C2", "sigma_bound", "accountant_statement"]

SOURCE = source("Theorem 1")
PROOF = source("Theorem 1, proof")

C1 = sympy.Integer(1)
C2 = sympy.Rational(8, 5)

q, T, delta, u, lam, sigma, eps, c1, c2 = sympy.symbols("q T delta u lam sigma eps c1 c2", positive=True)
L = sympy.log(1 / delta)


def _eps(c1_):
    return u * c1_ * q**2 * T


def sigma_bound(c1_, c2_):
    """The theorem's noise bound ``c2 q sqrt(T log(1/delta)) / eps`` at ``eps = u c1 q^2 T``."""
    return c2_ * q * sympy.sqrt(T * L) / _eps(c1_)


def _hypotheses(c1_, c2_, *, lemma3=True, eps_cap=True):
    """``sigma >= sigma_bound`` (the theorem's "if"), then ``eps <= 1`` and Lemma 3's hypotheses
    (``sigma >= 1`` is the lower end of the sigma box), each optional for the findings."""
    e = _eps(c1_)
    hyps = [sympy.Ge(sigma, sigma_bound(c1_, c2_))]
    if eps_cap:
        hyps.append(sympy.Le(e, 1))
    if lemma3:
        hyps += [sympy.Ge(sigma, 1), sympy.Lt(q * sigma, sympy.Rational(1, 16)),
                 sympy.Le(2 * L / e + 1, sigma**2 * sympy.log(1 / (q * sigma)))]
    return tuple(hyps)


def accountant_statement(c1_):
    """``T alpha(lam*) - lam* eps <= log delta`` with ``eps = u c1 q^2 T`` and ``lam* = ceil(2
    log(1/delta) / eps)`` (the proof's order, (ii)) at the free ``sigma``: Theorem 2.2 at lam* then
    gives (eps, delta)-DP. (c2 enters through the hypothesis ``sigma >= sigma_bound(c1, c2)``.)"""
    e = _eps(c1_)
    order = NAMESPACE["ceil"](2 * L / e)
    return sympy.Le(T * NAMESPACE["log_moment"](order, q, sigma) - order * e, sympy.log(delta))


def _at_bound(point, c1_, c2_, up=1e-12):
    """``point`` with ``sigma`` just above (relative ``up``) the bound: the smallest admissible sigma,
    where the accountant is largest (a pinned counterexample must satisfy sigma >= bound)."""
    value = float(sigma_bound(c1_, c2_).subs({q: point["q"], T: point["T"], delta: point["delta"], u: point["u"]}))
    return {**point, "sigma": value * (1 + up)}


Q = Variable("q", 1e-3, 0.05)
TT = Variable("T", 100, 10**5, integer=True)
DELTA = Variable("delta", 1e-10, 1e-2)
U = Variable("u", 0.05, 1)
#: Every admissible sigma: Lemma 3 asks sigma >= 1 and q sigma < 1/16, and q >= 1e-3.
SIGMA = Variable("sigma", 1, 62.5, high_open=True)
DOMAIN = (Q, TT, DELTA, U, SIGMA)

statement = Claim(
    id="abadi2016.theorem1",
    source=SOURCE,
    title="c1 = 1, c2 = 1.6: eps = u q^2 T <= 1, every sigma >= 1.6 q sqrt(T log(1/delta))/eps; the moments "
    "accountant at lam* = ceil(2 log(1/delta)/eps) certifies (eps, delta), Lemma 3's hypotheses carried over",
    statement=accountant_statement(C1),
    variables=DOMAIN,
    hypotheses=_hypotheses(C1, C2),
    cost=0.25,
    explanation="c2 = 1.6 is the smallest of 2, 1.6, 1.5, 1.45, 1.42, 1.4 that held on a 3000-point "
    "grid of the domain (checked there with E2 = A, sigma at the bound); c2 = 1.5 fails at the pinned point "
    "of the mutant. Sigma is free above the bound, as printed; the hypotheses beyond the printed statement "
    "are Lemma 3's (sigma >= 1, q sigma < 1/16, lam* <= sigma^2 ln(1/(q sigma)): without them the statement "
    "is false, see the findings) and eps <= 1; no lower bound on eps is assumed",
    pinned=(_at_bound({"q": 0.004580392862058204, "T": 40150, "delta": math.exp(-4.886460288673526), "u": 1.0},
                      C1, C2),),
)

#: Where c2 = 1.5 fails (sigma at its bound, 3.61); at the same (q, T, delta, u) c2 = 1.6 holds.
C2_MUTANT_POINT = _at_bound({"q": 0.004580392862058204, "T": 40150, "delta": math.exp(-4.886460288673526),
                             "u": 1.0}, C1, sympy.Rational(3, 2))

mutant_c2_too_small = statement.mutant(
    "c2_too_small",
    hypotheses=_hypotheses(C1, sympy.Rational(3, 2)),
    explanation="with c2 = 1.5 the accountant at lam* exceeds log delta (q = 0.00458, T = 40150, "
    "delta = 7.5e-3, eps = 0.84, sigma = 3.61, lam* = 12)",
    pinned=(C2_MUTANT_POINT,),
)

finding_without_sigma_ge_1 = Claim(
    id="abadi2016.theorem1.finding.without_sigma_ge_1",
    source=SOURCE + " (read literally: any eps < c1 q^2 T, no condition on sigma)",
    kind="finding",
    expected="fails",
    title="c1 = 1, c2 = 2 without Lemma 3's hypotheses and without eps <= 1: large q^2 T allows huge eps "
    "with sigma < 1",
    statement=accountant_statement(C1),
    variables=(Variable("q", 1e-3, 0.1), Variable("T", 1, 10**5, integer=True), DELTA, U,
               Variable("sigma", 1e-3, 100)),
    hypotheses=_hypotheses(C1, 2, lemma3=False, eps_cap=False),
    pinned=(_at_bound({"q": 0.1, "T": 10**5, "delta": 0.01, "u": 1.0}, C1, 2),),
    cost=0.1,
    explanation="for any c1, c2: with eps = c1 q^2 T the noise sigma = c2 sqrt(log(1/delta))/(c1 q sqrt T) "
    "tends to 0 as q^2 T grows; at q = 0.1, T = 1e5, delta = 0.01: eps = 1000, sigma = 0.136, and "
    "T alpha(1) - eps is about 1e8 > log delta. The theorem needs sigma >= 1 (or similar) as a hypothesis",
)

finding_eps_above = Claim(
    id="abadi2016.theorem1.finding.eps_above_2_log_1_over_delta",
    source=PROOF + " (lam must be a positive integer: Lemma 3)",
    kind="finding",
    expected="fails",
    title="c1 = 1, c2 = 2 with Lemma 3's hypotheses but eps > 2 log(1/delta): lam* = 1 > 2 log(1/delta)/eps "
    "and condition (i) fails",
    statement=accountant_statement(C1),
    variables=(Variable("q", 1e-3, 0.1), Variable("T", 1, 10**5, integer=True), DELTA, U,
               Variable("sigma", 1, 1000)),
    hypotheses=_hypotheses(C1, 2, eps_cap=False),
    pinned=(_at_bound({"q": 0.026134297387649056, "T": 41553, "delta": math.exp(-7.352508885096365), "u": 1.0},
                      C1, 2),),
    cost=0.1,
    explanation="q = 0.0261, T = 41553, delta = 6.4e-4: eps = 28.4, sigma = 1.018 (>= 1, q sigma < 1/16, "
    "lam* = 1 <= sigma^2 ln(1/(q sigma))) yet T alpha(1) - eps > log delta",
)

# --- the printed step alpha(lam) <= T q^2 lam^2 / sigma^2 (per step: T cancels) ---------------------

_ALPHA = NAMESPACE["log_moment"](lam, q, sigma)
_L3_HYPS = (sympy.Lt(q, 1 / (16 * sigma)), sympy.Le(lam, sigma**2 * sympy.log(1 / (q * sigma))))
_L3_VARS = (Variable("lam", 1, 32, integer=True), Variable("q", 1e-5, 1 / 16, high_open=True),
            Variable("sigma", 1, 16))

step_printed_bound = Claim(
    id="abadi2016.theorem1.step.printed_bound",
    source=PROOF + ": by Thm 2.1 and Lemma 3, alpha(lam) <= T q^2 lam^2 / sigma^2",
    kind="finding",
    expected="fails",
    title="alpha(lam) <= q^2 lam^2 / sigma^2 for one step on Lemma 3's domain (sigma >= 1 is the box)",
    statement=sympy.Le(_ALPHA, q**2 * lam**2 / sigma**2),
    variables=_L3_VARS,
    hypotheses=_L3_HYPS,
    pinned=({"lam": 1, "q": 0.05, "sigma": 1.0},),
    cost=0.1,
    explanation="Lemma 3's leading term is q^2 lam (lam+1)/((1-q) sigma^2), not q^2 lam^2/sigma^2: at "
    "sigma = 1, lam = 1, q = 0.05, alpha = log(1 + q^2 (e - 1)) = 0.00428 > 0.0025",
)

variant_bound_e_minus_1 = Claim(
    id="abadi2016.theorem1.variant.bound_e_minus_1",
    source=PROOF + " (corrected constant)",
    kind="variant",
    title="alpha(lam) <= (e - 1) q^2 lam^2 / sigma^2 on Lemma 3's domain (sharp: lam = 1, sigma = 1, q -> 0)",
    statement=sympy.Le(_ALPHA, (sympy.E - 1) * q**2 * lam**2 / sigma**2),
    variables=_L3_VARS,
    hypotheses=_L3_HYPS,
    cost=0.1,
)

# --- algebra of conditions (i)-(iii) with lam = 2 log(1/delta)/eps, sigma = c2 q sqrt(T L)/eps ---

_LAM_PROOF = 2 * L / eps
_SIGMA_PROOF = c2 * q * sympy.sqrt(T * L) / eps
_RATIO_I = (T * q**2 * _LAM_PROOF**2 / _SIGMA_PROOF**2) / (_LAM_PROOF * eps / 2)


def _prove_condition_i():
    return ("(T q^2 lam^2/sigma^2) / (lam eps/2) simplifies to 4/c2^2: (i) holds iff c2 >= 2"
            if sympy.simplify(_RATIO_I - 4 / c2**2) == 0 else None)


step_condition_i = Claim(
    id="abadi2016.theorem1.step.condition_i_algebra",
    source=PROOF + ", condition (i) with (ii) tight",
    kind="step",
    title="with lam = 2 log(1/delta)/eps and sigma = c2 q sqrt(T log(1/delta))/eps: "
    "(T q^2 lam^2/sigma^2)/(lam eps/2) = 4/c2^2",
    statement=sympy.Eq(_RATIO_I, 4 / c2**2, evaluate=False),
    variables=(Variable("q", 1e-3, 0.1), Variable("T", 1, 10**5), Variable("delta", 1e-10, 0.5),
               Variable("eps", 0.01, 10), Variable("c2", 0.5, 10)),
    prover=_prove_condition_i,
    cost=0.2,
)

_III_GAP = _SIGMA_PROOF**2 * sympy.log(1 / (q * _SIGMA_PROOF)) - _LAM_PROOF
_III_FORM = 2 * L / eps**2 * (c2**2 * q**2 * T * sympy.log(1 / (q * _SIGMA_PROOF)) / 2 - eps)


def _prove_condition_iii():
    return ("sigma^2 log(1/(q sigma)) - lam = (2 L/eps^2)(c2^2 q^2 T log(1/(q sigma))/2 - eps): (iii) iff "
            "eps <= c2^2 q^2 T log(1/(q sigma))/2, implied by eps <= c1 q^2 T when c1 <= c2^2 ln(16)/2 "
            "and q sigma < 1/16" if sympy.simplify(_III_GAP - _III_FORM) == 0 else None)


step_condition_iii = Claim(
    id="abadi2016.theorem1.step.condition_iii_algebra",
    source=PROOF + ", condition (iii)",
    kind="step",
    title="sigma^2 log(1/(q sigma)) - lam = (2 L/eps^2)(c2^2 q^2 T log(1/(q sigma))/2 - eps)",
    statement=sympy.Eq(_III_GAP, _III_FORM, evaluate=False),
    variables=(Variable("q", 1e-3, 0.1), Variable("T", 1, 10**5), Variable("delta", 1e-10, 0.5),
               Variable("eps", 0.01, 10), Variable("c2", 0.5, 10)),
    prover=_prove_condition_iii,
    cost=0.2,
)

CLAIMS = [
    statement,
    step_printed_bound,
    variant_bound_e_minus_1,
    step_condition_i,
    step_condition_iii,
    finding_without_sigma_ge_1,
    finding_eps_above,
    mutant_c2_too_small,
]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen); every curve comes from the shipped accountants
# (RDP, the PLD bracket) or the notes' own computations, never from a retyped formula.


def _figure_abadi_epochs(path):
    """Epsilon against epochs for the Abadi configuration under each method."""
    from dpproofs.accountant.rdp import Accountant
    from dpproofs.docgen import pyplot, save
    from dpproofs.mechanisms import SampledGaussian
    from dpproofs_theorems import notes

    plt = pyplot()
    q, sigma, delta = notes.ABADI["q"], notes.ABADI["sigma"], notes.ABADI["delta"]
    per_epoch = notes.ABADI["steps_per_epoch"]
    epochs = list(range(10, 401, 10))
    steps = [per_epoch * e for e in epochs]
    paper = [notes.moments_epsilon(t)[0] for t in steps]
    continuous, improved = [], []
    for t in steps:
        acc = Accountant().compose(SampledGaussian(q, sigma), t)
        continuous.append(acc.epsilon(delta, "classic", refine=True))
        improved.append(acc.epsilon(delta, "improved"))
    brackets = [notes.tight_bracket(t, q, sigma, delta) for t in steps]
    strong = [notes.strong_composition(t)[0] for t in steps]
    dpa_epochs = [50, 100, 200, 300, 400]
    dpa = [notes._dp_accounting_pld(per_epoch * e, q, sigma, delta)["epsilon"] for e in dpa_epochs]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(epochs, strong, label="strong composition (DRV, amplified per-step eps)", color="tab:gray")
    ax.plot(epochs, paper, label="moments accountant as in the paper (integer lambda <= 32)", color="tab:red")
    ax.plot(epochs, continuous, "--", label="continuous lambda (classic)", color="tab:orange")
    ax.plot(epochs, improved, label="RDP, improved conversion", color="tab:blue")
    ax.fill_between(epochs, [b["lower"] for b in brackets], [b["upper"] for b in brackets], color="k")
    ax.plot(epochs, [b["upper"] for b in brackets], color="k", label="tight (PLD bracket, relative width < 1e-4)")
    ax.plot(dpa_epochs, dpa, "o", mfc="none", color="tab:green", label="dp_accounting PLD")
    ax.plot([100, 400], [1.26, 2.55], "x", color="tab:purple", ms=8, label="printed in the paper (1.26, 2.55)")
    ax.set_yscale("log")
    ax.set_xlabel("epochs E (T = 100 E steps)")
    ax.set_ylabel("epsilon at delta = 1e-5")
    ax.set_title(f"Abadi configuration: q = {q}, sigma = {sigma:g}")
    ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("abadi_epsilon_vs_epochs.png",
                   "Epsilon against epochs for the Abadi configuration (q = 0.01, sigma = 4, delta = 1e-5) "
                   "under each method", _figure_abadi_epochs, also_on=("accountant.md", "notes.md")),)


FIGURES = _figures()
