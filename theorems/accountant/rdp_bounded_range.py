"""The accountant's ``BoundedRange(epsilon)`` curve (the exponential mechanism) is at least the
exact Rényi divergence of every two-point ``epsilon``-bounded-range pair. (Named after
:mod:`.rdp`, so that the ``accountant.rdp`` page keeps that module's figures.)

An ``epsilon``-bounded-range pair (Durfee & Rogers 2019, arXiv 1905.04273) has its privacy loss
``L = log dP/dQ`` in ``[t, t + epsilon]``; ``E_Q[e^L] = 1`` fixes ``t`` once ``L``'s law is chosen.
With ``L`` at the two ends, ``Q``-mass ``p`` at the top: ``t = -log(1 - p + p e^epsilon)`` and
``D_alpha(P||Q) = log((1 - p) e^{alpha t} + p e^{alpha (t + epsilon)}) / (alpha - 1)``. For a fixed
``t`` these are the extreme laws (``e^{alpha L}`` is convex in ``e^L``, whose ``Q``-mean is 1), so
the two-point family holds the worst bounded-range pairs; the swapped pair is in it too (``p`` to
``1 - (1 - p) e^t``). Ids (``accountant.rdp.bounded_range`` + suffix):

* ``.two_point``: ``Accountant([alpha]).compose(BoundedRange(epsilon)).rdp[0]``, with the
  documented inflation, ``>=`` that divergence, at every ``p`` in the box (the curve is
  ``min(alpha epsilon^2 / 8, randomized response's)``: Hoeffding's lemma, the class docstring);
* mutant ``.two_point.mutant.half``: half the curve (``alpha epsilon^2 / 16``, the zCDP constant
  halved) is refuted at ``alpha = 2, epsilon = 0.1, p = 1/2``.
"""

import functools

import sympy

from dpproofs.accountant.rdp import Accountant
from dpproofs.checker import vocabulary
from dpproofs.checker.claims import Claim
from dpproofs.errors import InvalidArgument, OutsideDomain
from dpproofs.mechanisms_bounded_range import BoundedRange

from dpproofs_theorems.accountant._common import ACCOUNTANT, F, RDP_INFLATION, variable

__all__ = ["CLAIMS", "HALF_PIN"]

BOUNDED_RANGE = ("Durfee & Rogers 2019 (arXiv 1905.04273), bounded range; Cesar & Rogers 2021 "
                 "(arXiv 2004.07223), bounded range implies epsilon^2/8-zCDP")


@functools.lru_cache(maxsize=256)
def _curve(alpha, epsilon):
    return float(Accountant((alpha,)).compose(BoundedRange(epsilon)).rdp[0])


def _accountant_rdp_bounded_range(alpha, epsilon):
    try:
        return _curve(alpha, epsilon)
    except InvalidArgument as refusal:
        raise OutsideDomain(f"accountant_rdp_bounded_range: {refusal}") from refusal


vocabulary.register_float(
    "accountant_rdp_bounded_range", _accountant_rdp_bounded_range, "ff",
    domain=(("alpha", ()), ("epsilon", ())),
    doc="Accountant([alpha]).compose(BoundedRange(epsilon)).rdp[0]")

ALPHA, alpha = variable("alpha", 1.01, 1000)
EPSILON, epsilon = variable("epsilon", 1e-3, 10)
P, p = variable("p", 1e-6, 1 - 1e-6)

t = -sympy.log(1 - p + p * sympy.exp(epsilon))
TWO_POINT = sympy.log((1 - p) * sympy.exp(alpha * t) + p * sympy.exp(alpha * (t + epsilon))) / (alpha - 1)
CURVE = F["accountant_rdp_bounded_range"](alpha, epsilon)

two_point = Claim(
    id="accountant.rdp.bounded_range.two_point",
    source=f"{ACCOUNTANT}; {BOUNDED_RANGE}",
    statement=sympy.Ge(CURVE * RDP_INFLATION, TWO_POINT),
    variables=(ALPHA, EPSILON, P),
    kind="statement",
    title="bounded range: the accountant's inflated curve >= every two-point bounded-range pair's Rényi divergence",
    explanation=(
        "the curve is min(alpha eps^2/8, randomized response's RDP): Hoeffding's lemma bounds every "
        "eps-bounded-range pair by the first, and such a pair is eps-DP, bounded by the second. The two-point "
        "pairs are the worst for each range [t, t + eps]. The inflation is 1 + fast.RTOL + 3 2^-52 (the "
        "documented one)."),
    cost=0.2,
)

HALF_PIN = {"alpha": 2, "epsilon": 0.1, "p": 0.5}
mutant_half = two_point.mutant(
    "half",
    statement=sympy.Ge(CURVE * RDP_INFLATION / 2, TWO_POINT),
    explanation="half the curve (alpha eps^2 / 16): refuted at alpha = 2, eps = 0.1, p = 1/2 (the pair's "
                "divergence is 2.5e-3, half the curve 1.25e-3)",
    pinned=(HALF_PIN,),
)

CLAIMS = [two_point, mutant_half]
