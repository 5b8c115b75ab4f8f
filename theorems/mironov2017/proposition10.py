"""Mironov 2017 (arXiv 1702.07476v3), Proposition 10: probability preservation.

Statement: for ``alpha > 1``, distributions ``P, Q`` with identical support and any event ``A``,
``P(A) <= (exp(D_alpha(P||Q)) Q(A))^{(alpha-1)/alpha}`` (Hölder).

Ids -> items:

* ``mironov2017.proposition10``: random finite pairs, *every* event, both orders; checked as
  ``max_A P(A) / (exp(D_alpha) Q(A))^{(alpha-1)/alpha} <= 1`` (the max over all events is taken in
  mp and in ball arithmetic alike).
* ``mironov2017.proposition10.gaussian``: ``P = N(1, s^2)``, ``Q = N(0, s^2)``, every half-line
  ``A = (t, inf)`` (for the Gaussian pair these are the likelihood-ratio sets).
* ``mironov2017.proposition10.mutant.exponent_dropped``: ``P(A) <= exp(D_alpha) Q(A)`` (refuted:
  the likelihood ratio on a far tail exceeds ``exp(D_alpha)``).
"""

import sympy
from flint import arb

from dpproofs import finite
from dpproofs.claims import Claim, Sides, Variable
from dpproofs.evaluator import ball, precise

from dpproofs_theorems.mironov2017._common import arb_of, mp_of, source, sym

__all__ = ["CLAIMS", "normal_cdf", "preservation_ratio", "preservation_ratio_ball"]

SOURCE = source("Prop. 10")

alpha, sigma, t = sym("alpha"), sym("sigma"), sym("t")


def normal_cdf(x):
    """``Phi(x)`` as ``erfc(-x/sqrt2)/2``: no cancellation in the far left tail (ball-friendly)."""
    return sympy.erfc(-x / sympy.sqrt(2)) / 2


def preservation_ratio(pair, alpha_value, dps, exponent=True):
    """``max_A P(A) / (exp(D_alpha(P||Q)) Q(A))^{(alpha-1)/alpha}`` over every non-empty event,
    in both orders of the pair (mp). ``exponent=False`` drops the power (the mutant)."""
    with precise.mp.workdps(dps + precise.GUARD_DPS):
        a = precise.to_mpf(alpha_value)
        best = precise.mp.zero
        for p in (pair, pair.swapped()):
            bound_factor = precise.mp.exp(finite.rdp(p, a, dps))
            for event in finite.events(p)[1:]:
                p_a = mp_of(finite.probability(p.p, event), dps)
                q_a = mp_of(finite.probability(p.q, event), dps)
                bound = bound_factor * q_a
                if exponent:
                    bound = bound ** ((a - 1) / a)
                best = max(best, p_a / bound)
        return best


def preservation_ratio_ball(pair, alpha_value, prec, exponent=True):
    """Enclosure of :func:`preservation_ratio` (arb max over the same events)."""
    with ball.precision(prec):
        a = ball.to_arb(alpha_value)
        best = arb(0)
        for p in (pair, pair.swapped()):
            bound_factor = finite.rdp_ball(p, a, prec).exp()
            for event in finite.events(p)[1:]:
                p_a = arb_of(finite.probability(p.p, event), prec)
                q_a = arb_of(finite.probability(p.q, event), prec)
                bound = bound_factor * q_a
                if exponent:
                    bound = ((a - 1) / a * bound.log()).exp()
                best = best.max(p_a / bound)
        return best


def _finite_sides(exponent):
    return Sides(
        lambda point, dps: (preservation_ratio(point["pair"], point["alpha"], dps, exponent), precise.mp.mpf(1)),
        lambda point, prec: (preservation_ratio_ball(point["pair"], point["alpha"], prec, exponent), arb(1)),
    )


PAIRS = {"pair": finite.pairs(min_size=2, max_size=5)}
ALPHA = Variable("alpha", 1, 64, low_open=True)

statement = Claim(
    id="mironov2017.proposition10",
    source=SOURCE,
    statement=sympy.Le(sympy.Symbol("max_A_ratio"), 1),
    variables=(ALPHA,),
    extra=PAIRS,
    kind="support",
    title="P(A) <= (exp(D_alpha(P||Q)) Q(A))^((alpha-1)/alpha), random finite pairs, every event",
    sides=_finite_sides(True),
)

_tail_p = normal_cdf((1 - t) / sigma)  # P = N(1, s^2), A = (t, inf)
_tail_q = normal_cdf(-t / sigma)  # Q = N(0, s^2)
_d_alpha = alpha / (2 * sigma**2)  # Prop. 7

gaussian = Claim(
    id="mironov2017.proposition10.gaussian",
    source=SOURCE,
    statement=sympy.Le(_tail_p, (sympy.exp(_d_alpha) * _tail_q) ** ((alpha - 1) / alpha)),
    variables=(ALPHA, Variable("sigma", 0.1, 20), Variable("t", -30, 60)),
    kind="support",
    title="Prop. 10 for N(1, s^2) vs N(0, s^2) on every half-line (t, inf)",
)

GAUSSIAN_MUTANT_PIN = {"alpha": 2.0, "sigma": 1.0, "t": 5.0}
mutant_exponent_dropped = gaussian.mutant(
    "exponent_dropped",
    statement=sympy.Le(_tail_p, sympy.exp(_d_alpha) * _tail_q),
    explanation="without the power (alpha-1)/alpha the bound is a likelihood-ratio bound exp(D_alpha), "
    "but the Gaussian ratio on (t, inf) grows like e^{(2t-1)/(2 s^2)} (alpha=2, s=1, t=5: "
    "P/Q = 110 > e)",
    pinned=(GAUSSIAN_MUTANT_PIN,),
)

CLAIMS = [statement, gaussian, mutant_exponent_dropped]


# --- figures (docs) ---------------------------------------------------------------------------------
# Drawn by `dpproofs report` (dpproofs.docgen): the two sides of the Gaussian half-line claim as the
# checker evaluates them (Claim.evaluate).


def _figure_preservation(path):
    """Probability preservation on Gaussian half-lines."""
    from dpproofs.docgen import pyplot, save

    plt = pyplot()
    claim = next(c for c in CLAIMS if c.id == "mironov2017.proposition10.gaussian")
    sigma_value, alphas = 1.0, (1.5, 2.0, 8.0)
    ts = [-2 + 8 * i / 79 for i in range(80)]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    left = [float(claim.evaluate({"alpha": 2.0, "sigma": sigma_value, "t": t_value}, 20)[0]) for t_value in ts]
    ax.semilogy(ts, left, "k", label="P(A) = Pr[N(1, 1) > t]")
    for a in alphas:
        right = [float(claim.evaluate({"alpha": a, "sigma": sigma_value, "t": t_value}, 20)[1]) for t_value in ts]
        ax.semilogy(ts, right, "--", label=f"Prop. 10 bound, alpha = {a}")
    ax.set_xlabel("t (event A = (t, inf))")
    ax.legend(fontsize=8)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("proposition10_preservation.png", "Probability preservation on Gaussian half-lines",
                   _figure_preservation),)


FIGURES = _figures()
