"""Training-shaped inputs for the accountant: steps and sampling rate from a data-loader setup.

    steps, q = steps_and_rate(dataset_size=60000, batch_size=256, epochs=15)
    dp.Accountant().compose(dp.SampledGaussian(q, sigma), steps)

With Poisson sampling of expected batch size ``B`` from ``N`` records, each step samples every
record with probability ``q = B / N`` (Abadi et al. 2016, arXiv 1607.00133v2, Sec. 3.1, "lot"
of expected size ``L = qN``), and ``E`` epochs are ``E * N / B`` steps, rounded up so that a
partial last epoch is accounted as a whole step (counting one step too many is conservative;
one too few is not).

``epochs`` may be fractional; a float is read as the decimal it prints as (``0.1`` is one
tenth, not ``0.1000000000000000055...``), so ``ceil`` does not add a step for a float's
representation error. Integers are exact.

With fixed-size batches (``sampling="fixed"``: every step draws exactly ``B`` of the ``N``
records uniformly without replacement, independently of the other steps;
``dpproofs.FixedBatchGaussian(batch_size=B, dataset_size=N, sigma=s)``) the steps are counted the
same way and the rate is the fraction ``B / N`` of the dataset in each batch. Shuffled batches
(one pass over a random permutation per epoch, the usual data loader) are neither scheme: no
tight analysis of them exists, and Poisson numbers for them can understate epsilon (Chua et al.
2024, "How private are DP-SGD implementations?").

``sampling="shuffle"`` counts the steps of that loader: every epoch is ``ceil(N / B)`` consecutive
batches of a permutation (the last one short when ``B`` does not divide ``N``), so ``E`` epochs
are ``ceil(E * ceil(N / B))`` steps, and the rate is the batch's fraction ``B / N``; the count is
for the ``ShuffledGaussian``-style lower bounds, no accountant upper-bounds it.
``sampling="balls-in-bins"`` (random allocation with one step per record and epoch, jax_privacy's
``BallsInBinsSampling``): every epoch is ``t = ceil(N / B)`` steps and each record joins exactly
one of them, uniformly at random; ``E`` epochs are ``ceil(E * t)`` steps (a partial epoch counted
as whole steps, conservative), and the rate is ``1 / t``, each record's chance to be in a given
step (the expected batch is ``N / t <= B``).

:func:`sampling_of` (from :mod:`dpproofs.accountant.sampling`) reads these settings off a
configured PyTorch / Opacus loader or a jax_privacy strategy.
"""

import math
import numbers
from fractions import Fraction

from dpproofs import _validate
from dpproofs.accountant.sampling import Sampling, sampling_of
from dpproofs.errors import InvalidArgument, InvalidArgumentType

__all__ = ["steps_and_rate", "SAMPLINGS", "sampling_of", "Sampling"]

#: Sampling schemes ``steps_and_rate`` knows.
SAMPLINGS = ("poisson", "fixed", "shuffle", "balls-in-bins")


def _exact(name, value):
    """``value`` (a positive finite real) as an exact fraction, floats read as their decimal."""
    as_float = _validate.real(name, value, 0, low_open=True)
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, Fraction):
        return value
    return Fraction(repr(as_float))


def steps_and_rate(dataset_size: int, batch_size: int, epochs: float, sampling: str = "poisson") -> tuple[int, float]:
    """``(steps, q)`` for ``epochs`` passes over ``dataset_size`` records in (expected) batches of
    ``batch_size``: ``steps = ceil(epochs * dataset_size / batch_size)``, ``q = batch_size /
    dataset_size``.

    ``dataset_size``: integer >= 1; ``batch_size``: integer in ``[1, dataset_size]``; ``epochs``:
    real > 0 (fractional allowed); ``sampling``: ``"poisson"`` (q is each record's probability of
    joining a batch), ``"fixed"`` (q is the batch's fraction B/N of the dataset), ``"shuffle"``
    (``ceil(epochs * ceil(N / B))`` steps: each epoch's short last batch is a step; q = B/N) or
    ``"balls-in-bins"`` (``t = ceil(N / B)`` steps per epoch, ``ceil(epochs * t)`` steps, q =
    1/t). Raises :class:`dpproofs.InvalidArgument` naming the argument otherwise.
    """
    dataset_size = _validate.integer("dataset_size", dataset_size, 1)
    batch_size = _validate.integer("batch_size", batch_size, 1)
    if batch_size > dataset_size:
        raise InvalidArgument(
            f"batch_size={batch_size!r} is outside the allowed range [1, dataset_size={dataset_size}]"
        )
    if isinstance(epochs, bool) or not isinstance(epochs, numbers.Real):
        raise InvalidArgumentType(f"epochs={epochs!r} must be a real number in (0, inf), not {type(epochs).__name__}")
    exact_epochs = _exact("epochs", epochs)
    _validate.choice("sampling", sampling, SAMPLINGS)
    if sampling in ("shuffle", "balls-in-bins"):
        per_epoch = -(-dataset_size // batch_size)  # ceil(N / B), exact in integers
        steps = math.ceil(exact_epochs * per_epoch)
        return int(steps), (1 / per_epoch if sampling == "balls-in-bins" else batch_size / dataset_size)
    steps = math.ceil(exact_epochs * dataset_size / batch_size)
    return int(steps), batch_size / dataset_size
