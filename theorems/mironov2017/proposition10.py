"""Mironov 2017 (arXiv 1702.07476v3), Proposition 10: probability preservation.

Statement: for ``alpha > 1``, distributions ``P, Q`` with identical support and any event ``A``,
``P(A) <= (exp(D_alpha(P||Q)) Q(A))^{(alpha-1)/alpha}`` (Hölder).

Ids -> items:

* ``mironov2017.proposition10``: random finite pairs (either order) and a random non-empty event
  ``A``: ``prob_P(pair, A) <= (exp(rdp_pair(alpha, pair)) prob_Q(pair, A))^{(alpha-1)/alpha}``.
* ``mironov2017.proposition10.gaussian``: ``P = N(1, s^2)``, ``Q = N(0, s^2)``, every half-line
  ``A = (t, inf)`` (for the Gaussian pair these are the likelihood-ratio sets).
* ``mironov2017.proposition10.gaussian.mutant.exponent_dropped``: ``P(A) <= exp(D_alpha) Q(A)``
  (refuted: the likelihood ratio on a far tail exceeds ``exp(D_alpha)``), and the same on finite
  pairs, ``mironov2017.proposition10.mutant.exponent_dropped`` (a rare outcome near alpha = 1).
"""

from fractions import Fraction

import sympy

from dpproofs.checker.oracles import finite
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.mironov2017._common import events, pairs, source, structured, sym

__all__ = ["CLAIMS", "normal_cdf"]

SOURCE = source("Prop. 10")

alpha, sigma, t = sym("alpha"), sym("sigma"), sym("t")
pair, A = structured("pair"), structured("A")


def normal_cdf(x):
    """``Phi(x)`` as ``erfc(-x/sqrt2)/2``: no cancellation in the far left tail (ball-friendly)."""
    return sympy.erfc(-x / sympy.sqrt(2)) / 2


ALPHA = Variable("alpha", 1, 64, low_open=True)
_P_A, _Q_A = F["prob_P"](pair, A), F["prob_Q"](pair, A)

statement = Claim(
    id="mironov2017.proposition10",
    source=SOURCE,
    statement=sympy.Le(_P_A, (sympy.exp(F["rdp_pair"](alpha, pair)) * _Q_A) ** ((alpha - 1) / alpha)),
    variables=(ALPHA,),
    # Q(A) > 0: the event has an outcome of the pair (full support); an empty trace is 0 <= 0
    hypotheses=(sympy.Gt(_Q_A, 0),),
    extra={"pair": pairs(), "A": events()},
    kind="support",
    title="P(A) <= (exp(D_alpha(P||Q)) Q(A))^((alpha-1)/alpha), random finite pairs and events",
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

FINITE_MUTANT_PIN = {
    "alpha": 1.01,
    "pair": finite.Pair((Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 100), Fraction(99, 100))),
    "A": finite.Event(frozenset({0})),
}
mutant_finite_exponent_dropped = statement.mutant(
    "exponent_dropped",
    statement=sympy.Le(_P_A, sympy.exp(F["rdp_pair"](alpha, pair)) * _Q_A),
    explanation="near alpha = 1, exp(D_alpha) is about exp(KL), far below the likelihood ratio of a "
    "rare outcome: P = (1/2, 1/2), Q = (1/100, 99/100), A = {0}, alpha = 1.01: P(A)/Q(A) = 50 > "
    "exp(D_alpha) = 5.16",
    pinned=(FINITE_MUTANT_PIN,),
)

CLAIMS = [statement, gaussian, mutant_exponent_dropped, mutant_finite_exponent_dropped]


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
