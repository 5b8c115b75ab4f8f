"""The accountant's RDP curve (``Accountant.rdp``) with its documented inflation is >= the exact RDP.

``Accountant.epsilon`` and ``.delta`` convert the curve ``R * (1 + RTOL + 3 2^-52)`` for one
mechanism (dpproofs.accountant.rdp module docstring, point (1)); these claims hold that curve
against the exact Rényi divergence of the T-fold composition (Mironov 2017 Prop. 1: T times one
step). Ids (``accountant.rdp`` + suffix):

* ``.sampled_gaussian_integer`` (alpha in 2..4096, the exact binomial sum of ``log A_alpha``) and
  ``.sampled_gaussian_fractional`` (alpha in (1, 256], the integral), add direction, as the
  accountant documents;
* ``.sampled_gaussian_both_directions``: the same curve also bounds the max of both directions
  (``log B`` by quadrature), the claim the accountant relies on (Mironov, Talwar & Zhang 2019);
* ``.gaussian``, ``.laplace``, ``.randomized_response``: the closed forms (Mironov 2017 Prop. 5-7);
* ``.kary_randomized_response``: k-ary randomized response (``dpproofs.KaryRandomizedResponse(p, k)``,
  what the dp_accounting bridge ships for ``RandomizedResponseDpEvent(p, k >= 3)``) against the exact
  Rényi divergence of the pair of two inputs (the finite sum, dp_accounting's ``REPLACE_ONE`` pair);
  mutant ``.mutant.binary_bound``: the accountant is NOT above the binary bound it replaced (refuted:
  the new curve is strictly below it at k >= 3);
* ``.kary_randomized_response_below_binary``: the same curve, uninflated, is <= T times the binary
  ``eps``-RR RDP at ``eps = log(1 + k (1-p)/p)``, the bound the bridge shipped before (Mironov 2017
  Prop. 5: binary eps-RR is the worst eps-DP pair); mutant ``.mutant.special_epsilon``: the binary
  bound at ``log(1/p)`` (the special-record analysis' log-ratio) is refuted;
* ``.kary_randomized_response_special``: ``KaryRandomizedResponse(p, k, special=True)`` under
  add/remove (what the bridge ships under ``REPLACE_SPECIAL``) against the exact divergence of
  ``(R(x), U)``, ``U`` the special input's uniform output, the larger of both orders
  (dp_accounting's ``_randomized_response_rdp_replace_special`` pair); mutant
  ``.mutant.two_input_pair``: the special curve at or above the two-input pair's exact RDP is
  refuted (the uniform output is the average of the inputs' outputs: strictly closer);
* mutant ``.sampled_gaussian_integer.mutant.shortfall_1e-8``: a curve 1e-8 relative below the
  accountant's is refuted: the check resolves far below the tolerance the accountant relies on.
"""

import sympy

from dpproofs.checker.claims import Claim

from dpproofs_theorems.accountant._common import ACCOUNTANT, F, MIRONOV, MTZ, RDP_INFLATION, variable

__all__ = ["CLAIMS", "SHORTFALL_PIN"]

ALPHA_INT, alpha = variable("alpha", 2, 4096, integer=True)
ALPHA_FRACTIONAL, _ = variable("alpha", 1.000001, 256)
ALPHA_BOTH, _ = variable("alpha", 2, 64, integer=True)
ALPHA, _ = variable("alpha", 1.000001, 10000)
Q, q = variable("q", 1e-8, 1)
SIGMA, sigma = variable("sigma", 0.1, 1e4)
SIGMA_BOTH, _ = variable("sigma", 0.5, 100)
T_STEPS, T = variable("T", 1, 10**9, integer=True)
B, b = variable("b", 0.01, 1e4)
EPS_RR, eps_rr = variable("epsilon", 1e-4, 50)
SOURCE = f"{ACCOUNTANT}; {MIRONOV}, Prop. 1"


def _claim(suffix, title, accountant_curve, exact, variables, source, explanation, cost=1.0):
    return Claim(
        id=f"accountant.rdp.{suffix}",
        source=source,
        statement=sympy.Ge(accountant_curve * RDP_INFLATION, T * exact),
        variables=variables,
        kind="statement",
        title=title,
        explanation=explanation + " The inflation is 1 + fast.RTOL + 3 2^-52 (the documented one).",
        cost=cost,
    )


sampled_integer = _claim(
    "sampled_gaussian_integer",
    "sampled Gaussian, integer orders: the accountant's inflated curve >= T log A_alpha/(alpha-1)",
    F["accountant_rdp_sampled_gaussian"](alpha, q, sigma, T),
    F["rdp_sampled_gaussian_add"](alpha, q, sigma),
    (ALPHA_INT, Q, SIGMA, T_STEPS),
    f"{SOURCE}; {MTZ}",
    "Accountant([alpha]).compose(SampledGaussian(q, sigma), T).rdp against the exact binomial sum; alpha up "
    "to the default grid's 4096, q from 1e-8, sigma over [0.1, 1e4], T up to 1e9.",
    cost=0.5,
)

sampled_fractional = _claim(
    "sampled_gaussian_fractional",
    "sampled Gaussian, fractional orders: the accountant's inflated curve >= the exact add-direction RDP",
    F["accountant_rdp_sampled_gaussian"](alpha, q, sigma, T),
    F["rdp_sampled_gaussian_add"](alpha, q, sigma),
    (ALPHA_FRACTIONAL, Q, SIGMA, T_STEPS),
    f"{SOURCE}; {MTZ}",
    "fractional orders: the fast evaluator's series / quadrature against the precise integral.",
    cost=0.2,  # the exact side is a 1-D integral at 50 digits (~0.5 s)
)

sampled_both = _claim(
    "sampled_gaussian_both_directions",
    "sampled Gaussian: the accountant's add-direction curve also bounds the remove direction",
    F["accountant_rdp_sampled_gaussian"](alpha, q, sigma, T),
    F["rdp_sampled_gaussian"](alpha, q, sigma),
    (ALPHA_BOTH, Q, SIGMA_BOTH, T_STEPS),
    f"{SOURCE}; {MTZ}",
    "the exact side is max(log A, log B)/(alpha - 1), log B by quadrature: the accountant's use of A alone "
    "(on the strength of Mironov, Talwar & Zhang 2019) is checked, not assumed.",
    cost=0.1,  # log B is a 1-D integral (~1 s at 50 digits)
)

gaussian = _claim(
    "gaussian",
    "Gaussian: the accountant's inflated curve >= T alpha/(2 sigma^2)",
    F["accountant_rdp_gaussian"](alpha, sigma, T),
    F["rdp_gaussian"](alpha, sigma),
    (ALPHA, variable("sigma", 0.01, 1e4)[0], T_STEPS),
    f"{SOURCE}, 7",
    "Accountant([alpha]).compose(Gaussian(sigma), T).rdp.",
)

laplace = _claim(
    "laplace",
    "Laplace: the accountant's inflated curve >= T times the exact Laplace RDP",
    F["accountant_rdp_laplace"](alpha, b, T),
    F["rdp_laplace"](alpha, b),
    (ALPHA, B, T_STEPS),
    f"{SOURCE}, 6",
    "Accountant([alpha]).compose(Laplace(b), T).rdp over the fast domain b in [0.01, 1e4].",
)

randomized_response = _claim(
    "randomized_response",
    "randomized response: the accountant's inflated curve >= T times the exact RR RDP",
    F["accountant_rdp_randomized_response"](alpha, eps_rr, T),
    F["rdp_randomized_response"](alpha, eps_rr),
    (ALPHA, EPS_RR, T_STEPS),
    f"{SOURCE}, 5",
    "Accountant([alpha]).compose(RandomizedResponse(eps), T).rdp over the fast domain eps in [1e-4, 50].",
)

P_KARY, p_kary = variable("p", 1e-9, 0.999999)
K_KARY, k_kary = variable("k", 2, 10**9, integer=True)
K_KARY_3, _ = variable("k", 3, 10**9, integer=True)
#: the log-ratio of k-ary RR's largest to smallest output probability: it is exactly eps-DP for this eps
EPS_KARY = sympy.log(1 + k_kary * (1 - p_kary) / p_kary)
DP_ACCOUNTING_RR = ("dp_accounting 0.6, rdp_privacy_accountant._randomized_response_rdp_replace_one "
                    "(the pair of two inputs)")

kary_randomized_response = _claim(
    "kary_randomized_response",
    "k-ary randomized response: the accountant's inflated curve >= T times the exact RDP of two inputs",
    F["accountant_rdp_kary_randomized_response"](alpha, p_kary, k_kary, T),
    F["rdp_kary_randomized_response"](alpha, p_kary, k_kary),
    (ALPHA, P_KARY, K_KARY, T_STEPS),
    f"{SOURCE}; {DP_ACCOUNTING_RR}",
    "Accountant([alpha]).compose(KaryRandomizedResponse(p, k), T).rdp against the finite sum "
    "(1/(alpha-1)) log sum_i P_i^alpha Q_i^(1-alpha) over the k output atoms, p in [1e-9, 1 - 1e-6], "
    "k up to 1e9.",
)

KARY_PIN = {"alpha": 2.0, "p": 0.3, "k": 10, "T": 1}
mutant_kary_binary = kary_randomized_response.mutant(
    "binary_bound",
    statement=sympy.Ge(
        F["accountant_rdp_kary_randomized_response"](alpha, p_kary, k_kary, T) * RDP_INFLATION,
        T * F["rdp_randomized_response"](alpha, EPS_KARY),
    ),
    explanation=(
        "the accountant still at or above the binary eps-RR bound it replaced: refuted at alpha = 2, p = 0.3, "
        "k = 10 (k-ary 2.891 against binary 3.152): the exact pair is strictly below the worst eps-DP pair"
    ),
    pinned=(KARY_PIN,),
)

kary_below_binary = Claim(
    id="accountant.rdp.kary_randomized_response_below_binary",
    source=f"{ACCOUNTANT}; {MIRONOV}, Prop. 5",
    statement=sympy.Le(
        F["accountant_rdp_kary_randomized_response"](alpha, p_kary, k_kary, T),
        T * F["rdp_randomized_response"](alpha, EPS_KARY),
    ),
    variables=(ALPHA, variable("p", 1e-6, 0.999999)[0], K_KARY_3, T_STEPS),
    kind="statement",
    title="k-ary randomized response: the accountant's curve <= the binary eps-RR bound it replaces",
    explanation=(
        "binary eps-RR is the worst eps-DP pair in every Renyi divergence (Mironov 2017 Prop. 5) and k-ary RR "
        "is eps-DP at eps = log(1 + k (1-p)/p); for k >= 3 the gap exceeds the float curve's rounding "
        "(at large orders it is about p (k-2)/k / (alpha - 1), hence p >= 1e-6 here; at k = 2 the two are equal)."
    ),
)

SPECIAL_PIN = {"alpha": 64.0, "p": 0.3, "k": 10, "T": 1}
mutant_special_epsilon = kary_below_binary.mutant(
    "special_epsilon",
    statement=sympy.Le(
        F["accountant_rdp_kary_randomized_response"](alpha, p_kary, k_kary, T),
        T * F["rdp_randomized_response"](alpha, -sympy.log(p_kary)),
    ),
    explanation=(
        "the binary bound at log(1/p), the special-record pair's largest log-ratio, in place of "
        "log(1 + k (1-p)/p): refuted at alpha = 64, p = 0.3, k = 10 (3.187 against 1.200, below log(1/0.3) = 1.204)"
    ),
    pinned=(SPECIAL_PIN,),
)

kary_special = _claim(
    "kary_randomized_response_special",
    "k-ary randomized response against the special input: the accountant's inflated curve >= T times the "
    "exact RDP of (R(x), U), both orders",
    F["accountant_rdp_kary_randomized_response_special"](alpha, p_kary, k_kary, T),
    F["rdp_kary_randomized_response_special"](alpha, p_kary, k_kary),
    (ALPHA, P_KARY, K_KARY, T_STEPS),
    f"{SOURCE}; dp_accounting 0.6, rdp_privacy_accountant._randomized_response_rdp_replace_special "
    f"(the special input outputs the uniform distribution)",
    "Accountant([alpha]).compose(KaryRandomizedResponse(p, k, special=True), T).rdp (add/remove) against "
    "max(D_alpha(R(x) || U), D_alpha(U || R(x))), p in [1e-9, 1 - 1e-6], k up to 1e9.",
)

mutant_kary_two_input = kary_special.mutant(
    "two_input_pair",
    statement=sympy.Ge(
        F["accountant_rdp_kary_randomized_response_special"](alpha, p_kary, k_kary, T) * RDP_INFLATION,
        T * F["rdp_kary_randomized_response"](alpha, p_kary, k_kary),
    ),
    explanation=(
        "the special pair's curve at or above the two-input pair's exact RDP: refuted at alpha = 2, p = 0.3, "
        "k = 10 (the uniform output is the average of the k inputs' outputs, strictly closer to R(x))"
    ),
    pinned=(KARY_PIN,),
)

SHORTFALL_PIN = {"alpha": 20, "q": 0.01, "sigma": 4.0, "T": 1}
mutant_shortfall = sampled_integer.mutant(
    "shortfall_1e-8",
    statement=sympy.Ge(
        F["accountant_rdp_sampled_gaussian"](alpha, q, sigma, T) * RDP_INFLATION * (1 - sympy.Rational(1, 10**8)),
        T * F["rdp_sampled_gaussian_add"](alpha, q, sigma),
    ),
    explanation=(
        "a curve 1e-8 relative below the accountant's (e.g. a series stopped early): refuted at alpha = 20, "
        "q = 0.01, sigma = 4, where the accountant is within 1e-10 of the exact 6.526e-5"
    ),
    pinned=(SHORTFALL_PIN,),
)

CLAIMS = [sampled_integer, sampled_fractional, sampled_both, gaussian, laplace, randomized_response,
          kary_randomized_response, kary_below_binary, kary_special, mutant_shortfall, mutant_kary_binary,
          mutant_special_epsilon, mutant_kary_two_input]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the two sides of `.sampled_gaussian_integer` and
# `.sampled_gaussian_fractional` (the accountant's inflated curve, the exact add-direction RDP)
# as the checker evaluates them (Claim.evaluate); the uninflated curve divides by RDP_INFLATION.


def _figure_rdp_vs_exact(path):
    """The accountant's sampled-Gaussian RDP curve against the exact RDP over orders, and their ratio."""
    import mpmath

    from dpproofs.docgen import pyplot, save
    from dpproofs.math import fast

    plt = pyplot()
    dps = 25  # resolves relative differences far below the float64 rounding of the curve (1e-16)
    fractional = [1 + 10 ** (-2 + 2.4 * i / 14) for i in range(15)]  # 1.01 .. ~3.5 (the integral)
    integer = sorted({round(2 * 2048 ** (i / 24)) for i in range(25)})  # 2 .. 4096 (the binomial sum)
    configs = ((0.01, 4.0, "tab:blue"), (0.1, 1.5, "tab:orange"))
    fig, axes = plt.subplots(1, 2, figsize=(9, 4.4))
    for q_value, sigma_value, color in configs:
        orders, curve, exact, raw, inflated = [], [], [], [], []
        for claim, alphas in ((sampled_fractional, fractional), (sampled_integer, integer)):
            for a in alphas:
                lhs, rhs = claim.evaluate({"alpha": a, "q": q_value, "sigma": sigma_value, "T": 1}, dps)
                orders.append(a)
                curve.append(float(lhs))
                exact.append(float(rhs))
                with mpmath.workdps(dps):
                    inflated.append(float(lhs / rhs - 1))
                    raw.append(float(lhs / mpmath.mpf(RDP_INFLATION.p) * RDP_INFLATION.q / rhs - 1))
        label = f"q = {q_value}, sigma = {sigma_value:g}"
        axes[0].loglog(orders, exact, color=color, lw=0.8, label=f"exact, {label}")
        axes[0].loglog(orders, curve, "o", ms=3, mfc="none", color=color, label=f"accountant (inflated), {label}")
        axes[1].semilogx(orders, inflated, "-", color=color, label=f"inflated curve, {label} (must be >= 0)")
        axes[1].semilogx(orders, raw, "o", ms=3, color=color, label=f"float curve, {label}")
    axes[1].axhline(fast.RTOL, color="k", ls=":", lw=0.8, label="fast.RTOL (the evaluator's stated tolerance)")
    axes[1].axhline(-fast.RTOL, color="k", ls=":", lw=0.8)
    axes[1].axhline(0, color="k", lw=0.8)
    axes[1].set_yscale("symlog", linthresh=1e-16)  # linear below 1e-16: signed errors down to rounding
    axes[1].set_ylim(-1e-9, 1e-9)
    axes[0].set_xlabel("order alpha (fractional: integral; integer: binomial sum)")
    axes[0].set_ylabel("RDP of one step")
    axes[0].legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    axes[1].set_xlabel("order alpha")
    axes[1].set_ylabel("accountant / exact - 1")
    axes[1].set_title("relative error of the accountant's curve")
    axes[1].legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_rdp_vs_exact.png",
                   "The accountant's sampled-Gaussian RDP curve (one step) against the exact add-direction RDP "
                   "over orders, and the relative error: the float curve is within about 1e-13 of the exact "
                   "value, the documented inflation (1 + fast.RTOL + 3 2^-52) puts it above by about 1e-10",
                   _figure_rdp_vs_exact),)


FIGURES = _figures()
