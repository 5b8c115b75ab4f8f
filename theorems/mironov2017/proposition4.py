"""Mironov 2017 (arXiv 1702.07476v3), Proposition 4: advanced composition in probability form.

Statement: for an adaptive composition ``f`` of ``n`` eps-DP mechanisms, adjacent ``D, D'`` and any
``S`` with ``Q = Pr[f(D') in S]``: ``Pr[f(D) in S] <= exp(2 eps sqrt(n log(1/Q))) Q``.

The exact worst case is n-fold randomized response (heads with probability ``p = e^eps/(1+e^eps)``
under D, ``1-p`` under D'); its events are checked through the head count ``l``: the threshold sets
``{l >= k}`` (the likelihood-ratio / Neyman-Pearson sets) and single levels ``{l = k}``, with P and Q
summed exactly from binomial terms (mp and arb), n up to 3000.

Ids -> items (``mironov2017.proposition4`` + suffix):

* ``""`` (n-fold RR events), ``.adaptive_finite`` (adaptive compositions of 2 steps, <= 3
  outcomes, every event, both orders, eps = worst step D_inf).
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
* mutant: ``.mutant.constant_1`` (``exp(eps sqrt(n L)) Q``), refuted on 100-fold RR.
"""

import sympy
from flint import arb
from hypothesis import strategies as st
from mpmath import mp

from dpproofs import finite
from dpproofs.claims import Claim, Sides, Variable
from dpproofs.evaluator import ball, precise
from dpproofs.vocabulary import NAMESPACE

from dpproofs_theorems.mironov2017._common import arb_of, mp_of, source, sym

__all__ = ["CLAIMS", "rr_event", "rr_event_ball", "event_threshold"]

SOURCE = source("Prop. 4")

eps, n, L, u, shape = (sym(v) for v in ("eps", "n", "L", "u", "shape"))
rdp_rr = NAMESPACE["rdp_randomized_response"]


def event_threshold(n_value, u_value):
    """The head count ``k = min(n, floor(u (n+1)))`` that a point's ``u`` in [0, 1] selects."""
    return min(int(n_value), int(float(u_value) * (int(n_value) + 1)))


def rr_event(eps_value, n_value, k, single, dps):
    """``(P(S), Q(S))`` for n-fold eps-RR and ``S = {l = k}`` (single) or ``{l >= k}`` (mp).

    ``P(l) = C(n,l) p^l (1-p)^{n-l}``, ``Q(l) = C(n,l) (1-p)^l p^{n-l}``; each term in log space.
    """
    with mp.workdps(dps + precise.GUARD_DPS):
        e = precise.to_mpf(eps_value)
        log_p, log_1mp = -mp.log1p(mp.exp(-e)), -mp.log1p(mp.exp(e))
        levels = [k] if single else range(k, n_value + 1)
        p_total = q_total = mp.zero
        for ell in levels:
            log_c = mp.loggamma(n_value + 1) - mp.loggamma(ell + 1) - mp.loggamma(n_value - ell + 1)
            p_total += mp.exp(log_c + ell * log_p + (n_value - ell) * log_1mp)
            q_total += mp.exp(log_c + ell * log_1mp + (n_value - ell) * log_p)
        return p_total, q_total


def rr_event_ball(eps_value, n_value, k, single, prec):
    """Enclosures of :func:`rr_event`."""
    with ball.precision(prec):
        e = ball.to_arb(eps_value)
        log_p, log_1mp = -((-e).exp().log1p()), -(e.exp().log1p())
        levels = [k] if single else range(k, n_value + 1)
        p_total = q_total = arb(0)
        for ell in levels:
            log_c = arb.bin_uiui(n_value, ell).log()
            p_total += (log_c + ell * log_p + (n_value - ell) * log_1mp).exp()
            q_total += (log_c + ell * log_1mp + (n_value - ell) * log_p).exp()
        return p_total, q_total


def _bound_mp(q_value, e, n_value, constant):
    return mp.exp(constant * e * mp.sqrt(n_value * -mp.log(q_value))) * q_value


def _bound_ball(q_value, e, n_value, constant):
    log_inv_q = ball.positive_part(-q_value.log())  # Q <= 1; clip the rounding above 1
    return (constant * e * (n_value * log_inv_q).sqrt()).exp() * q_value


def _rr_sides(constant):
    def precise_sides(point, dps):
        n_value = int(point["n"])
        k = event_threshold(n_value, point["u"])
        p_s, q_s = rr_event(point["eps"], n_value, k, bool(point["shape"]), dps)
        with mp.workdps(dps + precise.GUARD_DPS):
            return p_s, _bound_mp(min(q_s, mp.one), precise.to_mpf(point["eps"]), n_value, constant)

    def ball_sides(point, prec):
        n_value = int(point["n"])
        k = event_threshold(n_value, point["u"])
        p_s, q_s = rr_event_ball(point["eps"], n_value, k, bool(point["shape"]), prec)
        with ball.precision(prec):
            return p_s, _bound_ball(q_s, ball.to_arb(point["eps"]), n_value, constant)

    return Sides(precise_sides, ball_sides)


RR_VARIABLES = (
    Variable("eps", 1e-3, 2),
    Variable("n", 1, 3000, integer=True),
    Variable("u", 0, 1),
    Variable("shape", 0, 1, integer=True),  # 0: threshold set {l >= k}; 1: single level {l = k}
)

statement = Claim(
    id="mironov2017.proposition4",
    source=SOURCE,
    statement=sympy.Le(sympy.Symbol("P_S"), sympy.Symbol("exp(2 eps sqrt(n log(1/Q))) Q")),
    variables=RR_VARIABLES,
    kind="statement",
    title="n-fold eps-RR (the worst case), events {l >= k} and {l = k}: P(S) <= exp(2 eps sqrt(n log 1/Q)) Q",
    sides=_rr_sides(2),
    cost=0.5,
    # the largest log(P/Q) / (eps sqrt(n log 1/Q)) over k at these (eps, n): 1.23 and 1.31
    pinned=({"eps": 0.1, "n": 100, "u": 0.845, "shape": 0}, {"eps": 0.05, "n": 1000, "u": 0.77, "shape": 0}),
)


# --- adaptive finite compositions ------------------------------------------------------------


def _composition_eps(comp, dps):
    return max(finite.epsilon_dp(pair, dps) for i in range(len(comp.steps)) for pair in comp.step_pairs(i))


def _composition_eps_ball(comp, prec):
    values = [finite.epsilon_dp_ball(pair, prec) for i in range(len(comp.steps)) for pair in comp.step_pairs(i)]
    top = values[0]
    for v in values[1:]:
        top = top.max(v)
    return top


def _adaptive_sides(constant):
    """``max over events A and both orders of P(A) / bound(Q(A)) <= 1``."""

    def precise_sides(point, dps):
        comp = point["composition"]
        steps = len(comp.steps)
        with mp.workdps(dps + precise.GUARD_DPS):
            e = _composition_eps(comp, dps)
            joint = comp.joint()
            worst = mp.zero
            for pair in (joint, joint.swapped()):
                for event in finite.events(pair, limit=2**9)[1:]:
                    p_a = mp_of(finite.probability(pair.p, event), dps)
                    q_a = mp_of(finite.probability(pair.q, event), dps)
                    worst = max(worst, p_a / _bound_mp(q_a, e, steps, constant))
            return worst, mp.one

    def ball_sides(point, prec):
        comp = point["composition"]
        steps = len(comp.steps)
        with ball.precision(prec):
            e = _composition_eps_ball(comp, prec)
            joint = comp.joint()
            worst = arb(0)
            for pair in (joint, joint.swapped()):
                for event in finite.events(pair, limit=2**9)[1:]:
                    p_a = arb_of(finite.probability(pair.p, event), prec)
                    q_a = arb_of(finite.probability(pair.q, event), prec)
                    worst = worst.max(p_a / _bound_ball(q_a, e, steps, constant))
            return worst, arb(1)

    return Sides(precise_sides, ball_sides)


adaptive_finite = Claim(
    id="mironov2017.proposition4.adaptive_finite",
    source=SOURCE,
    statement=sympy.Le(sympy.Symbol("max_A_ratio"), 1),
    extra={"composition": st.floats(0.01, 2).flatmap(
        lambda e: finite.adaptive_compositions(steps=2, max_outcomes=3, max_log_ratio=e))},
    kind="statement",
    title="adaptive 2-step compositions of eps-DP finite mechanisms, every event (both orders)",
    sides=_adaptive_sides(2),
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


def _preservation_sides():
    def precise_sides(point, dps):
        n_value = int(point["n"])
        k = event_threshold(n_value, point["u"])
        p_s, q_s = rr_event(point["eps"], n_value, k, bool(point["shape"]), dps)
        with mp.workdps(dps + precise.GUARD_DPS):
            e = precise.to_mpf(point["eps"])
            a = mp.sqrt(-mp.log(q_s)) / (e * mp.sqrt(n_value))
            d = n_value * precise.rdp_randomized_response(a, e, dps=dps)
            return p_s, (mp.exp(d) * q_s) ** (1 - 1 / a)

    def ball_sides(point, prec):
        n_value = int(point["n"])
        k = event_threshold(n_value, point["u"])
        p_s, q_s = rr_event_ball(point["eps"], n_value, k, bool(point["shape"]), prec)
        with ball.precision(prec):
            e = ball.to_arb(point["eps"])
            a = (-q_s.log()).sqrt() / (e * arb(n_value).sqrt())
            d = n_value * ball.rdp_randomized_response(a, e, prec=prec)
            return p_s, ((1 - 1 / a) * (d + q_s.log())).exp()

    return Sides(precise_sides, ball_sides)


def _in_case1(point):
    """Case I on an RR event: log(1/Q(S)) > eps^2 n (decided in mp at 30 digits, for drawing only)."""
    n_value = int(point["n"])
    _, q_s = rr_event(point["eps"], n_value, event_threshold(n_value, point["u"]), bool(point["shape"]), 30)
    return -mp.log(q_s) > precise.to_mpf(point["eps"]) ** 2 * n_value * (1 + mp.mpf(10) ** -20)


step_preservation = Claim(
    id="mironov2017.proposition4.step.preservation",
    source=SOURCE + ", proof, case I (Prop. 10)",
    statement=sympy.Le(sympy.Symbol("P_S"), sympy.Symbol("(e^D_alpha Q)^(1-1/alpha)")),
    variables=(),
    extra={
        "event": st.fixed_dictionaries({
            "eps": st.floats(1e-3, 2), "n": st.integers(1, 400), "u": st.floats(0, 1), "shape": st.integers(0, 1),
        }).filter(_in_case1)
    },
    kind="step",
    title="case I on n-fold RR events: P <= (e^{D_alpha} Q)^(1-1/alpha), alpha = sqrt(log 1/Q)/(eps sqrt n)",
    sides=Sides(
        lambda point, dps: _preservation_sides().precise(point["event"], dps),
        lambda point, prec: _preservation_sides().ball(point["event"], prec),
    ),
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
    statement=sympy.Le(sympy.Symbol("P_S"), sympy.Symbol("exp(eps sqrt(n log(1/Q))) Q")),
    sides=_rr_sides(1),
    explanation="the true constant is about sqrt(2) for large n (CLT): 100-fold 0.1-RR, S = {l >= 85} "
    "has log(P/Q) = 1.23 eps sqrt(n log 1/Q)",
    pinned=(MUTANT_PIN,),
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
]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the threshold events {l >= k} of n-fold RR
# (rr_event) and the two sides of the statement claim at each of them (Claim.evaluate).


def _figure_rr_events(path):
    """Prop. 4's bound on the threshold events of 100-fold randomized response."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    claim = next(c for c in CLAIMS if c.id == "mironov2017.proposition4")
    n_value, e = 100, 0.1
    ks = range(n_value // 2, n_value + 1)
    points = [{"eps": e, "n": n_value, "u": (k + 0.5) / (n_value + 1), "shape": 0} for k in ks]
    q_values = [float(rr_event(e, n_value, k, False, 20)[1]) for k in ks]
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
