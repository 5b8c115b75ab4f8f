"""The Rényi divergences of one epoch of random 1-of-t allocation with Gaussian noise (the pair of
Feldman & Shenfeld, arXiv 2502.08202v4; result number not confirmed, see the package docstring).

Pair: ``P = (1/t) sum_i N(e_i, s^2 I_t)``, ``Q = N(0, s^2 I_t)`` (:mod:`dpproofs.math.allocation`).

* ``feldman2025.allocation_rdp.add_exact``: the library's finite sum for ``log E_Q[(P/Q)^alpha]``
  equals brute-force enumeration of every composition of alpha into t parts (t <= 5, alpha <= 8);
  mutant ``.mutant.one_power_of_t_short`` (``t^-(alpha-1)`` instead of ``t^-alpha``) refuted;
* ``feldman2025.allocation_rdp.finite_base``: for a finite base (randomized response keeping the bit
  with probability keep20/20) the generating-function identity behind the sum equals the moment of
  the epoch with EVERY output in {0,1}^t enumerated (exact rationals); mutant
  ``.mutant.average_of_moments`` (``E_Q[(P/Q)^alpha]`` read as the average of the per-step moments)
  refuted;
* ``feldman2025.allocation_rdp.add_float_upper``: the accountant's float64 add-direction value is at
  least the exact one (the library's sum in mpmath), at orders rounded up to integers;
* ``feldman2025.allocation_rdp.remove_bound``: this project's bound on ``D_alpha(Q || P)`` (the float64
  path the accountant runs) is at least a quadrature of the exact value (a reference, ~1e-9
  relative, no ball: the verdict can be "holds", never "proved").
"""

import sympy

from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.feldman2025 import quantities  # noqa: F401  (registers the functions)

__all__ = ["CLAIMS"]

PAPER = "Feldman & Shenfeld 2025 (arXiv 2502.08202v4)"
SOURCE = f"{PAPER}, the random-allocation pair (Section 2); integer-order sum as in the authors' code (result number not confirmed)"

ALPHA = Variable("alpha", 2, 8, integer=True)
T = Variable("t", 1, 5, integer=True)
SIGMA = Variable("sigma", 0.5, 4)
alpha, t, sigma = ALPHA.symbol, T.symbol, SIGMA.symbol

_SUM = F["allocation_add_log_moment"](alpha, t, sigma)
_ENUM = F["allocation_add_log_moment_enumerated"](alpha, t, sigma)

add_exact = Claim(
    id="feldman2025.allocation_rdp.add_exact",
    source=SOURCE,
    statement=sympy.Eq(_SUM, _ENUM),
    variables=(ALPHA, T, SIGMA),
    title="The add direction's finite sum equals the enumeration of every composition of the order",
    cost=0.5,
)

mutant_one_power_of_t_short = add_exact.mutant(
    "one_power_of_t_short",
    statement=sympy.Eq(_SUM, _ENUM + sympy.log(t)),
    explanation="normalising by t^(alpha-1) instead of t^alpha (one power of the step count short) "
    "adds log t: refuted at every t >= 2",
    pinned=({"alpha": 2, "t": 3, "sigma": 1.0},),
)

F_ALPHA = Variable("alpha", 2, 8, integer=True)
F_T = Variable("t", 1, 5, integer=True)
KEEP = Variable("keep20", 1, 19, integer=True)
_GF = F["allocation_finite_gf"](F_ALPHA.symbol, F_T.symbol, KEEP.symbol)
_OUT = F["allocation_finite_enumerated"](F_ALPHA.symbol, F_T.symbol, KEEP.symbol)

finite_base = Claim(
    id="feldman2025.allocation_rdp.finite_base",
    source=SOURCE,
    statement=sympy.Eq(_GF, _OUT),
    variables=(F_ALPHA, F_T, KEEP),
    title="For a finite base the generating-function identity equals the enumeration of every output of the epoch",
    cost=0.5,
)

# the per-step moment mu_alpha averaged with the t - 1 silent steps: (mu_alpha + t - 1)/t
_AVERAGE = (F["allocation_finite_gf"](F_ALPHA.symbol, 1, KEEP.symbol) + F_T.symbol - 1) / F_T.symbol
mutant_average_of_moments = finite_base.mutant(
    "average_of_moments",
    statement=sympy.Eq(_AVERAGE, _OUT),
    explanation="E_Q[(P/Q)^alpha] is not the average over the step of the one-step moments (that is "
    "E_Q[avg_i (P_i/Q)^alpha], Jensen's upper end): refuted at alpha = 3, t = 2, keep = 7/20 (they agree at alpha = 2)",
    pinned=({"alpha": 3, "t": 2, "keep20": 7},),
)

U_ALPHA = Variable("alpha", 2, 64, integer=True)
U_T = Variable("t", 1, 10**4, integer=True)
U_SIGMA = Variable("sigma", 0.5, 10)
_FLOAT = F["allocation_add_rdp_float"](U_ALPHA.symbol, U_T.symbol, U_SIGMA.symbol)
_EXACT = F["allocation_add_log_moment"](U_ALPHA.symbol, U_T.symbol, U_SIGMA.symbol) / (U_ALPHA.symbol - 1)

add_float_upper = Claim(
    id="feldman2025.allocation_rdp.add_float_upper",
    source=SOURCE,
    statement=sympy.GreaterThan(_FLOAT, _EXACT),
    variables=(U_ALPHA, U_T, U_SIGMA),
    title="The accountant's float64 add direction is never below the exact value",
    cost=2.0,
)

R_ALPHA = Variable("alpha", 2, 24, integer=True)
R_T = Variable("t", 2, 2000, integer=True)
R_SIGMA = Variable("sigma", 0.7, 4)
_BOUND = F["allocation_remove_bound_float"](R_ALPHA.symbol, R_T.symbol, R_SIGMA.symbol)
_REFERENCE = F["allocation_remove_reference"](R_ALPHA.symbol, R_T.symbol, R_SIGMA.symbol)

remove_bound = Claim(
    id="feldman2025.allocation_rdp.remove_bound",
    source="this project's bound (dpproofs.math.allocation: Euler's Gamma integral, a quadratic bound on the "
    f"lognormal Laplace transform) on the remove direction of the pair of {PAPER}",
    statement=sympy.GreaterThan(_BOUND, _REFERENCE),
    variables=(R_ALPHA, R_T, R_SIGMA),
    title="The remove-direction bound the accountant uses is at least the exact divergence (quadrature)",
    cost=4.0,
)

CLAIMS = [add_exact, mutant_one_power_of_t_short, finite_base, mutant_average_of_moments, add_float_upper,
          remove_bound]


# --- figures (docs) ---------------------------------------------------------------------------------


def _figure_directions(path):
    """Both directions of one epoch against the order, with t Poisson steps at rate 1/t."""
    import numpy as np

    from dpproofs.docgen import pyplot, save
    from dpproofs.math import allocation, fast

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    orders = np.arange(2, 41, dtype=np.float64)
    for steps, style in ((100, "-"), (1000, "--")):
        add = allocation.add_rdp_float(orders, steps, 1.0)
        remove = allocation.remove_rdp_bound_float(orders, steps, 1.0)
        poisson = steps * fast.rdp_sampled_gaussian(orders, 1.0 / steps, 1.0)
        ax.semilogy(orders, add, style, label=f"allocation D(P||Q) exact, t = {steps}")
        ax.semilogy(orders, remove, style, label=f"allocation D(Q||P) bound, t = {steps}")
        ax.semilogy(orders, poisson, style, label=f"t Poisson steps at 1/t, t = {steps}")
    ax.set_xlabel("order alpha (sigma = 1, one epoch)")
    ax.set_ylabel("RDP of one epoch")
    ax.legend(fontsize=6)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("feldman2025_allocation_directions.png",
                   "One epoch of random allocation (sigma = 1): the exact add direction, the remove-direction "
                   "bound, and t Poisson steps at rate 1/t", _figure_directions),)


FIGURES = _figures()
