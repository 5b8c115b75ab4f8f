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
