"""dpproofs.training.sampling_of: the scheme a loader runs, read off stand-ins of torch's, Opacus'
and jax_privacy's classes (tests/sampler_stand_in.py; the real ones in tests/test_opacus_real.py),
and the Opacus drop-in's check of the loader against the accountant (tests/opacus_stand_in.py).
"""

import dataclasses
import sys
import warnings

import pytest

import dpproofs as dp
from dpproofs.errors import SamplerMismatchWarning
from dpproofs.integrations import opacus as dpo
from dpproofs.training import Sampling, sampling_of
from tests import opacus_stand_in
from tests import sampler_stand_in as s

DATA = list(range(1000))
DELTA = 1e-5


def test_the_default_shuffled_loader_is_shuffling_of_consecutive_batches():
    found = sampling_of(s.DataLoader(DATA, batch_size=64, shuffle=True))
    assert (found.scheme, found.dataset_size, found.batch_size, found.steps_per_epoch) == ("shuffle", 1000, 64, 16)
    assert found.rate == 64 / 1000 and found.records_per_epoch == 1000 and not found.drop_last
    assert found.source == "DataLoader.BatchSampler(RandomSampler)"
    assert any("last batch" in note and "40 records" in note for note in found.notes)
    assert "no upper bound" in found.accounting


def test_drop_last_drops_the_short_last_batch_from_the_steps():
    found = sampling_of(s.DataLoader(DATA, batch_size=64, shuffle=True, drop_last=True))
    assert found.steps_per_epoch == 15 and found.drop_last and found.notes == ()


def test_a_loader_without_shuffle_is_sequential_with_no_amplification():
    found = sampling_of(s.DataLoader(DATA, batch_size=100))
    assert (found.scheme, found.rate, found.steps_per_epoch) == ("sequential", 0.1, 10)
    assert "no amplification" in found.accounting
    assert sampling_of(s.SequentialSampler(DATA)).batch_size == 1  # a bare index sampler: one index per step


def test_random_sampling_with_replacement_notes_num_samples():
    sampler = s.RandomSampler(DATA, replacement=True, num_samples=320)
    found = sampling_of(s.DataLoader(DATA, batch_size=32, sampler=sampler))
    assert (found.scheme, found.rate, found.steps_per_epoch, found.records_per_epoch) == (
        "with-replacement", 32 / 1000, 10, 320)
    assert "not accounted" in found.accounting


def test_random_sampling_without_replacement_of_fewer_or_more_than_the_dataset_is_noted():
    fewer = sampling_of(s.BatchSampler(s.RandomSampler(DATA, num_samples=100), 10, False))
    assert fewer.scheme == "shuffle" and fewer.steps_per_epoch == 10 and "random 100 of them" in fewer.notes[0]
    more = sampling_of(s.BatchSampler(s.RandomSampler(DATA, num_samples=2500), 10, False))
    assert more.steps_per_epoch == 250 and "up to 3 batches per epoch" in more.notes[0]


def test_a_batch_sampler_given_to_the_loader_is_the_one_read():
    loader = s.DataLoader(DATA, batch_sampler=s.BatchSampler(s.RandomSampler(DATA), 50, True))
    found = sampling_of(loader)
    assert (found.scheme, found.batch_size, found.steps_per_epoch, found.drop_last) == ("shuffle", 50, 20, True)


def test_batch_size_none_makes_every_index_a_step():
    found = sampling_of(s.DataLoader(DATA, batch_size=None, sampler=s.RandomSampler(DATA)))
    assert (found.scheme, found.batch_size, found.steps_per_epoch, found.rate) == ("shuffle", 1, 1000, 1 / 1000)


def test_a_subset_random_sampler_shuffles_its_indices_only():
    found = sampling_of(s.DataLoader(DATA, batch_size=10, sampler=s.SubsetRandomSampler(range(200))))
    assert (found.scheme, found.dataset_size, found.rate, found.steps_per_epoch) == ("shuffle", 200, 0.05, 20)
    assert any("1000 records" in note for note in found.notes)
    with pytest.raises(dp.InvalidArgument, match=r"indices repeats 1 of its 3 entries"):
        sampling_of(s.SubsetRandomSampler([0, 1, 1]))


def test_a_weighted_sampler_with_unequal_weights_is_refused_naming_weights_and_num_samples():
    weights = [1.0] * 999 + [5.0]
    loader = s.DataLoader(DATA, batch_size=16, sampler=s.WeightedRandomSampler(weights, num_samples=128))
    with pytest.raises(dp.InvalidArgument, match=r"weights are not uniform \(min 1.0, max 5.0 over 1000 records\)"
                       r".*num_samples=128 draws per epoch from dataset_size=1000"):
        sampling_of(loader)
    with pytest.raises(dp.InvalidArgument, match="not uniform"):
        sampling_of(s.WeightedRandomSampler([0.0, 1.0], num_samples=1))  # a zero weight: never drawn


def test_the_opacus_813_loader_is_sampling_with_replacement_at_rate_16_in_100000_not_0_125():
    """Opacus #813: ``WeightedRandomSampler(torch.ones(100_000), num_samples=128)``, batch 16.
    Opacus takes ``1 / len(loader) = 1/8``; the loader draws 16 of 100 000 per step."""
    records = range(100_000)
    loader = s.DataLoader(records, batch_size=16, sampler=s.WeightedRandomSampler([1.0] * 100_000, num_samples=128))
    assert len(loader) == 8
    found = sampling_of(loader)
    assert (found.scheme, found.dataset_size, found.batch_size, found.steps_per_epoch) == (
        "with-replacement", 100_000, 16, 8)
    assert found.rate == 0.00016 and found.rate != 1 / len(loader)
    assert found.records_per_epoch == 128 and "uniform weights" in found.notes[0]


def test_a_distributed_sampler_is_shuffling_with_the_batch_of_every_replica():
    sampler = s.DistributedSampler(DATA, num_replicas=4, rank=1)
    found = sampling_of(s.DataLoader(DATA, batch_size=25, sampler=sampler))
    assert (found.scheme, found.replicas, found.rank, found.batch_size, found.steps_per_epoch) == (
        "shuffle", 4, 1, 100, 10)
    assert found.rate == 0.1 and any("set_epoch" in note for note in found.notes)
    ordered = sampling_of(s.DataLoader(DATA, batch_size=25, sampler=s.DistributedSampler(DATA, 4, 0, shuffle=False)))
    assert ordered.scheme == "sequential"
    padded = sampling_of(s.DataLoader(DATA, batch_size=10, sampler=s.DistributedSampler(DATA, 3, 0)))
    assert any("2 records are repeated" in note for note in padded.notes)  # 3 x 334 = 1002
    with pytest.raises(dp.InvalidArgument, match=r"rank=3 is outside"):
        sampling_of(_with(s.DistributedSampler(DATA, 3, 0), rank=3))


def _with(obj, **attributes):
    for name, value in attributes.items():
        setattr(obj, name, value)
    return obj


def test_opacus_uniform_sampler_and_dp_data_loader_are_poisson_at_their_sample_rate():
    sampler = s.UniformWithReplacementSampler(num_samples=1000, sample_rate=0.01)
    found = sampling_of(sampler)
    assert (found.scheme, found.rate, found.batch_size, found.steps_per_epoch) == ("poisson", 0.01, 10.0, 100)
    assert "SampledGaussian" in found.accounting
    assert sampling_of(s.UniformWithReplacementSampler(num_samples=1000, sample_rate=0.01, steps=7)).steps_per_epoch == 7
    loader = s.DPDataLoader.from_data_loader(s.DataLoader(DATA, batch_size=50))
    found = sampling_of(loader)
    assert (found.scheme, found.rate, found.steps_per_epoch) == ("poisson", 1 / 20, 20)
    assert found.source == "DPDataLoader.UniformWithReplacementSampler"


def test_opacus_distributed_poisson_sampler_is_poisson_over_the_whole_dataset():
    found = sampling_of(s.DistributedUniformWithReplacementSampler(total_size=1000, sample_rate=0.02, num_replicas=4,
                                                                     rank=2))
    assert (found.scheme, found.dataset_size, found.rate, found.replicas, found.steps_per_epoch) == (
        "poisson", 1000, 0.02, 4, 50)
    distributed = s.DPDataLoader.from_data_loader(s.DataLoader(DATA, batch_size=50), distributed=True)
    assert sampling_of(distributed).scheme == "poisson"


def test_jax_privacy_strategies_need_the_dataset_size_and_give_their_scheme():
    with pytest.raises(dp.InvalidArgument, match="dataset_size=None.*pass dataset_size"):
        sampling_of(s.BallsInBinsSampling(iterations=300, cycle_length=100))
    bins = sampling_of(s.BallsInBinsSampling(iterations=100, cycle_length=100), dataset_size=1000)
    assert (bins.scheme, bins.rate, bins.batch_size, bins.cycle_length, bins.steps_per_epoch) == (
        "balls-in-bins", 0.01, 10.0, 100, 100)
    assert dp.training.steps_and_rate(1000, 10, 1, sampling="balls-in-bins") == (100, bins.rate)
    # jax_privacy draws the bins once: three cycles reuse each record's bin, not three allocations
    persistent = sampling_of(s.BallsInBinsSampling(iterations=300, cycle_length=100), dataset_size=1000)
    assert (persistent.scheme, persistent.rate, persistent.steps_per_epoch) == ("persistent-balls-in-bins", 0.01, 300)
    assert "not accounted" in persistent.accounting
    poisson = sampling_of(s.CyclicPoissonSampling(sampling_prob=0.01, iterations=50), dataset_size=1000)
    assert (poisson.scheme, poisson.rate, poisson.steps_per_epoch) == ("poisson", 0.01, 50)
    truncated = sampling_of(s.CyclicPoissonSampling(0.01, 50, truncated_batch_size=12), dataset_size=1000)
    assert (truncated.scheme, truncated.max_batch_size) == ("truncated-poisson", 12)
    cyclic = sampling_of(s.CyclicPoissonSampling(0.5, 60, cycle_length=3), dataset_size=1000)
    assert (cyclic.scheme, cyclic.cycle_length, cyclic.batch_size) == ("cyclic-poisson", 3, 0.5 * 333)
    assert "1 records never sampled" in cyclic.notes[0]
    fixed = sampling_of(s.FixedBatchSampling(batch_size=10, iterations=40), dataset_size=1000)
    assert (fixed.scheme, fixed.rate) == ("fixed", 0.01) and "FixedBatchGaussian" in fixed.accounting
    assert sampling_of(s.FixedBatchSampling(10, 40, replace=True), dataset_size=1000).scheme == "with-replacement"


@pytest.mark.parametrize("strategy, match", [
    (s.BMinSepSampling(sampling_prob=0.1, iterations=10, min_sep=3), "b-min-sep"),
    (s.UserSelectionStrategy(s.CyclicPoissonSampling(0.1, 10)), "user-level"),
    (s.CyclicPoissonSampling(0.1, 10, truncated_batch_size=5, cycle_length=2), "cyclic and truncated"),
])
def test_jax_privacy_strategies_no_accountant_covers_are_refused_saying_why(strategy, match):
    with pytest.raises(dp.InvalidArgument, match=match):
        sampling_of(strategy, dataset_size=1000)


@pytest.mark.parametrize("obj", [None, 3, "loader", [1, 2, 3], object(), s.Sampler()])
def test_an_object_that_is_no_sampler_is_refused_naming_obj(obj):
    with pytest.raises(dp.InvalidArgumentType, match=r"^obj=.*is not a data loader, sampler"):
        sampling_of(obj)


def test_a_subclass_of_a_known_sampler_is_refused_as_it_may_sample_differently():
    class Mine(s.RandomSampler):
        pass

    with pytest.raises(dp.InvalidArgument, match="subclass of RandomSampler"):
        sampling_of(Mine(DATA))
    with pytest.raises(dp.InvalidArgument, match="subclass of RandomSampler"):
        sampling_of(s.DataLoader(DATA, batch_size=10, sampler=Mine(DATA)))


def test_bad_attributes_and_dataset_sizes_are_named():
    with pytest.raises(dp.InvalidArgumentType, match=r"obj.batch_sampler.sampler.*has no attribute 'data_source'"):
        sampling_of(s.DataLoader(DATA, batch_size=10, sampler=_without(s.SequentialSampler(DATA), "data_source")))
    with pytest.raises(dp.InvalidArgumentType, match=r"obj.drop_last='yes' must be a bool"):
        sampling_of(_with(s.BatchSampler(s.SequentialSampler(DATA), 10, False), drop_last="yes"))
    with pytest.raises(dp.InvalidArgument, match=r"obj.batch_size=0 is outside"):
        sampling_of(s.BatchSampler(s.SequentialSampler(DATA), 0, False))
    with pytest.raises(dp.InvalidArgument, match=r"obj.sample_rate=1.5 is outside"):
        sampling_of(s.UniformWithReplacementSampler(num_samples=10, sample_rate=1.5, steps=1))
    with pytest.raises(dp.InvalidArgument, match=r"dataset_size=999 disagrees with len\(obj.data_source\)=1000"):
        sampling_of(s.SequentialSampler(DATA), dataset_size=999)
    with pytest.raises(dp.InvalidArgument, match=r"dataset_size=0 is outside"):
        sampling_of(s.SequentialSampler(DATA), dataset_size=0)
    with pytest.raises(dp.InvalidArgument, match=r"has no len\(\).*IterableDataset"):
        sampling_of(_with(s.DataLoader(DATA, batch_size=10), dataset=s.IterableDataset()))
    whole = sampling_of(s.DataLoader(DATA, batch_size=2000))  # legal in torch: one batch of all the records
    assert (whole.batch_size, whole.rate, whole.steps_per_epoch) == (1000, 1.0, 1)
    with pytest.raises(dp.InvalidArgument, match=r"batch_size=2000 is above the 1000 indices .* no batch"):
        sampling_of(s.DataLoader(DATA, batch_size=2000, drop_last=True))
    with pytest.raises(dp.InvalidArgument, match=r"batch_size=1500 is above the 1000 records .* more than once"):
        sampling_of(s.BatchSampler(s.RandomSampler(DATA, replacement=True, num_samples=3000), 1500, False))
    with pytest.raises(dp.InvalidArgument, match=r"num_samples=5 is above the 2 weights with replacement=False"):
        sampling_of(s.WeightedRandomSampler([1.0, 1.0], num_samples=5, replacement=False))
    with pytest.raises(dp.InvalidArgument, match="built for another dataset"):
        sampling_of(s.DataLoader(DATA[:10], batch_size=2, sampler=s.SequentialSampler(DATA)))


def _without(obj, name):
    delattr(obj, name)
    return obj


def test_sampling_is_a_frozen_record_with_a_one_line_description():
    found = sampling_of(s.UniformWithReplacementSampler(num_samples=1000, sample_rate=0.01))
    with pytest.raises(dataclasses.FrozenInstanceError):
        found.rate = 0.5
    assert isinstance(found, Sampling)
    assert found.describe() == "poisson at rate 0.01 (expected batch 10 of 1000 records, 100 steps per pass)"
    assert set(dp.training.SAMPLINGS) <= set(dp.accountant.sampling.SCHEMES) | {"fixed"}


def test_reading_loaders_imports_neither_torch_nor_opacus_nor_jax(monkeypatch):
    for name in ("torch", "opacus", "jax", "jax_privacy"):
        monkeypatch.setitem(sys.modules, name, None)  # importing any of them now raises ImportError
    sampling_of(s.DPDataLoader.from_data_loader(s.DataLoader(DATA, batch_size=10)))
    sampling_of(s.DataLoader(DATA, batch_size=10, sampler=s.DistributedSampler(DATA, 2, 0)))
    sampling_of(s.BallsInBinsSampling(10, 5), dataset_size=1000)


# --- the Opacus drop-in checks the loader against the accountant (tests/opacus_stand_in.py) ---------


@pytest.fixture
def opacus(monkeypatch):
    installed = opacus_stand_in.install(monkeypatch)
    dpo.register()
    return installed


def arguments(loader):
    return dict(module=opacus_stand_in.Module(), optimizer=object(), data_loader=loader, max_grad_norm=1.0)


def opacus_813_loader():
    return s.DataLoader(range(100_000), batch_size=16,
                        sampler=s.WeightedRandomSampler([1.0] * 100_000, num_samples=128))


def test_opacus_813_with_poisson_sampling_warns_that_opacus_samples_at_0_125_not_0_00016(opacus):
    engine = opacus.PrivacyEngine(accountant="dpproofs")
    with pytest.warns(SamplerMismatchWarning, match=r"with-replacement at rate 0.00016 .*8 steps per pass.*"
                      r"Poisson sampling at rate 1/len\(data_loader\) = 0.125 over all 100000 records "
                      r"\(expected batch 12500\).*Opacus #813"):
        _, optimizer, loader = engine.make_private(**arguments(opacus_813_loader()), noise_multiplier=1.0)
    assert sampling_of(loader).describe().startswith("poisson at rate 0.125")  # what runs; accounted as it runs
    opacus_stand_in.train(optimizer, 8)
    assert engine.accountant.history == [(1.0, 0.125, 8)]


def test_opacus_813_without_poisson_sampling_is_refused_by_make_private_with_epsilon(opacus):
    engine = opacus.PrivacyEngine(accountant="dpproofs-pld")
    with pytest.raises(dpo.SamplerMismatch, match=r"with-replacement at rate 0.00016.*accounts Poisson sampling at "
                       r"rate 1/len\(data_loader\) = 0.125.*no noise is calibrated"):
        engine.make_private_with_epsilon(**arguments(opacus_813_loader()), target_epsilon=1.0, target_delta=DELTA,
                                         epochs=1, poisson_sampling=False)
    assert len(engine.accountant.history) == 0  # nothing was made private
    with pytest.warns(SamplerMismatchWarning, match="no bound for this loader"):
        engine.make_private(**arguments(opacus_813_loader()), noise_multiplier=1.0, poisson_sampling=False)


def test_a_shuffled_loader_run_as_it_is_is_refused_for_a_target_and_warned_for_given_noise(opacus):
    engine = opacus.PrivacyEngine(accountant="dpproofs")
    loader = s.DataLoader(DATA, batch_size=100, shuffle=True)
    with pytest.raises(dpo.SamplerMismatch, match=r"shuffle at rate 0.1 .*Chua et al"):
        engine.make_private_with_epsilon(**arguments(loader), target_epsilon=2.0, target_delta=DELTA, epochs=1,
                                         poisson_sampling=False)
    with pytest.warns(SamplerMismatchWarning, match=r"^the data loader is shuffle at rate 0.1"):
        engine.make_private(**arguments(loader), noise_multiplier=1.0, poisson_sampling=False)


def test_a_loader_that_makes_one_pass_per_epoch_is_not_warned_about(opacus):
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplerMismatchWarning)
        for loader in (s.DataLoader(DATA, batch_size=64, shuffle=True), s.DataLoader(DATA, batch_size=64),
                       s.DataLoader(DATA, batch_size=64, shuffle=True, drop_last=True)):
            engine = opacus.PrivacyEngine(accountant="dpproofs")
            engine.make_private_with_epsilon(**arguments(loader), target_epsilon=4.0, target_delta=DELTA, epochs=1)
        poisson = s.DPDataLoader.from_data_loader(s.DataLoader(DATA, batch_size=64))
        engine = opacus.PrivacyEngine(accountant="dpproofs")
        engine.make_private(**arguments(poisson), noise_multiplier=1.0, poisson_sampling=False)  # Poisson as it runs


def test_a_weighted_loader_replaced_by_opacus_is_warned_about_with_the_reason(opacus):
    loader = s.DataLoader(DATA, batch_size=10, sampler=s.WeightedRandomSampler([1.0] * 999 + [3.0], 1000))
    engine = opacus.PrivacyEngine(accountant="dpproofs")
    with pytest.warns(SamplerMismatchWarning, match=r"cannot be read as configured .*weights are not uniform.*"
                      r"replaces it by Poisson sampling at rate 1/len\(data_loader\) = 0.01"):
        engine.make_private(**arguments(loader), noise_multiplier=1.0)


def test_other_accountants_are_left_to_opacus_and_the_wrappers_are_installed_once(opacus):
    engine = opacus.PrivacyEngine(accountant="rdp")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplerMismatchWarning)
        engine.make_private(**arguments(opacus_813_loader()), noise_multiplier=1.0, poisson_sampling=False)
    wrapped = opacus.PrivacyEngine.make_private
    dpo.register()
    assert opacus.PrivacyEngine.make_private is wrapped
    assert not hasattr(wrapped._dpproofs_original, "_dpproofs_original")  # one wrapper deep


def test_loader_mismatch_names_bad_arguments():
    with pytest.raises(dp.InvalidArgumentType, match="poisson_sampling='no' must be a bool"):
        dpo.loader_mismatch(s.DataLoader(DATA, batch_size=10), poisson_sampling="no")
    with pytest.raises(dp.InvalidArgumentType, match=r"data_loader=3 has no len\(\)"):
        dpo.loader_mismatch(3)
    assert dpo.loader_mismatch(s.DataLoader(DATA, batch_size=10, shuffle=True)) is None
    message, optimistic = dpo.loader_mismatch(s.DataLoader(DATA, batch_size=10), poisson_sampling=False)
    assert optimistic and message.startswith("the data loader is sequential at rate 0.01")
