"""Wang, Balle & Kasiviswanathan 2019 (arXiv 1808.00087v2), Theorem 9: RDP of a mechanism run on a
batch drawn uniformly without replacement, under replace-one neighbours.

Statement (as printed; sampling parameter ``gamma = m/n``, a batch of ``m`` of the ``n`` records
drawn without replacement; ``M`` obeys ``(alpha, eps(alpha))``-RDP on neighbouring batches): for
every integer ``alpha >= 2`` the subsampled mechanism obeys ``(alpha, eps'(alpha))``-RDP with

``eps'(alpha) <= 1/(alpha-1) log(1 + gamma^2 C(alpha,2) min{4(e^{eps(2)}-1), e^{eps(2)} min{2, (e^{eps(inf)}-1)^2}}
+ sum_{j=3}^{alpha} gamma^j C(alpha,j) e^{(j-1) eps(j)} min{2, (e^{eps(inf)}-1)^j})``.

The Gaussian sum query (clipping norm C, noise sigma C, the project's sigma): a replaced record
moves the sum by up to 2C, so ``eps(j) = 2j/sigma^2 = rdp_gaussian(j, sigma/2)`` and
``eps(inf) = inf`` (the inner minima are 2): this specialisation is the one accountants use.

Ground truth for the Gaussian: the configuration "every other record equals x', x = -x', |x| = C"
realises the pair ``P1 = ((1-g) N(0) + g N(2), N(0))`` (in units of C, noise sigma) and its swap;
both orders together are the sampled-Gaussian RDP at sensitivity 2,
``rdp_sampled_gaussian(alpha, gamma, sigma/2)`` (max of both directions). The supremum over
configurations is at least that, so the bound must be at least that.

Ids -> items (``wang2019.theorem9`` + suffix):

* ``.gaussian``: ``rdp_sampled_gaussian(alpha, gamma, sigma/2) <= Theorem 9 bound`` with
  ``eps(j) = rdp_gaussian(j, sigma/2)``, ``eps(inf) = oo``; alpha integer in [2, 48].
* mutants: ``.gaussian.mutant.second_order_only`` (the sum over ``j >= 3`` dropped: refuted at
  alpha = 8, gamma = 1/2, sigma = 1), ``.gaussian.mutant.cubic_amplification`` (every ``gamma^j``
  read as ``gamma^{j+1}``: refuted at alpha = 2, gamma = 0.01, sigma = 2).
"""

import sympy

from dpproofs.claims import Claim, Variable
from dpproofs.vocabulary import NAMESPACE as F

from dpproofs_theorems.wang2019._common import J, expanded_sides, source, sym, theorem9_bound

__all__ = ["CLAIMS", "gaussian_eps"]

SOURCE = source("Theorem 9")

ALPHA = Variable("alpha", 2, 48, integer=True)
GAMMA = Variable("gamma", 1e-3, 1, log_scale=True)
SIGMA = Variable("sigma", 0.5, 20)

alpha, gamma, sigma = ALPHA.symbol, GAMMA.symbol, SIGMA.symbol


def gaussian_eps(order):
    """``eps(j)`` of the base Gaussian sum query under replace-one: sensitivity 2 (in units of C),
    ``D_j(N(2, s^2) || N(0, s^2)) = 2j/s^2``."""
    return F["rdp_gaussian"](order, sigma / 2)


_REALISED = F["rdp_sampled_gaussian"](alpha, gamma, sigma / 2)  # P1 and its swap (both orders)
_BOUND = theorem9_bound(alpha, gamma, gaussian_eps, sympy.oo)

gaussian = Claim(
    id="wang2019.theorem9.gaussian",
    source=SOURCE,
    statement=sympy.Le(_REALISED, _BOUND),
    variables=(ALPHA, GAMMA, SIGMA),
    sides=expanded_sides(_REALISED, _BOUND),
    title="Theorem 9 for the Gaussian sum query (eps(j) = 2j/sigma^2, eps(inf) = inf) is above the "
    "realised pair P1 = ((1-g) N(0) + g N(2), N(0)), both orders",
)


def _bound_with(second, tail_power):
    e2 = gaussian_eps(2)
    head = gamma**second * sympy.binomial(alpha, 2) * sympy.Min(4 * (sympy.exp(e2) - 1), 2 * sympy.exp(e2))
    if tail_power is None:
        return sympy.log(1 + head) / (alpha - 1)
    tail = sympy.Sum(
        gamma ** (J + tail_power) * sympy.binomial(alpha, J) * sympy.exp((J - 1) * gaussian_eps(J)) * 2,
        (J, 3, alpha),
    )
    return sympy.log(1 + head + tail) / (alpha - 1)


_SECOND_ORDER = _bound_with(2, None)
mutant_second_order_only = gaussian.mutant(
    "second_order_only",
    statement=sympy.Le(_REALISED, _SECOND_ORDER),
    sides=expanded_sides(_REALISED, _SECOND_ORDER),
    explanation="without the terms j >= 3 the bound is ~ log(1 + C(alpha,2) gamma^2 2e^{4/s^2})/(alpha-1), "
    "far below the realised pair at large gamma/alpha (alpha = 8, gamma = 1/2, sigma = 1: the realised "
    "RDP is 15.21, the truncated bound 0.949)",
    pinned=({"alpha": 8, "gamma": 0.5, "sigma": 1.0},),
)

_CUBIC = _bound_with(3, 1)
mutant_cubic_amplification = gaussian.mutant(
    "cubic_amplification",
    statement=sympy.Le(_REALISED, _CUBIC),
    sides=expanded_sides(_REALISED, _CUBIC),
    explanation="amplification by subsampling is quadratic in gamma, not cubic: at alpha = 2 the realised "
    "pair has D_2 = log(1 + gamma^2 (e^{4/s^2} - 1)) > log(1 + gamma^3 4(e^{4/s^2} - 1)) for gamma < 1/4",
    pinned=({"alpha": 2, "gamma": 0.01, "sigma": 2.0},),
)

CLAIMS = [gaussian, mutant_second_order_only, mutant_cubic_amplification]
