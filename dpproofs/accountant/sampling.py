"""What a data loader actually samples: :func:`sampling_of` reads a PyTorch ``DataLoader`` or
sampler, an Opacus sampler or loader, or a jax_privacy batch-selection strategy, and returns the
sampling scheme and its parameters as configured, so that the accountant can be checked against
the loader (the most frequent complaint about DP accountants: the guarantee describes another
sampler than the training runs; Opacus #813, #600, jax_privacy #121).

Nothing here imports torch, Opacus or jax: objects are recognised by class name and attributes
(read off torch 2.13, Opacus 1.6 and jax_privacy 2.0). A sampler is recognised only by its exact
class name (a subclass may sample differently and is refused); a data loader by any class named
``DataLoader`` in its MRO (its sampling is its ``batch_sampler``, or ``sampler`` when
``batch_size=None``).

==========================================================  ============================  ================================================
loader (as configured)                                      scheme                        what dpproofs says
==========================================================  ============================  ================================================
``DataLoader(ds, batch_size=B, shuffle=True)``              ``shuffle``                   no upper bound exists (Chua et al. 2024, arXiv
                                                                                          2403.17673): accountants refuse; Poisson numbers
                                                                                          for it can understate epsilon
``DataLoader(ds, batch_size=B)`` (``SequentialSampler``)    ``sequential``                deterministic: no amplification by sampling
``RandomSampler(ds, replacement=True, num_samples=M)``      ``with-replacement``          not accounted (a record may be drawn several
                                                                                          times into one batch)
``BatchSampler(sampler, B, drop_last)``                     that of ``sampler``           batch ``B``; ``drop_last`` sets steps per epoch
``SubsetRandomSampler(indices)``                            ``shuffle``                   over the ``len(indices)`` records it draws from
``WeightedRandomSampler(w, M, replacement)``                refused, unless ``w`` is      non-uniform weights: refused (no accountant);
                                                            uniform: then                 uniform weights: as ``RandomSampler`` with
                                                            ``with-replacement`` or       ``num_samples=M`` (Opacus #813: ``M=128`` on
                                                            ``shuffle``                   100 000 records, ``B=16``: rate 0.00016)
``DistributedSampler(ds, R, rank, shuffle)``, batch ``B``   ``shuffle`` or                global batch ``R * B``; ``set_epoch`` decides
                                                            ``sequential``                whether the order changes per epoch
Opacus ``UniformWithReplacementSampler(N, q, steps)``       ``poisson``                   ``SampledGaussian(q, sigma)``: ``Accountant``,
                                                                                          ``PLDAccountant``, the Opacus drop-in
Opacus ``DPDataLoader`` (``poisson_sampling=True``)         ``poisson``                   as above (its ``batch_sampler``)
Opacus ``DistributedUniformWithReplacementSampler``         ``poisson``                   as above: the union of the ranks' batches is
                                                                                          Poisson at ``q`` over ``total_size``
jax_privacy ``CyclicPoissonSampling(p, T)``                 ``poisson``                   ``SampledGaussian(p, sigma)``, ``T`` steps
... with ``truncated_batch_size``                           ``truncated-poisson``         ``TruncatedSampledGaussian(p, sigma, B, N)``, add/remove
... with ``cycle_length > 1``                               ``cyclic-poisson``            not accounted by dpproofs
jax_privacy ``FixedBatchSampling(B, T, replace=False)``     ``fixed``                     ``FixedBatchGaussian(B, N, sigma)``, replace-one
... ``replace=True``                                        ``with-replacement``          not accounted
jax_privacy ``BallsInBinsSampling(T, t)``, ``T <= t``       ``balls-in-bins``             random allocation, 1 of ``t`` steps per epoch
                                                                                          (``steps_and_rate(sampling="balls-in-bins")``)
... ``T > t`` (more than one cycle)                         ``persistent-balls-in-bins``  not accounted: jax_privacy draws the bins once,
                                                                                          so every cycle reuses a record's bin; not an
                                                                                          independent allocation per epoch
jax_privacy ``BMinSepSampling``, ``UserSelectionStrategy``  refused                       no accountant (Monte Carlo only; user level)
==========================================================  ============================  ================================================

``rate`` is the per-step quantity an accountant takes: each record's probability of joining a
batch (``poisson``: ``q``; ``cyclic-poisson``: ``p`` in the steps its group is eligible), the
batch's fraction ``B / N`` of the records (``fixed``, ``shuffle``, ``sequential``,
``with-replacement``), or ``1 / t`` (``balls-in-bins``, ``persistent-balls-in-bins``: each
record in exactly one of ``t`` consecutive steps).
"""

import dataclasses
import math
import numbers
from typing import Any

from dpproofs import _validate
from dpproofs.errors import InvalidArgument, InvalidArgumentType

__all__ = ["Sampling", "sampling_of", "SCHEMES", "ACCOUNTING"]

#: The schemes :func:`sampling_of` reports.
SCHEMES = (
    "poisson", "truncated-poisson", "cyclic-poisson", "fixed", "with-replacement", "shuffle", "sequential",
    "balls-in-bins", "persistent-balls-in-bins",
)

#: What dpproofs says about each scheme (the table of the module docstring, one line each).
ACCOUNTING = {
    "poisson": "dpproofs.SampledGaussian(rate, sigma) per step (Accountant, PLDAccountant, the Opacus drop-in)",
    "truncated-poisson": ("dpproofs.TruncatedSampledGaussian(rate, sigma, max_batch_size, dataset_size) per step, "
                          "add/remove (Accountant, PLDAccountant)"),
    "cyclic-poisson": "not accounted by dpproofs (Poisson sampling within one of cycle_length groups)",
    "fixed": "dpproofs.FixedBatchGaussian(batch_size, dataset_size, sigma) per step, replace-one",
    "with-replacement": "not accounted: a record may be drawn several times into one batch",
    "shuffle": "no upper bound exists (Chua et al. 2024, arXiv 2403.17673); Poisson numbers can understate epsilon",
    "sequential": "deterministic batches: no amplification by sampling",
    "balls-in-bins": "random allocation, each record in one of 1/rate steps per epoch (issue 23)",
    "persistent-balls-in-bins": (
        "not accounted: the bins are drawn once, so a record's steps in every cycle share its one bin; "
        "not an independent allocation per epoch, which is what balls-in-bins accounting counts"),
}


#: Schemes whose batch size varies: ``Sampling.batch_size`` is its expectation.
_EXPECTED = ("poisson", "truncated-poisson", "cyclic-poisson", "balls-in-bins", "persistent-balls-in-bins")


@dataclasses.dataclass(frozen=True)
class Sampling:
    """The sampling a loader does, as configured.

    ``scheme``: one of :data:`SCHEMES`. ``dataset_size``: the records the scheme draws from (N).
    ``batch_size``: records per step, summed over ``replicas`` (expected for ``poisson``,
    ``cyclic-poisson`` and the balls-in-bins schemes; for ``truncated-poisson`` the expected size before
    truncation). ``rate``: see the module docstring. ``steps_per_epoch``: steps one pass over the
    object yields (``len`` of a loader; a jax_privacy strategy's ``iterations``; None if unknown).
    ``drop_last``: a short last batch is dropped. ``records_per_epoch``: indices one pass draws
    (``num_samples``; None for Poisson schemes). ``replicas``/``rank``: distributed training (1,
    None otherwise). ``cycle_length``: steps between a record's chances (``cyclic-poisson``,
    ``balls-in-bins``; 1 otherwise). ``max_batch_size``: truncation (``truncated-poisson``).
    ``source``: the classes read, outermost first. ``notes``: caveats about the configuration.
    """

    scheme: str
    dataset_size: int
    batch_size: float
    rate: float
    steps_per_epoch: int | None
    drop_last: bool = False
    records_per_epoch: int | None = None
    replicas: int = 1
    rank: int | None = None
    cycle_length: int = 1
    max_batch_size: int | None = None
    source: str = ""
    notes: tuple = ()

    @property
    def accounting(self) -> str:
        """What dpproofs says about this scheme (:data:`ACCOUNTING`)."""
        return ACCOUNTING[self.scheme]

    def describe(self) -> str:
        """One line: scheme, rate, batch and dataset size, steps per pass."""
        batch = f"{self.batch_size:g}" if isinstance(self.batch_size, float) else str(self.batch_size)
        expected = "expected " if self.scheme in _EXPECTED else ""
        steps = "" if self.steps_per_epoch is None else f", {self.steps_per_epoch} steps per pass"
        return f"{self.scheme} at rate {self.rate:.6g} ({expected}batch {batch} of {self.dataset_size} records{steps})"


# --- reading attributes --------------------------------------------------------------------------


def _type_name(obj):
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _attribute(obj, path, name):
    """``obj.name``; ``InvalidArgumentType`` naming ``path.name`` if it is missing."""
    try:
        return getattr(obj, name)
    except AttributeError:
        raise InvalidArgumentType(
            f"{path}={_validate.shown(obj)} (a {_type_name(obj)}) has no attribute {name!r}: not the "
            f"{type(obj).__name__} dpproofs knows (torch 2.13, Opacus 1.6, jax_privacy 2.0)"
        ) from None


def _integer(obj, path, name, low=1):
    return _validate.integer(f"{path}.{name}", _attribute(obj, path, name), low)


def _flag(obj, path, name):
    value = _attribute(obj, path, name)
    if not isinstance(value, bool):
        raise InvalidArgumentType(f"{path}.{name}={_validate.shown(value)} must be a bool, not {type(value).__name__}")
    return value


def _length(obj, path):
    """``len(obj)`` as an integer >= 0; ``InvalidArgument`` naming ``path`` if it has none."""
    try:
        size = len(obj)
    except TypeError:
        raise InvalidArgument(
            f"{path}={_validate.shown(obj)} (a {_type_name(obj)}) has no len(): the number of records it "
            "samples from is unknown (an IterableDataset streams records: no sampling scheme to account)"
        ) from None
    return _validate.integer(f"len({path})", size, 0)


def _population(size, path, dataset_size):
    """The dataset size read off the object, checked against ``dataset_size`` when given."""
    if size < 1:
        raise InvalidArgument(f"len({path})={size} is outside the allowed range [1, inf]: an empty dataset")
    if dataset_size is not None and dataset_size != size:
        raise InvalidArgument(
            f"dataset_size={dataset_size} disagrees with len({path})={size}, the records the sampler draws from"
        )
    return size


def _needed(dataset_size, obj, path):
    if dataset_size is None:
        raise InvalidArgument(
            f"dataset_size=None: {path} (a {type(obj).__name__}) does not know the dataset size (its "
            "batch_iterator takes num_examples); pass dataset_size"
        )
    return dataset_size


def _only(obj, names):
    """The class name of ``obj`` if it is exactly one of ``names``; a subclass is refused."""
    name = type(obj).__name__
    if name in names:
        return name
    for base in type(obj).__mro__[1:]:
        if base.__name__ in names:
            raise InvalidArgument(
                f"obj={_validate.shown(obj)} is a {_type_name(obj)}, a subclass of {base.__name__}: a subclass "
                f"may sample differently, so it is not read as a {base.__name__}"
            )
    return None


# --- index samplers: a stream of indices, batched by a BatchSampler or a DataLoader --------------


@dataclasses.dataclass(frozen=True)
class _Stream:
    """What one pass over an index sampler yields, before batching."""

    scheme: str  # "sequential", "shuffle" or "with-replacement"
    dataset_size: int
    draws: int  # indices per pass (per replica when distributed)
    source: str
    replicas: int = 1
    rank: int | None = None
    notes: tuple = ()


_INDEX_SAMPLERS = ("SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
                   "DistributedSampler")


def _stream(obj, path, dataset_size):
    name = _only(obj, _INDEX_SAMPLERS)
    if name == "SequentialSampler":
        size = _population(_length(_attribute(obj, path, "data_source"), f"{path}.data_source"), f"{path}.data_source",
                           dataset_size)
        return _Stream("sequential", size, size, name)
    if name == "RandomSampler":
        size = _population(_length(_attribute(obj, path, "data_source"), f"{path}.data_source"), f"{path}.data_source",
                           dataset_size)
        replacement = _flag(obj, path, "replacement")
        draws = _integer(obj, path, "num_samples")
        return _uniform(replacement, size, draws, name, path)
    if name == "SubsetRandomSampler":
        indices = _attribute(obj, path, "indices")
        size = _length(indices, f"{path}.indices")
        distinct = len(set(int(index) for index in indices))
        if distinct != size:
            raise InvalidArgument(
                f"{path}.indices repeats {size - distinct} of its {size} entries: a repeated record joins "
                "more than one batch per epoch, which no shuffling scheme describes"
            )
        size = _population(size, f"{path}.indices", dataset_size)
        return _Stream("shuffle", size, size, name, notes=(
            f"draws from the {size} records of its indices only; the others never join a batch",))
    if name == "WeightedRandomSampler":
        return _weighted(obj, path, dataset_size)
    if name == "DistributedSampler":
        return _distributed(obj, path, dataset_size)
    raise InvalidArgumentType(
        f"{path}={_validate.shown(obj)} (a {_type_name(obj)}) is not an index sampler dpproofs knows; "
        f"known: {', '.join(_INDEX_SAMPLERS)}"
    )


def _uniform(replacement, size, draws, name, path, notes=()):
    """``draws`` uniform indices of ``size`` records, with or without replacement."""
    if replacement:
        return _Stream("with-replacement", size, draws, name, notes=notes)
    if draws != size:
        passes, rest = divmod(draws, size)
        if passes == 0:
            notes += (f"{path}.num_samples={draws} < {size} records: each epoch is a random {draws} of them, "
                      "shuffled",)
        else:
            notes += (f"{path}.num_samples={draws} > {size} records: each epoch concatenates {passes} "
                      f"permutation(s){' and part of another' if rest else ''}, so a record joins up to "
                      f"{passes + (1 if rest else 0)} batches per epoch",)
    return _Stream("shuffle", size, draws, name, notes=notes)


def _weighted(obj, path, dataset_size):
    weights = _attribute(obj, path, "weights")
    size = _length(weights, f"{path}.weights")
    draws = _integer(obj, path, "num_samples")
    replacement = _flag(obj, path, "replacement")
    if size < 1:
        raise InvalidArgument(f"len({path}.weights)=0: no record to sample")
    low, high = _extremes(weights, f"{path}.weights")
    if not (math.isfinite(low) and math.isfinite(high)) or low <= 0 or low != high:
        raise InvalidArgument(
            f"{path}.weights are not uniform (min {low!r}, max {high!r} over {size} records): a record's chance "
            f"to be drawn depends on its weight, and no accountant covers non-uniform sampling "
            f"(num_samples={draws} draws per epoch from dataset_size={size}; a Poisson accountant given "
            f"1/len(loader) accounts for another sampler, Opacus #813)"
        )
    if not replacement and draws > size:
        raise InvalidArgument(
            f"{path}.num_samples={draws} is above the {size} weights with replacement=False: torch cannot draw "
            "that many distinct records"
        )
    size = _population(size, f"{path}.weights", dataset_size)
    note = (f"uniform weights: the same as RandomSampler(replacement={replacement}, num_samples={draws}) over "
            f"{size} records",)
    return _uniform(replacement, size, draws, "WeightedRandomSampler", path, notes=note)


def _extremes(weights, path):
    """(min, max) of a tensor, array or sequence of weights, in one pass without a copy."""
    if hasattr(weights, "min") and hasattr(weights, "max") and callable(weights.min):
        try:
            return float(weights.min()), float(weights.max())
        except (TypeError, ValueError):
            pass
    low = high = None
    for weight in weights:
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real):
            raise InvalidArgumentType(f"{path} holds {_validate.shown(weight)}: weights must be real numbers")
        weight = float(weight)
        if math.isnan(weight):
            return weight, weight
        low = weight if low is None else min(low, weight)
        high = weight if high is None else max(high, weight)
    return low, high


def _distributed(obj, path, dataset_size):
    """torch's ``DistributedSampler``: one rank's share of a permutation (or of the order)."""
    size = _population(_length(_attribute(obj, path, "dataset"), f"{path}.dataset"), f"{path}.dataset", dataset_size)
    replicas = _integer(obj, path, "num_replicas")
    rank = _integer(obj, path, "rank", 0)
    if rank >= replicas:
        raise InvalidArgument(f"{path}.rank={rank} is outside the allowed range [0, num_replicas - 1 = {replicas - 1}]")
    shuffle = _flag(obj, path, "shuffle")
    drop_last = _flag(obj, path, "drop_last")
    draws = _integer(obj, path, "num_samples")
    notes = ()
    total = draws * replicas
    if total > size:
        notes += (f"not drop_last: {total - size} records are repeated to fill {replicas} equal shares, so they "
                  "join two batches per epoch",)
    elif total < size:
        notes += (f"drop_last: {size - total} records (the tail of the order) never join a batch",)
    if shuffle:
        notes += ("a new order each epoch only if set_epoch(epoch) is called before each epoch; otherwise the "
                  "same permutation every epoch (persistent shuffling)",)
    return _Stream("shuffle" if shuffle else "sequential", size, draws, "DistributedSampler", replicas, rank, notes)


def _batched(stream, batch_size, drop_last, source):
    """A stream cut into consecutive batches of ``batch_size`` (per replica)."""
    if batch_size > stream.draws:
        if drop_last:
            raise InvalidArgument(
                f"batch_size={batch_size} is above the {stream.draws} indices one pass draws, with drop_last=True: "
                "the loader yields no batch"
            )
        batch_size = stream.draws  # one batch of everything the pass draws
    if drop_last:
        steps = stream.draws // batch_size
    else:
        steps = -(-stream.draws // batch_size)
    total = batch_size * stream.replicas
    notes = stream.notes
    if total > stream.dataset_size:
        raise InvalidArgument(
            f"batch_size={batch_size}{f' x {stream.replicas} replicas' if stream.replicas > 1 else ''} is above "
            f"the {stream.dataset_size} records sampled from: a batch holds some record more than once"
        )
    if not drop_last and stream.draws % batch_size:
        replica = " per replica" if stream.replicas > 1 else ""
        notes += (f"the last batch of each pass has {stream.draws % batch_size} records{replica} (drop_last=False)",)
    return Sampling(
        scheme=stream.scheme, dataset_size=stream.dataset_size, batch_size=total,
        rate=total / stream.dataset_size, steps_per_epoch=steps, drop_last=drop_last,
        records_per_epoch=stream.draws * stream.replicas, replicas=stream.replicas, rank=stream.rank,
        source=stream.source if source is None else f"{source}({stream.source})", notes=notes,
    )


# --- batch samplers ------------------------------------------------------------------------------


def _batch_sampler(obj, path, dataset_size):
    name = _only(obj, ("BatchSampler", "UniformWithReplacementSampler", "DistributedUniformWithReplacementSampler"))
    if name == "BatchSampler":
        batch_size = _integer(obj, path, "batch_size")
        drop_last = _flag(obj, path, "drop_last")
        inner = _attribute(obj, path, "sampler")
        return _batched(_stream(inner, f"{path}.sampler", dataset_size), batch_size, drop_last, name)
    if name == "UniformWithReplacementSampler":
        size = _population(_integer(obj, path, "num_samples"), f"{path}.num_samples", dataset_size)
        rate = _validate.real(f"{path}.sample_rate", _attribute(obj, path, "sample_rate"), 0, 1, low_open=True)
        steps = _integer(obj, path, "steps")
        return Sampling("poisson", size, rate * size, rate, steps, source=name)
    if name == "DistributedUniformWithReplacementSampler":
        size = _population(_integer(obj, path, "total_size"), f"{path}.total_size", dataset_size)
        rate = _validate.real(f"{path}.sample_rate", _attribute(obj, path, "sample_rate"), 0, 1, low_open=True)
        steps = _integer(obj, path, "num_batches")
        replicas = _integer(obj, path, "num_replicas")
        rank = _integer(obj, path, "rank", 0)
        notes = ("Poisson at sample_rate over total_size across all ranks (each rank samples its share)",
                 "a rank whose share of a batch is empty skips it, so ranks may take different numbers of steps")
        return Sampling("poisson", size, rate * size, rate, steps, replicas=replicas, rank=rank, source=name,
                        notes=notes)
    return None


# --- data loaders --------------------------------------------------------------------------------


def _is_loader(obj):
    return any(base.__name__ == "DataLoader" for base in type(obj).__mro__)


def _loader(obj, path, dataset_size):
    dataset = _attribute(obj, path, "dataset")
    size = _population(_length(dataset, f"{path}.dataset"), f"{path}.dataset", dataset_size)
    batch_sampler = _attribute(obj, path, "batch_sampler")
    name = type(obj).__name__
    if batch_sampler is not None:
        sampling = _batch_sampler(batch_sampler, f"{path}.batch_sampler", None)
        if sampling is None:
            raise InvalidArgumentType(
                f"{path}.batch_sampler={_validate.shown(batch_sampler)} (a {_type_name(batch_sampler)}) is not a batch "
                "sampler dpproofs knows; known: BatchSampler, UniformWithReplacementSampler, "
                "DistributedUniformWithReplacementSampler"
            )
    else:  # batch_size=None: every index is a step of its own
        sampling = _batched(_stream(_attribute(obj, path, "sampler"), f"{path}.sampler", None), 1, False, None)
    notes = sampling.notes
    if sampling.dataset_size > size:
        raise InvalidArgument(
            f"{path}.dataset has {size} records but its sampler draws from {sampling.dataset_size}: the sampler "
            "was built for another dataset"
        )
    if sampling.dataset_size < size:
        notes += (f"the loader's dataset has {size} records; the sampler draws from the {sampling.dataset_size} "
                  "it knows, the others never join a batch",)
    return dataclasses.replace(sampling, source=f"{name}.{sampling.source}" if sampling.source else name, notes=notes)


# --- jax_privacy batch-selection strategies ------------------------------------------------------

_STRATEGIES = ("CyclicPoissonSampling", "BallsInBinsSampling", "FixedBatchSampling", "BMinSepSampling",
               "UserSelectionStrategy")


def _strategy(obj, path, dataset_size):
    name = _only(obj, _STRATEGIES)
    if name is None:
        return None
    if name == "BMinSepSampling":
        raise InvalidArgument(
            f"{path} is a BMinSepSampling (min_sep={_attribute(obj, path, 'min_sep')!r}): b-min-sep sampling has no "
            "accountant in dpproofs (jax_privacy accounts it by Monte Carlo only, arXiv 2602.09338)"
        )
    if name == "UserSelectionStrategy":
        raise InvalidArgument(
            f"{path} is a UserSelectionStrategy: user-level sampling (a user's records together); dpproofs "
            "accounts record-level sampling only"
        )
    size = _needed(dataset_size, obj, path)
    iterations = _integer(obj, path, "iterations", 0)
    if name == "BallsInBinsSampling":
        cycle = _integer(obj, path, "cycle_length")
        if cycle > size:
            raise InvalidArgument(f"{path}.cycle_length={cycle} is above dataset_size={size}: empty bins")
        # jax_privacy 2.0 draws the bins once (_independent_partition before the loop) and cycles through
        # them: over more than one cycle a record's bin is the same every cycle
        scheme = "balls-in-bins" if iterations <= cycle else "persistent-balls-in-bins"
        return Sampling(scheme, size, size / cycle, 1 / cycle, iterations, cycle_length=cycle, source=name,
                        notes=("each record in one uniformly random bin of cycle_length steps, the same bin "
                               "in every cycle (jax_privacy draws the bins once)",))
    if name == "FixedBatchSampling":
        batch = _integer(obj, path, "batch_size")
        replace = _flag(obj, path, "replace")
        if batch > size and not replace:
            raise InvalidArgument(f"{path}.batch_size={batch} is above dataset_size={size} (replace=False)")
        return Sampling("with-replacement" if replace else "fixed", size, batch, batch / size, iterations,
                        records_per_epoch=batch * iterations, source=name)
    # CyclicPoissonSampling
    rate = _validate.real(f"{path}.sampling_prob", _attribute(obj, path, "sampling_prob"), 0, 1, low_open=True)
    cycle = _integer(obj, path, "cycle_length")
    truncated = _attribute(obj, path, "truncated_batch_size")
    if truncated is not None:
        truncated = _validate.integer(f"{path}.truncated_batch_size", truncated, 1)
    partition = getattr(_attribute(obj, path, "partition_type"), "name", None)
    if cycle == 1:
        if truncated is None:
            return Sampling("poisson", size, rate * size, rate, iterations, source=name)
        return Sampling("truncated-poisson", size, rate * size, rate, iterations, max_batch_size=truncated,
                        source=name)
    if truncated is not None:
        raise InvalidArgument(
            f"{path}: cycle_length={cycle} with truncated_batch_size={truncated}: cyclic and truncated Poisson "
            "sampling together has no accountant in dpproofs"
        )
    group = size // cycle if partition == "EQUAL_SPLIT" else size / cycle
    notes = (f"partition_type={partition}: " + (
        f"{size % cycle} records never sampled; valid for replace-one and zero-out neighbours only (jax_privacy)"
        if partition == "EQUAL_SPLIT" else "each record's group drawn independently"),)
    return Sampling("cyclic-poisson", size, rate * group, rate, iterations, cycle_length=cycle, source=name,
                    notes=notes)


# --- the entry point -----------------------------------------------------------------------------


def sampling_of(obj: Any, dataset_size: int | None = None) -> Sampling:
    """The sampling scheme ``obj`` runs, with its parameters as configured.

    Args:
        obj: a PyTorch ``DataLoader`` (or Opacus' ``DPDataLoader``), a batch sampler
            (``BatchSampler``, Opacus' ``UniformWithReplacementSampler`` or
            ``DistributedUniformWithReplacementSampler``), an index sampler (``SequentialSampler``,
            ``RandomSampler``, ``SubsetRandomSampler``, ``WeightedRandomSampler``,
            ``DistributedSampler``: one index per step), or a jax_privacy batch-selection strategy.
            Read by class name and attributes; torch, Opacus and jax are never imported.
        dataset_size: the number of records (integer >= 1). Needed for a jax_privacy strategy
            (which does not hold it); for the others it must equal what ``obj`` holds, if given.

    Returns:
        A frozen :class:`Sampling`.

    Raises:
        InvalidArgumentType: ``obj`` is none of the above, or lacks an attribute of its class.
        InvalidArgument: ``obj`` samples in a way no accountant covers (non-uniform weights,
            repeated subset indices, b-min-sep, user level, a stream without ``len``), naming what
            and why; or ``dataset_size`` is missing or disagrees with ``obj``.
    """
    if dataset_size is not None:
        dataset_size = _validate.integer("dataset_size", dataset_size, 1)
    if _is_loader(obj):
        return _loader(obj, "obj", dataset_size)
    sampling = _batch_sampler(obj, "obj", dataset_size)
    if sampling is None:
        sampling = _strategy(obj, "obj", dataset_size)
    if sampling is None and type(obj).__name__ in _INDEX_SAMPLERS:
        sampling = _batched(_stream(obj, "obj", dataset_size), 1, False, None)
    if sampling is None:
        _only(obj, _INDEX_SAMPLERS)  # a subclass of an index sampler: refused by name
        raise InvalidArgumentType(
            f"obj={_validate.shown(obj)} (a {_type_name(obj)}) is not a data loader, sampler or batch-selection "
            f"strategy dpproofs knows; known: DataLoader, BatchSampler, {', '.join(_INDEX_SAMPLERS)}, "
            f"UniformWithReplacementSampler, DistributedUniformWithReplacementSampler, DPDataLoader, "
            f"{', '.join(_STRATEGIES[:3])}"
        )
    return sampling
