"""Mironov 2017 (arXiv 1702.07476v3), Proposition 4: advanced composition in probability form.

Statement: for an adaptive composition ``f`` of ``n`` eps-DP mechanisms, adjacent ``D, D'`` and any
``S`` with ``Q = Pr[f(D') in S]``: ``Pr[f(D) in S] <= exp(2 eps sqrt(n log(1/Q))) Q``.

The exact worst case is n-fold randomized response (heads with probability ``p = e^eps/(1+e^eps)``
under D, ``1-p`` under D'); its events are checked through the head count ``l``: the threshold sets
``{l >= k}`` (the likelihood-ratio / Neyman-Pearson sets) and single levels ``{l = k}``, with P and Q
summed exactly from binomial terms (mp and arb; the vocabulary's ``rr_event_P``/``rr_event_Q``),
n up to 3000.

Ids -> items (``mironov2017.proposition4`` + suffix):

* ``""`` (n-fold RR events ``rr_event_P``/``rr_event_Q``), ``.adaptive_finite`` (adaptive
  compositions ``C`` of 2 steps, <= 3 outcomes, either order, a random event ``A`` of
  ``joint(C)``, eps = ``eps_composition(C)``, the worst step D_inf).
* proof, case I (``L = log(1/Q) >= eps^2 n``, ``alpha = sqrt(L)/(eps sqrt n)``):
  ``.step.alpha_at_least_one``, ``.step.rdp_bound`` (Lemma 1 + Prop. 1: ``n D_alpha(RR) <= 2 alpha n eps^2``),
  ``.step.preservation`` (Prop. 10 on RR events), ``.step.chain_rdp``
  (``(e^{D_alpha} Q)^{1-1/alpha} <= exp(2(alpha-1) n eps^2) Q^{1-1/alpha}``),
  ``.step.chain_strict`` (FINDING: the printed
  ``exp(2(alpha-1) n eps^2) Q^{1-1/alpha} < exp(eps sqrt(n L) - (log Q)/alpha) Q`` is false for
  alpha >= 2), ``.step.final_identity`` (``= exp(2 eps sqrt(n L)) Q``, sympy).
* corrected routes: ``.variant.chain_bun_steinke`` (with ``D_alpha <= alpha n eps^2 / 2`` the chain
  does end below ``exp(2 eps sqrt(nL)) Q``), ``.variant.chain_constant_3`` (with the printed Lemma 1
  constant the same chain proves only ``exp(3 eps sqrt(nL)) Q``).
* case II: ``.step.case2`` (``L < eps^2 n`` => RHS ``>= 1/Q``), ``.step.case2_exceeds_one``.
* mutants: ``.mutant.constant_1`` (``exp(eps sqrt(n L)) Q``), refuted on 100-fold RR, and
  ``.adaptive_finite.mutant.constant_1``, refuted on two steps of RR with a small eps.
"""

from fractions import Fraction

import sympy
from hypothesis import strategies as st

from dpproofs.checker.oracles import finite
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.mironov2017._common import JOINT_OUTCOMES, events, source, structured, sym

__all__ = ["CLAIMS", "bound"]

SOURCE = source("Prop. 4")

eps, n, L, u, shape = (sym(v) for v in ("eps", "n", "L", "u", "shape"))
C, A = structured("C"), structured("A")
rdp_rr = F["rdp_randomized_response"]

#: The event S of n-fold eps-RR a point selects (see rr_event_P in dpproofs.checker.vocabulary)
P_S, Q_S = F["rr_event_P"](eps, n, u, shape), F["rr_event_Q"](eps, n, u, shape)


def bound(q_value, eps_value, n_value, constant=2):
    """Prop. 4's right side ``exp(constant eps sqrt(n log(1/Q))) Q`` (sympy)."""
    return sympy.exp(constant * eps_value * sympy.sqrt(n_value * sympy.log(1 / q_value))) * q_value


RR_VARIABLES = (
    Variable("eps", 1e-3, 2),
    Variable("n", 1, 3000, integer=True),
    Variable("u", 0, 1),
    Variable("shape", 0, 1, integer=True),  # 0: threshold set {l >= k}; 1: single level {l = k}
)

statement = Claim(
    id="mironov2017.proposition4",
    source=SOURCE,
    statement=sympy.Le(P_S, bound(Q_S, eps, n)),
    variables=RR_VARIABLES,
    kind="statement",
    title="n-fold eps-RR (the worst case), events {l >= k} and {l = k}: P(S) <= exp(2 eps sqrt(n log 1/Q)) Q",
    cost=0.5,
    # the largest log(P/Q) / (eps sqrt(n log 1/Q)) over k at these (eps, n): 1.23 and 1.31
    pinned=({"eps": 0.1, "n": 100, "u": 0.845, "shape": 0}, {"eps": 0.05, "n": 1000, "u": 0.77, "shape": 0}),
)


# --- adaptive finite compositions ------------------------------------------------------------

_P_A, _Q_A = F["prob_P"](F["joint"](C), A), F["prob_Q"](F["joint"](C), A)

adaptive_finite = Claim(
    id="mironov2017.proposition4.adaptive_finite",
    source=SOURCE,
    # n = 2 steps, each eps-DP with eps = eps_composition(C), the worst step D_inf
    statement=sympy.Le(_P_A, bound(_Q_A, F["eps_composition"](C), 2)),
    hypotheses=(sympy.Gt(_Q_A, 0),),  # A has an outcome of the joint (full support)
    extra={
        "C": finite.either_order(st.floats(0.01, 2).flatmap(
            lambda e: finite.adaptive_compositions(steps=2, max_outcomes=3, max_log_ratio=e))),
        "A": events(JOINT_OUTCOMES),
    },
    kind="statement",
    title="adaptive 2-step compositions of eps-DP finite mechanisms (either order), random events",
)

# --- the printed proof (algebra in L = log(1/Q)) --------------------------------------------

ALGEBRA_VARIABLES = (Variable("eps", 1e-3, 2), Variable("n", 1, 10000, integer=True), Variable("L", 1e-3, 2000))
_alpha = sympy.sqrt(L) / (eps * sympy.sqrt(n))
_Q = sympy.exp(-L)
_case1 = (sympy.Ge(L, eps**2 * n),)
_case1_strict = (sympy.Gt(L, eps**2 * n),)  # alpha > 1: D_alpha of RR at alpha = 1 is a limit


def _prove_alpha_at_least_one():
    e, m, s = sympy.symbols("e m s", positive=True)
    big_l = e**2 * m + s  # L = eps^2 n + s, s >= 0
    alpha_sq = big_l / (e**2 * m)
    if sympy.simplify(alpha_sq - 1 - s / (e**2 * m)) == 0:
        return "alpha^2 = L/(eps^2 n) = 1 + s/(eps^2 n) >= 1 with L = eps^2 n + s, s >= 0"
    return None


step_alpha_at_least_one = Claim(
    id="mironov2017.proposition4.step.alpha_at_least_one",
    source=SOURCE + ", proof, case I",
    statement=sympy.Ge(_alpha, 1),
    variables=ALGEBRA_VARIABLES,
    hypotheses=_case1,
    kind="step",
    title="alpha = sqrt(log 1/Q)/(eps sqrt n) >= 1 when log(1/Q) >= eps^2 n",
    prover=_prove_alpha_at_least_one,
)

step_rdp_bound = Claim(
    id="mironov2017.proposition4.step.rdp_bound",
    source=SOURCE + ", proof (Lemma 1 and Prop. 1)",
    statement=sympy.Le(n * rdp_rr(sym("alpha"), eps), 2 * sym("alpha") * n * eps**2),
    variables=(Variable("alpha", 1, 1000, low_open=True), Variable("eps", 1e-3, 2), Variable("n", 1, 10000, integer=True)),
    kind="step",
    title="D_alpha of n-fold eps-RR (the worst composition) <= 2 alpha n eps^2",
)


_alpha_S = sympy.sqrt(sympy.log(1 / Q_S)) / (eps * sympy.sqrt(n))  # alpha of case I at Q = Q(S)

step_preservation = Claim(
    id="mironov2017.proposition4.step.preservation",
    source=SOURCE + ", proof, case I (Prop. 10)",
    statement=sympy.Le(P_S, (sympy.exp(n * rdp_rr(_alpha_S, eps)) * Q_S) ** (1 - 1 / _alpha_S)),
    variables=(Variable("eps", 1e-3, 2), Variable("n", 1, 400, integer=True), Variable("u", 0, 1),
               Variable("shape", 0, 1, integer=True)),
    hypotheses=(sympy.Gt(sympy.log(1 / Q_S), eps**2 * n),),  # case I, strictly: alpha > 1
    kind="step",
    title="case I on n-fold RR events: P <= (e^{D_alpha} Q)^(1-1/alpha), alpha = sqrt(log 1/Q)/(eps sqrt n)",
    cost=0.5,
)

step_chain_rdp = Claim(
    id="mironov2017.proposition4.step.chain_rdp",
    source=SOURCE + ", proof, case I",
    statement=sympy.Le(
        (sympy.exp(n * rdp_rr(_alpha, eps)) * _Q) ** (1 - 1 / _alpha),
        sympy.exp(2 * (_alpha - 1) * n * eps**2) * _Q ** (1 - 1 / _alpha),
    ),
    variables=ALGEBRA_VARIABLES,
    hypotheses=_case1_strict,
    kind="step",
    title="(e^{D_alpha} Q)^(1-1/alpha) <= exp(2(alpha-1) n eps^2) Q^(1-1/alpha) (D_alpha of n-fold RR)",
)

CHAIN_PIN = {"eps": 0.1, "n": 100, "L": 9.0}
step_chain_strict = Claim(
    id="mironov2017.proposition4.step.chain_strict",
    source=SOURCE + ", proof, case I, as printed",
    statement=sympy.Lt(
        sympy.exp(2 * (_alpha - 1) * n * eps**2) * _Q ** (1 - 1 / _alpha),
        sympy.exp(eps * sympy.sqrt(n * L) - sympy.log(_Q) / _alpha) * _Q,
    ),
    variables=ALGEBRA_VARIABLES,
    hypotheses=_case1,
    expected="fails",
    kind="finding",
    title="exp(2(alpha-1) n eps^2) Q^(1-1/alpha) < exp(eps sqrt(n log 1/Q) - (log Q)/alpha) Q (as printed)",
    explanation="needs 2(alpha-1) n eps^2 < eps sqrt(n L) = alpha n eps^2, i.e. alpha < 2; false once "
    "log(1/Q) >= 4 eps^2 n (eps=0.1, n=100, L=9: alpha=3, exponents -2 vs -3); the statement's own "
    "verdict is separate (it holds: see mironov2017.proposition4 and the Bun-Steinke variant)",
    pinned=(CHAIN_PIN,),
)


def _prove_final_identity():
    e, m, big_l = sympy.symbols("e m L", positive=True)
    a = sympy.sqrt(big_l) / (e * sympy.sqrt(m))
    q_value = sympy.exp(-big_l)
    lhs = e * sympy.sqrt(m * big_l) - sympy.log(q_value) / a + sympy.log(q_value)
    rhs = 2 * e * sympy.sqrt(m * big_l) + sympy.log(q_value)
    if sympy.simplify(lhs - rhs) == 0:
        return "eps sqrt(nL) - (log Q)/alpha = eps sqrt(nL) + L eps sqrt(n)/sqrt(L) = 2 eps sqrt(nL)"
    return None


step_final_identity = Claim(
    id="mironov2017.proposition4.step.final_identity",
    source=SOURCE + ", proof, case I",
    statement=sympy.Eq(
        sympy.exp(eps * sympy.sqrt(n * L) - sympy.log(_Q) / _alpha) * _Q,
        sympy.exp(2 * eps * sympy.sqrt(n * L)) * _Q,
    ),
    variables=(Variable("eps", 1e-3, 2), Variable("n", 1, 10000, integer=True), Variable("L", 1e-3, 200)),
    kind="step",
    title="exp(eps sqrt(n L) - (log Q)/alpha) Q = exp(2 eps sqrt(n L)) Q",
    prover=_prove_final_identity,
)

variant_chain_bun_steinke = Claim(
    id="mironov2017.proposition4.variant.chain_bun_steinke",
    source=SOURCE + ", proof, case I, with the Bun-Steinke constant (Lemma 1's remark)",
    statement=sympy.Le(
        sympy.exp((_alpha - 1) * n * eps**2 / 2) * _Q ** (1 - 1 / _alpha),
        sympy.exp(2 * eps * sympy.sqrt(n * L)) * _Q,
    ),
    variables=ALGEBRA_VARIABLES,
    hypotheses=_case1,
    kind="variant",
    title="with D_alpha <= alpha n eps^2 / 2: exp((alpha-1) n eps^2/2) Q^(1-1/alpha) <= exp(2 eps sqrt(nL)) Q",
)

variant_chain_constant_3 = Claim(
    id="mironov2017.proposition4.variant.chain_constant_3",
    source=SOURCE + ", proof, case I, with Lemma 1's constant 2",
    statement=sympy.Le(
        sympy.exp(2 * (_alpha - 1) * n * eps**2) * _Q ** (1 - 1 / _alpha),
        sympy.exp(3 * eps * sympy.sqrt(n * L)) * _Q,
    ),
    variables=ALGEBRA_VARIABLES,
    hypotheses=_case1,
    kind="variant",
    title="the printed chain with D_alpha <= 2 alpha n eps^2 reaches exp(3 eps sqrt(nL)) Q",
)

step_case2 = Claim(
    id="mironov2017.proposition4.step.case2",
    source=SOURCE + ", proof, case II",
    statement=sympy.Ge(sympy.exp(2 * eps * sympy.sqrt(n * L)) * _Q, 1 / _Q),
    variables=ALGEBRA_VARIABLES,
    hypotheses=(sympy.Lt(L, eps**2 * n),),
    kind="step",
    title="case II, log(1/Q) < eps^2 n: exp(2 eps sqrt(n log 1/Q)) Q >= exp(2 log 1/Q) Q = 1/Q",
)

step_case2_exceeds_one = Claim(
    id="mironov2017.proposition4.step.case2_exceeds_one",
    source=SOURCE + ", proof, case II",
    statement=sympy.Gt(1 / _Q, 1),
    variables=ALGEBRA_VARIABLES,
    hypotheses=(sympy.Lt(L, eps**2 * n),),
    kind="step",
    title="case II: 1/Q > 1 (Q < 1)",
)

MUTANT_PIN = {"eps": 0.1, "n": 100, "u": 0.845, "shape": 0}  # k = 85
mutant_constant_1 = statement.mutant(
    "constant_1",
    statement=sympy.Le(P_S, bound(Q_S, eps, n, constant=1)),
    explanation="the true constant is about sqrt(2) for large n (CLT): 100-fold 0.1-RR, S = {l >= 85} "
    "has log(P/Q) = 1.23 eps sqrt(n log 1/Q)",
    pinned=(MUTANT_PIN,),
)

_rr_pair = finite.Pair((Fraction(201, 400), Fraction(199, 400)), (Fraction(199, 400), Fraction(201, 400)))
ADAPTIVE_MUTANT_PIN = {
    "C": finite.AdaptiveComposition(({(): _rr_pair}, {(0,): _rr_pair, (1,): _rr_pair})),
    "A": finite.Event(frozenset({0})),  # both heads: the outcome (0, 0)
}
mutant_adaptive_constant_1 = adaptive_finite.mutant(
    "constant_1",
    statement=sympy.Le(_P_A, bound(_Q_A, F["eps_composition"](C), 2, constant=1)),
    explanation="two steps of eps-RR with eps = log(201/199) = 0.01, S = both heads: log(P/Q) = 2 eps but "
    "eps sqrt(2 log 1/Q) = 1.67 eps (log 1/Q is about 2 log 2)",
    pinned=(ADAPTIVE_MUTANT_PIN,),
)

CLAIMS = [
    statement,
    adaptive_finite,
    step_alpha_at_least_one,
    step_rdp_bound,
    step_preservation,
    step_chain_rdp,
    step_chain_strict,
    step_final_identity,
    variant_chain_bun_steinke,
    variant_chain_constant_3,
    step_case2,
    step_case2_exceeds_one,
    mutant_constant_1,
    mutant_adaptive_constant_1,
]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the threshold events {l >= k} of n-fold RR
# (finite.rr_event_precise) and the two sides of the statement claim at each of them (Claim.evaluate).


def _figure_rr_events(path):
    """Prop. 4's bound on the threshold events of 100-fold randomized response."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    claim = next(c for c in CLAIMS if c.id == "mironov2017.proposition4")
    n_value, e = 100, 0.1
    ks = range(n_value // 2, n_value + 1)
    points = [{"eps": e, "n": n_value, "u": (k + 0.5) / (n_value + 1), "shape": 0} for k in ks]
    q_values = [float(finite.rr_event_precise(e, n_value, p["u"], 0, dps=20)[1]) for p in points]
    sides = [claim.evaluate(p, 20) for p in points]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.loglog(q_values, [float(s[0]) for s in sides], "o", ms=3, label="n-fold RR: events 'at least k ones'")
    ax.loglog(q_values, [min(float(s[1]), 1.0) for s in sides], "--", label="Prop. 4: exp(2 eps sqrt(n log 1/Q)) Q")
    ax.loglog(q_values, q_values, ":", color="gray", label="P = Q")
    ax.set_xlabel("Q = Pr[f(D') in S]")
    ax.set_ylabel("Pr[f(D) in S]")
    ax.set_title(f"n = {n_value}, eps = {e}")
    ax.legend(fontsize=8)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("proposition4_rr_events.png",
                   "Prop. 4's bound on the threshold events of 100-fold randomized response", _figure_rr_events),)


FIGURES = _figures()
