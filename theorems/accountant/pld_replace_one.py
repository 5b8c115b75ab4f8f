"""The PLD accountant under replace-one: never below a neighbouring pair that exists (ids
``accountant.pld.replace_one.*``).

Under replace-one (one record changed; sigma is the noise std over the clipping norm C, and the
clipped sum moves by up to 2C) ``dp.PLDAccountant(relation="replace_one")`` reports
``(lower, upper)`` (docs/math.md, "Replace-one neighbours and fixed-size batches"). The upper end
must lie above the exact tight epsilon of every pair of neighbouring datasets; these claims check
it against the pairs that exist and have exact profiles, each in mpmath and arb:

* ``...gaussian.upper`` / ``.lower``: ``Gaussian(sigma)``, T steps: the replaced record at -C
  against +C gives N(2C) vs N(0) at every step, the worst case; its T-fold profile is the
  Gaussian's at noise ``sigma / (2 sqrt(T))`` (Balle & Wang 2018, arXiv:1805.06530v2, Theorem 8),
  so the bracket must contain that epsilon;
* ``...fixed.upper``: one ``FixedBatchGaussian(b, n, sigma)`` step: every other record equal to
  x' = -x gives ``((1-g) N(0, (s/2)^2) + g N(1, (s/2)^2), N(0, (s/2)^2)``, g = b/n, and its swap:
  the upper end's delta of the worse order (``precise.delta_sampled_gaussian`` at ``(g, s/2)``)
  must be at most delta;
* ``...poisson.upper`` / ``.lower``: one ``SampledGaussian(q, sigma)`` step under replace-one,
  against the two-sided mixture ``((1-q) N(0) + q N(1), (1-q) N(0) + q N(-1))`` (x = +C, x' = -C,
  noise sigma; its profile in closed form below), which is realised and dominates every
  configuration (:mod:`.pld_replace_one_poisson_dominating`): the bracket must contain its epsilon.

Mutants (refuted at pinned, ball-certified points): the upper end of the add/remove accountant
for the same mechanism (sigma not halved under replace-one) for the Gaussian and for fixed
batches; the unsampled Gaussian at sensitivity 2 as the Poisson step's lower end.
"""

import functools

import sympy
from flint import arb

import dpproofs as dp
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise

__all__ = ["CLAIMS", "bracket", "two_sided_delta_precise", "two_sided_delta_ball"]

SOURCE = ("dpproofs PLDAccountant(relation='replace_one') (symmetrised dominating pair: docs/math.md; Gaussian "
          "profile: Balle & Wang 2018, arXiv:1805.06530v2, Thm 8)")

sigma, steps, delta, q, b, n = (sympy.Symbol(name, real=True) for name in ("sigma", "steps", "delta", "q", "b", "n"))
pld_lower = sympy.Function("pld_replace_one_epsilon_lower")
pld_upper = sympy.Function("pld_replace_one_epsilon_upper")
realised_delta = sympy.Function("realised_pair_delta")


def _mechanism(kind, point):
    if kind == "gaussian":
        return dp.Gaussian(float(point["sigma"]))
    if kind == "fixed":
        return dp.FixedBatchGaussian(batch_size=int(point["b"]), dataset_size=int(point["n"]), sigma=float(point["sigma"]))
    return dp.SampledGaussian(float(point["q"]), float(point["sigma"]))


@functools.lru_cache(maxsize=256)
def bracket(kind, key, relation="replace_one"):
    """``epsilon_bounds(delta)`` of the public accountant (``key``: the point's sorted items)."""
    point = dict(key)
    return dp.PLDAccountant(relation=relation).compose(_mechanism(kind, point), int(point.get("steps", 1))).epsilon_bounds(
        float(point["delta"]))


def _end(kind, which, relation="replace_one"):
    def end(point):
        bounds = bracket(kind, tuple(sorted((k, point[k]) for k in point)), relation)
        return bounds.upper if which == "upper" else bounds.lower
    return end


def _zero(value, lower):
    return lower and value == 0


def _gaussian_sides(end, lower=False):
    """``(delta of N(1, (s/(2 sqrt T))^2) vs N(0, .) at end [+ delta if a lower end is 0], delta)``."""

    def precise_side(point, dps):
        e = end(point)
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            s = precise.to_mpf(point["sigma"]) / (2 * precise.mp.sqrt(int(point["steps"])))
            d = precise.to_mpf(point["delta"])
            return precise.delta_gaussian(e, s, dps=dps) + (d if _zero(e, lower) else 0), d

    def ball_side(point, prec):
        e = end(point)
        with ball.precision(prec):
            s = ball.to_arb(point["sigma"]) / (2 * arb(int(point["steps"])).sqrt())
            d = ball.to_arb(point["delta"])
            return ball.delta_gaussian(e, s, prec=prec) + (d if _zero(e, lower) else 0), d

    return Sides(precise_side, ball_side)


def _fixed_sides(end):
    """``(max over both orders of the realised pair's delta at end, delta)``, g = b/n, noise s/2."""

    def precise_side(point, dps):
        e = end(point)
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            g = precise.mp.mpf(int(point["b"])) / int(point["n"])
            s = precise.to_mpf(point["sigma"]) / 2
            return precise.delta_sampled_gaussian(e, g, s, dps=dps), precise.to_mpf(point["delta"])

    def ball_side(point, prec):
        e = end(point)
        with ball.precision(prec):
            g = arb(int(point["b"])) / int(point["n"])
            s = ball.to_arb(point["sigma"]) / 2
            return ball.delta_sampled_gaussian(e, g, s, prec=prec), ball.to_arb(point["delta"])

    return Sides(precise_side, ball_side)


def two_sided_delta_precise(epsilon, q, s, *, dps):
    """Hockey stick at ``epsilon`` of ``((1-q) N(0, s^2) + q N(1, s^2), (1-q) N(0, s^2) + q N(-1, s^2))``.

    The loss increases in the output u; it exceeds epsilon iff ``x = e^{u/s^2}`` exceeds the
    positive root of ``q a x^2 + (1-q)(1-e^eps) x - e^eps q a`` (``a = e^{-1/(2 s^2)}``), so
    ``delta = P(u > t) - e^eps Q(u > t)`` with ``t = s^2 log x``, sums of normal tails."""
    mp = precise.mp
    with mp.workdps(dps + precise.GUARD_DPS):
        eps, q, s = precise.to_mpf(epsilon), precise.to_mpf(q), precise.to_mpf(s)
        a = mp.exp(-1 / (2 * s * s))
        big_b = (1 - q) * (1 - mp.exp(eps))
        root = mp.sqrt(big_b * big_b + 4 * q * q * a * a * mp.exp(eps))
        x = 2 * mp.exp(eps) * q * a / (big_b + root) if big_b >= 0 else (root - big_b) / (2 * q * a)
        t = s * s * mp.log(x)
        tail = lambda m: precise.normal_sf((t - m) / s)  # noqa: E731
        p_tail = (1 - q) * tail(0) + q * tail(1)
        q_tail = (1 - q) * tail(0) + q * tail(-1)
        return max(p_tail - mp.exp(eps) * q_tail, mp.mpf(0))


def two_sided_delta_ball(epsilon, q, s, *, prec):
    """:func:`two_sided_delta_precise` in arb (the threshold through the same root; both forms
    are equal, the one without cancellation is taken by the sign of ``1 - e^eps``)."""
    with ball.precision(prec):
        eps, q, s = ball.to_arb(epsilon), ball.to_arb(q), ball.to_arb(s)
        a = (-1 / (2 * s * s)).exp()
        big_b = (1 - q) * (1 - eps.exp())
        root = (big_b * big_b + 4 * q * q * a * a * eps.exp()).sqrt()
        x = 2 * eps.exp() * q * a / (big_b + root) if float(epsilon) >= 0 else (root - big_b) / (2 * q * a)
        t = s * s * x.log()
        tail = lambda m: ball.normal_sf((t - m) / s)  # noqa: E731
        p_tail = (1 - q) * tail(0) + q * tail(1)
        q_tail = (1 - q) * tail(0) + q * tail(-1)
        return ball.positive_part(p_tail - eps.exp() * q_tail)


def _poisson_sides(end, lower=False):
    """``(delta of the two-sided mixture at end [+ delta if a lower end is 0], delta)``."""

    def precise_side(point, dps):
        e = end(point)
        d = precise.to_mpf(point["delta"])
        return two_sided_delta_precise(e, point["q"], point["sigma"], dps=dps) + (d if _zero(e, lower) else 0), d

    def ball_side(point, prec):
        e = end(point)
        with ball.precision(prec):
            d = ball.to_arb(point["delta"])
            return two_sided_delta_ball(e, point["q"], point["sigma"], prec=prec) + (d if _zero(e, lower) else 0), d

    return Sides(precise_side, ball_side)


SIGMA = Variable("sigma", 0.5, 50.0)
STEPS = Variable("steps", 1, 10000, integer=True)
DELTA = Variable("delta", 1e-10, 1e-3)
BATCH = Variable("b", 1, 1000, integer=True)
DATASET = Variable("n", 1000, 100000, integer=True)

gaussian_upper = Claim(
    id="accountant.pld.replace_one.gaussian.upper",
    source=SOURCE,
    statement=sympy.Le(realised_delta(pld_upper(sigma, steps, delta), sigma / (2 * sympy.sqrt(steps))), delta),
    variables=(SIGMA, STEPS, DELTA),
    title="replace-one PLD upper end for T Gaussian steps >= the exact epsilon at noise sigma/(2 sqrt T)",
    sides=_gaussian_sides(_end("gaussian", "upper")),
    cost=0.5,
)
gaussian_lower = Claim(
    id="accountant.pld.replace_one.gaussian.lower",
    source=SOURCE,
    statement=sympy.Ge(realised_delta(pld_lower(sigma, steps, delta), sigma / (2 * sympy.sqrt(steps)))
                       + delta * sympy.KroneckerDelta(pld_lower(sigma, steps, delta), 0), delta),
    variables=(SIGMA, STEPS, DELTA),
    title="replace-one PLD lower end for T Gaussian steps <= the exact epsilon (the worst case exists)",
    sides=_gaussian_sides(_end("gaussian", "lower"), lower=True),
    cost=0.5,
)
fixed_upper = Claim(
    id="accountant.pld.replace_one.fixed.upper",
    source=SOURCE,
    statement=sympy.Le(realised_delta(pld_upper(b, n, sigma, delta), b / n, sigma / 2), delta),
    variables=(BATCH, DATASET, Variable("sigma", 0.5, 20.0), DELTA),
    title="replace-one PLD upper end for one fixed-size batch step >= the realised pair P1 (and its swap)",
    sides=_fixed_sides(_end("fixed", "upper")),
    cost=0.3,
)
poisson_upper = Claim(
    id="accountant.pld.replace_one.poisson.upper",
    source=SOURCE,
    statement=sympy.Le(realised_delta(pld_upper(q, sigma, delta), q, sigma), delta),
    variables=(Variable("q", 1e-3, 0.5), Variable("sigma", 0.5, 20.0), DELTA),
    title="replace-one PLD upper end for one Poisson step >= the realised two-sided mixture",
    sides=_poisson_sides(_end("poisson", "upper")),
    cost=0.3,
)

poisson_lower = Claim(
    id="accountant.pld.replace_one.poisson.lower",
    source=SOURCE,
    statement=sympy.Ge(realised_delta(pld_lower(q, sigma, delta), q, sigma)
                       + delta * sympy.KroneckerDelta(pld_lower(q, sigma, delta), 0), delta),
    variables=(Variable("q", 1e-3, 0.5), Variable("sigma", 0.5, 20.0), DELTA),
    title="replace-one PLD lower end for one Poisson step <= the two-sided mixture's epsilon (it dominates: "
    "docs/math.md)",
    sides=_poisson_sides(_end("poisson", "lower"), lower=True),
    cost=0.3,
)
_POISSON_PIN = {"q": 0.1, "sigma": 1.0, "delta": 1e-5}
poisson_lower_unsampled = poisson_lower.mutant(
    "unsampled",
    statement=sympy.Ge(realised_delta(sympy.Function("pld_gaussian_half_sigma_epsilon")(sigma, delta), q, sigma)
                       + delta * sympy.KroneckerDelta(sympy.Function("pld_gaussian_half_sigma_epsilon")(sigma, delta), 0),
                       delta),
    sides=_poisson_sides(lambda point: bracket("gaussian", tuple(sorted({"sigma": point["sigma"], "steps": 1,
                                                                          "delta": point["delta"]}.items()))).lower,
                         lower=True),
    explanation="the Gaussian at sensitivity 2 without sampling (the record always in the batch) is far above "
    "a Poisson step's replace-one epsilon: as a lower end it overstates it",
    pinned=(_POISSON_PIN,),
)

_GAUSSIAN_PIN = {"sigma": 2.0, "steps": 10, "delta": 1e-5}
gaussian_not_halved = gaussian_upper.mutant(
    "sigma_not_halved",
    statement=sympy.Le(realised_delta(sympy.Function("pld_add_remove_epsilon_upper")(sigma, steps, delta),
                                      sigma / (2 * sympy.sqrt(steps))), delta),
    sides=_gaussian_sides(_end("gaussian", "upper", relation="add_remove")),
    explanation="the add/remove accountant's upper end (sensitivity C) is the epsilon at noise sigma/sqrt(T), "
    "half of the replace-one epsilon at sigma/(2 sqrt(T)): changing one record moves the sum by 2C",
    pinned=(_GAUSSIAN_PIN,),
)
_FIXED_PIN = {"b": 100, "n": 1000, "sigma": 1.0, "delta": 1e-5}
fixed_as_poisson_add_remove = fixed_upper.mutant(
    "read_as_poisson_add_remove",
    statement=sympy.Le(realised_delta(sympy.Function("pld_poisson_add_remove_epsilon_upper")(b, n, sigma, delta),
                                      b / n, sigma / 2), delta),
    sides=_fixed_sides(lambda point: bracket("poisson", tuple(sorted({"q": int(point["b"]) / int(point["n"]),
                                                                      "sigma": point["sigma"],
                                                                      "delta": point["delta"]}.items())),
                                             "add_remove").upper),
    explanation="feeding q = b/n to the Poisson add/remove accountant (the common shortcut) gives an epsilon "
    "below the fixed-batch replace-one pair P1 that exists: its sensitivity is 2C, not C",
    pinned=(_FIXED_PIN,),
)

CLAIMS = [gaussian_upper, gaussian_lower, fixed_upper, poisson_upper, poisson_lower, gaussian_not_halved,
          fixed_as_poisson_add_remove, poisson_lower_unsampled]
