"""A stand-in for Opacus 1.6: the code paths that create, step, query, calibrate and checkpoint an
accountant, without torch.

Reproduced from Opacus 1.6.0's sources (``opacus/accountants/{accountant,registry,utils}.py``,
``opacus/privacy_engine.py``, ``opacus/optimizers/optimizer.py``; ``opacus/data_loader.py``'s
``DPDataLoader`` from ``tests/sampler_stand_in.py``), each function as Opacus writes it
where it touches an accountant, and the modules bound the way Opacus binds them: in particular
``opacus.privacy_engine`` does ``from opacus.accountants.utils import get_noise_multiplier`` at
import time and ``make_private_with_epsilon`` looks that name up in its own module, calling it with
``accountant=self.accountant.mechanism()``. What is not reproduced: torch (models, data loaders and
``torch.save`` become plain objects and pickle), the optimizer's clipping and noise, and Opacus'
own RDP analysis (its ``RDPAccountant`` here computes with ``dpproofs.Accountant`` at Opacus'
default orders, enough for the code paths).

``install(monkeypatch)`` puts the modules in ``sys.modules`` (restored after the test) and returns
the ``opacus`` package.
"""

import sys
import types

from tests import sampler_stand_in

# --- opacus/optimizers/optimizer.py: the parts that touch the accountant ---------------------------
OPTIMIZERS = '''
class DPOptimizer:
    def __init__(self, optimizer=None, *, noise_multiplier, max_grad_norm, expected_batch_size=None, **kwargs):
        self.original_optimizer = optimizer
        self.noise_multiplier = noise_multiplier
        self.max_grad_norm = max_grad_norm
        self.expected_batch_size = expected_batch_size
        self.step_hook = None
        self.accumulated_iterations = 1  # Opacus: a property, the number of accumulated batches

    def attach_step_hook(self, fn):
        self.step_hook = fn

    def pre_step(self, closure=None):
        # clip_and_accumulate(), _check_skip_next_step(), add_noise(), scale_grad() elided
        if self.step_hook:
            self.step_hook(self)
        return True

    def step(self, closure=None):
        self.pre_step()

    def state_dict(self):
        return {"noise_multiplier": self.noise_multiplier}

    def load_state_dict(self, state_dict):
        pass
'''

# --- opacus/accountants/accountant.py (verbatim but for the docstrings) ----------------------------
ACCOUNTANT = '''
import abc
from collections import OrderedDict
from copy import deepcopy


class IAccountant(abc.ABC):
    @abc.abstractmethod
    def __init__(self):
        self.history = []

    @abc.abstractmethod
    def step(self, *, noise_multiplier, sample_rate):
        pass

    @abc.abstractmethod
    def get_epsilon(self, delta, *args, **kwargs):
        pass

    @abc.abstractmethod
    def __len__(self):
        pass

    @classmethod
    @abc.abstractmethod
    def mechanism(cls):
        pass

    def get_optimizer_hook_fn(self, sample_rate):
        def hook_fn(optim):
            self.step(
                noise_multiplier=optim.noise_multiplier,
                sample_rate=sample_rate * optim.accumulated_iterations,
            )

        return hook_fn

    def state_dict(self, destination=None):
        if destination is None:
            destination = OrderedDict()
        destination["history"] = deepcopy(self.history)
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict):
        if state_dict is None or len(state_dict) == 0:
            raise ValueError("state dict is either None or empty and hence cannot be loaded into Privacy Accountant.")
        if "history" not in state_dict.keys():
            raise ValueError("state_dict does not have the key `history`. Cannot be loaded into Privacy Accountant.")
        if "mechanism" not in state_dict.keys():
            raise ValueError("state_dict does not have the key `mechanism`. Cannot be loaded into Privacy Accountant.")
        if self.mechanism() != state_dict["mechanism"]:
            raise ValueError(
                f"state_dict of {state_dict['mechanism']} cannot be loaded into "
                f" Privacy Accountant with mechanism {self.mechanism()}"
            )
        self.history = state_dict["history"]
'''

# --- opacus/accountants/rdp.py: step and interface verbatim; the analysis by dpproofs --------------
RDP = '''
import dpproofs
from dpproofs.mechanisms import SampledGaussian
from opacus.accountants.accountant import IAccountant


class RDPAccountant(IAccountant):
    DEFAULT_ALPHAS = [1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64))

    def __init__(self):
        super().__init__()

    def step(self, *, noise_multiplier, sample_rate):
        if len(self.history) >= 1:
            last_noise_multiplier, last_sample_rate, num_steps = self.history.pop()
            if last_noise_multiplier == noise_multiplier and last_sample_rate == sample_rate:
                self.history.append((last_noise_multiplier, last_sample_rate, num_steps + 1))
            else:
                self.history.append((last_noise_multiplier, last_sample_rate, num_steps))
                self.history.append((noise_multiplier, sample_rate, 1))
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def get_privacy_spent(self, *, delta, alphas=None):
        if not self.history:
            return 0, 0
        accountant = dpproofs.Accountant(list(alphas or self.DEFAULT_ALPHAS))  # Opacus: analysis/rdp.py
        for noise_multiplier, sample_rate, num_steps in self.history:
            accountant.compose(SampledGaussian(sample_rate, noise_multiplier), num_steps)
        eps, best_alpha = accountant.epsilon_and_order(delta)
        return float(eps), float(best_alpha)

    def get_epsilon(self, delta, alphas=None, **kwargs):
        eps, _ = self.get_privacy_spent(delta=delta, alphas=alphas)
        return eps

    def __len__(self):
        return len(self.history)

    @classmethod
    def mechanism(cls):
        return "rdp"
'''

# --- opacus/accountants/registry.py (verbatim; "gdp" and "prv" left out) ---------------------------
REGISTRY = '''
from opacus.accountants.rdp import RDPAccountant

_ACCOUNTANTS = {
    "rdp": RDPAccountant,
}


def register_accountant(mechanism, accountant, force=False):
    if mechanism in _ACCOUNTANTS and not force:
        raise ValueError(f"Accountant for mechanism {mechanism} is already registered")

    _ACCOUNTANTS[mechanism] = accountant


def create_accountant(mechanism):
    if mechanism in _ACCOUNTANTS:
        return _ACCOUNTANTS[mechanism]()

    raise ValueError(f"Unexpected accounting mechanism: {mechanism}")
'''

# --- opacus/accountants/__init__.py ---------------------------------------------------------------
ACCOUNTANTS = '''
from opacus.accountants.accountant import IAccountant
from opacus.accountants.rdp import RDPAccountant
from opacus.accountants.registry import create_accountant, register_accountant
from opacus.accountants import registry
'''

# --- opacus/accountants/utils.py (verbatim) -------------------------------------------------------
UTILS = '''
from opacus.accountants import create_accountant


MAX_SIGMA = 1e6


def get_noise_multiplier(
    *,
    target_epsilon,
    target_delta,
    sample_rate,
    epochs=None,
    steps=None,
    accountant="rdp",
    epsilon_tolerance=0.01,
    **kwargs,
):
    if (steps is None) == (epochs is None):
        raise ValueError(
            "get_noise_multiplier takes as input EITHER a number of steps or a number of epochs"
        )
    if steps is None:
        steps = int(epochs / sample_rate)

    eps_high = float("inf")
    accountant = create_accountant(mechanism=accountant)

    sigma_low, sigma_high = 0, 10
    while eps_high > target_epsilon:
        sigma_high = 2 * sigma_high
        accountant.history = [(sigma_high, sample_rate, steps)]
        eps_high = accountant.get_epsilon(delta=target_delta, **kwargs)
        if sigma_high > MAX_SIGMA:
            raise ValueError("The privacy budget is too low.")

    while target_epsilon - eps_high > epsilon_tolerance:
        sigma = (sigma_low + sigma_high) / 2
        accountant.history = [(sigma, sample_rate, steps)]
        eps = accountant.get_epsilon(delta=target_delta, **kwargs)

        if eps < target_epsilon:
            sigma_high = sigma
            eps_high = eps
        else:
            sigma_low = sigma

    return sigma_high
'''

# --- opacus/privacy_engine.py: the accountant's part, as Opacus writes it -------------------------
# --- opacus/data_loader.py: DPDataLoader (tests/sampler_stand_in.py) --------------------------------
DATA_LOADER = '''
from tests.sampler_stand_in import DPDataLoader
'''

PRIVACY_ENGINE = '''
import pickle
import warnings

from opacus.data_loader import DPDataLoader
from opacus.accountants import create_accountant
from opacus.accountants.utils import get_noise_multiplier
from opacus.optimizers import DPOptimizer


class PrivacyEngine:
    def __init__(self, *, accountant="prv", secure_mode=False):
        self.accountant = create_accountant(mechanism=accountant)
        self.secure_mode = secure_mode

    def make_private(self, *, module, optimizer, data_loader, noise_multiplier, max_grad_norm,
                     criterion=None, poisson_sampling=True, **kwargs):
        if poisson_sampling:  # Opacus: self._prepare_data_loader(...)
            data_loader = DPDataLoader.from_data_loader(data_loader)
        sample_rate = 1 / len(data_loader)
        expected_batch_size = int(len(data_loader.dataset) * sample_rate)
        optimizer = DPOptimizer(optimizer, noise_multiplier=noise_multiplier, max_grad_norm=max_grad_norm,
                                expected_batch_size=expected_batch_size, **kwargs)
        optimizer.attach_step_hook(
            self.accountant.get_optimizer_hook_fn(sample_rate=sample_rate)
        )
        return module, optimizer, data_loader

    def make_private_with_epsilon(self, *, module, optimizer, data_loader, target_epsilon, target_delta,
                                  epochs, max_grad_norm, criterion=None, poisson_sampling=True, **kwargs):
        sample_rate = 1 / len(data_loader)

        if len(self.accountant) > 0:
            warnings.warn(
                "You're calling make_private_with_epsilon with non-zero privacy budget "
                "already spent. Returned noise_multiplier assumes zero starting point, "
                "so your overall privacy budget will be higher."
            )

        return self.make_private(
            module=module,
            optimizer=optimizer,
            data_loader=data_loader,
            criterion=criterion,
            noise_multiplier=get_noise_multiplier(
                target_epsilon=target_epsilon,
                target_delta=target_delta,
                sample_rate=sample_rate,
                epochs=epochs,
                accountant=self.accountant.mechanism(),
                **kwargs,
            ),
            max_grad_norm=max_grad_norm,
            poisson_sampling=poisson_sampling,
            **kwargs,
        )

    def get_epsilon(self, delta):
        return self.accountant.get_epsilon(delta)

    def save_checkpoint(self, *, path, module, optimizer=None, checkpoint_dict=None):
        checkpoint_dict = checkpoint_dict or {}
        checkpoint_dict["module_state_dict"] = dict(module.state)  # Opacus: module.state_dict()
        checkpoint_dict["privacy_accountant_state_dict"] = self.accountant.state_dict()
        if optimizer is not None:
            checkpoint_dict["optimizer_state_dict"] = optimizer.state_dict()
        with open(path, "wb") as file:  # Opacus: torch.save(checkpoint_dict, path)
            pickle.dump(checkpoint_dict, file)

    def load_checkpoint(self, *, path, module, optimizer=None):
        with open(path, "rb") as file:  # Opacus: torch.load(path, weights_only=False)
            checkpoint = pickle.load(file)
        module.state = dict(checkpoint["module_state_dict"])
        self.accountant.load_state_dict(checkpoint["privacy_accountant_state_dict"])
        optimizer_state_dict = checkpoint.pop("optimizer_state_dict", {})
        if optimizer is not None and len(optimizer_state_dict) > 0:
            optimizer.load_state_dict(optimizer_state_dict)
        return checkpoint
'''

#: (module name, source or None for an empty package), in import order
MODULES = (
    ("opacus", None),
    ("opacus.optimizers", OPTIMIZERS),
    ("opacus.accountants", None),
    ("opacus.accountants.accountant", ACCOUNTANT),
    ("opacus.accountants.rdp", RDP),
    ("opacus.accountants.registry", REGISTRY),
    ("opacus.accountants.__init__", ACCOUNTANTS),
    ("opacus.accountants.utils", UTILS),
    ("opacus.data_loader", DATA_LOADER),
    ("opacus.privacy_engine", PRIVACY_ENGINE),
)


def install(monkeypatch, *, without=()):
    """Put the stand-in in ``sys.modules`` for this test; return the ``opacus`` package.

    ``without``: names of ``opacus.accountants`` to leave out (an Opacus before 1.6 has no
    ``register_accountant``)."""
    for name in list(sys.modules):
        if name == "opacus" or name.startswith("opacus."):
            monkeypatch.delitem(sys.modules, name)
    for name, source in MODULES:
        if name.endswith(".__init__"):
            module = sys.modules[name[: -len(".__init__")]]
        else:
            module = types.ModuleType(name)
            module.__path__ = []  # every one importable as a package: harmless here
            monkeypatch.setitem(sys.modules, name, module)
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, module)
        if source is not None:
            exec(compile(source, f"<opacus stand-in: {name}>", "exec"), module.__dict__)
    for name in without:
        delattr(sys.modules["opacus.accountants"], name)
    sys.modules["opacus"].PrivacyEngine = sys.modules["opacus.privacy_engine"].PrivacyEngine
    sys.modules["opacus"].__version__ = "1.6.0 (stand-in)"
    return sys.modules["opacus"]


class Module:
    """A model: its state is a dict (Opacus: an ``nn.Module``)."""

    def __init__(self):
        self.state = {"weight": 0.0}


class Loader(sampler_stand_in.DataLoader):
    """A data loader of ``batches`` batches over a dataset of ``size`` records (a torch
    ``DataLoader`` with ``shuffle=True`` and a batch size that makes ``batches`` batches)."""

    def __init__(self, size, batches, **kwargs):
        super().__init__(list(range(size)), batch_size=-(-size // batches), shuffle=True, **kwargs)
        assert len(self) == batches, (size, batches)


def train(optimizer, steps):
    """``steps`` optimizer steps (each calls the accountant's hook, as ``DPOptimizer.step`` does)."""
    for _ in range(steps):
        optimizer.step()
