"""The privacy curve of the shipped accountants never understates (ids ``accountant.privacy_curve.*``).

For T applications of the Gaussian mechanism of noise sigma (sensitivity 1), the composition is
exactly mu-GDP with ``mu = sqrt(T)/sigma`` (the T outputs' sufficient statistic is their sum, a
Gaussian of noise ``sigma sqrt(T)`` and shift ``T``, i.e. shift 1 at noise ``sigma/sqrt(T)``; Dong,
Roth & Su 2022, arXiv 1905.02383v3, Def. 2.6 for mu-GDP), so the most powerful test at type-I error ``a`` has power ``Phi(Phi^-1(a) + mu)`` and the
smallest GDP ``mu`` is ``sqrt(T)/sigma``. The statements are what a user calls:

* ``.tpr_pld`` / ``.tpr_rdp``: ``Phi(Phi^-1(fpr) + sqrt(T)/sigma) <= acc.tpr_at_fpr(fpr)`` for
  ``acc = dp.PLDAccountant()`` / ``dp.Accountant()`` composed with ``dp.Gaussian(sigma)`` T times;
* ``.tpr_lower``: ``lower <= Phi(Phi^-1(fpr) + sqrt(T)/sigma)`` of ``dp.PLDAccountant()...tpr_at_fpr_bounds(fpr)``
  (a lower bound on an infimum over every epsilon);
* ``.gdp_upper`` / ``.gdp_lower``: ``lower <= sqrt(T)/sigma <= upper`` of
  ``dp.PLDAccountant().compose(...).gdp_mu_bounds()``.

Mutants (refuted at a pinned point, certified in ball arithmetic):

* ``.tpr_pld.mutant.without_delta``: the same envelope with delta dropped (``delta(eps) = 0``):
  it gives the type-I error itself, far below the power;
* ``.tpr_pld.mutant.mu_halved``: the bound of the composition at twice the noise (mu halved);
* ``.tpr_lower.mutant.at_the_scanned_points``: the lower end read off the lower deltas at the scan's
  epsilons alone (0 and 2^k/32), as if the infimum were attained at one of them: it is above the
  exact power (0.0711 against 0.0656 at the pin);
* ``.gdp_upper.mutant.mu_of_twice_the_noise``: the upper end of the composition at twice the noise.
"""

import functools
import math

import sympy

import dpproofs as dp
from dpproofs.accountant import curve
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = ["CLAIMS", "PIN", "tpr", "tpr_lower", "tpr_lower_at_scanned_points", "gdp"]

SOURCE = ("dpproofs PrivacyAccountant.tpr_at_fpr and gdp_mu_bounds (Dong, Roth & Su 2022, arXiv 1905.02383v3, "
          "Prop. 2.12 and Cor. 2.13), against the T-fold Gaussian's exact trade-off Phi(Phi^-1(a) + sqrt(T)/sigma)")

sigma, steps, fpr = (sympy.Symbol(n, real=True) for n in ("sigma", "T", "fpr"))
accountant_tpr = sympy.Function("accountant_tpr_at_fpr")
accountant_tpr_lower = sympy.Function("accountant_tpr_at_fpr_lower")
scanned_lower = sympy.Function("tpr_lower_at_scanned_points")
gdp_upper = sympy.Function("gdp_mu_upper")
gdp_lower = sympy.Function("gdp_mu_lower")
normal_cdf = sympy.Function("Phi")
normal_ppf = sympy.Function("Phi_inverse")

#: a pinned point: mu = sqrt(10)/2 = 1.58, fpr = 1e-3 (exact power 0.0656)
PIN = {"sigma": 2.0, "T": 10, "fpr": 1e-3}
GDP_PIN = {"sigma": 2.0, "T": 10}


@functools.lru_cache(maxsize=256)
def tpr(kind, sigma_value, steps_value, fpr_value):
    """``tpr_at_fpr(fpr)`` of the public accountant ``kind`` ("pld" | "rdp" | "without_delta")."""
    if kind == "without_delta":
        return curve.tpr_upper(lambda epsilon: 0.0, fpr_value)
    accountant = dp.PLDAccountant() if kind == "pld" else dp.Accountant()
    return accountant.compose(dp.Gaussian(sigma_value), int(steps_value)).tpr_at_fpr(fpr_value)


@functools.lru_cache(maxsize=256)
def tpr_lower(sigma_value, steps_value, fpr_value):
    """The lower end of ``tpr_at_fpr_bounds(fpr)`` of the public PLD accountant."""
    return dp.PLDAccountant().compose(dp.Gaussian(sigma_value), int(steps_value)).tpr_at_fpr_bounds(fpr_value).lower


@functools.lru_cache(maxsize=64)
def tpr_lower_at_scanned_points(sigma_value, steps_value, fpr_value):
    """The mutant: ``min(1, delta_low + e^eps a, 1 - e^-eps (1 - delta_low - a))`` at the scan's
    epsilons only, ``delta_low`` the public PLD accountant's lower delta there."""
    accountant = dp.PLDAccountant().compose(dp.Gaussian(sigma_value), int(steps_value))
    epsilons = [0.0] + [curve.SCAN_START * 2**k for k in range(8)]
    lows = [bracket.lower for bracket in accountant.delta_bounds(epsilons)]
    return min(min(1.0, low + math.exp(e) * fpr_value, 1 - math.exp(-e) * (1 - low - fpr_value))
               for e, low in zip(epsilons, lows))


@functools.lru_cache(maxsize=64)
def gdp(sigma_value, steps_value):
    """``gdp_mu_bounds()`` of the public PLD accountant."""
    return dp.PLDAccountant().compose(dp.Gaussian(sigma_value), int(steps_value)).gdp_mu_bounds()


def _exact_tpr_precise(point):
    mu = precise.mp.sqrt(precise.to_mpf(point["T"])) / precise.to_mpf(point["sigma"])
    a = precise.to_mpf(point["fpr"])
    return precise.mp.ncdf(-precise.mp.sqrt(2) * precise.mp.erfinv(1 - 2 * a) + mu)


def _exact_tpr_ball(point):
    mu = ball.to_arb(point["T"]).sqrt() / ball.to_arb(point["sigma"])
    a = ball.to_arb(point["fpr"])
    # Phi(Phi^-1(a) + mu) = erfc(erfcinv(2a) - mu/sqrt 2) / 2
    return ((2 * a).erfcinv() - mu / ball.to_arb(2).sqrt()).erfc() / 2


def _tpr_sides(value):
    """Sides of ``exact <= value(point)``."""
    def precise_side(point, dps):
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            return _exact_tpr_precise(point), precise.to_mpf(value(point))

    def ball_side(point, prec):
        with ball.precision(prec):
            return _exact_tpr_ball(point), ball.to_arb(value(point))

    return Sides(precise_side, ball_side)


def _lower_sides(value):
    """Sides of ``value(point) <= exact``."""
    def precise_side(point, dps):
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            return precise.to_mpf(value(point)), _exact_tpr_precise(point)

    def ball_side(point, prec):
        with ball.precision(prec):
            return ball.to_arb(value(point)), _exact_tpr_ball(point)

    return Sides(precise_side, ball_side)


def _tpr_of(kind, noise=1):
    return lambda p: tpr(kind, float(p["sigma"]) * noise, int(p["T"]), float(p["fpr"]))


def _mu_sides(left, right):
    """Sides of ``left(point) <= right(point)``, each ``"mu"`` (sqrt(T)/sigma, exact) or a float function."""
    def precise_side(point, dps):
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            mu = precise.mp.sqrt(precise.to_mpf(point["T"])) / precise.to_mpf(point["sigma"])
            return tuple(mu if f == "mu" else precise.to_mpf(f(point)) for f in (left, right))

    def ball_side(point, prec):
        with ball.precision(prec):
            mu = ball.to_arb(point["T"]).sqrt() / ball.to_arb(point["sigma"])
            return tuple(mu if f == "mu" else ball.to_arb(f(point)) for f in (left, right))

    return Sides(precise_side, ball_side)


TPR_VARIABLES = (Variable("sigma", 0.5, 5.0), Variable("T", 1, 100, integer=True),
                 Variable("fpr", 1e-6, 0.99))
_exact = normal_cdf(normal_ppf(fpr) + sympy.sqrt(steps) / sigma)

tpr_pld = Claim(
    id="accountant.privacy_curve.tpr_pld",
    source=SOURCE,
    statement=sympy.Le(_exact, accountant_tpr(sigma, steps, fpr)),
    variables=TPR_VARIABLES,
    kind="statement",
    title="PLDAccountant.tpr_at_fpr of T Gaussians is at least the exact power Phi(Phi^-1(fpr) + sqrt(T)/sigma)",
    sides=_tpr_sides(_tpr_of("pld")),
    pinned=(PIN,),
    cost=0.3,
)
tpr_rdp = Claim(
    id="accountant.privacy_curve.tpr_rdp",
    source=SOURCE,
    statement=sympy.Le(_exact, accountant_tpr(sigma, steps, fpr)),
    variables=TPR_VARIABLES,
    kind="statement",
    title="Accountant (RDP).tpr_at_fpr of T Gaussians is at least the exact power Phi(Phi^-1(fpr) + sqrt(T)/sigma)",
    sides=_tpr_sides(_tpr_of("rdp")),
    pinned=(PIN,),
)
mutant_without_delta = tpr_pld.mutant(
    "without_delta",
    statement=sympy.Le(_exact, accountant_tpr(sigma, steps, fpr) * 0 + fpr),
    sides=_tpr_sides(lambda p: tpr("without_delta", 0.0, 0, float(p["fpr"]))),
    explanation="with delta dropped the envelope is the type-I error itself (eps = 0): 1e-3 against the exact "
    "power 0.0656 at the pin",
    pinned=(PIN,),
)
mutant_mu_halved = tpr_pld.mutant(
    "mu_halved",
    statement=sympy.Le(_exact, accountant_tpr(2 * sigma, steps, fpr)),
    sides=_tpr_sides(_tpr_of("pld", noise=2)),
    explanation="at twice the noise mu is halved: power 0.0106 against the exact 0.0656 at the pin",
    pinned=(PIN,),
)

tpr_lower_claim = Claim(
    id="accountant.privacy_curve.tpr_lower",
    source=SOURCE,
    statement=sympy.Le(accountant_tpr_lower(sigma, steps, fpr), _exact),
    variables=TPR_VARIABLES,
    kind="statement",
    title="PLDAccountant.tpr_at_fpr_bounds of T Gaussians: the lower end is at most Phi(Phi^-1(fpr) + sqrt(T)/sigma)",
    sides=_lower_sides(lambda p: tpr_lower(float(p["sigma"]), int(p["T"]), float(p["fpr"]))),
    pinned=(PIN,),
    cost=0.3,
)
mutant_lower_at_scanned_points = tpr_lower_claim.mutant(
    "at_the_scanned_points",
    statement=sympy.Le(scanned_lower(sigma, steps, fpr), _exact),
    sides=_lower_sides(lambda p: tpr_lower_at_scanned_points(float(p["sigma"]), int(p["T"]), float(p["fpr"]))),
    explanation="an infimum over every epsilon is not attained at the scan's points: read there, the lower "
    "end is 0.0711, above the exact power 0.0656 at the pin",
    pinned=(PIN,),
)

GDP_VARIABLES = (Variable("sigma", 0.5, 4.0), Variable("T", 1, 30, integer=True))
gdp_upper_claim = Claim(
    id="accountant.privacy_curve.gdp_upper",
    source=SOURCE,
    statement=sympy.Le(sympy.sqrt(steps) / sigma, gdp_upper(sigma, steps)),
    variables=GDP_VARIABLES,
    kind="statement",
    title="PLDAccountant.gdp_mu_bounds() of T Gaussians: the upper end is at least sqrt(T)/sigma",
    sides=_mu_sides("mu", lambda p: gdp(float(p["sigma"]), int(p["T"])).upper),
    pinned=(GDP_PIN,),
    cost=0.1,
)
gdp_lower_claim = Claim(
    id="accountant.privacy_curve.gdp_lower",
    source=SOURCE,
    statement=sympy.Le(gdp_lower(sigma, steps), sympy.sqrt(steps) / sigma),
    variables=GDP_VARIABLES,
    kind="statement",
    title="PLDAccountant.gdp_mu_bounds() of T Gaussians: the lower end is at most sqrt(T)/sigma",
    sides=_mu_sides(lambda p: gdp(float(p["sigma"]), int(p["T"])).lower, "mu"),
    pinned=(GDP_PIN,),
    cost=0.1,
)
mutant_gdp_twice_the_noise = gdp_upper_claim.mutant(
    "mu_of_twice_the_noise",
    statement=sympy.Le(sympy.sqrt(steps) / sigma, gdp_upper(2 * sigma, steps)),
    sides=_mu_sides("mu", lambda p: gdp(2 * float(p["sigma"]), int(p["T"])).upper),
    explanation="the composition at twice the noise is (mu/2)-GDP: its upper end 0.79 is below mu = 1.58 at the pin",
    pinned=(GDP_PIN,),
)

CLAIMS = [tpr_pld, tpr_rdp, mutant_without_delta, mutant_mu_halved, tpr_lower_claim, mutant_lower_at_scanned_points,
          gdp_upper_claim, gdp_lower_claim,
          mutant_gdp_twice_the_noise]



# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen).


def _figure_trade_off(path):
    """The power bound of 10 Gaussian steps at sigma = 2 (PLD and RDP) beside the exact mu-GDP curve."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    rates = [10 ** (-4 + 4 * i / 8) for i in range(9)]
    exact = [float(_exact_tpr_precise({"sigma": 2.0, "T": 10, "fpr": a})) for a in rates]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.semilogx(rates, exact, "k-", label="exact: Phi(Phi^-1(fpr) + sqrt(10)/2)")
    ax.semilogx(rates, [tpr("pld", 2.0, 10, a) for a in rates], "o", ms=4, label="PLDAccountant.tpr_at_fpr")
    ax.semilogx(rates, [tpr("rdp", 2.0, 10, a) for a in rates], "s--", ms=3, label="Accountant.tpr_at_fpr (RDP)")
    ax.set_xlabel("false-positive rate (type-I error)")
    ax.set_ylabel("power bound (TPR)")
    ax.legend(fontsize=8)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_privacy_curve_trade_off.png", "The power bound (TPR at FPR) of 10 Gaussian steps "
                   "at sigma = 2, PLD and RDP, beside the exact mu-GDP trade-off curve", _figure_trade_off),)


FIGURES = _figures()
