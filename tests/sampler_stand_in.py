"""Stand-ins for the samplers and loaders :func:`dpproofs.training.sampling_of` reads, without torch:
the classes of torch 2.13 (``torch.utils.data``), Opacus 1.6 (``opacus.utils.uniform_sampler``,
``opacus.data_loader``) and jax_privacy 2.0 (``batch_selection``) under their own names, with the
attributes their constructors set, as those sources set them (what they iterate is not reproduced:
``sampling_of`` never iterates). ``tests/test_opacus_real.py`` checks the real classes.
"""

import dataclasses
import enum
import math

# --- torch.utils.data.sampler -------------------------------------------------------------------


class Sampler:
    pass


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __len__(self):
        return len(self.indices)


class Weights(list):
    """A 1-d tensor of weights: ``min()`` and ``max()`` are methods, as on a torch tensor."""

    def min(self):
        return min(self)

    def max(self):
        return max(self)


class WeightedRandomSampler(Sampler):
    def __init__(self, weights, num_samples, replacement=True, generator=None):
        self.weights = Weights(float(w) for w in weights)  # torch: torch.as_tensor(weights, dtype=torch.double)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size, drop_last):
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


# --- torch.utils.data.distributed ----------------------------------------------------------------


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas, rank, shuffle=True, seed=0, drop_last=False):
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __len__(self):
        return self.num_samples


# --- torch.utils.data.dataloader: the sampler wiring of DataLoader.__init__ ----------------------


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, drop_last=False,
                 generator=None):
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
            drop_last = False
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator

    def __len__(self):
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


class IterableDataset:
    """A stream: no ``len``."""

    def __iter__(self):
        return iter(())


# --- opacus.utils.uniform_sampler ----------------------------------------------------------------


class UniformWithReplacementSampler(Sampler):
    def __init__(self, *, num_samples, sample_rate, generator=None, steps=None):
        self.num_samples = num_samples
        self.sample_rate = sample_rate
        self.generator = generator
        self.steps = steps if steps is not None else int(1 / self.sample_rate)

    def __len__(self):
        return self.steps


class DistributedUniformWithReplacementSampler(Sampler):
    def __init__(self, *, total_size, sample_rate, shuffle=True, shuffle_seed=0, steps=None, generator=None,
                 num_replicas=2, rank=0):  # Opacus: torch.distributed.get_world_size() and get_rank()
        self.total_size = total_size
        self.sample_rate = sample_rate
        self.generator = generator
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.shuffle = shuffle
        self.shuffle_seed = shuffle_seed
        self.num_samples = self.total_size // self.num_replicas
        if self.rank < self.total_size % self.num_replicas:
            self.num_samples += 1
        self.num_batches = steps if steps is not None else int(1 / self.sample_rate)

    def __len__(self):
        return self.num_batches


# --- opacus.data_loader --------------------------------------------------------------------------


class DPDataLoader(DataLoader):
    def __init__(self, dataset, *, sample_rate, drop_last=False, generator=None, distributed=False, **kwargs):
        self.sample_rate = sample_rate
        self.distributed = distributed
        if distributed:
            batch_sampler = DistributedUniformWithReplacementSampler(total_size=len(dataset), sample_rate=sample_rate,
                                                                     generator=generator)
        else:
            batch_sampler = UniformWithReplacementSampler(num_samples=len(dataset), sample_rate=sample_rate,
                                                          generator=generator)
        super().__init__(dataset=dataset, batch_sampler=batch_sampler, generator=generator)

    @classmethod
    def from_data_loader(cls, data_loader, *, distributed=False, generator=None, **kwargs):
        return cls(dataset=data_loader.dataset, sample_rate=1 / len(data_loader), drop_last=data_loader.drop_last,
                   generator=generator if generator else data_loader.generator, distributed=distributed)


# --- jax_privacy.batch_selection -----------------------------------------------------------------


class PartitionType(enum.Enum):
    INDEPENDENT = enum.auto()
    EQUAL_SPLIT = enum.auto()


class BatchSelectionStrategy:
    pass


@dataclasses.dataclass(frozen=True)
class CyclicPoissonSampling(BatchSelectionStrategy):
    sampling_prob: float
    iterations: int
    truncated_batch_size: int | None = None
    cycle_length: int = 1
    partition_type: PartitionType = PartitionType.EQUAL_SPLIT


@dataclasses.dataclass(frozen=True)
class BallsInBinsSampling(BatchSelectionStrategy):
    iterations: int
    cycle_length: int


@dataclasses.dataclass(frozen=True)
class FixedBatchSampling(BatchSelectionStrategy):
    batch_size: int
    iterations: int
    replace: bool = False


@dataclasses.dataclass(frozen=True)
class BMinSepSampling(BatchSelectionStrategy):
    sampling_prob: float
    iterations: int
    min_sep: int
    warm_start: bool = True
    truncated_batch_size: int | None = None


@dataclasses.dataclass(frozen=True)
class UserSelectionStrategy:
    base_strategy: BatchSelectionStrategy
    examples_per_user_per_batch: int = 1
    shuffle_per_user: bool = False
