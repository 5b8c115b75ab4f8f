"""``BoundedRange``: an ``epsilon``-bounded-range step (the exponential mechanism; dp_accounting
main's ``ExponentialMechanismDpEvent``). Its own module for the size of :mod:`dpproofs.mechanisms`;
it registers itself like every mechanism."""

import dataclasses

import numpy as np

from dpproofs import _validate
from dpproofs.math import fast
from dpproofs.math import total_variation as tv
from dpproofs.mechanisms import Mechanism, RandomizedResponse

__all__ = ["BoundedRange"]

#: Relative widening of ``alpha * epsilon^2 / 8`` in float64: two roundings (the square and the
#: product; ``/ 8`` is exact), 2 half-ulps, so 4 half-ulps, then one ``nextafter``.
_ZCDP_WIDEN = 4 * 2.0**-53


@dataclasses.dataclass(frozen=True)
class BoundedRange(Mechanism):
    """A step that is ``epsilon``-bounded range (Durfee & Rogers 2019, arXiv 1905.04273): for every
    two neighbouring inputs (under the relation its ``epsilon`` is stated for), the privacy loss
    ``L = log dP/dQ`` takes its values in an interval ``[t, t + epsilon]``. The exponential
    mechanism that is ``epsilon``-DP (``exp(epsilon u / (2 Delta))``, or ``exp(epsilon u / Delta)``
    for a monotone utility) is ``epsilon``-bounded range: each output's log-ratio is the utility's
    change, of spread at most ``epsilon``, less one normaliser.

    Analysis (an upper bound, not the exponential mechanism's own loss):

    * ``epsilon``-DP: ``E_Q[e^L] = 1`` puts ``0`` in ``[t, t + epsilon]``, so ``|L| <= epsilon``;
      everything :class:`dpproofs.RandomizedResponse` ``(epsilon)`` bounds holds (its pair is the
      worst ``epsilon``-DP pair: Kairouz, Oh & Viswanath 2015, arXiv 1311.0776v4; Mironov 2017,
      arXiv 1702.07476v3, Proposition 5). The PLD accountant uses that pair; the total variation
      and the pure epsilon are its.
    * zCDP ``epsilon^2 / 8`` (Cesar & Rogers 2021, arXiv 2004.07223: bounded range implies it; the
      two lines here prove it): Hoeffding's lemma for ``L`` under ``Q`` (range ``epsilon``) gives
      ``0 = log E_Q[e^L] <= E_Q[L] + epsilon^2 / 8``, i.e. ``KL(Q||P) <= epsilon^2 / 8``, and
      ``KL(P||Q) <= epsilon^2 / 8`` likewise for the swapped pair (loss ``-L``, also of range
      ``epsilon``); Hoeffding for ``L`` under ``P`` at ``alpha - 1 > 0`` gives ``D_alpha(P||Q) =
      log E_P[e^{(alpha - 1) L}] / (alpha - 1) <= KL(P||Q) + (alpha - 1) epsilon^2 / 8 <= alpha
      epsilon^2 / 8``. The RDP curve is the smaller of this and randomized response's.

    dp_accounting main (google/differential-privacy at b5b0286) composes ``min(xi + alpha
    epsilon^2 / 8, epsilon)``, ``xi = r - 1 - log r - epsilon^2 / 8 <= 0``, ``r = epsilon /
    expm1(epsilon)`` (the largest KL of a bounded-range pair is ``r - 1 - log r``): below this
    curve by ``-xi`` where both follow the zCDP line (``1.7e-3`` at ``epsilon = 1``), above it
    where randomized response's RDP is below the zCDP line and below ``epsilon``.

    Args:
        epsilon: the range's width, ``> 0`` (finite).

    Raises:
        InvalidArgument: ``epsilon`` outside ``(0, inf)``.
        InvalidArgumentType: ``epsilon`` not a real number.
    """

    epsilon: float

    def __post_init__(self):
        object.__setattr__(self, "epsilon", _validate.real("epsilon", self.epsilon, 0, low_open=True))

    # the relation changes nothing: the range is the guarantee under the relation accounted

    def _worst_dp_pair(self) -> RandomizedResponse:
        return RandomizedResponse(self.epsilon)

    def rdp_curve(self, orders, relation):
        orders = np.asarray(orders, dtype=np.float64)
        zcdp = orders * (self.epsilon * self.epsilon / 8)
        zcdp = np.nextafter(zcdp * (1 + _ZCDP_WIDEN), np.inf)
        return np.minimum(zcdp, fast.rdp_randomized_response(orders, self.epsilon))

    def rdp_ball(self, order, relation, prec):
        from flint import arb, ctx

        saved = ctx.prec
        ctx.prec = prec
        try:
            epsilon = arb(self.epsilon)
            zcdp = epsilon * epsilon / 8 * arb(order)
        finally:
            ctx.prec = saved
        worst = self._worst_dp_pair().rdp_ball(order, relation, prec)
        return zcdp if zcdp.upper() < worst.upper() else worst  # each encloses an upper bound

    def total_variation(self, relation: str) -> float:
        return tv.randomized_response(self.epsilon)  # epsilon-DP: tanh(eps/2)

    def pure_epsilon(self, relation: str) -> float:
        """``epsilon``: the loss lies in ``[-epsilon, epsilon]`` (the class docstring)."""
        return self.epsilon

    def pld_pairs(self, relation):
        return self._worst_dp_pair().pld_pairs(relation)
