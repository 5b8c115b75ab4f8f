"""Wang, Balle & Kasiviswanathan 2019 (arXiv 1808.00087v2), Proposition 11: the general lower bound
for sampling without replacement under replace-one.

Statement (as transcribed: integer ``alpha >= 2``, ``gamma = m/n``; the base's ``eps(j)`` attained by
one pair of neighbouring batches ``(P, Q)`` at every order, and a dataset whose other records make
every batch without the replaced record output ``Q``): the subsampled mechanism's RDP is at least

``1/(alpha-1) log((1-gamma)^{alpha-1}(alpha gamma - gamma + 1)
+ sum_{j=2}^{alpha} C(alpha,j) gamma^j (1-gamma)^{alpha-j} e^{(j-1) eps(j)})``,

the Renyi divergence of the realised pair ``((1-gamma) Q + gamma P, Q)``.

Provenance (2026-12-02): not compared with the printed text (see :mod:`dpproofs_theorems.wang2019`).
The number, Proposition 11 of arXiv v2, is the one the issue's review of the sources gives and the
one a public transcription that says it was checked against the arXiv v2 and PMLR PDFs gives; that
transcription prints the same bound in the form ``alpha/(alpha-1) log(1-gamma) + 1/(alpha-1) log(1 +
alpha gamma/(1-gamma) + sum_{j>=2} C(alpha,j) (gamma/(1-gamma))^j e^{(j-1) eps(j)})``, equal term
by term to the one above; its exact hypotheses (which pairs must attain ``eps(j)``) are not
confirmed. The claims check the equality at configurations that realise it, which holds whatever
the printed hypotheses are.

Checked as that equality at the realising configuration (a lower bound on the supremum over
configurations):

* ``wang2019.lower_bound.gaussian``: the Gaussian sum query, ``P1 = ((1-g) N(0) + g N(2), N(0))``
  (every other record equal to ``x'``, ``x = -x'``): ``rdp_sampled_gaussian_add(alpha, gamma, sigma/2)
  == lower bound`` with ``eps(j) = 2j/sigma^2``;
* ``wang2019.lower_bound.randomized_response``: randomized response on the parity of the batch
  (truthful w.p. ``k/20``), ``D = (1, 0, ..., 0)``, ``D' = (0, ..., 0)``, batch ``b`` of ``n``:
  ``rdp_pair(alpha, instance_pair(inst)) == lower bound`` with ``eps(j) = base_rdp(j, inst)``;
* mutant ``.gaussian.mutant.linear_in_gamma``: the lower bound read as
  ``alpha/(alpha-1) log(1 - gamma + gamma e^{eps(alpha)})`` (first order in gamma; refuted at
  alpha = 2, gamma = 0.01, sigma = 4).
"""

from fractions import Fraction

import sympy
from hypothesis import strategies as st

from dpproofs.checker.oracles import subsampled
from dpproofs.checker.claims import Claim, Variable
from dpproofs.checker.vocabulary import NAMESPACE as F

from dpproofs_theorems.wang2019._common import expanded_sides, lower_bound, source, structured

__all__ = ["CLAIMS", "realising_instances"]

SOURCE = source("Proposition 11 (general lower bound, sampling without replacement)")

ALPHA = Variable("alpha", 2, 40, integer=True)
GAMMA = Variable("gamma", 1e-3, 1, log_scale=True)
SIGMA = Variable("sigma", 0.5, 20)
alpha, gamma, sigma = ALPHA.symbol, GAMMA.symbol, SIGMA.symbol


def _gaussian_eps(order):
    return F["rdp_gaussian"](order, sigma / 2)


_P1 = F["rdp_sampled_gaussian_add"](alpha, gamma, sigma / 2)
_LOWER = lower_bound(alpha, gamma, _gaussian_eps)

gaussian = Claim(
    id="wang2019.lower_bound.gaussian",
    source=SOURCE,
    statement=sympy.Eq(_P1, _LOWER),
    variables=(ALPHA, GAMMA, SIGMA),
    sides=expanded_sides(_P1, _LOWER),
    title="The lower bound is the Renyi divergence of the realised pair P1 = ((1-g)N(0) + gN(2), N(0))",
)

_LINEAR = alpha / (alpha - 1) * sympy.log(1 - gamma + gamma * sympy.exp(_gaussian_eps(alpha)))
mutant_linear_in_gamma = gaussian.mutant(
    "linear_in_gamma",
    statement=sympy.Eq(_P1, _LINEAR),
    sides=expanded_sides(_P1, _LINEAR),
    explanation="a bound of first order in gamma is not attained: amplification by subsampling is of "
    "second order (alpha = 2, gamma = 0.01, sigma = 4: 2.84e-5 realised against 5.67e-3)",
    pinned=({"alpha": 2, "gamma": 0.01, "sigma": 4.0},),
)


@st.composite
def realising_instances(draw, max_n=5, max_b=3):
    """Randomized response on the parity, ``D = (1, 0, ..., 0)``, ``D' = (0, ..., 0)``, b of n."""
    n = draw(st.integers(1, max_n))
    b = draw(st.integers(1, min(max_b, n)))
    # keep = 1/2 is the constant mechanism (both sides 0; the mp evaluation of log(1) of a sum of
    # rounded terms is a rounding-sized number no ball can separate from 0): left out
    keep = Fraction(draw(st.integers(1, 19).filter(lambda k: k != 10)), 20)
    d = (1,) + (0,) * (n - 1)
    return subsampled.Subsampled(subsampled.randomized_response(keep), d, (0,) * n, "fixed", batch_size=b)


F_ALPHA = Variable("alpha", 2, 12, integer=True)
inst = structured("inst")
_REALISED = F["rdp_pair"](F_ALPHA.symbol, F["instance_pair"](inst))
_F_LOWER = lower_bound(F_ALPHA.symbol, F["sampling_fraction"](inst), lambda j: F["base_rdp"](j, inst))

randomized_response = Claim(
    id="wang2019.lower_bound.randomized_response",
    source=SOURCE,
    statement=sympy.Eq(_REALISED, _F_LOWER),
    variables=(F_ALPHA,),
    extra={"inst": realising_instances()},
    sides=expanded_sides(_REALISED, _F_LOWER),
    title="The lower bound is attained by randomized response on the parity at D = (1, 0, ..., 0)",
    cost=0.5,
)

CLAIMS = [gaussian, mutant_linear_in_gamma, randomized_response]


# --- figures (docs) ---------------------------------------------------------------------------------


def _figure_lower_and_upper(path):
    """The lower bound (= the realised P1) and Theorem 9's upper bound over the sampling fraction."""
    from dpproofs.docgen import pyplot, save

    from dpproofs_theorems.wang2019 import theorem9

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.6))
    gammas = [10 ** (-3 + 3 * i / 40) for i in range(41)]
    for a in (2, 8, 32):
        points = [{"alpha": a, "gamma": g, "sigma": 2.0} for g in gammas]
        low = [float(gaussian.evaluate(p, 20)[1]) for p in points]
        up = [float(theorem9.gaussian.evaluate(p, 20)[1]) for p in points]
        line, = ax.loglog(gammas, low, "-", label=f"lower bound, alpha = {a}")
        ax.loglog(gammas, up, "--", color=line.get_color(), label=f"Theorem 9, alpha = {a}")
    ax.set_xlabel("gamma = b/n (sigma = 2)")
    ax.set_ylabel("RDP of one step")
    ax.legend(fontsize=7)
    save(fig, path)


def _figures():
    from dpproofs.docgen import Figure

    return (Figure("wang2019_lower_vs_upper.png",
                   "The general lower bound (attained by P1) and Theorem 9's upper bound for the Gaussian, "
                   "over the sampling fraction", _figure_lower_and_upper),)


FIGURES = _figures()
