"""Random allocation (balls-in-bins) with Gaussian noise: ONE application is one epoch.

Kept out of :mod:`dpproofs.mechanisms` for its size; it registers itself in the same
:class:`~dpproofs.mechanisms.Mechanism` registry (``from_dict`` finds it once ``dpproofs`` is imported).
"""

import dataclasses
import math

import numpy as np

from dpproofs import _validate
from dpproofs.errors import InvalidArgument, InvalidArgumentType
from dpproofs.math import allocation
from dpproofs.math.pairs import AllocationPair, GaussianPair
from dpproofs.math import total_variation as tv
from dpproofs.mechanisms import Mechanism

__all__ = ["RandomAllocationGaussian", "MAX_ALLOCATION_STEPS"]

#: Largest number of steps per epoch: the add direction's finite sum has min(t, order/2) blocks
#: (independent of t beyond that) and the remove bound one integral, so any t costs the same; the
#: cap keeps ``log t`` and the binomials far inside float64.
MAX_ALLOCATION_STEPS = 10**9


@dataclasses.dataclass(frozen=True)
class RandomAllocationGaussian(Mechanism):
    """One epoch of ``steps`` Gaussian steps (noise multiplier ``sigma``, clipped contributions of
    norm at most 1) in which each record is used in exactly ``k`` of the ``steps`` steps, chosen
    uniformly at random and hidden ("random allocation"; ``k = 1`` is balls-in-bins: the records
    are thrown into ``steps`` batches independently and uniformly). Compose it E times for E epochs
    (each epoch allocates afresh).

    Pair (add/remove, k = 1): ``P = (1/t) sum_i N(e_i, sigma^2 I_t)`` (the record present, in step
    I uniform on 1..t) against ``Q = N(0, sigma^2 I_t)`` (absent), in both orders: the other records
    are the same in both datasets and drop out, and a worst-case record has norm C along one
    direction (Feldman & Shenfeld, arXiv 2502.08202v4, Section 2 reduces random allocation to this
    pair; Chua et al., arXiv 2412.16802, the same pair for balls-and-bins).
    :mod:`dpproofs.math.allocation` states the analysis: ``D_alpha(P||Q)`` is computed EXACTLY at
    integer orders (a finite sum over the partitions of alpha; fractional orders take the next
    integer's value, Rényi divergence being nondecreasing in the order); ``D_alpha(Q||P)`` has no
    closed form and gets this project's integral upper bound (Euler's Gamma integral and a
    quadratic bound on the lognormal's Laplace transform), computed by adaptive quadrature: within
    its tolerance, not certified. The RDP of one epoch is the larger of the two. The PLD accountant
    takes the pair's certified lattice laws (:mod:`dpproofs.accountant.pld.allocation`).

    ``k > 1``: accounted through :meth:`components` (k epochs of 1-of-about-t/k allocation composed,
    of which k-of-t is a post-processing): an upper bound in both accountants; the PLD accountant's
    lower end is then that of the sum of each epoch's outputs (:meth:`pld_lower_post_processing`),
    not tight.

    Refused (a clear :class:`dpproofs.InvalidArgument`): ``relation="replace_one"`` (no analysis of the
    replaced pair) and certified RDP mode (the remove bound is a float64 quadrature).

    ``steps`` integer in ``[1, 10**9]``, ``k`` integer in ``[1, steps]``, ``sigma > 0`` finite.
    """

    steps: int
    sigma: float
    k: int = 1

    def __post_init__(self):
        steps = _validate.integer("steps", self.steps, 1, MAX_ALLOCATION_STEPS)
        object.__setattr__(self, "steps", steps)
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, 0, low_open=True))
        object.__setattr__(self, "k", _validate.integer("k", self.k, 1, steps))

    def refusal(self, accountant, relation):
        if relation != "add_remove":
            return InvalidArgument(
                f"mechanism={self!r} with relation={relation!r} is not supported: the analysis is of the "
                f"add/remove pair ((1/t) sum_i N(e_i, s^2 I), N(0, s^2 I)) and no replace-one pair is "
                f"implemented; allowed: relation='add_remove'"
            )
        return None

    def _require_k1(self):
        if self.k > 1:
            raise InvalidArgument(
                f"mechanism={self!r}: k={self.k!r}: the exact evaluators take k=1 only (k > 1 is accounted "
                f"through its decomposition, components())"
            )

    def components(self):
        """``((RandomAllocationGaussian(m, sigma), count), ...)``: ``k - r`` epochs of 1-of-``floor(t/k)``
        and ``r = t mod k`` of 1-of-``ceil(t/k)``, composed. Random k-of-t allocation is a
        post-processing of that composition (docs/math.md, "Random allocation in the PLD accountant":
        split the t steps into k blocks of those sizes, use the record in one uniform step of each
        block, then permute the t outputs uniformly at random: the record's steps become a uniform
        k-subset, and Q is invariant), so it dominates k-of-t in every divergence, through any
        composition. ``((self, 1),)`` for k = 1."""
        if self.k == 1:
            return ((self, 1),)
        floor, remainder = divmod(self.steps, self.k)
        parts = []
        if self.k - remainder:
            parts.append((RandomAllocationGaussian(floor, self.sigma), self.k - remainder))
        if remainder:
            parts.append((RandomAllocationGaussian(floor + 1, self.sigma), remainder))
        return tuple(parts)

    def pld_components(self):
        return None if self.k == 1 else self.components()

    def pld_lower_post_processing(self):
        """``Gaussian(sigma sqrt(t) / k)``, for ``k > 1``: the sum of the epoch's ``t`` outputs. On
        the realised pair (the record's clipped contribution 1 in one direction, the others 0) it is
        ``N(k, t sigma^2)`` against ``N(0, t sigma^2)`` whichever ``k`` steps the record is in: the
        Gaussian of sensitivity ``k`` and noise ``sigma sqrt(t)``. Its tight epsilon is a lower
        bound of the epoch's (docs/math.md, "k of t steps"). Close where sigma is large (the sum is
        then nearly sufficient): the Gaussian-limit ratio of the two is ``sigma sqrt(e^{1/sigma^2} -
        1)``, 1.066 at sigma = 2 and 1.31 at sigma = 1."""
        from dpproofs.mechanisms import Gaussian

        return None if self.k == 1 else Gaussian(self.sigma * math.sqrt(self.steps) / self.k)

    def rdp_curve(self, orders, relation):
        if relation != "add_remove":
            raise self.refusal("rdp", relation)
        if self.k > 1:  # the decomposition's RDP: additive over the composed parts
            return sum(count * part.rdp_curve(orders, relation) for part, count in self.components())
        orders = np.asarray(orders, dtype=np.float64)
        add = allocation.add_rdp_float(orders, self.steps, self.sigma)
        remove = allocation.remove_rdp_bound_float(orders, self.steps, self.sigma)
        return np.maximum(add, remove)

    def rdp_ball(self, order, relation, prec):
        raise InvalidArgumentType(
            f"mechanism={self!r} has no certified RDP analysis: its remove direction D(Q||P) is bounded by a "
            f"float64 quadrature (dpproofs.math.allocation); use certified=False"
        )

    def rdp_exact(self, alpha, dps):
        """mpmath ``D_alpha(P || Q)`` (the add direction, exact finite sum) at an integer order. The
        remove direction has no exact evaluator here (:meth:`check_exact_order` refuses)."""
        import mpmath

        self._require_k1()
        with mpmath.mp.workdps(dps + 20):
            excess = allocation.add_excess_exact(int(alpha), self.steps, mpmath.mpf(self.sigma), mpmath.expm1, _mpf)
            return +(mpmath.log1p(excess) / (int(alpha) - 1))

    def check_exact_order(self, name, value, order):
        raise InvalidArgument(
            f"{name}={value!r}: the exact evaluator does not support {self!r}: only the add direction "
            f"D(P||Q) of random allocation is exact (dpproofs.math.allocation.add_excess_exact); the remove "
            f"direction has no closed form"
        )

    def total_variation(self, relation: str) -> float:
        if relation != "add_remove":
            return 1.0
        if self.k > 1:  # of the decomposition (a post-processing cannot increase it)
            return tv.composed((part.total_variation(relation), count) for part, count in self.components())
        # TV is jointly convex: TV((1/t) sum_i N(e_i), N(0)) <= TV(N(e_1), N(0)), the Gaussian's at sensitivity 1
        return tv.gaussian(1.0, self.sigma)

    def rdp_dominating(self, relation="add_remove"):
        """``Gaussian(sigma / sqrt(k))``: its RDP ``k alpha / (2 sigma^2)`` bounds both directions of the
        epoch (each of the k parts of :meth:`components` by quasi-convexity, van Erven & Harremoës
        2014, arXiv 1206.2459v2, Thm 13, as :mod:`dpproofs.math.allocation`; additive over the parts),
        at no cost: the PLD accountant's provisional fallback."""
        from dpproofs.mechanisms import Gaussian

        return Gaussian(self.sigma / math.sqrt(self.k))

    def pld_pairs(self, relation):
        """Both directions of the pair (:class:`dpproofs.math.pairs.AllocationPair`), which the PLD
        accountant resolves into certified lattice laws (:mod:`dpproofs.accountant.pld.allocation`)."""
        refused = self.refusal("pld", relation)
        if refused is not None:
            raise refused
        if self.steps == 1:  # one step: the record is in it, the pair is the Gaussian's, exactly
            return {"add": GaussianPair(1.0, self.sigma, "add"), "remove": GaussianPair(1.0, self.sigma, "remove")}
        return {"add": AllocationPair(self.steps, self.sigma, "add"),
                "remove": AllocationPair(self.steps, self.sigma, "remove")}


def _mpf(value):
    import mpmath

    if hasattr(value, "numerator"):
        return mpmath.mpf(value.numerator) / value.denominator
    return mpmath.mpf(value)

