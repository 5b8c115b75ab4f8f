"""The PLD accountant's bracket contains the exact tight epsilon (ids ``accountant.pld.*``).

For a composition ``M`` and ``delta``, ``dp.PLDAccountant().epsilon_bounds(delta)`` returns
``(lower, upper)``; the tight epsilon ``eps*`` is the smallest epsilon with ``delta_M(eps) <= delta``
(``delta_M`` the composed hockey-stick divergence, max over the add/remove directions), and
``delta_M`` is non-increasing, so the bracket contains ``eps*`` iff

    delta_M(upper) <= delta        and        delta_M(lower) + delta [lower = 0] >= delta

(a lower end of 0 is always valid: eps* >= 0; written with a KroneckerDelta).

Both are checked against exact references: the Gaussian mechanism's T-fold profile in closed form
(Balle & Wang 2018, arXiv:1805.06530v2, Theorem 8, at noise ``sigma / sqrt(T)``), one
Poisson-subsampled Gaussian step in closed form (``dpproofs.math.precise``), and the T-fold
subsampled Gaussian by Bromwich inversion of its moment generating function
(``dpproofs.math.pld_exact``). The first two have arb (ball) evaluations, so their
counterexamples are certified; the third is mpmath only (no arb version of the inversion exists).

Ids -> items:

* ``accountant.pld.gaussian.upper`` / ``.lower``: Gaussian(sigma), T steps, random delta;
* ``accountant.pld.gaussian_large_mu.upper`` / ``.lower``: the same at sigma 1e-8..1e-6 (mu 1e6
  to 3e10, where arb's own erfc loses its accuracy), with mutants each end moved inward by 1e-9 relative
  (``...nudged_inward``);
* ``accountant.pld.one_step.upper`` / ``.lower``: one SampledGaussian(q, sigma) step (in
  ``SLOW_CLAIMS``: tested at pinned points);
* ``accountant.pld.sampled_gaussian.upper`` / ``.lower``: T sampled-Gaussian steps (minutes per
  example: in ``SLOW_CLAIMS``, run by the campaign test, not by ``dpproofs check``);
* mutants (refuted at pinned, ball-certified points): each end moved inward by the bracket's
  width (``...moved_inward``), and the upper end computed with the one-step mass beyond the
  discretisation's tail dropped instead of sent to +inf (``gaussian.upper.mutant.tail_dropped``), and
  the composition of centred buffers read without undoing the centring
  (``gaussian.upper.mutant.uncentred``).
"""

import functools

import numpy as np
import sympy
from flint import arb

import dpproofs as dp
from dpproofs.checker.claims import Claim, Sides, Variable
from dpproofs.math import ball
from dpproofs.math import precise
from dpproofs.math import pld_exact as precise_pld
from dpproofs.accountant.pld import compose as pld_compose
from dpproofs.accountant.pld import discretise as pld_eval

__all__ = ["CLAIMS", "SLOW_CLAIMS", "bracket", "gaussian_upper_without_tail", "gaussian_upper_uncentred"]

SOURCE = "dpproofs PLDAccountant (connect-the-dots: Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, arXiv:2207.04380v1; Gaussian profile: Balle & Wang 2018, arXiv:1805.06530v2, Thm 8)"

sigma, steps, delta, q = (sympy.Symbol(n, real=True) for n in ("sigma", "steps", "delta", "q"))
#: The accountant's bracket ends, and the exact composed hockey stick, as sympy functions.
pld_lower = sympy.Function("pld_epsilon_lower")
pld_upper = sympy.Function("pld_epsilon_upper")
tight_delta = sympy.Function("tight_delta")


@functools.lru_cache(maxsize=512)
def bracket(kind, q_value, sigma_value, steps_value, delta_value):
    """``epsilon_bounds(delta)`` of the public accountant for ``kind`` 'gaussian' or 'sampled'."""
    mechanism = dp.Gaussian(sigma_value) if kind == "gaussian" else dp.SampledGaussian(q_value, sigma_value)
    return dp.PLDAccountant().compose(mechanism, int(steps_value)).epsilon_bounds(delta_value)


@functools.lru_cache(maxsize=64)
def gaussian_upper_without_tail(sigma_value, steps_value, delta_value):
    """Mutant accountant: the upper end with the one-step P-mass beyond 4 noise standard
    deviations dropped (instead of sent to +inf)."""
    pair = pld_eval.GaussianPair(1.0, sigma_value, "add")
    one = pld_eval.discretise(pair, 1e-3 / sigma_value, "upper", tail_z=4.0)
    dropped = pld_eval.OneStep(one.step, one.offset, one.shift, one.masses, 0.0, "upper")
    items = [(dropped, int(steps_value))]
    return pld_compose.compose_fourier(items, pld_compose.choose_tilt(items, delta=delta_value)).epsilon(delta_value)


@functools.lru_cache(maxsize=64)
def gaussian_upper_uncentred(sigma_value, steps_value, delta_value):
    """Mutant accountant: the upper end of a composition whose one-step buffer was centred (rolled
    so that its tilted mean sits at index 0, :func:`dpproofs.accountant.pld.compose.compose_fourier`)
    without rolling the composition back: every loss read ``n c`` cells too low."""
    pair = pld_eval.GaussianPair(1.0, sigma_value, "add")
    one = pld_eval.discretise(pair, 1e-3 / sigma_value, "upper")
    items = [(one, int(steps_value))]
    theta = pld_compose.choose_tilt(items, delta=delta_value)
    good = pld_compose.compose_fourier(items, theta)
    # the centring offset exactly as compose_fourier computes it
    x = pld_compose.tilted_masses(one, theta, float(one.log_mgf([theta])[0]))
    index = (float((x * one.losses()).sum()) / float(x.sum()) - one.offset * one.step) / one.step
    centre = int(steps_value) * (int(round(index)) % len(good.zhat))
    bad = pld_compose.Composed(np.roll(good.zhat, -centre), good.first_loss, good.step, good.theta, good.log_scale,
                               good.error, good.wrapped, good.above, good.infinity, "upper")
    return bad.epsilon(delta_value)


def _end(point, which, shift=0.0):
    b = bracket(point.get("kind", "gaussian"), float(point.get("q", 1.0)), float(point["sigma"]),
                int(point["steps"]), float(point["delta"]))
    width = b.upper - b.lower
    if which == "upper":
        return b.upper - shift * width
    return b.lower + shift * width


def _zero_term(value, point, lower):
    """``delta * KroneckerDelta(lower, 0)``: a lower end of 0 is always valid (eps* >= 0)."""
    return lower and value == 0


def _gaussian_sides(end, lower=False):
    """Sides ``(delta_exact(end(point)) [+ delta if a lower end is 0], delta)`` in mp and arb."""

    def precise_side(point, dps):
        e = end(point)
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            s = precise.to_mpf(point["sigma"]) / precise.mp.sqrt(int(point["steps"]))
            d = precise.to_mpf(point["delta"])
            return precise.delta_gaussian(e, s, dps=dps) + (d if _zero_term(e, point, lower) else 0), d

    def ball_side(point, prec):
        e = end(point)
        with ball.precision(prec):
            s = ball.to_arb(point["sigma"]) / arb(int(point["steps"])).sqrt()
            d = ball.to_arb(point["delta"])
            return ball.delta_gaussian(e, s, prec=prec) + (d if _zero_term(e, point, lower) else 0), d

    return Sides(precise_side, ball_side)


def _one_step_sides(end, lower=False):
    def precise_side(point, dps):
        e = end(dict(point, kind="sampled", steps=1))
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            d = precise.to_mpf(point["delta"])
            value = precise.delta_sampled_gaussian(e, point["q"], point["sigma"], dps=dps)
            return value + (d if _zero_term(e, point, lower) else 0), d

    def ball_side(point, prec):
        e = end(dict(point, kind="sampled", steps=1))
        with ball.precision(prec):
            d = ball.to_arb(point["delta"])
            value = ball.delta_sampled_gaussian(e, point["q"], point["sigma"], prec=prec)
            return value + (d if _zero_term(e, point, lower) else 0), d

    return Sides(precise_side, ball_side)


def _sampled_sides(end, lower=False):
    # mpmath only: the Bromwich inversion has no arb counterpart (reason for ball=None)
    def precise_side(point, dps):
        e = end(dict(point, kind="sampled"))
        value = precise_pld.delta_sampled_gaussian_composed(e, point["q"], point["sigma"], int(point["steps"]))
        with precise.mp.workdps(dps + precise.GUARD_DPS):
            d = precise.to_mpf(point["delta"])
            return precise.mp.mpf(value) + (d if _zero_term(e, point, lower) else 0), d

    return Sides(precise_side, None)


SIGMA = Variable("sigma", 0.5, 50.0)
STEPS = Variable("steps", 1, 100000, integer=True)
DELTA = Variable("delta", 1e-12, 1e-3)
Q = Variable("q", 1e-4, 1.0)

_up = lambda point: _end(point, "upper")  # noqa: E731
_low = lambda point: _end(point, "lower")  # noqa: E731

gaussian_upper = Claim(
    id="accountant.pld.gaussian.upper",
    source=SOURCE,
    statement=sympy.Le(tight_delta(pld_upper(sigma, steps, delta), sigma, steps), delta),
    variables=(SIGMA, STEPS, DELTA),
    kind="statement",
    title="PLDAccountant upper end for T Gaussian steps: delta_exact(upper) <= delta",
    sides=_gaussian_sides(_up),
)
gaussian_lower = Claim(
    id="accountant.pld.gaussian.lower",
    source=SOURCE,
    statement=sympy.Ge(tight_delta(pld_lower(sigma, steps, delta), sigma, steps)
                       + delta * sympy.KroneckerDelta(pld_lower(sigma, steps, delta), 0), delta),
    variables=(SIGMA, STEPS, DELTA),
    kind="statement",
    title="PLDAccountant lower end for T Gaussian steps: delta_exact(lower) >= delta",
    sides=_gaussian_sides(_low, lower=True),
)
one_step_upper = Claim(
    id="accountant.pld.one_step.upper",
    source=SOURCE,
    statement=sympy.Le(tight_delta(pld_upper(q, sigma, 1, delta), q, sigma, 1), delta),
    variables=(Q, Variable("sigma", 0.5, 20.0), DELTA),
    title="PLDAccountant upper end for one SampledGaussian step (closed-form profile)",
    sides=_one_step_sides(_up),
)
one_step_lower = Claim(
    id="accountant.pld.one_step.lower",
    source=SOURCE,
    statement=sympy.Ge(tight_delta(pld_lower(q, sigma, 1, delta), q, sigma, 1)
                       + delta * sympy.KroneckerDelta(pld_lower(q, sigma, 1, delta), 0), delta),
    variables=(Q, Variable("sigma", 0.5, 20.0), DELTA),
    title="PLDAccountant lower end for one SampledGaussian step (closed-form profile)",
    sides=_one_step_sides(_low, lower=True),
)
_SAMPLED_VARS = (Variable("q", 1e-3, 0.1), Variable("sigma", 1.0, 8.0), Variable("steps", 10, 2000, integer=True),
                 Variable("delta", 1e-10, 1e-4))
sampled_upper = Claim(
    id="accountant.pld.sampled_gaussian.upper",
    source=SOURCE,
    statement=sympy.Le(tight_delta(pld_upper(q, sigma, steps, delta), q, sigma, steps), delta),
    variables=_SAMPLED_VARS,
    title="PLDAccountant upper end for T SampledGaussian steps (Bromwich-inversion reference)",
    sides=_sampled_sides(_up),
    cost=200.0,
)
sampled_lower = Claim(
    id="accountant.pld.sampled_gaussian.lower",
    source=SOURCE,
    statement=sympy.Ge(tight_delta(pld_lower(q, sigma, steps, delta), q, sigma, steps)
                       + delta * sympy.KroneckerDelta(pld_lower(q, sigma, steps, delta), 0), delta),
    variables=_SAMPLED_VARS,
    title="PLDAccountant lower end for T SampledGaussian steps (Bromwich-inversion reference)",
    sides=_sampled_sides(_low, lower=True),
    cost=200.0,
)

MUTANT_PIN = {"sigma": 10.0, "steps": 100, "delta": 1e-5}
TAIL_PIN = {"sigma": 1.0, "steps": 1, "delta": 1e-8}

upper_moved_inward = gaussian_upper.mutant(
    "moved_inward",
    statement=sympy.Le(tight_delta(pld_upper(sigma, steps, delta) - (pld_upper(sigma, steps, delta)
                                                                     - pld_lower(sigma, steps, delta)), sigma, steps), delta),
    sides=_gaussian_sides(lambda point: _end(point, "upper", shift=1.0)),
    explanation="the upper end moved down by the bracket's width is the lower end, strictly below eps*",
    pinned=(MUTANT_PIN,),
)
lower_moved_inward = gaussian_lower.mutant(
    "moved_inward",
    statement=sympy.Ge(tight_delta(pld_lower(sigma, steps, delta) + (pld_upper(sigma, steps, delta)
                                                                     - pld_lower(sigma, steps, delta)), sigma, steps), delta),
    sides=_gaussian_sides(lambda point: _end(point, "lower", shift=1.0)),
    explanation="the lower end moved up by the bracket's width is the upper end, strictly above eps*",
    pinned=(MUTANT_PIN,),
)
_no_tail = sympy.Function("pld_epsilon_upper_tail_dropped")
tail_dropped = gaussian_upper.mutant(
    "tail_dropped",
    statement=sympy.Le(tight_delta(_no_tail(sigma, steps, delta), sigma, steps), delta),
    sides=_gaussian_sides(lambda point: gaussian_upper_without_tail(float(point["sigma"]), int(point["steps"]),
                                                                    float(point["delta"]))),
    explanation="the P-mass of N(1, 1) beyond 4 standard deviations (3e-5) exceeds delta = 1e-8: dropping "
    "it instead of sending it to +inf makes the upper end too small",
    pinned=(TAIL_PIN,),
)

_uncentred = sympy.Function("pld_epsilon_upper_uncentred")
uncentred = gaussian_upper.mutant(
    "uncentred",
    statement=sympy.Le(tight_delta(_uncentred(sigma, steps, delta), sigma, steps), delta),
    sides=_gaussian_sides(lambda point: gaussian_upper_uncentred(float(point["sigma"]), int(point["steps"]),
                                                                 float(point["delta"]))),
    explanation="the composition of centred buffers read without undoing the centring: every loss is "
    "n c cells too low, and the upper end falls below the exact epsilon",
    pinned=(MUTANT_PIN,),
)

# Large mu (sensitivity over noise 1e6..3e10, epsilons 5e11..5e20): the closed form's range where
# the arb profile needs the Mills-ratio enclosure of erfc (dpproofs.math.ball.erfc)
_LARGE_MU_VARS = (Variable("sigma", 1e-8, 1e-6), STEPS, DELTA)
LARGE_MU_PIN = {"sigma": 1e-6, "steps": 100, "delta": 1e-6}  # mu = 1e7
large_mu_upper = Claim(
    id="accountant.pld.gaussian_large_mu.upper",
    source=SOURCE,
    statement=gaussian_upper.statement,
    variables=_LARGE_MU_VARS,
    kind="statement",
    title="PLDAccountant upper end for T Gaussian steps at mu = sqrt(T)/sigma from 1e6 to 3e10",
    sides=_gaussian_sides(_up),
)
large_mu_lower = Claim(
    id="accountant.pld.gaussian_large_mu.lower",
    source=SOURCE,
    statement=gaussian_lower.statement,
    variables=_LARGE_MU_VARS,
    kind="statement",
    title="PLDAccountant lower end for T Gaussian steps at mu = sqrt(T)/sigma from 1e6 to 3e10",
    sides=_gaussian_sides(_low, lower=True),
)
#: Relative move of the large-mu mutants: far above the closed form's width (1.8e-12 relative), far
#: below the RDP bound's excess (1 % at the pin), so only a closed-form bracket refutes them.
NUDGE = sympy.Rational(1, 10**9)
large_mu_upper_nudged = large_mu_upper.mutant(
    "nudged_inward",
    statement=sympy.Le(tight_delta(pld_upper(sigma, steps, delta) * (1 - NUDGE), sigma, steps), delta),
    sides=_gaussian_sides(lambda point: _end(point, "upper") * (1 - float(NUDGE))),
    explanation="the upper end 1e-9 relative lower is below eps* at mu = 1e7 (epsilon 5e13): refuted only when "
    "the accountant answers from the closed form and the arb profile keeps its accuracy there (the Mills-ratio "
    "erfc); with arb's own erfc the accountant falls back to the RDP bound, 1 % above, and this mutant holds",
    pinned=(LARGE_MU_PIN,),
)
large_mu_lower_nudged = large_mu_lower.mutant(
    "nudged_inward",
    statement=sympy.Ge(tight_delta(pld_lower(sigma, steps, delta) * (1 + NUDGE), sigma, steps)
                       + delta * sympy.KroneckerDelta(pld_lower(sigma, steps, delta), 0), delta),
    sides=_gaussian_sides(lambda point: _end(point, "lower") * (1 + float(NUDGE)), lower=True),
    explanation="the lower end 1e-9 relative higher is above eps* at mu = 1e7: refuted only when the accountant "
    "answers from the closed form (the RDP fallback's lower end is 0)",
    pinned=(LARGE_MU_PIN,),
)

#: Checked by ``dpproofs check`` and the docs: each example costs about a second.
CLAIMS = [gaussian_upper, gaussian_lower, upper_moved_inward, lower_moved_inward, tail_dropped, uncentred,
          large_mu_upper, large_mu_lower, large_mu_upper_nudged, large_mu_lower_nudged]
#: Slower: one_step.* (random tiny q, sigma and delta need fine grids: up to tens of seconds per
#: example; tested at pinned points) and sampled_gaussian.* (minutes per example: two Bromwich
#: inversions of tens of mpmath quadratures each; campaign test only).
SLOW_CLAIMS = [one_step_upper, one_step_lower, sampled_upper, sampled_lower]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the public PLDAccountant's bracket against the RDP
# accountant's bound, as a user computes both.


def _figure_bracket_vs_rdp(path):
    """PLDAccountant bracket against the RDP bound for the Abadi configuration."""
    import dpproofs as dp
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    steps = [1000, 2500, 5000, 10000, 20000, 40000]
    lower, upper, rdp = [], [], []
    for t in steps:
        bounds = dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 4.0), t).epsilon_bounds(1e-5)
        lower.append(bounds.lower)
        upper.append(bounds.upper)
        rdp.append(dp.Accountant().compose(dp.SampledGaussian(0.01, 4.0), t).epsilon(1e-5))
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(steps, rdp, "k--", label="RDP (dp.Accountant)")
    ax.fill_between(steps, lower, upper, color="C0", alpha=0.4)
    ax.plot(steps, upper, "C0", label="PLDAccountant bracket (width <= 1e-3 relative)")
    ax.set_xlabel("steps T (q = 0.01, sigma = 4, delta = 1e-5)")
    ax.set_ylabel("epsilon")
    ax.legend(fontsize=8)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("accountant_pld_bracket.png", "PLDAccountant bracket against the RDP bound for the Abadi "
                   "configuration", _figure_bracket_vs_rdp),)


FIGURES = _figures()
