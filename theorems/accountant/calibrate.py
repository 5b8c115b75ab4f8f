"""``calibrate_sigma``: never overshoots its target, and is within its stated 1e-6 of the smallest sigma.

Statements (``accountant.calibrate`` + suffix), with ``sigma_c = calibrate_sigma(epsilon=eps,
delta=delta, q=q, steps=T, conversion=...)`` (``classic`` a 0/1 flag) and ``eps_acc(s)`` the
shipped accountant's epsilon for T sampled-Gaussian steps at noise ``s``:

* ``.never_overshoots``: ``eps_acc(sigma_c) <= eps`` (one-sided, as documented);
* ``.within_stated_tolerance``: ``eps_acc(sigma_c / (1 + 2e-6)) > eps``: a sigma 2e-6 below the
  returned one misses the target, so ``sigma_c`` is at most ``1 + 1e-6`` (plus the bisection's
  ``1e-7``) times the smallest admissible sigma (the accountant's epsilon decreases in sigma);
* mutant ``.never_overshoots.mutant.two_ppm_smaller``: a calibration returning ``sigma_c/(1 + 2e-6)``
  would overshoot.

Targets are drawn where a sigma in the accountant's range [0.1, 1e4] exists; points where
``calibrate_sigma`` reports the target unreachable (InvalidArgument) are not examples.
"""

import sympy

from dpproofs.checker.claims import Claim

from dpproofs_theorems.accountant._common import ACCOUNTANT, CONVERSION_SOURCES, F, FLAGS, MIRONOV, variable

__all__ = ["CLAIMS", "PIN"]

EPSILON, epsilon = variable("epsilon", 0.05, 20)
DELTA, delta = variable("delta", 1e-12, 0.1, log_scale=True)
Q, q = variable("q", 1e-4, 1)
T_STEPS, T = variable("T", 1, 10**5, integer=True)
CLASSIC = FLAGS[0]
classic = CLASSIC.symbol
VARIABLES = (EPSILON, DELTA, Q, T_STEPS, CLASSIC)
SOURCE = (
    f"dpproofs.calibrate_sigma and {ACCOUNTANT} (its documented contract); {MIRONOV}, Prop. 1 and 3; "
    f"{CONVERSION_SOURCES[0]}"
)
TOLERANCE = sympy.Rational(2, 10**6)  # twice the documented 1e-6: leaves the bisection's 1e-7 and rounding


def _epsilon_at(noise):
    return F["accountant_epsilon_sampled_gaussian"](q, noise, T, delta, classic, 0, 0)


#: a typical target (epsilon = 1 at delta = 1e-5, q = 0.01, 10 000 steps), always checked first
PIN = {"epsilon": 1.0, "delta": 1e-5, "q": 0.01, "T": 10000, "classic": 0}

sigma_c = F["calibrated_sigma"](epsilon, delta, q, T, classic)

never_overshoots = Claim(
    id="accountant.calibrate.never_overshoots",
    source=SOURCE,
    statement=sympy.Le(_epsilon_at(sigma_c), epsilon),
    variables=VARIABLES,
    kind="statement",
    title="the accountant's epsilon at calibrate_sigma's sigma is <= the target",
    explanation=(
        "calibrate_sigma(epsilon, delta, q, T) then Accountant().compose(SampledGaussian(q, sigma), T)"
        ".epsilon(delta) exactly as a user would: never above the target. epsilon 0.05 to 20, delta 1e-12 "
        "to 0.1, q 1e-4 to 1, T up to 1e5, both conversions."
    ),
    cost=0.5,
    pinned=(PIN,),
)

within = Claim(
    id="accountant.calibrate.within_stated_tolerance",
    source=SOURCE,
    statement=sympy.Gt(_epsilon_at(sigma_c / (1 + TOLERANCE)), epsilon),
    variables=VARIABLES,
    kind="statement",
    title="calibrate_sigma is within its stated 1e-6: sigma/(1 + 2e-6) misses the target",
    explanation=(
        "the documented contract: sigma is at most 1 + 1e-6 times the smallest sigma that meets the target. "
        "At sigma/(1 + 2e-6) the accountant's epsilon (decreasing in sigma) must exceed the target."
    ),
    cost=0.5,
    pinned=(PIN,),
)

mutant_smaller = never_overshoots.mutant(
    "two_ppm_smaller",
    statement=sympy.Le(_epsilon_at(sigma_c / (1 + TOLERANCE)), epsilon),
    explanation=(
        "a calibration returning sigma/(1 + 2e-6): at epsilon = 1, delta = 1e-5, q = 0.01, T = 10 000 the "
        "accountant's epsilon at that sigma exceeds the target"
    ),
    pinned=(PIN,),
)

CLAIMS = [never_overshoots, within, mutant_smaller]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the claims' own sigma_c expression and the two sides
# of `.never_overshoots` and `.within_stated_tolerance` as the checker evaluates them
# (arithmetic.evaluate_mp, Claim.evaluate).


def _figure_calibrated_sigma(path):
    """calibrate_sigma over a range of targets: the sigma, and the achieved epsilon against the target."""
    from dpproofs.docgen import pyplot, save
    from dpproofs.checker.arithmetic import evaluate_mp
    from dpproofs_theorems.accountant._common import conversion_name

    plt = pyplot()
    config = {"delta": 1e-5, "q": 0.01, "T": 10000}
    targets = [10 ** (-1 + 2 * i / 30) for i in range(31)]
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.4))
    for flag, color in ((0, "tab:blue"), (1, "tab:orange")):
        name = conversion_name(flag)
        sigmas, under, over = [], [], []
        for target in targets:
            point = {**config, "epsilon": target, "classic": flag}
            sigmas.append(float(evaluate_mp(sigma_c, point, 20)))
            achieved, goal = never_overshoots.evaluate(point, 20)
            under.append(float(1 - achieved / goal))
            missed, goal = within.evaluate(point, 20)
            over.append(float(missed / goal - 1))
        axes[0].loglog(targets, sigmas, color=color, label=name)
        axes[1].semilogx(targets, under, "o-", ms=3, color=color,
                         label=f"{name}: 1 - eps_acc(sigma_c) / target  (must be >= 0)")
        axes[1].semilogx(targets, over, "s--", ms=3, mfc="none", color=color,
                         label=f"{name}: eps_acc(sigma_c / (1 + 2e-6)) / target - 1  (must be > 0)")
    axes[0].set_xlabel("target epsilon")
    axes[0].set_ylabel("calibrate_sigma(...)")
    axes[0].set_title(f"q = {config['q']}, T = {config['T']}, delta = {config['delta']:g}")
    axes[0].legend(fontsize=8)
    axes[1].set_yscale("symlog", linthresh=1e-9)  # linear near 0: a negative (overshoot) would show
    axes[1].axhline(0, color="k", lw=0.8)
    axes[1].set_xlabel("target epsilon")
    axes[1].set_ylabel("relative gap to the target")
    axes[1].set_title("never overshoots; 2e-6 smaller misses")
    axes[1].legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.18))
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_calibrate_sigma.png",
                   "calibrate_sigma for targets epsilon 0.1 to 10 (q = 0.01, 10 000 steps, delta = 1e-5, both "
                   "conversions): the sigma returned, and the accountant's epsilon at that sigma and at sigma/(1 + "
                   "2e-6) relative to the target (the two sides of .never_overshoots and .within_stated_tolerance)",
                   _figure_calibrated_sigma),)


FIGURES = _figures()
