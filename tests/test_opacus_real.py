"""dpproofs' accountants inside a real Opacus ``PrivacyEngine``: a tiny model trained on the CPU.

Marked ``opacus``: skipped unless selected (``pytest -m opacus``, as ``.ci/run`` does after
installing ``.[opacus]``), and skipped when torch or Opacus is not installed (imported only when a
test runs). A linear layer on 64
random points, batches of 8 (sample rate 1/8, Poisson-sampled by Opacus), 2 epochs: 16 steps.
"""

import math
import warnings

import pytest

import dpproofs as dp
from dpproofs.integrations import opacus as dpo

pytestmark = pytest.mark.opacus

torch = opacus = None  # imported by the fixture, so that collecting this file (deselected) imports neither

DELTA = 1e-5
RECORDS, BATCH, EPOCHS = 64, 8, 2
NAMES = ["dpproofs", "dpproofs-pld"]


@pytest.fixture(autouse=True)
def registered():
    global torch, opacus
    torch = pytest.importorskip("torch")
    opacus = pytest.importorskip("opacus")
    dpo.register()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Secure RNG turned off")  # Opacus' advice, every engine
        warnings.filterwarnings("ignore", message="Full backward hook is firing")  # torch, on Opacus' hooks
        yield


def setup(seed=0):
    """A fresh model, optimizer and loader (the same data for every seed of the model)."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(RECORDS, 4, generator=generator)
    y = torch.randint(0, 2, (RECORDS,), generator=generator)
    torch.manual_seed(seed)
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=BATCH)
    return model, optimizer, loader


def train(model, optimizer, loader, epochs):
    """Train; return the number of optimizer steps taken."""
    steps = 0
    for _ in range(epochs):
        for xb, yb in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            optimizer.step()
            steps += 1
    return steps


def native(name, history):
    """The dpproofs accountant of ``name``'s kind with ``history`` composed."""
    accountant = dp.PLDAccountant() if dpo.REGISTERED[name] == "pld" else dp.Accountant(list(dpo.ORDERS))
    for sigma, q, steps in history:
        accountant.compose(dp.SampledGaussian(q, sigma), steps)
    return accountant


@pytest.mark.parametrize("name", NAMES)
def test_a_real_engine_reports_our_epsilon_for_the_history_it_recorded(name):
    engine = opacus.PrivacyEngine(accountant=name)
    assert type(engine.accountant) is {"dpproofs": dpo.DPProofsRDP, "dpproofs-pld": dpo.DPProofsPLD}[name]
    model, optimizer, loader = setup()
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.0, max_grad_norm=1.0)
    assert engine.get_epsilon(DELTA) == 0.0
    steps = train(model, optimizer, loader, EPOCHS)
    assert steps == EPOCHS * RECORDS // BATCH
    assert engine.accountant.history == [(1.0, 1 / BATCH, steps)]
    assert len(engine.accountant) == steps
    assert engine.get_epsilon(DELTA) == native(name, engine.accountant.history).epsilon(DELTA)


def test_our_rdp_epsilon_is_never_above_opacus_own_for_the_same_run():
    theirs = opacus.PrivacyEngine(accountant="rdp")
    model, optimizer, loader = setup()
    model, optimizer, loader = theirs.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.0, max_grad_norm=1.0)
    train(model, optimizer, loader, EPOCHS)
    ours = dpo.DPProofsRDP()
    ours.load_state_dict(theirs.accountant.state_dict())  # an Opacus checkpoint resumes in ours
    assert ours.get_epsilon(DELTA) <= theirs.get_epsilon(DELTA) * (1 + 1e-9)
    pld = dpo.DPProofsPLD()
    pld.load_state_dict(theirs.accountant.state_dict())
    assert pld.get_epsilon(DELTA) < ours.get_epsilon(DELTA)


@pytest.mark.parametrize("name", NAMES)
def test_make_private_with_epsilon_uses_our_sigma_and_stays_within_the_target(name):
    engine = opacus.PrivacyEngine(accountant=name)
    model, optimizer, loader = setup()
    model, optimizer, loader = engine.make_private_with_epsilon(
        module=model, optimizer=optimizer, data_loader=loader, target_epsilon=5.0, target_delta=DELTA,
        epochs=EPOCHS, max_grad_norm=1.0)
    kind = dpo.REGISTERED[name]
    orders = {"orders": list(dpo.ORDERS)} if kind == "rdp" else {}
    sigma = dp.calibrate_sigma(epsilon=5.0, delta=DELTA, q=1 / BATCH, steps=EPOCHS * RECORDS // BATCH,
                               accountant=kind, **orders)
    assert math.isclose(optimizer.noise_multiplier, sigma, rel_tol=1e-6)
    train(model, optimizer, loader, EPOCHS)
    assert engine.get_epsilon(DELTA) <= 5.0


@pytest.mark.parametrize("name", NAMES)
def test_a_checkpoint_saved_and_loaded_resumes_with_the_same_epsilon(name, tmp_path):
    engine = opacus.PrivacyEngine(accountant=name)
    model, optimizer, loader = setup()
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.0, max_grad_norm=1.0)
    train(model, optimizer, loader, EPOCHS)
    epsilon = engine.get_epsilon(DELTA)
    path = tmp_path / "checkpoint.pt"
    engine.save_checkpoint(path=path, module=model, optimizer=optimizer)

    resumed = opacus.PrivacyEngine(accountant=name)
    model, optimizer, loader = setup(seed=1)
    model, optimizer, loader = resumed.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.0, max_grad_norm=1.0)
    resumed.load_checkpoint(path=path, module=model, optimizer=optimizer)
    assert resumed.get_epsilon(DELTA) == epsilon
    steps = train(model, optimizer, loader, 1)
    assert resumed.accountant.history == [(1.0, 1 / BATCH, EPOCHS * RECORDS // BATCH + steps)]
    assert resumed.get_epsilon(DELTA) == native(name, resumed.accountant.history).epsilon(DELTA) > epsilon


def test_an_accountant_assigned_after_make_private_raises_instead_of_reporting_zero():
    engine = opacus.PrivacyEngine(accountant="dpproofs")
    model, optimizer, loader = setup()
    model, optimizer, loader = engine.make_private(
        module=model, optimizer=optimizer, data_loader=loader, noise_multiplier=1.0, max_grad_norm=1.0)
    engine.accountant = dpo.DPProofsPLD()
    train(model, optimizer, loader, 1)
    with pytest.raises(dpo.DetachedAccountant):
        engine.get_epsilon(DELTA)


# --- the real samplers read by sampling_of, and the drop-in's loader check ------------------------


def test_sampling_of_reads_the_real_torch_samplers():
    data = torch.utils.data
    dataset = data.TensorDataset(torch.zeros(1000, 1))
    loader = data.DataLoader(dataset, batch_size=64, shuffle=True)
    found = dp.training.sampling_of(loader)
    assert (found.scheme, found.rate, found.steps_per_epoch) == ("shuffle", 0.064, len(loader))
    assert dp.training.sampling_of(data.DataLoader(dataset, batch_size=100)).scheme == "sequential"
    replaced = data.DataLoader(dataset, batch_size=10, sampler=data.RandomSampler(dataset, True, num_samples=200))
    assert (dp.training.sampling_of(replaced).scheme, dp.training.sampling_of(replaced).steps_per_epoch) == (
        "with-replacement", len(replaced))
    subset = data.DataLoader(dataset, batch_size=10, sampler=data.SubsetRandomSampler(list(range(300))))
    assert dp.training.sampling_of(subset).dataset_size == 300
    batches = data.BatchSampler(data.SequentialSampler(dataset), 30, drop_last=True)
    assert dp.training.sampling_of(data.DataLoader(dataset, batch_sampler=batches)).steps_per_epoch == len(batches)
    distributed = data.DataLoader(dataset, batch_size=50, sampler=data.DistributedSampler(dataset, 4, 3))
    found = dp.training.sampling_of(distributed)
    assert (found.replicas, found.rank, found.batch_size, found.steps_per_epoch) == (4, 3, 200, len(distributed))
    with pytest.raises(dp.InvalidArgument, match="weights are not uniform"):
        dp.training.sampling_of(data.WeightedRandomSampler(torch.arange(1.0, 11.0), num_samples=5))


def test_sampling_of_reads_the_real_opacus_samplers(monkeypatch):
    from opacus.data_loader import DPDataLoader
    from opacus.utils.uniform_sampler import DistributedUniformWithReplacementSampler, UniformWithReplacementSampler

    dataset = torch.utils.data.TensorDataset(torch.zeros(1000, 1))
    found = dp.training.sampling_of(UniformWithReplacementSampler(num_samples=1000, sample_rate=0.01))
    assert (found.scheme, found.rate, found.steps_per_epoch) == ("poisson", 0.01, 100)
    loader = DPDataLoader.from_data_loader(torch.utils.data.DataLoader(dataset, batch_size=50))
    assert dp.training.sampling_of(loader).describe() == (
        "poisson at rate 0.05 (expected batch 50 of 1000 records, 20 steps per pass)")
    monkeypatch.setattr(torch.distributed, "get_world_size", lambda: 2)  # no process group needed
    monkeypatch.setattr(torch.distributed, "get_rank", lambda: 1)
    found = dp.training.sampling_of(DistributedUniformWithReplacementSampler(total_size=1000, sample_rate=0.02))
    assert (found.scheme, found.rate, found.replicas, found.rank) == ("poisson", 0.02, 2, 1)


def opacus_813():
    """Opacus #813's loader: 100 000 records, WeightedRandomSampler(torch.ones, num_samples=128), batch 16."""
    dataset = torch.utils.data.TensorDataset(torch.randn(100_000, 4), torch.randint(0, 2, (100_000,)))
    sampler = torch.utils.data.WeightedRandomSampler(torch.ones(100_000), num_samples=128, replacement=True)
    return torch.utils.data.DataLoader(dataset, batch_size=16, sampler=sampler)


def test_opacus_813_is_read_as_sampling_with_replacement_and_refused_or_warned_by_a_real_engine():
    from dpproofs.errors import SamplerMismatchWarning

    loader = opacus_813()
    found = dp.training.sampling_of(loader)
    assert (found.scheme, found.rate, found.batch_size, found.steps_per_epoch) == ("with-replacement", 0.00016, 16, 8)
    engine = opacus.PrivacyEngine(accountant="dpproofs")
    model, optimizer, _ = setup()
    with pytest.raises(dpo.SamplerMismatch, match=r"with-replacement at rate 0.00016.* = 0.125"):
        engine.make_private_with_epsilon(module=model, optimizer=optimizer, data_loader=loader, target_epsilon=1.0,
                                         target_delta=DELTA, epochs=1, max_grad_norm=1.0, poisson_sampling=False)
    engine = opacus.PrivacyEngine(accountant="dpproofs")
    model, optimizer, _ = setup()
    with pytest.warns(SamplerMismatchWarning, match=r"rate 1/len\(data_loader\) = 0.125 over all 100000 records"):
        _, _, private_loader = engine.make_private(module=model, optimizer=optimizer, data_loader=loader,
                                                   noise_multiplier=1.0, max_grad_norm=1.0)
    assert dp.training.sampling_of(private_loader).rate == 0.125  # what Opacus runs, and accounts
