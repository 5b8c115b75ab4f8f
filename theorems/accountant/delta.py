"""``Accountant.delta(epsilon)``: the shipped accountant's delta bounds the exact privacy profile.

Statements (``accountant.delta`` + suffix); ``classic`` and ``certified`` are the accountant's 0/1
flags (``delta`` has no ``refine``):

* ``.gaussian`` (T steps: the Gaussian with noise ``sigma/sqrt(T)``), ``.laplace`` (one step),
  ``.randomized_response`` (T steps, Kairouz, Oh & Viswanath 2015), ``.sampled_gaussian`` (one
  step, both directions): ``delta_M(epsilon) <= acc.delta(epsilon)``;
* ``.gaussian_at_order.classic`` / ``.improved``: at every order, the delta form of the conversion
  (:func:`dpproofs.math.conversions.delta_from_epsilon`) at the accountant's inflated Gaussian curve
  bounds the exact profile. Mutant: ``.mutant.alpha_instead_of_alpha_minus_one``.
"""

import sympy

from dpproofs.math import conversions
from dpproofs.checker.claims import Claim

from dpproofs_theorems.accountant._common import (
    ACCOUNTANT, BALLE_WANG, CKS, CONVERSION_SOURCES, F, FLAGS, KOV, MIRONOV, MTZ, RDP_INFLATION, conversion_name,
    variable,
)

__all__ = ["CLAIMS", "ALPHA_MUTANT_PIN"]

SIGMA, sigma = variable("sigma", 0.1, 1000)
T_STEPS, T = variable("T", 1, 10**6, integer=True)
T_RR, _ = variable("T", 1, 300, integer=True)
EPSILON, epsilon = variable("epsilon", 1e-4, 200)
B, b = variable("b", 0.01, 1e4)
EPS_RR, eps_rr = variable("eps0", 1e-4, 50)
Q, q = variable("q", 1e-8, 1)
SIGMA_SAMPLED, _ = variable("sigma", 0.1, 1e4)
ALPHA, alpha = variable("alpha", 1.000001, 10000)
CLASSIC, _, CERTIFIED = FLAGS
classic, certified = CLASSIC.symbol, CERTIFIED.symbol
MODES = (classic, certified)

SOURCE = f"{ACCOUNTANT}; {MIRONOV}, Prop. 1 and 3 (solved for delta); {CONVERSION_SOURCES[0]}; {CKS}"
EXPLAIN_MODES = "classic and certified are the accountant's 0/1 flags: one claim covers both conversions and modes."


def _mode_claim(suffix, title, statement, variables, source, explanation, cost=1.0):
    return Claim(
        id=f"accountant.delta.{suffix}",
        source=source,
        statement=statement,
        variables=(*variables, CLASSIC, CERTIFIED),
        kind="statement",
        title=title,
        explanation=f"{explanation} {EXPLAIN_MODES}",
        cost=cost,
    )


gaussian = _mode_claim(
    "gaussian",
    "T Gaussian steps: the exact profile at epsilon is <= the accountant's delta",
    sympy.Le(F["delta_gaussian"](epsilon, sigma / sympy.sqrt(T)), F["accountant_delta_gaussian"](sigma, T, epsilon, *MODES)),
    (SIGMA, T_STEPS, EPSILON),
    f"{SOURCE}; {MIRONOV}, Prop. 7; {BALLE_WANG}",
    "Accountant().compose(Gaussian(sigma), T).delta(epsilon) against the exact profile of the Gaussian with "
    "noise sigma/sqrt(T); epsilon from 1e-4 to 200.",
)

laplace = _mode_claim(
    "laplace",
    "one Laplace step: the exact profile at epsilon is <= the accountant's delta",
    sympy.Le(F["delta_laplace"](epsilon, b), F["accountant_delta_laplace"](b, 1, epsilon, *MODES)),
    (B, EPSILON),
    f"{SOURCE}; {MIRONOV}, Prop. 6",
    "Accountant().compose(Laplace(b)).delta(epsilon) against (1 - e^((eps - 1/b)/2))_+.",
)

randomized_response = _mode_claim(
    "randomized_response",
    "T randomized-response steps: the exact T-fold profile at epsilon is <= the accountant's delta",
    sympy.Le(
        F["delta_composed_pure"](epsilon, eps_rr, T),
        F["accountant_delta_randomized_response"](eps_rr, T, epsilon, *MODES),
    ),
    (EPS_RR, T_RR, EPSILON),
    f"{SOURCE}; {MIRONOV}, Prop. 5; {KOV}",
    "Accountant().compose(RandomizedResponse(eps0), T).delta(epsilon) against the optimal T-fold composition "
    "of eps0-DP.",
    cost=0.5,
)

sampled_gaussian = _mode_claim(
    "sampled_gaussian",
    "one sampled-Gaussian step: the exact profile (both directions) at epsilon is <= the accountant's delta",
    sympy.Le(
        F["delta_sampled_gaussian"](epsilon, q, sigma),
        F["accountant_delta_sampled_gaussian"](q, sigma, 1, epsilon, *MODES),
    ),
    (Q, SIGMA_SAMPLED, EPSILON),
    f"{SOURCE}; {MTZ}",
    "Accountant().compose(SampledGaussian(q, sigma)).delta(epsilon) against the larger of the two "
    "directions' exact profiles.",
    cost=0.5,  # certified mode: exact binomial sums in ball arithmetic at ~100 orders (~0.7 s)
)


def _at_order_claim(flag):
    name = conversion_name(flag)
    curve = F["accountant_rdp_gaussian"](alpha, sigma, T) * RDP_INFLATION
    bound = conversions.delta_from_epsilon(name, curve, alpha, epsilon)
    return Claim(
        id=f"accountant.delta.gaussian_at_order.{name}",
        source=f"{ACCOUNTANT}; {CONVERSION_SOURCES[flag]} (solved for delta){'; ' + CKS if flag == 0 else ''}; "
               f"{BALLE_WANG}",
        statement=sympy.Le(F["delta_gaussian"](epsilon, sigma / sympy.sqrt(T)), sympy.Min(1, bound)),
        variables=(ALPHA, SIGMA, T_STEPS, EPSILON),
        kind="support",
        title=f"every order: the {name} delta of the accountant's Gaussian curve bounds the exact profile",
        explanation=(
            "R = Accountant([alpha]).compose(Gaussian(sigma), T).rdp times the documented inflation; the "
            f"{name} delta form of dpproofs.math.conversions at R, alpha, epsilon against the exact T-fold profile."
        ),
    )


at_order_improved = _at_order_claim(0)
at_order_classic = _at_order_claim(1)

ALPHA_MUTANT_PIN = {"alpha": 2.0, "sigma": 0.5, "T": 1, "epsilon": 8.0}
mutant_alpha = at_order_classic.mutant(
    "alpha_instead_of_alpha_minus_one",
    statement=sympy.Le(
        F["delta_gaussian"](epsilon, sigma / sympy.sqrt(T)),
        sympy.Min(1, sympy.exp(alpha * (F["accountant_rdp_gaussian"](alpha, sigma, T) * RDP_INFLATION - epsilon))),
    ),
    explanation=(
        "an accountant whose classic delta is exp(alpha (R - eps)) instead of exp((alpha - 1)(R - eps)): at "
        "sigma = 0.5, alpha = 2, eps = 8 it gives 3.4e-4 where the exact profile is 5.0e-4"
    ),
    pinned=(ALPHA_MUTANT_PIN,),
)

CLAIMS = [
    gaussian,
    laplace,
    randomized_response,
    sampled_gaussian,
    at_order_improved,
    at_order_classic,
    mutant_alpha,
]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the two sides of the `.gaussian` and
# `.randomized_response` claims (exact profile, accountant's delta) as the checker evaluates them
# (Claim.evaluate).

#: the figure's modes: label -> (classic, certified) flags of the claims
_FIGURE_MODES = {"improved": (0, 0), "classic": (1, 0), "improved, certified=True": (0, 1)}


def _figure_delta_vs_exact(path):
    """The accountant's delta(epsilon) against the exact profile: T Gaussian steps and T RR steps."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    panels = (
        (gaussian, {"sigma": 10.0, "T": 100}, 8.0, "100 Gaussian steps, sigma = 10 (exact: noise 1)",
         "exact profile (Balle & Wang 2018)"),
        (randomized_response, {"eps0": 0.1, "T": 100}, 3.0, "100 randomized-response steps, eps0 = 0.1",
         "exact T-fold profile (Kairouz et al. 2015)"),
    )
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    styles = {"improved": "-", "classic": "--", "improved, certified=True": "-."}
    for ax, (claim, config, top, title, exact_label) in zip(axes, panels):
        epsilons = [top * (i + 1) / 60 for i in range(60)]
        exact, answers = [], {label: [] for label in _FIGURE_MODES}
        for label, (flag, certified_flag) in _FIGURE_MODES.items():
            for e in epsilons:
                lhs, rhs = claim.evaluate({**config, "epsilon": e, "classic": flag, "certified": certified_flag}, 20)
                answers[label].append(float(rhs))
                if label == "improved":
                    exact.append(float(lhs))
        for label, values in answers.items():
            ax.semilogy(epsilons, values, styles[label], label=f"accountant, {label}")
        ax.semilogy(epsilons, exact, "k", lw=0.8, label=exact_label)
        ax.set_xlabel("epsilon")
        ax.set_title(title)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("delta(epsilon)")
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_delta_vs_exact.png",
                   "The shipped accountant's delta(epsilon) (both conversions, certified mode) against the exact "
                   "privacy profile: the two sides of accountant.delta.gaussian and "
                   "accountant.delta.randomized_response", _figure_delta_vs_exact),)


FIGURES = _figures()
