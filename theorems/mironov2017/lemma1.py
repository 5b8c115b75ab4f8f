"""Mironov 2017 (arXiv 1702.07476v3), Lemma 1: pure DP implies RDP with ``D_alpha <= 2 alpha eps^2``.

Statement: if ``D_inf(P||Q) <= eps`` and ``D_inf(Q||P) <= eps`` then ``D_alpha(P||Q) <= 2 alpha eps^2``
for ``alpha >= 1``. Randomized response is the worst case over eps-DP pairs (docs/math.md#randomized-response), so
the statement is checked on RR (certified on a box, using that ``D_alpha`` of RR is
non-decreasing in alpha, Prop. 9, and in eps, by post-processing) and on random finite pairs.

Ids -> printed items:

* ``mironov2017.lemma1`` (RR, alpha in (1, 64]); ``.certified`` (RR, ball branch and bound on
  alpha in [1, 64], eps in [1e-4, 5]); ``.at_order_one`` (alpha = 1: KL = eps tanh(eps/2));
  ``.finite_pairs`` (random pairs with bounded likelihood ratio, either order: ``rdp_pair``,
  ``eps_pair``).
* ``.rr_sinh_identity``: the sinh form of RR's divergence (Prop. 5 rewritten).
* Proof, case ``alpha >= 1 + 1/eps``: ``.step.large_order_dinf`` (``D_alpha <= D_inf = eps``),
  ``.step.large_order_algebra`` (``eps <= (alpha-1) eps^2``, sympy).
* ``.step.eq2`` (Eq. 2), ``.step.eq3_exp`` and ``.step.eq3_log`` (Eq. 3, on RR and on finite
  pairs: ``.step.eq3_exp_finite``), ``.step.l1_bound`` (``||P-Q||_1 <= min(2, e^eps - 1)``).
* Findings: ``.step.min_bound_printed`` (``min(2, e^eps - 1) <= 2 eps^2`` as printed: false for
  small eps) and ``.step.l1_eps_squared_printed`` (``||P-Q||_1 <= 2 eps^2`` on RR: false);
  corrected ``.variant.eps_times_min_bound`` (``eps min(2, e^eps-1) <= 2 eps^2``, proved), which
  is what the final sum ``2(alpha-1)eps^2 + 2eps^2 = 2 alpha eps^2`` needs.
* Bun & Steinke constant: ``.bun_steinke`` (``D_alpha <= alpha eps^2 / 2``, RR),
  ``.bun_steinke.certified`` (box), ``.bun_steinke.finite_pairs``.
* Mutants: ``.mutant.alpha_minus_one`` (``2(alpha-1)eps^2``), ``.bun_steinke.mutant.constant_0_49``,
  ``.step.l1_bound.mutant.halved`` (``||P-Q||_1 <= (e^eps - 1)/2``).
"""

from fractions import Fraction

import sympy

from dpproofs.checker.oracles import finite
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise
from dpproofs.checker.vocabulary import NAMESPACE

from dpproofs_theorems.mironov2017._common import eps_pairs, monotone_ball, source, structured, sym

__all__ = ["CLAIMS", "bun_steinke", "rr_ball"]

SOURCE = source("Lemma 1")
BS_SOURCE = "Bun & Steinke 2016 (arXiv 1605.02065v1), Prop. 3.3, cited in " + SOURCE

rdp_rr = NAMESPACE["rdp_randomized_response"]
rdp_pair, eps_pair, l1_pair = NAMESPACE["rdp_pair"], NAMESPACE["eps_pair"], NAMESPACE["l1_pair"]
alpha, eps, x, y, beta, s = (sym(n) for n in ("alpha", "eps", "x", "y", "beta", "s"))
pair = structured("pair")

ALPHA = Variable("alpha", 1, 64, low_open=True)
EPS = Variable("eps", 1e-4, 5)


def rr_ball(alpha_value, eps_value, prec):
    """Ball of ``D_alpha`` of eps-RR, including the alpha = 1 limit ``eps tanh(eps/2)``."""
    with ball.precision(prec):
        a = ball.to_arb(alpha_value)
        e = ball.to_arb(eps_value)
        if a.is_exact() and a == 1:
            return e * (e / 2).tanh()
        return ball.rdp_randomized_response(a, e, prec=prec)


def _rr_box_sides(constant, shift=0):
    """Sides of ``D_alpha(RR_eps) <= constant (alpha - shift) eps^2``, monotone box enclosures.

    For the certified claims only: their boxes reach alpha = 1, outside the domain of
    ``rdp_randomized_response`` (alpha > 1), where the divergence is the KL limit ``eps tanh(eps/2)``,
    and a box's enclosure comes from its corners (monotone in alpha and eps), far tighter than the
    ball formula evaluated on wide intervals.
    """

    def precise_sides(point, dps):
        lhs = precise.rdp_randomized_response(point["alpha"], point["eps"], dps=dps)
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            a, e = precise.to_mpf(point["alpha"]), precise.to_mpf(point["eps"])
            return lhs, precise.to_mpf(constant) * (a - shift) * e**2

    def ball_sides(point, prec):
        # D_alpha(RR_eps) is non-decreasing in alpha (Prop. 9) and in eps (post-processing)
        lhs = monotone_ball(lambda a, e: rr_ball(a, e, prec), (point["alpha"], point["eps"]), prec, (True, True))
        with ball.precision(prec):
            c = ball.to_arb(constant)
        rhs = monotone_ball(lambda a, e: c * (a - shift) * e**2, (point["alpha"], point["eps"]), prec, (True, True))
        return lhs, rhs

    return Sides(precise_sides, ball_sides)


def bun_steinke(eps_value, alpha_value=None):
    """The Bun-Steinke bound ``alpha eps^2 / 2`` on ``D_alpha`` of an eps-DP pair (the zCDP
    parameter ``eps^2/2`` times alpha); with ``alpha_value=None`` returns the rho ``eps^2/2``."""
    rho = sympy.Rational(1, 2) * sympy.sympify(eps_value) ** 2
    return rho if alpha_value is None else alpha_value * rho


def _prove_large_order_algebra():
    """``(alpha-1) eps^2 - eps = eps^2 t >= 0`` where ``alpha = 1 + 1/eps + t``, t >= 0, eps > 0."""
    e, t = sympy.symbols("e t", positive=True)
    a = 1 + 1 / e + t
    difference = sympy.expand((a - 1) * e**2 - e)
    if sympy.simplify(difference - e**2 * t) == 0 and (e**2 * t).is_nonnegative:
        return "with alpha = 1 + 1/eps + t (t >= 0): (alpha-1) eps^2 - eps = eps^2 t >= 0"
    return None


PAIRS = {"pair": eps_pairs(0.001, 2.0)}
#: eps of a drawn pair: the smallest eps with D_inf(P||Q), D_inf(Q||P) <= eps
EPS_PAIR = eps_pair(pair)
RR_L1 = 2 * sympy.tanh(eps / 2)  # ||P - Q||_1 of eps-RR: 2 (2p - 1), p = e^eps / (1 + e^eps)

statement = Claim(
    id="mironov2017.lemma1",
    source=SOURCE,
    statement=sympy.Le(rdp_rr(alpha, eps), 2 * alpha * eps**2),
    variables=(ALPHA, EPS),
    kind="statement",
    title="eps-DP implies (alpha, 2 alpha eps^2)-RDP, on the worst case (randomized response)",
    pinned=({"alpha": 1.1, "eps": 0.1}, {"alpha": 1.5, "eps": 0.01}),
)

certified = Claim(
    id="mironov2017.lemma1.certified",
    source=SOURCE,
    statement=sympy.Le(rdp_rr(alpha, eps), 2 * alpha * eps**2),
    variables=(Variable("alpha", 1, 64), Variable("eps", 1e-4, 5)),
    kind="statement",
    title="Lemma 1 on RR, certified by ball branch and bound (monotone in alpha and eps)",
    # custom sides: its boxes reach alpha = 1 (the KL limit), outside rdp_randomized_response's domain
    sides=_rr_box_sides(2),
    certify=True,
    cost=0.3,
)

at_order_one = Claim(
    id="mironov2017.lemma1.at_order_one",
    source=SOURCE + " (alpha = 1, 'by continuity')",
    statement=sympy.Le(eps * sympy.tanh(eps / 2), 2 * eps**2),
    variables=(Variable("eps", 1e-4, 10),),
    kind="statement",
    title="alpha = 1: KL of eps-RR, eps tanh(eps/2) <= 2 eps^2",
    certify=True,
)

finite_pairs = Claim(
    id="mironov2017.lemma1.finite_pairs",
    source=SOURCE,
    statement=sympy.Le(rdp_pair(alpha, pair), 2 * alpha * EPS_PAIR**2),
    variables=(ALPHA,),
    extra=PAIRS,
    kind="statement",
    title="Lemma 1 on random finite pairs with bounded likelihood ratio (either order)",
)

rr_sinh_identity = Claim(
    id="mironov2017.lemma1.rr_sinh_identity",
    source=source("Prop. 5") + ", in sinh form",
    statement=sympy.Eq(
        rdp_rr(alpha, eps),
        sympy.log((sympy.sinh(alpha * eps) - sympy.sinh((alpha - 1) * eps)) / sympy.sinh(eps)) / (alpha - 1),
    ),
    # alpha >= 1.001: the sinh form cancels catastrophically as alpha -> 1 (it is a limit there)
    variables=(Variable("alpha", 1.001, 64), Variable("eps", 1e-3, 5)),
    kind="support",
    title="D_alpha(RR_eps) = log[(sinh(alpha eps) - sinh((alpha-1) eps)) / sinh eps] / (alpha-1)",
)

step_large_order_dinf = Claim(
    id="mironov2017.lemma1.step.large_order_dinf",
    source=SOURCE + ", proof, case alpha >= 1 + 1/eps",
    statement=sympy.Le(rdp_rr(alpha, eps), eps),
    variables=(ALPHA, EPS),
    hypotheses=(sympy.Ge(alpha, 1 + 1 / eps),),
    kind="step",
    title="D_alpha <= D_inf = eps (on RR)",
)

step_large_order_algebra = Claim(
    id="mironov2017.lemma1.step.large_order_algebra",
    source=SOURCE + ", proof, case alpha >= 1 + 1/eps",
    statement=sympy.Le(eps, (alpha - 1) * eps**2),
    variables=(ALPHA, EPS),
    hypotheses=(sympy.Ge(alpha, 1 + 1 / eps),),
    kind="step",
    title="eps <= (alpha-1) eps^2 when alpha >= 1 + 1/eps",
    prover=_prove_large_order_algebra,
)

step_eq2 = Claim(
    id="mironov2017.lemma1.step.eq2",
    source=SOURCE + ", proof, Eq. (2)",
    statement=sympy.Le(
        x ** (beta + 1) * y ** (-beta) + x ** (-beta) * y ** (beta + 1),
        (1 + (beta * sympy.log(x / y)) ** 2) * (x + y) + beta * sympy.log(x / y) * (x - y),
    ),
    variables=(Variable("x", 1e-6, 1), Variable("y", 1e-6, 1), Variable("beta", 0, 20)),
    hypotheses=(sympy.Gt(x, y), sympy.Le(beta * sympy.log(x / y), 1)),
    kind="step",
    title="x^(b+1) y^-b + x^-b y^(b+1) <= (1 + (b l)^2)(x + y) + b l (x - y), l = log(x/y), 0 <= b <= 1/l",
)

_case_two = (sympy.Lt(alpha, 1 + 1 / eps),)

step_eq3_exp = Claim(
    id="mironov2017.lemma1.step.eq3_exp",
    source=SOURCE + ", proof, Eq. (3) (first form)",
    statement=sympy.Le(
        sympy.exp((alpha - 1) * rdp_rr(alpha, eps)),
        1 + 2 * (alpha - 1) ** 2 * eps**2 + (alpha - 1) * eps * RR_L1,
    ),
    variables=(ALPHA, EPS),
    hypotheses=_case_two,
    kind="step",
    title="exp((alpha-1) D_alpha) <= 1 + 2(alpha-1)^2 eps^2 + (alpha-1) eps ||P-Q||_1 (on RR)",
)

_a = 1 + s / EPS_PAIR  # alpha = 1 + s/eps with s in (0, 1): the case alpha < 1 + 1/eps

step_eq3_exp_finite = Claim(
    id="mironov2017.lemma1.step.eq3_exp_finite",
    source=SOURCE + ", proof, Eq. (3) (first form)",
    statement=sympy.Le(
        sympy.exp((_a - 1) * rdp_pair(_a, pair)),
        1 + 2 * (_a - 1) ** 2 * EPS_PAIR**2 + (_a - 1) * EPS_PAIR * l1_pair(pair),
    ),
    variables=(Variable("s", 0, 1, low_open=True, high_open=True),),
    extra=PAIRS,
    kind="step",
    title="Eq. (3) first form on random finite eps-DP pairs, alpha = 1 + s/eps, s in (0, 1)",
)

step_eq3_log = Claim(
    id="mironov2017.lemma1.step.eq3_log",
    source=SOURCE + ", proof, Eq. (3)",
    statement=sympy.Le(rdp_rr(alpha, eps), 2 * (alpha - 1) * eps**2 + eps * RR_L1),
    variables=(ALPHA, EPS),
    hypotheses=_case_two,
    kind="step",
    title="D_alpha <= 2(alpha-1) eps^2 + eps ||P-Q||_1 (on RR)",
)

step_eq3_log_finite = Claim(
    id="mironov2017.lemma1.step.eq3_log_finite",
    source=SOURCE + ", proof, Eq. (3)",
    statement=sympy.Le(rdp_pair(_a, pair), 2 * (_a - 1) * EPS_PAIR**2 + EPS_PAIR * l1_pair(pair)),
    variables=(Variable("s", 0, 1, low_open=True, high_open=True),),
    extra=PAIRS,
    kind="step",
    title="D_alpha <= 2(alpha-1) eps^2 + eps ||P-Q||_1 on random finite eps-DP pairs, alpha = 1 + s/eps",
)

step_l1_bound = Claim(
    id="mironov2017.lemma1.step.l1_bound",
    source=SOURCE + ", proof, after Eq. (3)",
    statement=sympy.Le(l1_pair(pair), sympy.Min(2, sympy.exp(EPS_PAIR) - 1)),
    extra=PAIRS,
    kind="step",
    title="||P-Q||_1 <= min(2, e^eps - 1) on random finite eps-DP pairs",
)

step_min_bound_printed = Claim(
    id="mironov2017.lemma1.step.min_bound_printed",
    source=SOURCE + ", proof, after Eq. (3), as printed",
    statement=sympy.Le(sympy.Min(2, sympy.exp(eps) - 1), 2 * eps**2),
    variables=(Variable("eps", 1e-4, 5),),
    expected="fails",
    kind="finding",
    title="min(2, e^eps - 1) <= 2 eps^2 (as printed)",
    explanation="false for eps < ~0.77: e^eps - 1 ~ eps is much larger than 2 eps^2 (eps = 0.1: "
    "0.105 > 0.02); the proof needs eps * min(2, e^eps - 1) <= 2 eps^2, which is true",
    pinned=({"eps": 0.1},),
)

step_l1_eps_squared_printed = Claim(
    id="mironov2017.lemma1.step.l1_eps_squared_printed",
    source=SOURCE + ", proof, after Eq. (3), as printed",
    statement=sympy.Le(RR_L1, 2 * eps**2),
    variables=(Variable("eps", 1e-4, 5),),
    expected="fails",
    kind="finding",
    title="||P-Q||_1 <= 2 eps^2 (as printed), on RR where ||P-Q||_1 = 2 tanh(eps/2)",
    explanation="false for small eps: RR has ||P-Q||_1 = 2 tanh(eps/2) ~ eps > 2 eps^2 (eps = 0.1: "
    "0.0999 > 0.02); the bound on ||P-Q||_1 is first order in eps, not second",
    pinned=({"eps": 0.1},),
)

variant_eps_times_min_bound = Claim(
    id="mironov2017.lemma1.variant.eps_times_min_bound",
    source=SOURCE + ", proof, after Eq. (3), corrected",
    statement=sympy.Le(eps * sympy.Min(2, sympy.exp(eps) - 1), 2 * eps**2),
    variables=(Variable("eps", 1e-6, 20),),
    kind="variant",
    title="eps min(2, e^eps - 1) <= 2 eps^2: with Eq. (3), D_alpha <= 2(alpha-1)eps^2 + 2eps^2 = 2 alpha eps^2",
    certify=True,
)

bun_steinke_claim = Claim(
    id="mironov2017.lemma1.bun_steinke",
    source=BS_SOURCE,
    statement=sympy.Le(rdp_rr(alpha, eps), alpha * eps**2 / 2),
    variables=(ALPHA, EPS),
    kind="constant",
    title="the constant improved to 1/2: D_alpha <= alpha eps^2 / 2 (RR, the worst case)",
)

bun_steinke_certified = Claim(
    id="mironov2017.lemma1.bun_steinke.certified",
    source=BS_SOURCE,
    statement=sympy.Le(rdp_rr(alpha, eps), alpha * eps**2 / 2),
    variables=(Variable("alpha", 1, 16), Variable("eps", 0.5, 4)),
    kind="constant",
    title="D_alpha <= alpha eps^2 / 2 on RR, certified on alpha in [1, 16], eps in [0.5, 4]",
    # custom sides: its boxes reach alpha = 1 (the KL limit), outside rdp_randomized_response's domain
    sides=_rr_box_sides(sympy.Rational(1, 2)),
    certify=True,
    cost=0.3,
)

bun_steinke_finite = Claim(
    id="mironov2017.lemma1.bun_steinke.finite_pairs",
    source=BS_SOURCE,
    statement=sympy.Le(rdp_pair(alpha, pair), alpha * EPS_PAIR**2 / 2),
    variables=(ALPHA,),
    extra=PAIRS,
    kind="constant",
    title="D_alpha <= alpha eps^2 / 2 on random finite eps-DP pairs (either order)",
)

MUTANT_ALPHA_PIN = {"alpha": 1.1, "eps": 0.1}
mutant_alpha_minus_one = statement.mutant(
    "alpha_minus_one",
    statement=sympy.Le(rdp_rr(alpha, eps), 2 * (alpha - 1) * eps**2),
    explanation="2(alpha-1) eps^2 -> 0 as alpha -> 1 while D_alpha -> KL = eps tanh(eps/2) > 0",
    pinned=(MUTANT_ALPHA_PIN,),
)

BS_MUTANT_PIN = {"alpha": 1.5, "eps": 0.01}
bun_steinke_mutant = bun_steinke_claim.mutant(
    "constant_0_49",
    statement=sympy.Le(rdp_rr(alpha, eps), sympy.Rational(49, 100) * alpha * eps**2),
    explanation="1/2 is sharp: D_alpha(RR_eps) / (alpha eps^2 / 2) -> 1 as eps -> 0 "
    "(alpha = 1.5, eps = 0.01: ratio 0.99998)",
    pinned=(BS_MUTANT_PIN,),
)

L1_MUTANT_PIN = {"pair": finite.Pair((Fraction(3, 5), Fraction(2, 5)), (Fraction(2, 5), Fraction(3, 5)))}
mutant_l1_halved = step_l1_bound.mutant(
    "halved",
    statement=sympy.Le(l1_pair(pair), (sympy.exp(EPS_PAIR) - 1) / 2),
    explanation="||P-Q||_1 of a pair is first order in e^eps - 1 with constant up to 2 (RR: 2 tanh(eps/2)): "
    "P = (3/5, 2/5), Q = (2/5, 3/5) has eps = log(3/2) and ||P-Q||_1 = 0.4 > (e^eps - 1)/2 = 0.25",
    pinned=(L1_MUTANT_PIN,),
)

CLAIMS = [
    statement,
    certified,
    at_order_one,
    finite_pairs,
    rr_sinh_identity,
    step_large_order_dinf,
    step_large_order_algebra,
    step_eq2,
    step_eq3_exp,
    step_eq3_exp_finite,
    step_eq3_log,
    step_eq3_log_finite,
    step_l1_bound,
    step_min_bound_printed,
    step_l1_eps_squared_printed,
    variant_eps_times_min_bound,
    bun_steinke_claim,
    bun_steinke_certified,
    bun_steinke_finite,
    mutant_alpha_minus_one,
    bun_steinke_mutant,
    mutant_l1_halved,
]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the sides of the statement and of the Bun-Steinke
# claim as the checker evaluates them (Claim.evaluate).


def _figure_rr_renyi(path):
    """The exact randomized-response Renyi curve against Lemma 1's and Bun-Steinke's bounds."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    lemma = next(c for c in CLAIMS if c.id == "mironov2017.lemma1")
    halved = next(c for c in CLAIMS if c.id == "mironov2017.lemma1.bun_steinke")
    alphas = [1.01 + (20 - 1.01) * i / 79 for i in range(80)]
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4))
    for ax, e in zip(axes, (0.1, 1.0)):
        sides = [lemma.evaluate({"alpha": a, "eps": e}, 20) for a in alphas]
        bs = [halved.evaluate({"alpha": a, "eps": e}, 20)[1] for a in alphas]
        ax.plot(alphas, [float(s[0]) for s in sides], label="exact D_alpha of eps-RR")
        ax.plot(alphas, [float(s[1]) for s in sides], "--", label="2 alpha eps^2 (Lemma 1)")
        ax.plot(alphas, [float(b) for b in bs], ":", label="alpha eps^2 / 2 (Bun-Steinke)")
        ax.axhline(e, color="gray", lw=0.8, label="D_inf = eps")
        ax.set_yscale("log")
        ax.set_xlabel("alpha")
        ax.set_title(f"eps = {e}")
        ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("lemma1_rr_renyi.png",
                   "Exact randomized-response Renyi curve against 2 alpha eps^2 (Lemma 1) and alpha eps^2 / 2 "
                   "(Bun-Steinke)", _figure_rr_renyi),)


FIGURES = _figures()
