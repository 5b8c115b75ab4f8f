"""Mironov 2017 (arXiv 1702.07476v3), Proposition 3: from RDP to (eps, delta)-DP.

Statement: if ``f`` is (alpha, eps)-RDP it is ``(eps + log(1/delta)/(alpha-1), delta)``-DP for every
``0 < delta < 1``. Held against EXACT privacy profiles ``delta_M`` (docs/math.md#exact-quantities): with
``eps(alpha)`` the exact RDP of ``M``, ``delta_M(eps(alpha) + log(1/delta)/(alpha-1)) <= delta``.

Ids -> items (``mironov2017.proposition3`` + suffix):

* statement on each mechanism: ``.gaussian`` (alpha in (1, 256], delta in [1e-30, 1)),
  ``.laplace``, ``.randomized_response``, ``.sampled_gaussian_add`` (integer orders, exact binomial
  sum ``log A_alpha`` and the add-direction closed-form profile: Prop. 3 applied to the pair
  ``(mu, mu0)``; ``rdp_sampled_gaussian_add``, ``delta_sampled_gaussian_add``), ``.sampled_gaussian`` (RDP = max of both directions, with the integral for
  ``log B``; profile = max of both directions), ``.finite_pairs`` (random finite pairs in either order: ``delta_pair``, ``rdp_pair``).
  The alpha -> 1 and delta -> 0, 1 edges are bounds of these domains (drawn often).
* the stronger form printed in the proof, ``Pr[f(D) in S] <= max(e^eps' Pr[f(D') in S], delta)``:
  ``.stronger.gaussian`` (every half-line: the likelihood-ratio sets) and ``.stronger.finite_pairs``
  (a random event ``A`` of a random pair: ``prob_P``, ``prob_Q``).
* printed steps on Gaussian half-lines (P = N(1, s^2), Q = N(0, s^2), S = (t, inf), eps = D_alpha):
  ``.step.case1`` (``e^eps Q > delta^{alpha/(alpha-1)}`` => ``P <= e^eps Q delta^{-1/(alpha-1)}``),
  ``.step.case1_identity`` (``e^eps delta^{-1/(alpha-1)} = e^{eps'}``, sympy),
  ``.step.case2_preservation`` (otherwise ``P <= (e^eps Q)^{1-1/alpha}``) and
  ``.step.case2_bound`` (``(e^eps Q)^{1-1/alpha} <= delta``).
* every conversion formula (the statements', the table's) is :mod:`dpproofs.math.conversions`' own;
  the mutants' deliberately wrong formulas are written out.
* improved conversion (Balle et al. 2020 Thm 21 / Canonne-Kamath-Steinke 2020),
  ``eps' = eps(alpha) + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1)``:
  ``.improved.gaussian``, ``.improved.laplace``, ``.improved.randomized_response``,
  ``.improved.sampled_gaussian_add``, ``.improved.finite_pairs`` (at ``max(eps', 0)``: a
  ``delta_M`` at a negative level is not what the evaluators define).
* mutants: ``.gaussian.mutant.halved_log_term`` (``log(1/delta)/(2(alpha-1))``),
  ``.finite_pairs.mutant.alpha_instead_of_alpha_minus_one`` (``log(1/delta)/alpha``).

:func:`conversion_table` computes the slack table (exact eps at delta vs classic vs improved).
"""

from fractions import Fraction

import sympy
from mpmath import mp

from dpproofs.math import conversions
from dpproofs.checker.oracles import finite
from dpproofs.checker.claims import Claim, Variable
from dpproofs.math import precise
from dpproofs.checker.vocabulary import NAMESPACE

from dpproofs_theorems.mironov2017._common import events, pairs, source, structured, sym
from dpproofs_theorems.mironov2017.proposition10 import normal_cdf

__all__ = [
    "CLAIMS",
    "classic_epsilon",
    "improved_epsilon",
    "exact_epsilon",
    "optimal_conversion",
    "conversion_table",
    "DEFAULT_TABLE_CONFIGS",
]

SOURCE = source("Prop. 3")
IMPROVED_SOURCE = (
    "Balle, Barthe, Gaboardi, Hsu & Sato 2020 (arXiv 1905.09982v2), Thm 21; "
    "Canonne, Kamath & Steinke 2020 (arXiv 2004.00010v5), Prop. 12; improving " + SOURCE
)

alpha, delta, sigma, b, eps_rr, q, t = (sym(n) for n in ("alpha", "delta", "sigma", "b", "epsilon", "q", "t"))
pair, A = structured("pair"), structured("A")
F = NAMESPACE


def _convert(formula, rdp_value, alpha_value, delta_value):
    """``formula(rdp, alpha, log delta)`` of :mod:`dpproofs.math.conversions`, in the arguments' backend.

    A sympy ``rdp`` that is a vocabulary call (an applied undefined function, whose class has no
    ``__module__``) is passed to the formula as a placeholder symbol and substituted back, since
    ``conversions.backend_for`` reads the argument types' modules.
    """
    if isinstance(rdp_value, sympy.Basic) and type(rdp_value).__module__ is None:
        placeholder = sympy.Dummy("rdp", real=True)
        return _convert(formula, placeholder, alpha_value, delta_value).subs(placeholder, rdp_value)
    log = conversions.backend_for(rdp_value, alpha_value, delta_value).log
    return formula(rdp_value, alpha_value, log(delta_value))


def classic_epsilon(rdp_value, alpha_value, delta_value):
    """Mironov's conversion ``eps(alpha) + log(1/delta)/(alpha-1)`` (dpproofs.math.conversions, any backend)."""
    return _convert(conversions.classic_epsilon, rdp_value, alpha_value, delta_value)


def improved_epsilon(rdp_value, alpha_value, delta_value):
    """``eps(alpha) + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1)`` (BBGHS20 / CKS20),
    from dpproofs.math.conversions, any backend."""
    return _convert(conversions.improved_epsilon, rdp_value, alpha_value, delta_value)


ALPHA = Variable("alpha", 1, 256, low_open=True)
ALPHA_INT = Variable("alpha", 2, 128, integer=True)
DELTA = Variable("delta", 1e-30, 1, high_open=True, log_scale=True)
MECHANISMS = {
    # name: (variables, rdp(alpha) expression, profile(eps) function)
    "gaussian": ((Variable("sigma", 0.2, 20),), F["rdp_gaussian"](alpha, sigma), lambda e: F["delta_gaussian"](e, sigma)),
    "laplace": ((Variable("b", 0.05, 20),), F["rdp_laplace"](alpha, b), lambda e: F["delta_laplace"](e, b)),
    "randomized_response": (
        (Variable("epsilon", 1e-3, 10),),
        F["rdp_randomized_response"](alpha, eps_rr),
        lambda e: F["delta_randomized_response"](e, eps_rr),
    ),
}


def _mechanism_claims():
    claims = []
    for name, (variables, rdp_expr, profile) in MECHANISMS.items():
        claims.append(Claim(
            id=f"mironov2017.proposition3.{name}",
            source=SOURCE,
            statement=sympy.Le(profile(classic_epsilon(rdp_expr, alpha, delta)), delta),
            variables=(ALPHA, DELTA, *variables),
            kind="statement",
            title=f"{name}: exact delta(eps(alpha) + log(1/delta)/(alpha-1)) <= delta",
        ))
        claims.append(Claim(
            id=f"mironov2017.proposition3.improved.{name}",
            source=IMPROVED_SOURCE,
            statement=sympy.Le(profile(sympy.Max(improved_epsilon(rdp_expr, alpha, delta), 0)), delta),
            variables=(ALPHA, DELTA, *variables),
            kind="variant",
            title=f"{name}: exact delta at the improved conversion <= delta",
        ))
    return claims


# --- sampled Gaussian, add direction: Prop. 3 for the pair (mu, mu0), integer orders ----------

SG_VARIABLES = (ALPHA_INT, DELTA, Variable("q", 1e-3, 1), Variable("sigma", 0.5, 20))


def _sg_add_statement(convert):
    """``delta_add(max(convert(eps_add(alpha)), 0)) <= delta``, both in the add direction (mu, mu0)."""
    level = sympy.Max(convert(F["rdp_sampled_gaussian_add"](alpha, q, sigma), alpha, delta), 0)
    return sympy.Le(F["delta_sampled_gaussian_add"](level, q, sigma), delta)


def _sampled_gaussian_claims():
    sg_add = Claim(
        id="mironov2017.proposition3.sampled_gaussian_add",
        source=SOURCE,
        statement=_sg_add_statement(classic_epsilon),
        variables=SG_VARIABLES,
        kind="statement",
        title="sampled Gaussian (mu vs mu0), integer alpha: exact add-direction delta at Mironov's eps' <= delta",
    )
    sg_add_improved = Claim(
        id="mironov2017.proposition3.improved.sampled_gaussian_add",
        source=IMPROVED_SOURCE,
        statement=_sg_add_statement(improved_epsilon),
        variables=SG_VARIABLES,
        kind="variant",
        title="sampled Gaussian (mu vs mu0), integer alpha: exact add-direction delta at the improved eps'",
    )
    rdp_max = F["rdp_sampled_gaussian"](alpha, q, sigma)
    sg_max = Claim(
        id="mironov2017.proposition3.sampled_gaussian",
        source=SOURCE,
        statement=sympy.Le(F["delta_sampled_gaussian"](classic_epsilon(rdp_max, alpha, delta), q, sigma), delta),
        variables=(Variable("alpha", 2, 64, integer=True), DELTA, Variable("q", 1e-3, 1), Variable("sigma", 0.5, 20)),
        kind="statement",
        title="sampled Gaussian, both directions (log B by quadrature): exact delta at eps' <= delta",
        cost=0.15,  # each point needs the 1-D integral for log B (~1 s at 50 digits)
    )
    return [sg_add, sg_add_improved, sg_max]


# --- finite pairs (either order of the neighbours) -----------------------------------------------

FINITE_VARIABLES = (Variable("alpha", 1.001, 256), DELTA)
_D_PAIR = F["rdp_pair"](alpha, pair)


def _finite_statement(level):
    """``delta_pair(max(level, 0), pair) <= delta``: a profile at a negative level is not defined."""
    return sympy.Le(F["delta_pair"](sympy.Max(level, 0), pair), delta)


finite_pairs = Claim(
    id="mironov2017.proposition3.finite_pairs",
    source=SOURCE,
    statement=_finite_statement(classic_epsilon(_D_PAIR, alpha, delta)),
    variables=FINITE_VARIABLES,
    extra={"pair": pairs()},
    kind="statement",
    title="random finite pairs: delta_pair(D_alpha + log(1/delta)/(alpha-1)) <= delta",
)

improved_finite_pairs = Claim(
    id="mironov2017.proposition3.improved.finite_pairs",
    source=IMPROVED_SOURCE,
    statement=_finite_statement(improved_epsilon(_D_PAIR, alpha, delta)),
    variables=FINITE_VARIABLES,
    extra={"pair": pairs()},
    kind="variant",
    title="random finite pairs: delta_pair at the improved conversion <= delta",
)

stronger_finite_pairs = Claim(
    id="mironov2017.proposition3.stronger.finite_pairs",
    source=SOURCE + ", proof (the stronger form)",
    statement=sympy.Le(
        F["prob_P"](pair, A),
        sympy.Max(sympy.exp(classic_epsilon(_D_PAIR, alpha, delta)) * F["prob_Q"](pair, A), delta),
    ),
    variables=FINITE_VARIABLES,
    extra={"pair": pairs(), "A": events()},
    kind="statement",
    title="P(A) <= max(e^eps' Q(A), delta) for random events A of random finite pairs",
)

# --- Gaussian half-lines: the stronger form and the printed case analysis -----------------------

_d = alpha / (2 * sigma**2)  # D_alpha(N(1, s^2) || N(0, s^2)), Prop. 7
_P = normal_cdf((1 - t) / sigma)
_Q = normal_cdf(-t / sigma)
_eps_prime = classic_epsilon(_d, alpha, delta)
HALF_LINE_VARIABLES = (ALPHA, Variable("delta", 1e-30, 1, high_open=True, log_scale=True),
                       Variable("sigma", 0.2, 20), Variable("t", -30, 80))
_case1 = sympy.Gt(sympy.exp(_d) * _Q, delta ** (alpha / (alpha - 1)))
_case2 = sympy.Le(sympy.exp(_d) * _Q, delta ** (alpha / (alpha - 1)))

stronger_gaussian = Claim(
    id="mironov2017.proposition3.stronger.gaussian",
    source=SOURCE + ", proof (the stronger form)",
    statement=sympy.Le(_P, sympy.Max(sympy.exp(_eps_prime) * _Q, delta)),
    variables=HALF_LINE_VARIABLES,
    kind="statement",
    title="Gaussian, every half-line S: P(S) <= max(e^eps' Q(S), delta)",
)

step_case1 = Claim(
    id="mironov2017.proposition3.step.case1",
    source=SOURCE + ", proof, case I",
    statement=sympy.Le(_P, sympy.exp(_d) * _Q * delta ** (-1 / (alpha - 1))),
    variables=HALF_LINE_VARIABLES,
    hypotheses=(_case1,),
    kind="step",
    title="case I, e^eps Q > delta^(alpha/(alpha-1)): P <= e^eps Q delta^(-1/(alpha-1)) (Gaussian half-lines)",
)


def _prove_case1_identity():
    e, d, a = sympy.symbols("e d a", positive=True)
    lhs = sympy.exp(e) * d ** (-1 / (a - 1))
    rhs = sympy.exp(e + sympy.log(1 / d) / (a - 1))
    if sympy.simplify(sympy.expand_log(sympy.log(lhs) - sympy.log(rhs), force=True)) == 0:
        return "log(e^eps delta^(-1/(alpha-1))) - (eps + log(1/delta)/(alpha-1)) simplifies to 0"
    return None


step_case1_identity = Claim(
    id="mironov2017.proposition3.step.case1_identity",
    source=SOURCE + ", proof, case I",
    statement=sympy.Eq(sympy.exp(_d) * delta ** (-1 / (alpha - 1)), sympy.exp(_eps_prime)),
    variables=(Variable("alpha", 1.01, 256), Variable("delta", 1e-30, 1, high_open=True, log_scale=True),
               Variable("sigma", 0.2, 20)),
    kind="step",
    title="case I: e^eps delta^(-1/(alpha-1)) = e^eps'",
    prover=_prove_case1_identity,
)

step_case2_preservation = Claim(
    id="mironov2017.proposition3.step.case2_preservation",
    source=SOURCE + ", proof, case II (Prop. 10)",
    statement=sympy.Le(_P, (sympy.exp(_d) * _Q) ** (1 - 1 / alpha)),
    variables=HALF_LINE_VARIABLES,
    hypotheses=(_case2,),
    kind="step",
    title="case II: P <= (e^eps Q)^(1-1/alpha) (Gaussian half-lines)",
)

step_case2_bound = Claim(
    id="mironov2017.proposition3.step.case2_bound",
    source=SOURCE + ", proof, case II",
    statement=sympy.Le((sympy.exp(_d) * _Q) ** (1 - 1 / alpha), delta),
    variables=HALF_LINE_VARIABLES,
    hypotheses=(_case2,),
    kind="step",
    title="case II: (e^eps Q)^(1-1/alpha) <= delta",
)

# --- mutants -------------------------------------------------------------------------------------

_mechanism = _mechanism_claims()
gaussian = _mechanism[0]
HALVED_PIN = {"alpha": 4.39, "delta": 1e-5, "sigma": 1.0}
mutant_halved = gaussian.mutant(
    "halved_log_term",
    statement=sympy.Le(
        F["delta_gaussian"](F["rdp_gaussian"](alpha, sigma) + sympy.log(1 / delta) / (2 * (alpha - 1)), sigma), delta
    ),
    explanation="with log(1/delta)/(2(alpha-1)) the Gaussian sigma=1 gets eps' = 3.9 at delta=1e-5 "
    "(alpha=4.39), below the exact 4.377",
    pinned=(HALVED_PIN,),
)


FINITE_MUTANT_PAIR = finite.Pair(
    (Fraction(1, 10), Fraction(9, 10)),
    (Fraction(1, 10**20), 1 - Fraction(1, 10**20)),
)
FINITE_MUTANT_PIN = {"alpha": 1.001, "delta": 0.05, "pair": FINITE_MUTANT_PAIR}
mutant_alpha = finite_pairs.mutant(
    "alpha_instead_of_alpha_minus_one",
    statement=_finite_statement(_D_PAIR + sympy.log(1 / delta) / alpha),
    explanation="with log(1/delta)/alpha the term no longer blows up as alpha -> 1: P = (0.1, 0.9), "
    "Q = (1e-20, 1 - 1e-20), alpha = 1.001, delta = 0.05 gives eps' = 7.26 and delta(eps') = 0.1",
    pinned=(FINITE_MUTANT_PIN,),
)

CLAIMS = [
    *_mechanism,
    *_sampled_gaussian_claims(),
    finite_pairs,
    improved_finite_pairs,
    stronger_gaussian,
    stronger_finite_pairs,
    step_case1,
    step_case1_identity,
    step_case2_preservation,
    step_case2_bound,
    mutant_halved,
    mutant_alpha,
]


# --- slack table -----------------------------------------------------------------------------------

#: (label, rdp(alpha, dps), profile(eps, dps), integer orders only)
DEFAULT_TABLE_CONFIGS = (
    ("Gaussian sigma=1", lambda a, dps: precise.rdp_gaussian(a, 1, dps=dps),
     lambda e, dps: precise.delta_gaussian(e, 1, dps=dps), False),
    ("Gaussian sigma=0.4 (100 x sigma=4, GDP mu=2.5)", lambda a, dps: precise.rdp_gaussian(a, 0.4, dps=dps),
     lambda e, dps: precise.delta_gaussian(e, 0.4, dps=dps), False),
    ("Gaussian sigma=4", lambda a, dps: precise.rdp_gaussian(a, 4, dps=dps),
     lambda e, dps: precise.delta_gaussian(e, 4, dps=dps), False),
    ("Laplace b=1", lambda a, dps: precise.rdp_laplace(a, 1, dps=dps),
     lambda e, dps: precise.delta_laplace(e, 1, dps=dps), False),
    ("Laplace b=0.1", lambda a, dps: precise.rdp_laplace(a, 0.1, dps=dps),
     lambda e, dps: precise.delta_laplace(e, 0.1, dps=dps), False),
    ("RR eps=1", lambda a, dps: precise.rdp_randomized_response(a, 1, dps=dps),
     lambda e, dps: precise.delta_randomized_response(e, 1, dps=dps), False),
    ("RR eps=5", lambda a, dps: precise.rdp_randomized_response(a, 5, dps=dps),
     lambda e, dps: precise.delta_randomized_response(e, 5, dps=dps), False),
    ("sampled Gaussian q=0.01 sigma=4 (add, 1 step)",
     lambda a, dps: precise.log_a_integer(a, 0.01, 4, dps=dps) / (a - 1),
     lambda e, dps: precise.delta_sampled_gaussian(e, 0.01, 4, dps=dps, direction="add"), True),
    ("sampled Gaussian q=0.1 sigma=1 (add, 1 step)",
     lambda a, dps: precise.log_a_integer(a, 0.1, 1, dps=dps) / (a - 1),
     lambda e, dps: precise.delta_sampled_gaussian(e, 0.1, 1, dps=dps, direction="add"), True),
)


def exact_epsilon(profile, delta_value, *, upper, dps=30, iterations=80):
    """Smallest ``eps >= 0`` with ``profile(eps) <= delta`` (bisection; ``upper`` must satisfy it).

    ``profile`` is non-increasing (a privacy profile). Returns an mpf within ``upper * 2^-iterations``.
    """
    with mp.workdps(dps + precise.GUARD_DPS):
        d = mp.mpf(delta_value)
        if profile(mp.zero, dps) <= d:
            return mp.zero
        low, high = mp.zero, mp.mpf(upper)
        if profile(high, dps) > d:
            raise ValueError(f"upper={upper} does not reach delta={delta_value}")
        for _ in range(iterations):
            middle = (low + high) / 2
            if profile(middle, dps) <= d:
                high = middle
            else:
                low = middle
        return high


def optimal_conversion(rdp, delta_value, convert, *, integer_orders=False, dps=30, max_order=4096):
    """``min over alpha of convert(rdp(alpha), alpha, delta)`` and the minimising alpha.

    Integer orders: every alpha in 2..256. Real orders: a grid in ``log(alpha - 1)`` over
    ``[1e-4, max_order]`` refined by golden section around the best grid point (the objectives
    are unimodal in practice; the grid guards against the rest).
    """
    with mp.workdps(dps + precise.GUARD_DPS):
        d = mp.mpf(delta_value)

        def objective(a):
            return convert(rdp(a, dps), a, d)

        if integer_orders:
            return min((objective(mp.mpf(a)), a) for a in range(2, 257))
        grid = [mp.mpf(10) ** (-4 + i * (mp.log10(max_order) + 4) / 200) for i in range(201)]
        values = [(objective(1 + u), i) for i, u in enumerate(grid)]
        _, best = min(values)
        lo, hi = mp.log(grid[max(best - 1, 0)]), mp.log(grid[min(best + 1, 200)])
        ratio = (mp.sqrt(5) - 1) / 2
        for _ in range(80):
            x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            if objective(1 + mp.exp(x1)) <= objective(1 + mp.exp(x2)):
                hi = x2
            else:
                lo = x1
        a = 1 + mp.exp((lo + hi) / 2)
        return objective(a), a


def conversion_table(delta_value=1e-5, configs=DEFAULT_TABLE_CONFIGS, dps=30):
    """Rows ``{mechanism, delta, exact, classic, classic_alpha, improved, improved_alpha}`` (floats).

    ``exact`` is the smallest eps with ``delta_M(eps) <= delta``; ``classic``/``improved`` are the
    RDP conversions optimised over alpha (integer alpha 2..256 for the sampled Gaussian).
    """
    rows = []
    for label, rdp, profile, integer_orders in configs:
        classic, classic_alpha = optimal_conversion(rdp, delta_value, classic_epsilon,
                                                    integer_orders=integer_orders, dps=dps)
        improved, improved_alpha = optimal_conversion(rdp, delta_value, improved_epsilon,
                                                      integer_orders=integer_orders, dps=dps)
        exact = exact_epsilon(profile, delta_value, upper=classic, dps=dps)
        rows.append({
            "mechanism": label,
            "delta": float(delta_value),
            "exact": float(exact),
            "classic": float(classic),
            "classic_alpha": float(classic_alpha),
            "improved": float(improved),
            "improved_alpha": float(improved_alpha),
            "classic_over_exact": float(classic / exact) if exact > 0 else float("inf"),
            "improved_over_exact": float(improved / exact) if exact > 0 else float("inf"),
        })
    return rows


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen) with this module's own optimal_conversion and
# exact_epsilon (the ones conversion_table uses) on the evaluator's Gaussian RDP and profile.


def _figure_conversions(path):
    """Classic and improved RDP conversions against the exact Gaussian profile."""
    from dpproofs.docgen import pyplot, save
    from dpproofs.math import precise

    plt = pyplot()
    sigma_value = 1.0
    deltas = [10.0 ** (-12 + i / 2) for i in range(21)]

    def rdp(a, dps):
        return precise.rdp_gaussian(a, sigma_value, dps=dps)

    def profile(e, dps):
        return precise.delta_gaussian(e, sigma_value, dps=dps)

    classic, improved, exact = [], [], []
    for d in deltas:
        classic_value, _ = optimal_conversion(rdp, d, classic_epsilon, dps=20)
        improved_value, _ = optimal_conversion(rdp, d, improved_epsilon, dps=20)
        classic.append(float(classic_value))
        improved.append(float(improved_value))
        exact.append(float(exact_epsilon(profile, d, upper=classic_value, dps=20, iterations=50)))
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.semilogx(deltas, classic, label="classic (Prop. 3)")
    ax.semilogx(deltas, improved, "--", label="improved (BBGHS20)")
    ax.semilogx(deltas, exact, "k", label="exact Gaussian profile")
    ax.set_xlabel("delta")
    ax.set_ylabel("eps")
    ax.set_title(f"Gaussian, sigma = {sigma_value:g}: RDP -> (eps, delta) conversions")
    ax.legend(fontsize=8)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("proposition3_conversions.png",
                   "Classic and improved RDP conversions against the exact Gaussian profile", _figure_conversions),)


FIGURES = _figures()
TABLES = (conversion_table,)
