"""``TruncatedSampledGaussian``: Poisson sampling with the batch cut to a maximum size, then the
Gaussian mechanism (truncated DP-SGD; dp_accounting's ``TruncatedSubsampledGaussianDpEvent``,
emitted by jax_privacy 2.0). Its own module for the size of :mod:`dpproofs.mechanisms`; it
registers itself like every mechanism."""

import dataclasses
import functools

import numpy as np

from dpproofs import _validate
from dpproofs.errors import InvalidArgument
from dpproofs.math import fast
from dpproofs.math import pairs
from dpproofs.math import total_variation as tv
from dpproofs.math import truncation
from dpproofs.mechanisms import Mechanism, SampledGaussian

__all__ = ["TruncatedSampledGaussian", "MAX_RECORDS"]

#: Largest dataset size and batch limit: 2^53, below which every count is an exact float64 (the group
#: placement and the binomial's mean and spread are computed in floats; 10^400 records was an
#: OverflowError there, 10^20 a TypeError).
MAX_RECORDS = 2**53


@dataclasses.dataclass(frozen=True)
class TruncatedSampledGaussian(Mechanism):
    """One step of truncated Poisson sampling: each of the ``dataset_size`` records is sampled with
    probability ``q``; a batch of more than ``max_batch_size`` records is cut to a uniformly random
    ``max_batch_size`` of them; then ``Gaussian(sigma)`` on the batch's sum (contributions of norm
    at most 1).

    Accounted (both accountants, add/remove) by the branch-revealed mixture of
    :mod:`dpproofs.math.truncation`: with the other ``dataset_size - 1`` records' sampled count
    ``K`` revealed, ``K < max_batch_size`` is ``SampledGaussian(q, sigma)`` and ``K = k`` above it a
    sampled Gaussian at rate ``q B / (k + 1)`` and sensitivity 2 (the record displaces one), an
    upper bound (a dominating pair), not the mechanism's own loss. ``dataset_size`` counts the
    dataset that holds the record (dp_accounting's reading). Replace-one is refused (no analysis of
    both records competing for the batch is implemented).

    Args:
        q: the sampling rate, in ``[0, 1]``.
        sigma: the noise multiplier, ``> 0``.
        max_batch_size: the batch limit, an integer in ``[0, 2**53]`` (0: nothing is released).
        dataset_size: the number of records, an integer in ``[1, 2**53]``.

    Raises:
        InvalidArgument: a parameter outside its range.
    """

    q: float
    sigma: float
    max_batch_size: int
    dataset_size: int

    def __post_init__(self):
        object.__setattr__(self, "q", _validate.real("q", self.q, 0, 1))
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, 0, low_open=True))
        object.__setattr__(self, "max_batch_size", _validate.integer("max_batch_size", self.max_batch_size, 0,
                                                                     MAX_RECORDS))
        object.__setattr__(self, "dataset_size", _validate.integer("dataset_size", self.dataset_size, 1, MAX_RECORDS))

    @property
    def silent(self):
        return self.q == 0 or self.max_batch_size == 0

    @functools.cached_property
    def branches(self) -> "list[truncation.Branch]":
        """The dominating mixture's branches (:func:`dpproofs.math.truncation.branches`)."""
        return truncation.branches(self.q, self.max_batch_size, self.dataset_size)

    def _never_cut(self):
        """``SampledGaussian(q, sigma)`` when no batch can be cut (at most ``max_batch_size`` records
        exist), else None."""
        branches = self.branches
        if len(branches) == 1 and branches[0] == (1.0, 0.0, self.q, 1):
            return SampledGaussian(self.q, self.sigma)
        return None

    def _branch_mixtures(self):
        """``(weight upper bound, SampledGaussian)`` per branch (sensitivity 2: noise sigma / 2)."""
        return [(b.weight + b.weight_error, SampledGaussian(b.rate, self.sigma if b.sensitivity == 1 else self.sigma / 2))
                for b in self.branches]

    def refusal(self, accountant, relation):
        if relation == "replace_one":
            return InvalidArgument(
                f"mechanism={self!r} with relation='replace_one' is not supported: with a batch limit the "
                f"replaced and the replacing record compete for the batch with the others, and no analysis of "
                f"that is implemented; allowed: relation='add_remove' (dp_accounting's REPLACE_SPECIAL reads "
                f"as add/remove)")
        return None

    def rdp_curve(self, orders, relation):
        # the branch-revealed mixture's Rényi divergence (fast.rdp_branch_mixture); each branch curve is
        # within fast.RTOL of its exact value, so divided by (1 - RTOL) it is an upper bound, and the
        # weights are upper bounds
        orders = np.asarray(orders, dtype=np.float64)
        if self.silent:
            return np.zeros_like(orders)
        if self._never_cut() is not None:
            return self._never_cut().rdp_curve(orders, relation)
        branches = self._branch_mixtures()
        curves = [mechanism.rdp_curve(orders, "add_remove") / (1 - fast.RTOL) for _, mechanism in branches]
        return fast.rdp_branch_mixture(orders, [weight for weight, _ in branches], curves)

    def rdp_ball(self, order, relation, prec):
        from dpproofs.math import ball
        from dpproofs.math import formulas

        if self.silent:
            return ball.to_arb(0)
        if self._never_cut() is not None:
            return self._never_cut().rdp_ball(order, relation, prec)
        with ball.precision(prec):
            weights = [ball.to_arb(b.weight) + ball.to_arb(b.weight_error) for b in self.branches]
            divergences = [mechanism.rdp_ball(order, "add_remove", prec) for _, mechanism in self._branch_mixtures()]
            return formulas.rdp_branch_mixture(ball.Arb(prec), ball.to_arb(order), weights, divergences)

    def total_variation(self, relation: str) -> float:
        # the record is used with probability at most q, and moves the sum by at most 2 when it is
        return tv.subsampled(self.q, tv.gaussian(2.0, self.sigma))

    def pld_pairs(self, relation):
        if self.silent:
            return None
        if self._never_cut() is not None:
            return self._never_cut().pld_pairs(relation)
        branches = self.branches
        out = {}
        for direction in ("add", "remove"):
            out[direction] = pairs.MixturePair(
                (b.weight, b.weight_error,
                 pairs.GaussianPair(b.rate, self.sigma if b.sensitivity == 1 else self.sigma / 2, direction))
                for b in branches)
        return out
