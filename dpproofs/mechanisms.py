"""The mechanisms dpproofs accounts for: frozen, validated on construction.

Vocabulary (the contract every evaluator and the accountant rely on):

* ``Gaussian(sigma)``: adds ``N(0, sigma**2)`` noise to a query of L2 sensitivity 1.
* ``SampledGaussian(q, sigma)``: Poisson-subsamples each record with probability ``q``, then
  applies ``Gaussian(sigma)`` to a sum of per-record contributions of norm at most 1
  (one DP-SGD step; Abadi et al. 2016, Algorithm 1). Neighbours differ by adding or removing one
  record.
* ``FixedBatchGaussian(batch_size, dataset_size, sigma)``: draws a batch of exactly ``batch_size``
  of the ``dataset_size`` records uniformly without replacement, independently at every step, then
  applies the Gaussian to the sum of the batch's contributions (norm at most 1 each). Its
  neighbouring relation is replace-one (the dataset size is fixed); ``rate`` is
  ``batch_size / dataset_size``.
* ``Laplace(scale)``: adds Laplace noise of scale ``b`` to a query of L1 sensitivity 1.
* ``RandomizedResponse(epsilon)``: reports one bit truthfully with probability
  ``e^epsilon / (1 + e^epsilon)``; the worst case over all epsilon-DP pairs.

All parameters are finite floats; construction raises :class:`dpproofs.InvalidArgument`
(naming the argument, its value and the allowed range) or :class:`dpproofs.InvalidArgumentType`.
Every finite float in the mathematical range is accepted (``sigma > 0``, ``q`` in ``[0, 1]``,
``scale > 0``, ``epsilon > 0``): :mod:`dpproofs.math.limits` states why every such mechanism gets a
sound answer from the accountant in bounded time (``+inf`` at absurdly small ``sigma``, the
``TINY`` floor at huge ``sigma``), and the bounds of the exact evaluator (:func:`dpproofs.rdp`).
"""

import dataclasses

from dpproofs import _validate
from dpproofs.errors import InvalidArgumentType

__all__ = ["Mechanism", "Gaussian", "SampledGaussian", "FixedBatchGaussian", "Laplace", "RandomizedResponse"]


class Mechanism:
    """Base class of the mechanism vocabulary (used for isinstance checks only)."""

    def refusal(self, accountant: str, relation: str):
        """The :class:`dpproofs.InvalidArgument` an accountant of kind ``accountant`` ("rdp" or
        "pld") raises for this mechanism under ``relation``, or None if it is supported."""
        from dpproofs.math.reductions import unsupported

        return unsupported(self, relation)

    def to_dict(self) -> dict:
        """A plain-JSON description: ``{"type": name, **parameters}``."""
        return {"type": type(self).__name__, **dataclasses.asdict(self)}

    @staticmethod
    def from_dict(data: dict) -> "Mechanism":
        """Inverse of :meth:`to_dict`; validates like the constructor."""
        if not isinstance(data, dict) or "type" not in data:
            raise InvalidArgumentType(
                f"data={data!r} must be a dict with a 'type' key, as made by Mechanism.to_dict()"
            )
        kinds = {
            cls.__name__: cls
            for cls in (Gaussian, SampledGaussian, FixedBatchGaussian, Laplace, RandomizedResponse)
        }
        kind = _validate.choice("data['type']", data["type"], kinds)
        parameters = {key: value for key, value in data.items() if key != "type"}
        try:
            return kinds[kind](**parameters)
        except TypeError as error:
            raise InvalidArgumentType(f"data={data!r}: {error}") from None


@dataclasses.dataclass(frozen=True)
class Gaussian(Mechanism):
    """Gaussian mechanism with noise multiplier ``sigma`` (sensitivity 1)."""

    sigma: float

    def __post_init__(self):
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, 0, low_open=True))


@dataclasses.dataclass(frozen=True)
class SampledGaussian(Mechanism):
    """Poisson-subsampled Gaussian: sampling rate ``q`` in [0, 1], noise multiplier ``sigma``."""

    q: float
    sigma: float

    def __post_init__(self):
        object.__setattr__(self, "q", _validate.real("q", self.q, 0, 1))
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, 0, low_open=True))


@dataclasses.dataclass(frozen=True)
class FixedBatchGaussian(Mechanism):
    """One DP-SGD step on a fixed-size batch: ``batch_size`` of the ``dataset_size`` records drawn
    uniformly WITHOUT replacement, independently at every step, then the Gaussian mechanism on the
    sum of the batch's clipped contributions.

    ``sigma`` is the noise multiplier: noise standard deviation divided by the clipping norm C
    (as in Opacus, and as dp_accounting documents its ``GaussianDpEvent``), whatever the
    neighbouring relation. A record's clipped contribution has norm at most C, so replacing one
    record moves the sum by up to 2C (replace-one sensitivity 2 in units of C); adding or removing
    one moves it by up to C. The accountant handles that factor; never rescale sigma yourself.

    The loader this models draws each batch afresh (b of n uniformly, independently of the other
    steps). It is NOT the common shuffled-epoch loader (a random permutation cut into consecutive
    batches): there is no tight analysis of that, and neither Poisson nor this accounting applies
    to it as such.

    ``batch_size`` and ``dataset_size`` are integers with ``1 <= batch_size <= dataset_size``;
    ``sigma > 0`` finite. ``rate`` is ``batch_size / dataset_size`` (gamma). The dataset size is
    public and fixed, so the accountant accounts for it under ``relation="replace_one"`` only.
    """

    batch_size: int
    dataset_size: int
    sigma: float

    def __post_init__(self):
        dataset_size = _validate.integer("dataset_size", self.dataset_size, 1)
        batch_size = _validate.integer("batch_size", self.batch_size, 1, dataset_size)
        object.__setattr__(self, "dataset_size", dataset_size)
        object.__setattr__(self, "batch_size", batch_size)
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, 0, low_open=True))

    @property
    def rate(self):
        """``batch_size / dataset_size``: the probability that a given record is in the batch."""
        return self.batch_size / self.dataset_size


@dataclasses.dataclass(frozen=True)
class Laplace(Mechanism):
    """Laplace mechanism with scale ``scale`` (sensitivity 1; it is (1/scale)-DP)."""

    scale: float

    def __post_init__(self):
        object.__setattr__(self, "scale", _validate.real("scale", self.scale, 0, low_open=True))


@dataclasses.dataclass(frozen=True)
class RandomizedResponse(Mechanism):
    """Binary randomized response that is exactly ``epsilon``-DP."""

    epsilon: float

    def __post_init__(self):
        object.__setattr__(
            self, "epsilon", _validate.real("epsilon", self.epsilon, 0, low_open=True)
        )
