"""The shuffled fixed-size-batch Gaussian: the data loader most training code runs, which no
accountant can bound from above.

One application of :class:`ShuffledGaussian` is ONE EPOCH: the ``dataset_size`` records are put in
a uniformly random order and cut into consecutive batches of ``batch_size`` (the last one shorter
unless ``drop_last``), and the Gaussian mechanism (noise multiplier ``sigma``: noise standard
deviation over the clipping norm) is applied to the sum of each batch's clipped contributions.
``shuffle="persistent"`` keeps the first epoch's order for every later epoch;
``shuffle="per-epoch"`` draws a fresh order at every epoch (PyTorch's ``DataLoader(shuffle=True)``).

There is no sound upper bound on its privacy loss (Chua et al., "How private are DP-SGD
implementations?", arXiv 2403.17673v2, ICML 2024, and "Scalable DP-SGD: Shuffling vs. Poisson
Subsampling", arXiv 2411.04205v1, NeurIPS 2024, show that the Poisson epsilon of the same run can
understate it), so both accountants refuse it; :func:`dpproofs.epsilon_lower_bound` gives a
certified LOWER bound. Kept out of :mod:`dpproofs.mechanisms` for that file's size and exported by
:mod:`dpproofs` (``dpproofs.ShuffledGaussian``); the class registers itself for
:meth:`Mechanism.from_dict` when ``dpproofs`` is imported.
"""

import dataclasses

from dpproofs import _validate
from dpproofs.errors import InvalidArgument
from dpproofs.mechanisms import Mechanism

__all__ = ["ShuffledGaussian", "SHUFFLES"]

#: The two shuffling schemes: one order for the whole run, or a new order at every epoch.
SHUFFLES = ("persistent", "per-epoch")


@dataclasses.dataclass(frozen=True)
class ShuffledGaussian(Mechanism):
    """One epoch of DP-SGD on shuffled fixed-size batches (see the module docstring).

    Args:
        batch_size: integer in ``[1, dataset_size]``.
        dataset_size: integer ``>= 1`` (public and fixed: the neighbouring relation keeps it).
        sigma: noise multiplier, a finite float ``> 0``.
        shuffle: ``"persistent"`` or ``"per-epoch"`` (how later epochs are ordered).
        drop_last: whether the last, shorter batch is dropped (``DataLoader(drop_last=True)``);
            without it an epoch has ``ceil(dataset_size / batch_size)`` steps.

    Raises:
        InvalidArgument / InvalidArgumentType: a parameter outside its range or of the wrong type.

    Both accountants refuse it (:meth:`refusal`); compose epochs with
    :func:`dpproofs.epsilon_lower_bound` (``epochs=``) instead.
    """

    batch_size: int
    dataset_size: int
    sigma: float
    shuffle: str = "persistent"
    drop_last: bool = False

    def __post_init__(self):
        dataset_size = _validate.integer("dataset_size", self.dataset_size, 1)
        object.__setattr__(self, "dataset_size", dataset_size)
        object.__setattr__(self, "batch_size", _validate.integer("batch_size", self.batch_size, 1, dataset_size))
        object.__setattr__(self, "sigma", _validate.real("sigma", self.sigma, 0, low_open=True))
        object.__setattr__(self, "shuffle", _validate.choice("shuffle", self.shuffle, SHUFFLES))
        if not isinstance(self.drop_last, bool):
            raise InvalidArgument(f"drop_last={_validate.shown(self.drop_last)} must be True or False")

    @property
    def rate(self) -> float:
        """``batch_size / dataset_size``: the sampling rate of the Poisson run people compare with."""
        return self.batch_size / self.dataset_size

    @property
    def steps_per_epoch(self) -> int:
        """Batches in one epoch: ``ceil(n / b)``, or ``floor(n / b)`` with ``drop_last``."""
        full, rest = divmod(self.dataset_size, self.batch_size)
        return full if (self.drop_last or rest == 0) else full + 1

    @property
    def dropped(self) -> int:
        """Records left out of every epoch (``n mod b`` with ``drop_last``, else 0)."""
        return self.dataset_size % self.batch_size if self.drop_last else 0

    def refusal(self, accountant: str, relation: str):
        """Always an InvalidArgument: no sound upper bound exists for shuffled batches."""
        return InvalidArgument(
            f"mechanism={self!r} is not supported by the {accountant.upper()} accountant (relation={relation!r}): "
            f"no sound upper bound on the privacy of shuffled fixed-size batches is known, and neither the "
            f"Poisson nor the independent fixed-size-batch accounting applies to them (Chua et al., arXiv "
            f"2403.17673 and 2411.04205, show the Poisson epsilon can be exceeded); allowed: "
            f"dpproofs.epsilon_lower_bound(mechanism, epochs, delta) for a certified LOWER bound, or train with a "
            f"loader that has a certified upper bound: Poisson sampling (SampledGaussian) or balls-in-bins / "
            f"random allocation"
        )

    def pld_pairs(self, relation):  # never reached: refusal() comes first
        raise self.refusal("pld", relation)

    def rdp_curve(self, orders, relation):  # never reached: refusal() comes first
        raise self.refusal("rdp", relation)

    def __repr__(self):
        extra = ", drop_last=True" if self.drop_last else ""
        return (f"ShuffledGaussian(batch_size={self.batch_size}, dataset_size={self.dataset_size}, "
                f"sigma={self.sigma!r}, shuffle={self.shuffle!r}{extra})")
