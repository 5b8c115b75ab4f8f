"""``Accountant.epsilon(delta)``: the shipped accountant's epsilon is (epsilon, delta)-DP.

Statements (``accountant.epsilon`` + suffix); ``classic``, ``refine``, ``certified`` are the
accountant's 0/1 flags (not both refine and certified), so one claim covers every mode:

* ``.gaussian``: ``delta_gaussian(eps_acc, sigma/sqrt(T)) <= delta`` for T Gaussian steps (a T-fold
  Gaussian is a Gaussian with noise ``sigma/sqrt(T)``; Mironov 2017 Prop. 1 and 7);
* ``.laplace`` (one step), ``.randomized_response`` (T steps: the exact T-fold profile of
  eps-RR, Kairouz, Oh & Viswanath 2015), ``.sampled_gaussian`` (one step, the exact profile of
  both directions: this also checks the add-direction RDP the accountant uses);
* ``.sampled_gaussian_steps.improved`` / ``.classic``: for T sampled-Gaussian steps, the accountant's
  epsilon is at least the conversion (:mod:`dpproofs.math.conversions`) of the exact composed RDP
  ``T log A_alpha/(alpha-1)`` at the order alpha it reports, hence at least the exact conversion
  minimised over its orders: every rounding went up;
* ``.gaussian_at_order.improved`` / ``.classic``: at every order, the conversion of the accountant's
  (inflated) Gaussian curve is valid against the exact profile. Mutants:
  ``.mutant.alpha_instead_of_alpha_minus_one`` and ``.mutant.doubled_log_ratio``.
"""

import sympy

from dpproofs.math import conversions
from dpproofs.checker.claims import Claim

from dpproofs_theorems.accountant._common import (
    ACCOUNTANT, BALLE_WANG, CONVERSION_SOURCES, F, FLAG_HYPOTHESES, FLAGS, KOV, MIRONOV, MTZ, RDP_INFLATION,
    conversion_name, variable,
)

__all__ = ["CLAIMS", "ALPHA_MUTANT_PIN", "DOUBLED_MUTANT_PIN", "STEPS_PINS"]

SIGMA, sigma = variable("sigma", 0.1, 1000)
T_STEPS, T = variable("T", 1, 10**6, integer=True)
T_RR, _ = variable("T", 1, 300, integer=True)
T_SAMPLED, _ = variable("T", 1, 10**8, integer=True)
DELTA, delta = variable("delta", 1e-100, 1, high_open=True, log_scale=True)
B, b = variable("b", 0.01, 1e4)
EPS_RR, eps_rr = variable("epsilon", 1e-4, 50)
Q, q = variable("q", 1e-8, 1)
SIGMA_SAMPLED, _ = variable("sigma", 0.1, 1e4)
ALPHA, alpha = variable("alpha", 1.000001, 10000)
classic, refine, certified = (v.symbol for v in FLAGS)
MODES = (classic, refine, certified)

SOURCE = f"{ACCOUNTANT}; {MIRONOV}, Prop. 1 and 3; {CONVERSION_SOURCES[0]}"
EXPLAIN_MODES = (
    "classic, refine and certified are the accountant's 0/1 flags: one claim covers both conversions, "
    "refine=True and certified=True (refine + certified < 3/2: not both)."
)


def _mode_claim(suffix, title, statement, variables, source, explanation, cost=1.0):
    return Claim(
        id=f"accountant.epsilon.{suffix}",
        source=source,
        statement=statement,
        variables=(*variables, *FLAGS),
        hypotheses=FLAG_HYPOTHESES,
        kind="statement",
        title=title,
        explanation=f"{explanation} {EXPLAIN_MODES}",
        cost=cost,
    )


gaussian = _mode_claim(
    "gaussian",
    "T Gaussian steps: the exact profile at the accountant's epsilon is <= delta",
    sympy.Le(F["delta_gaussian"](F["accountant_epsilon_gaussian"](sigma, T, delta, *MODES), sigma / sympy.sqrt(T)), delta),
    (SIGMA, T_STEPS, DELTA),
    f"{SOURCE}; {MIRONOV}, Prop. 7; {BALLE_WANG}",
    "Accountant().compose(Gaussian(sigma), T).epsilon(delta) against the exact profile of the T-fold "
    "Gaussian, which is the Gaussian with noise sigma/sqrt(T); sigma from 0.1 to 1000, T up to 1e6, "
    "delta from 1e-100 to just below 1.",
)

laplace = _mode_claim(
    "laplace",
    "one Laplace step: the exact profile at the accountant's epsilon is <= delta",
    sympy.Le(F["delta_laplace"](F["accountant_epsilon_laplace"](b, 1, delta, *MODES), b), delta),
    (B, DELTA),
    f"{SOURCE}; {MIRONOV}, Prop. 6",
    "Accountant().compose(Laplace(b)).epsilon(delta) against the exact Laplace profile "
    "(1 - e^((eps - 1/b)/2))_+; b over the fast evaluator's whole domain [0.01, 1e4].",
)

randomized_response = _mode_claim(
    "randomized_response",
    "T randomized-response steps: the exact T-fold profile at the accountant's epsilon is <= delta",
    sympy.Le(
        F["delta_composed_pure"](F["accountant_epsilon_randomized_response"](eps_rr, T, delta, *MODES), eps_rr, T),
        delta,
    ),
    (EPS_RR, T_RR, DELTA),
    f"{SOURCE}; {MIRONOV}, Prop. 5; {KOV}",
    "Accountant().compose(RandomizedResponse(eps), T).epsilon(delta) against the optimal composition of "
    "T eps-DP mechanisms (exact for T-fold RR); eps over the fast domain [1e-4, 50], T up to 300 (the "
    "exact profile is a sum of T + 1 terms).",
    cost=0.5,
)

sampled_gaussian = _mode_claim(
    "sampled_gaussian",
    "one sampled-Gaussian step: the exact profile (both directions) at the accountant's epsilon is <= delta",
    sympy.Le(
        F["delta_sampled_gaussian"](F["accountant_epsilon_sampled_gaussian"](q, sigma, 1, delta, *MODES), q, sigma),
        delta,
    ),
    (Q, SIGMA_SAMPLED, DELTA),
    f"{SOURCE}; {MTZ}",
    "Accountant().compose(SampledGaussian(q, sigma)).epsilon(delta) against the exact one-step profile, "
    "the larger of the add and remove directions (the accountant uses the add-direction RDP only); q from "
    "1e-8 to 1, sigma over the accountant's whole range [0.1, 1e4].",
    cost=0.5,  # certified mode: exact binomial sums in ball arithmetic at ~100 orders (~0.7 s)
)


#: Abadi et al. 2016's configuration (q = 0.01, sigma = 4, 10 000 steps, delta = 1e-5) in each mode,
#: always checked first: an accountant a few percent low fails here whatever the draws.
STEPS_PINS = tuple(
    {"q": 0.01, "sigma": 4.0, "T": 10000, "delta": 1e-5, "refine": r, "certified": c} for r, c in ((0, 0), (1, 0), (0, 1))
)


def _steps_claim(flag):
    name = conversion_name(flag)
    args = (q, sigma, T, delta, flag, refine, certified)
    order = F["accountant_order_sampled_gaussian"](*args)
    exact = conversions.epsilon_from_delta(name, T * F["rdp_sampled_gaussian_add"](order, q, sigma), order, delta)
    return Claim(
        id=f"accountant.epsilon.sampled_gaussian_steps.{name}",
        source=f"{ACCOUNTANT}; {MIRONOV}, Prop. 1; {CONVERSION_SOURCES[flag]}; {MTZ}",
        statement=sympy.Ge(F["accountant_epsilon_sampled_gaussian"](*args), sympy.Max(0, exact)),
        variables=(Q, SIGMA_SAMPLED, T_SAMPLED, DELTA, FLAGS[1], FLAGS[2]),
        # where the total variation bound is at most delta the accountant answers 0 without an order
        # (accountant.pld_trivial.rdp_*: that bound is checked there)
        hypotheses=FLAG_HYPOTHESES + (sympy.Gt(F["accountant_tv_sampled_gaussian"](q, sigma, T, certified), delta),),
        kind="statement",
        title=f"T sampled-Gaussian steps ({name}): the accountant's epsilon >= the {name} conversion of the "
              "exact RDP at the order it reports",
        explanation=(
            "eps_acc = Accountant().compose(SampledGaussian(q, sigma), T).epsilon(delta) and alpha its order "
            "(epsilon_and_order); the right side is the conversion of dpproofs.math.conversions applied, in exact "
            "arithmetic, to T log A_alpha/(alpha-1), the exact add-direction RDP. Since the minimum over the "
            "orders is at most the value at alpha, eps_acc is at least the exact conversion minimised over "
            "the accountant's orders: every float rounding (RDP, composition, conversion, final float) went "
            "up. T up to 1e8, q from 1e-8, sigma over [0.1, 1e4]; refine and certified drawn."
        ),
        cost=0.3,  # the exact side at fractional alpha is a 1-D integral (~0.5 s at 50 digits)
        pinned=STEPS_PINS,
    )


steps_improved = _steps_claim(0)
steps_classic = _steps_claim(1)


def _at_order_claim(flag):
    name = conversion_name(flag)
    curve = F["accountant_rdp_gaussian"](alpha, sigma, T) * RDP_INFLATION
    bound = conversions.epsilon_from_delta(name, curve, alpha, delta)
    return Claim(
        id=f"accountant.epsilon.gaussian_at_order.{name}",
        source=f"{ACCOUNTANT}; {CONVERSION_SOURCES[flag]}; {BALLE_WANG}",
        statement=sympy.Le(F["delta_gaussian"](sympy.Max(0, bound), sigma / sympy.sqrt(T)), delta),
        variables=(ALPHA, SIGMA, T_STEPS, DELTA),
        kind="support",
        title=f"every order: the {name} conversion of the accountant's Gaussian curve is valid",
        explanation=(
            f"R = Accountant([alpha]).compose(Gaussian(sigma), T).rdp times the documented inflation "
            f"1 + RTOL + 3 2^-52; the {name} formula of dpproofs.math.conversions at R, alpha, delta, held against "
            "the exact T-fold profile. The formula the accountant minimises is valid at each of its orders."
        ),
    )


at_order_improved = _at_order_claim(0)
at_order_classic = _at_order_claim(1)

_curve = F["accountant_rdp_gaussian"](alpha, sigma, T) * RDP_INFLATION
_noise = sigma / sympy.sqrt(T)
ALPHA_MUTANT_PIN = {"alpha": 1.1, "sigma": 0.1, "T": 1, "delta": 1e-5}
mutant_alpha = at_order_classic.mutant(
    "alpha_instead_of_alpha_minus_one",
    statement=sympy.Le(
        F["delta_gaussian"](sympy.Max(0, _curve + sympy.log(1 / delta) / alpha), _noise), delta
    ),
    explanation=(
        "an accountant whose classic conversion divides log(1/delta) by alpha instead of alpha - 1: at "
        "sigma = 0.1, alpha = 1.1, delta = 1e-5 it gives eps = 65.5, where the exact profile needs 91.8"
    ),
    pinned=(ALPHA_MUTANT_PIN,),
)

DOUBLED_MUTANT_PIN = {"alpha": 3.0, "sigma": 2.0, "T": 1, "delta": 0.1}
mutant_doubled = at_order_improved.mutant(
    "doubled_log_ratio",
    statement=sympy.Le(
        F["delta_gaussian"](
            sympy.Max(0, _curve + 2 * sympy.log((alpha - 1) / alpha) - (sympy.log(delta) + sympy.log(alpha)) / (alpha - 1)),
            _noise,
        ),
        delta,
    ),
    explanation=(
        "an accountant whose improved conversion counts log((alpha-1)/alpha) twice: at sigma = 2, alpha = 3, "
        "delta = 0.1 it gives eps = 0.166, where the exact profile is 0.136 > delta"
    ),
    pinned=(DOUBLED_MUTANT_PIN,),
)

CLAIMS = [
    gaussian,
    laplace,
    randomized_response,
    sampled_gaussian,
    steps_improved,
    steps_classic,
    at_order_improved,
    at_order_classic,
    mutant_alpha,
    mutant_doubled,
]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the public accountant's epsilon in four modes, the
# exact epsilon of the T-fold Gaussian (its exact profile, precise.delta_gaussian at noise
# sigma/sqrt(T), inverted by Mironov 2017 Prop. 3's exact_epsilon helper), and the two sides of
# the `.gaussian` claim as the checker evaluates them (Claim.evaluate).

#: the figure's modes: label -> (classic, refine, certified) flags of the claims
_FIGURE_MODES = {
    "improved": (0, 0, 0),
    "classic": (1, 0, 0),
    "improved, refine=True": (0, 1, 0),
    "improved, certified=True": (0, 0, 1),
}


def _figure_epsilon_vs_exact(path):
    """The accountant's epsilon for T Gaussian steps against the exact epsilon, its ratio and the
    claim's two sides (exact delta at the accountant's epsilon, against delta)."""
    from dpproofs.accountant.rdp import Accountant
    from dpproofs.docgen import pyplot, save
    from dpproofs.math import precise
    from dpproofs.mechanisms import Gaussian
    from dpproofs_theorems.mironov2017.proposition3 import exact_epsilon

    plt = pyplot()
    sigma_value, delta_value = 10.0, 1e-5
    steps = sorted({round(10 ** (4 * i / 24)) for i in range(25)})
    answers = {label: [] for label in _FIGURE_MODES}
    sides = {label: [] for label in _FIGURE_MODES}
    exact = []
    for t_value in steps:
        for label, (flag, refine_flag, certified_flag) in _FIGURE_MODES.items():
            acc = Accountant(certified=bool(certified_flag)).compose(Gaussian(sigma_value), t_value)
            answers[label].append(acc.epsilon(delta_value, conversion_name(flag), refine=bool(refine_flag)))
            point = {"sigma": sigma_value, "T": t_value, "delta": delta_value,
                     "classic": flag, "refine": refine_flag, "certified": certified_flag}
            lhs, rhs = gaussian.evaluate(point, 20)
            sides[label].append(float(lhs / rhs))
        noise = sigma_value / t_value**0.5

        def profile(e, dps, noise=noise):
            return precise.delta_gaussian(e, noise, dps=dps)

        exact.append(float(exact_epsilon(profile, delta_value, upper=answers["classic"][-1], dps=20, iterations=50)))
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.6))
    styles = {"improved": "-", "classic": "--", "improved, refine=True": ":", "improved, certified=True": "-."}
    for label, values in answers.items():
        axes[0].loglog(steps, values, styles[label], label=f"accountant, {label}")
        axes[1].semilogx(steps, [v / e for v, e in zip(values, exact)], styles[label], label=label)
        axes[2].loglog(steps, sides[label], styles[label], label=label)
    axes[0].loglog(steps, exact, "k", lw=0.8, label="exact (T-fold Gaussian profile)")
    axes[0].set_ylabel(f"epsilon at delta = {delta_value:g}")
    axes[0].set_title(f"T Gaussian steps, sigma = {sigma_value:g}")
    axes[1].axhline(1, color="k", lw=0.8)
    axes[1].set_ylabel("accountant epsilon / exact epsilon")
    axes[1].set_title("slack (>= 1)")
    axes[2].axhline(1, color="k", lw=0.8)
    axes[2].set_ylabel("exact delta at the accountant's epsilon / delta")
    axes[2].set_title("claim .gaussian: lhs / rhs (<= 1)")
    for ax in axes:
        ax.set_xlabel("steps T")
    axes[0].legend(fontsize=7)
    axes[1].legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_epsilon_vs_exact.png",
                   "The shipped accountant's epsilon for T Gaussian steps (sigma = 10, delta = 1e-5) in four modes "
                   "against the exact epsilon of the T-fold Gaussian, their ratio, and the two sides of "
                   "accountant.epsilon.gaussian (the exact delta at the accountant's epsilon over delta). Certified "
                   "mode uses integer orders only, hence its bumps where the best order is fractional",
                   _figure_epsilon_vs_exact),)


FIGURES = _figures()
