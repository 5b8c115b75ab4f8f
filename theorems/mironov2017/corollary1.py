"""Mironov 2017 (arXiv 1702.07476v3), Corollary 1: advanced composition of pure DP via RDP.

Statement: if ``f`` composes ``n`` eps-DP mechanisms and ``0 < delta < 1`` with
``log(1/delta) >= eps^2 n`` ("high privacy", Remark 3), then ``f`` is
``(4 eps sqrt(2 n log(1/delta)), delta)``-DP. Held against the exact optimal composition profile
(Kairouz, Oh & Viswanath 2015; ``delta_composed_pure``), n up to 10 000.

Ids -> items (``mironov2017.corollary1`` + suffix):

* ``""``: ``delta_KOV(4 eps sqrt(2 n log(1/delta)); eps, n) <= delta``, pinned at the notes' example
  (n = 10 000, eps = 0.01, delta = 1e-5); ``.stronger.randomized_response``: the proof's
  ``Pr <= max(e^eps' Q, delta)`` on every threshold/level event of n-fold RR.
* proof (``L_delta = log 1/delta``, ``L_Q = log 1/Q``): case I ``8 L_delta > L_Q``:
  ``.step.case1_identity`` (``2 eps sqrt(8 n L_delta) = eps'``, sympy) and ``.step.case1_monotone``;
  case II: ``.step.case2_first`` (``exp(2 eps sqrt(n L_Q)) Q <= Q^{1-1/sqrt2}``),
  ``.step.case2_exponents`` (``1 - 1/sqrt2 >= 1/8``, sympy), ``.step.case2_power``
  (``Q^{1-1/sqrt2} <= Q^{1/8}``), ``.step.case2_delta`` (``Q^{1/8} <= delta``).
* ``.variant.without_high_privacy_hypothesis`` (expected to FAIL: the hypothesis is needed).
* mutant: ``.mutant.constant_1`` (``eps sqrt(2 n log 1/delta)``), refuted at n = 500, eps = 0.2.

:func:`exact_composition_epsilon` and :func:`composition_table` give the ratio table (Corollary 1,
basic composition, Dwork-Rothblum-Vadhan) against the exact optimal eps'.
"""

import sympy
from mpmath import mp

from dpproofs.checker.claims import Claim, Variable
from dpproofs.math import precise
from dpproofs.checker.vocabulary import NAMESPACE

from dpproofs_theorems.mironov2017._common import source, sym

__all__ = [
    "CLAIMS",
    "corollary1_epsilon",
    "basic_epsilon",
    "drv_epsilon",
    "exact_composition_epsilon",
    "composition_table",
    "DEFAULT_TABLE_CONFIGS",
]

SOURCE = source("Corollary 1")
delta_kov = NAMESPACE["delta_composed_pure"]
eps, n, delta, L_d, L_q, u, shape = (sym(v) for v in ("eps", "n", "delta", "L_delta", "L_Q", "u", "shape"))


def corollary1_epsilon(eps_value, n_value, delta_value):
    """``4 eps sqrt(2 n log(1/delta))`` (sympy or mp)."""
    if isinstance(eps_value, sympy.Basic) or isinstance(delta_value, sympy.Basic):
        return 4 * eps_value * sympy.sqrt(2 * n_value * sympy.log(1 / delta_value))
    return 4 * eps_value * mp.sqrt(2 * n_value * mp.log(1 / mp.mpf(delta_value)))


def basic_epsilon(eps_value, n_value):
    """Basic composition ``n eps``."""
    return n_value * mp.mpf(eps_value)


def drv_epsilon(eps_value, n_value, delta_value):
    """Dwork, Rothblum & Vadhan 2010: ``sqrt(2 n log(1/delta)) eps + n eps (e^eps - 1)``."""
    e = mp.mpf(eps_value)
    return mp.sqrt(2 * n_value * mp.log(1 / mp.mpf(delta_value))) * e + n_value * e * mp.expm1(e)


EPS = Variable("eps", 1e-4, 1)
N = Variable("n", 1, 10000, integer=True)
DELTA = Variable("delta", 1e-300, 1, high_open=True, log_scale=True)
HIGH_PRIVACY = (sympy.Ge(sympy.log(1 / delta), eps**2 * n),)
NOTES_EXAMPLE = {"eps": 0.01, "n": 10000, "delta": 1e-5}

statement = Claim(
    id="mironov2017.corollary1",
    source=SOURCE,
    statement=sympy.Le(delta_kov(corollary1_epsilon(eps, n, delta), eps, n), delta),
    variables=(EPS, N, DELTA),
    hypotheses=HIGH_PRIVACY,
    kind="statement",
    title="exact optimal n-fold composition of eps-DP is (4 eps sqrt(2 n log 1/delta), delta)-DP",
    pinned=(NOTES_EXAMPLE,),
    cost=0.5,  # the KOV sum costs up to ~2 s at n = 10 000
)

# --- the stronger form on n-fold RR events ---------------------------------------------------------


#: the event S of n-fold eps-RR a point selects (rr_event_P in dpproofs.checker.vocabulary)
_P_S = NAMESPACE["rr_event_P"](eps, n, u, shape)
_Q_S = NAMESPACE["rr_event_Q"](eps, n, u, shape)

stronger_rr = Claim(
    id="mironov2017.corollary1.stronger.randomized_response",
    source=SOURCE + ", proof",
    statement=sympy.Le(_P_S, sympy.Max(sympy.exp(corollary1_epsilon(eps, n, delta)) * _Q_S, delta)),
    variables=(Variable("eps", 1e-3, 1), Variable("n", 1, 2000, integer=True), Variable("u", 0, 1),
               Variable("shape", 0, 1, integer=True), DELTA),
    hypotheses=HIGH_PRIVACY,
    kind="statement",
    title="n-fold RR, events {l >= k} and {l = k}: P(S) <= max(e^eps' Q(S), delta)",
    cost=0.5,
)

# --- the printed proof ---------------------------------------------------------------------------

STEP_VARIABLES = (Variable("eps", 1e-4, 1), Variable("n", 1, 10000, integer=True),
                  Variable("L_delta", 1e-3, 700), Variable("L_Q", 1e-3, 6000))
_Q = sympy.exp(-L_q)
_delta = sympy.exp(-L_d)
_step_hyp = (sympy.Ge(L_d, eps**2 * n),)


def _prove_case1_identity():
    e, m, big_l = sympy.symbols("e m L", positive=True)
    if sympy.simplify(2 * e * sympy.sqrt(8 * m * big_l) - 4 * e * sympy.sqrt(2 * m * big_l)) == 0:
        return "2 eps sqrt(8 n L) - 4 eps sqrt(2 n L) simplifies to 0"
    return None


step_case1_identity = Claim(
    id="mironov2017.corollary1.step.case1_identity",
    source=SOURCE + ", proof, case I",
    statement=sympy.Eq(2 * eps * sympy.sqrt(8 * n * L_d), 4 * eps * sympy.sqrt(2 * n * L_d), evaluate=False),
    variables=STEP_VARIABLES[:3],
    kind="step",
    title="exp(2 eps sqrt(8 n log 1/delta)) = e^eps' with eps' = 4 eps sqrt(2 n log 1/delta)",
    prover=_prove_case1_identity,
)

step_case1_monotone = Claim(
    id="mironov2017.corollary1.step.case1_monotone",
    source=SOURCE + ", proof, case I",
    statement=sympy.Le(sympy.exp(2 * eps * sympy.sqrt(n * L_q)), sympy.exp(2 * eps * sympy.sqrt(8 * n * L_d))),
    variables=STEP_VARIABLES,
    hypotheses=(sympy.Gt(8 * L_d, L_q),),
    kind="step",
    title="case I, 8 log(1/delta) > log(1/Q): exp(2 eps sqrt(n log 1/Q)) <= exp(2 eps sqrt(8 n log 1/delta))",
)

_case2 = (*_step_hyp, sympy.Ge(L_q, 8 * L_d))

step_case2_first = Claim(
    id="mironov2017.corollary1.step.case2_first",
    source=SOURCE + ", proof, case II",
    statement=sympy.Le(sympy.exp(2 * eps * sympy.sqrt(n * L_q)) * _Q, _Q ** (1 - 1 / sympy.sqrt(2))),
    variables=STEP_VARIABLES,
    hypotheses=_case2,
    kind="step",
    title="case II: exp(2 eps sqrt(n log 1/Q)) Q <= Q^(1 - 1/sqrt 2)",
)


def _prove_exponents():
    gap = 1 - 1 / sympy.sqrt(2) - sympy.Rational(1, 8)
    if gap.is_positive:
        return f"1 - 1/sqrt(2) - 1/8 = {sympy.N(gap, 10)} > 0"
    return None


step_case2_exponents = Claim(
    id="mironov2017.corollary1.step.case2_exponents",
    source=SOURCE + ", proof, case II",
    statement=sympy.Ge(1 - 1 / sympy.sqrt(2), sympy.Rational(1, 8), evaluate=False),
    kind="step",
    title="1 - 1/sqrt 2 >= 1/8",
    prover=_prove_exponents,
)

step_case2_power = Claim(
    id="mironov2017.corollary1.step.case2_power",
    source=SOURCE + ", proof, case II",
    statement=sympy.Le(_Q ** (1 - 1 / sympy.sqrt(2)), _Q ** sympy.Rational(1, 8)),
    variables=STEP_VARIABLES[3:],
    kind="step",
    title="Q^(1 - 1/sqrt 2) <= Q^(1/8) for 0 < Q < 1",
    certify=True,
)

step_case2_delta = Claim(
    id="mironov2017.corollary1.step.case2_delta",
    source=SOURCE + ", proof, case II",
    statement=sympy.Le(_Q ** sympy.Rational(1, 8), _delta),
    variables=STEP_VARIABLES,
    hypotheses=_case2,
    kind="step",
    title="Q^(1/8) <= delta when log(1/Q) >= 8 log(1/delta)",
)

# --- edges and mutants ---------------------------------------------------------------------------

DROPPED_PIN = {"eps": 1.0, "n": 100, "delta": 0.9}
without_hypothesis = Claim(
    id="mironov2017.corollary1.variant.without_high_privacy_hypothesis",
    source=SOURCE + " (hypothesis log(1/delta) >= eps^2 n dropped)",
    statement=statement.statement,
    variables=(EPS, N, DELTA),
    expected="fails",
    kind="variant",
    title="Corollary 1 without the high-privacy hypothesis",
    explanation="the hypothesis is needed: as delta -> 1, eps' -> 0 while the composed TV distance stays "
    "near 1 (n = 100, eps = 1, delta = 0.9: eps' = 18.4, exact delta(eps') = 0.998)",
    pinned=(DROPPED_PIN,),
)

MUTANT_PIN = {"eps": 0.2, "n": 500, "delta": 1e-9}
mutant_constant_1 = statement.mutant(
    "constant_1",
    statement=sympy.Le(delta_kov(eps * sympy.sqrt(2 * n * sympy.log(1 / delta)), eps, n), delta),
    explanation="eps sqrt(2 n log 1/delta) misses the mean of the privacy loss (~ n eps^2 / 2): n = 500, "
    "eps = 0.2, delta = 1e-9 gives exact delta 4.7e-6 > 1e-9 (it holds at the notes' example)",
    pinned=(MUTANT_PIN,),
)

CLAIMS = [
    statement,
    stronger_rr,
    step_case1_identity,
    step_case1_monotone,
    step_case2_first,
    step_case2_exponents,
    step_case2_power,
    step_case2_delta,
    without_hypothesis,
    mutant_constant_1,
]

# --- the ratio table -------------------------------------------------------------------------------

DEFAULT_TABLE_CONFIGS = (
    (10000, 0.01, 1e-5),  # the notes' example
    (10000, 0.01, 1e-10),
    (1000, 0.01, 1e-5),
    (1000, 0.05, 1e-5),
    (100, 0.1, 1e-5),
    (50, 0.1, 1e-5),  # docs/math.md#sanity-values: 2.8446672
    (10, 0.5, 1e-6),
)


def exact_composition_epsilon(eps_value, n_value, delta_value, *, dps=20, rel_tol=1e-9):
    """Smallest ``eps' >= 0`` with ``delta_KOV(eps'; eps, n) <= delta``, by bisection in mpmath.

    Bracket: ``[0, n eps]`` (``delta_KOV(n eps) = 0``) narrowed by the valid DRV bound; stops when
    the bracket is below ``rel_tol`` relative.
    """
    n_value = int(n_value)
    with mp.workdps(dps + precise.GUARD_DPS):
        d = mp.mpf(delta_value)

        def ok(level):
            return precise.delta_composed_pure(level, eps_value, n_value, dps=dps) <= d

        if ok(mp.zero):
            return mp.zero
        low, high = mp.zero, min(basic_epsilon(eps_value, n_value), drv_epsilon(eps_value, n_value, d))
        while high - low > rel_tol * high:
            middle = (low + high) / 2
            if ok(middle):
                high = middle
            else:
                low = middle
        return high


def composition_table(configs=DEFAULT_TABLE_CONFIGS, dps=20):
    """Rows ``{n, eps, delta, high_privacy, exact, corollary1, basic, drv, *_over_exact}`` (floats)."""
    rows = []
    for n_value, eps_value, delta_value in configs:
        exact = exact_composition_epsilon(eps_value, n_value, delta_value, dps=dps)
        with mp.workdps(dps):
            values = {
                "corollary1": corollary1_epsilon(mp.mpf(eps_value), n_value, delta_value),
                "basic": basic_epsilon(eps_value, n_value),
                "drv": drv_epsilon(eps_value, n_value, delta_value),
            }
            row = {
                "n": n_value,
                "eps": eps_value,
                "delta": delta_value,
                "high_privacy": bool(mp.log(1 / mp.mpf(delta_value)) >= mp.mpf(eps_value) ** 2 * n_value),
                "exact": float(exact),
            }
            for name, value in values.items():
                row[name] = float(value)
                row[f"{name}_over_exact"] = float(value / exact)
        rows.append(row)
    return rows


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen) from this module's epsilon functions and the notes'
# exact optimal composition (Kairouz-Oh-Viswanath through the evaluator). The ratio table below is
# this module's composition_table.


def _figure_vs_exact(path):
    """Corollary 1 against the exact optimal composition, basic composition and DRV."""
    from dpproofs.docgen import pyplot, save
    from dpproofs_theorems import notes

    plt = pyplot()
    eps_value, delta_value = 0.01, 1e-5
    ns = [10, 30, 100, 300, 1000, 3000, 10000]
    exact = [notes.exact_composition_epsilon(eps_value, n_value, delta_value) for n_value in ns]
    fig, ax = plt.subplots(figsize=(6, 3.8))
    ax.loglog(ns, [float(basic_epsilon(eps_value, n_value)) for n_value in ns], label="basic n eps")
    ax.loglog(ns, [float(drv_epsilon(eps_value, n_value, delta_value)) for n_value in ns], label="Dwork-Rothblum-Vadhan")
    ax.loglog(ns, [float(corollary1_epsilon(eps_value, n_value, delta_value)) for n_value in ns], "--",
              label="Corollary 1: 4 eps sqrt(2n log 1/delta)")
    ax.loglog(ns, exact, "o-", color="k", label="exact optimal composition (KOV)")
    ax.set_xlabel(f"n (each {eps_value}-DP), delta = {delta_value:g}")
    ax.set_ylabel("eps'")
    ax.legend(fontsize=8)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("corollary1_vs_exact.png",
                   "Corollary 1 against the exact optimal composition, basic composition and DRV", _figure_vs_exact),)


FIGURES = _figures()
TABLES = (composition_table,)
