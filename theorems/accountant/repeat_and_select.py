"""The accountant's repeat-and-select curve (``dpproofs.RepeatAndSelect``) is at least what
Papernot & Steinke's Theorem 2 gives for a Gaussian run.

Papernot & Steinke 2022 ("Hyperparameter tuning with Renyi differential privacy", arXiv
2110.03620v2), Theorem 2: a run of RDP ``eps(lambda)`` repeated a truncated-negative-binomial
``K ~ TNB(eta, gamma)`` times, the best run released, is ``(lambda, eps')``-RDP with
``eps' = eps(lambda) + (1 + eta)(1 - 1/lambda_hat) eps(lambda_hat) + (1 + eta) log(1/gamma)/lambda_hat
+ log(E[K])/(lambda - 1)`` for every ``lambda_hat >= 1``. For the Gaussian, ``eps(lambda) = rho
lambda`` with ``rho = 1/(2 sigma^2)``; the smallest such bound over ``lambda_hat >= 1`` and, RDP
being nondecreasing in the order, over the orders ``lambda' >= lambda`` (both minima in closed
form, Corollary 4) is the claim's right side, with ``gamma`` the exact root of the mean
(:func:`tnb_gamma`, mpmath). Ids (``accountant.rdp.repeat_and_select`` + suffix):

* ``_gaussian``: ``Accountant([alpha]).compose(RepeatAndSelect(((Gaussian(sigma), 1),), mean,
  eta)).rdp[0]``, with the documented inflation, ``>=`` that bound;
* mutant ``_gaussian.mutant.no_log_mean``: an accountant that dropped ``log(mean)/(lambda - 1)`` is
  refuted (at ``alpha = 2, sigma = 1, mean = 10, eta = 1`` the term is ``log 10``).
"""

import functools

import mpmath
import sympy

from dpproofs import mechanisms
from dpproofs.accountant.rdp import Accountant
from dpproofs.checker import vocabulary
from dpproofs.checker.claims import Claim
from dpproofs.errors import InvalidArgument, OutsideDomain

from dpproofs_theorems.accountant._common import ACCOUNTANT, F, RDP_INFLATION, variable

__all__ = ["CLAIMS", "NO_LOG_MEAN_PIN"]

PAPERNOT_STEINKE = "Papernot & Steinke 2022 (arXiv 2110.03620v2), Theorem 2 and Corollary 4"


@functools.lru_cache(maxsize=64)
def _curve(alpha, sigma, mean, shape):
    mechanism = mechanisms.RepeatAndSelect(((mechanisms.Gaussian(sigma), 1),), mean, shape)
    return float(Accountant((alpha,)).compose(mechanism).rdp[0])


def _accountant_rdp_repeat_select_gaussian(alpha, sigma, mean, shape):
    try:
        return _curve(alpha, sigma, mean, shape)
    except InvalidArgument as refusal:
        raise OutsideDomain(f"accountant_rdp_repeat_select_gaussian: {refusal}") from refusal


def _tnb_gamma(mean, shape, dps):
    """The ``gamma`` of ``TNB(shape, gamma)`` with mean ``mean`` (Definition 1): the root of the
    mean, decreasing in ``gamma`` on ``(0, 1]``, by bisection to ``dps + 10`` digits (``1`` at
    mean 1)."""
    with mpmath.workdps(dps + 10):
        mean, shape = mpmath.mpf(mean), mpmath.mpf(shape)
        if mean == 1:
            return mpmath.mpf(1)
        low, high = 1 / (2 * mean), mpmath.mpf(1)
        while mechanisms._tnb_mean(low, shape, mpmath) < mean:
            low /= 2
        for _ in range(int((dps + 12) * 3.33) + 8):
            middle = (low + high) / 2
            if mechanisms._tnb_mean(middle, shape, mpmath) >= mean:
                low = middle
            else:
                high = middle
        return (low + high) / 2


class _ArbOps:
    """The two functions :func:`dpproofs.mechanisms._tnb_mean` asks of its backend, on arb balls."""

    @staticmethod
    def log(x):
        return x.log()

    @staticmethod
    def expm1(x):
        return x.expm1()


def _tnb_gamma_ball(mean, shape, prec):
    """An arb enclosure of :func:`_tnb_gamma`: the mpmath bracket ``[low, high]`` certified by the
    mean evaluated in arb at ``prec`` bits (``mean(low) >= mean >= mean(high)``, decreasing)."""
    from flint import arb, ctx

    if not (mean.is_exact() and shape.is_exact()):
        raise vocabulary.UnsupportedExpression("tnb_gamma: mean and shape must be exact (float) balls")
    m, eta = float(mean.mid()), float(shape.mid())
    if m == 1:
        return arb(1)
    dps = int(prec / 3.32) + 10
    centre = _tnb_gamma(m, eta, dps)
    with mpmath.workdps(dps + 10):
        step = centre * mpmath.mpf(2) ** (-prec - 8)
        low, high = centre - step, centre + step

    def exact(x):
        man, exp = x.man_exp
        return arb(int(man)) * arb(2) ** int(exp)

    saved = ctx.prec
    ctx.prec = prec + 20
    try:
        low_b, high_b, target = exact(low), exact(high), arb(m)
        eta_b = arb(eta)
        if not (mechanisms._tnb_mean(low_b, eta_b if eta else 0, _ArbOps) >= target
                and mechanisms._tnb_mean(high_b, eta_b if eta else 0, _ArbOps) <= target):
            raise vocabulary.UnsupportedExpression("tnb_gamma: the bracket could not be certified")
        return arb((low_b + high_b) / 2, (high_b - low_b) / 2)
    finally:
        ctx.prec = saved


vocabulary.register_float(
    "accountant_rdp_repeat_select_gaussian", _accountant_rdp_repeat_select_gaussian, "ffff",
    domain=(("alpha", ()), ("sigma", ()), ("mean", ()), ("shape", ())),
    doc="Accountant([alpha]).compose(RepeatAndSelect(((Gaussian(sigma), 1),), mean, shape)).rdp[0]")
vocabulary.register(
    "tnb_gamma", lambda mean, shape, dps: _tnb_gamma(mean, shape, dps), _tnb_gamma_ball,
    domain=(("mean", ((">=", 1),)), ("shape", ((">=", 0),))),
    doc=f"gamma of the truncated negative binomial of this mean and shape ({PAPERNOT_STEINKE}, Definition 1)")

ALPHA, alpha = variable("alpha", 1.01, 1000)
SIGMA, sigma = variable("sigma", 0.3, 100)
MEAN, mean = variable("mean", 1, 1e6)
SHAPE, eta = variable("shape", 0, 5)

rho = 1 / (2 * sigma**2)
log_inv_gamma = -sympy.log(F["tnb_gamma"](mean, eta))
lambda_hat = sympy.Max(1, sympy.sqrt(log_inv_gamma / rho))  # argmin over lambda_hat >= 1 (convex)
lambda_low = sympy.Max(alpha, 1 + sympy.sqrt(sympy.log(mean) / rho))  # argmin over lambda' >= alpha
THEOREM = (rho * lambda_low + sympy.log(mean) / (lambda_low - 1)
           + (1 + eta) * ((lambda_hat - 1) * rho + log_inv_gamma / lambda_hat))
CURVE = F["accountant_rdp_repeat_select_gaussian"](alpha, sigma, mean, eta)

gaussian = Claim(
    id="accountant.rdp.repeat_and_select_gaussian",
    source=f"{ACCOUNTANT}; {PAPERNOT_STEINKE}",
    statement=sympy.Ge(CURVE * RDP_INFLATION, THEOREM),
    variables=(ALPHA, SIGMA, MEAN, SHAPE),
    kind="statement",
    title="repeat-and-select of a Gaussian: the accountant's inflated curve >= Theorem 2's best bound",
    explanation=(
        "the accountant minimises Theorem 2 over a grid of lambda_hat and over the orders it has; the right "
        "side is the theorem's minimum over every lambda_hat >= 1 and every order >= alpha (closed form), "
        "gamma the exact root of the mean. The inflation is 1 + fast.RTOL + 3 2^-52 (the documented one)."),
    cost=0.3,
)

NO_LOG_MEAN_PIN = {"alpha": 2, "sigma": 1, "mean": 10, "shape": 1}
mutant_no_log_mean = gaussian.mutant(
    "no_log_mean",
    statement=sympy.Ge((CURVE - sympy.log(mean) / (alpha - 1)) * RDP_INFLATION, THEOREM),
    explanation="an accountant without the log(mean)/(lambda - 1) term: refuted at alpha = 2, sigma = 1, mean = 10, "
                "eta = 1 (the term is log 10 = 2.3)",
    pinned=(NO_LOG_MEAN_PIN,),
)

CLAIMS = [gaussian, mutant_no_log_mean]
