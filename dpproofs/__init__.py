"""dpproofs: falsifiable checks of differential-privacy accounting theorems, and the accountant
those checks validate.

Public facade (the names below are a contract; everything else is internal): mechanisms, exact
quantities (``rdp``, ``log_moment``), the accountant, and ``verify``.

Importing the package, building an :class:`Accountant` and asking for epsilon load neither sympy,
Hypothesis nor python-flint: the checker's names (``verify``, ``Verdict``) are loaded on first use.
"""

import importlib
import sys

from dpproofs.accountant import training
from dpproofs.accountant.base import PrivacyAccountant
from dpproofs.accountant.calibrate import calibrate_sigma
from dpproofs.accountant.exact import log_moment, rdp
from dpproofs.accountant.lower_bounds import delta_lower_bound, epsilon_lower_bound
from dpproofs.accountant.rdp import DEFAULT_ORDERS, Accountant
from dpproofs.errors import DPProofsError, InvalidArgument, InvalidArgumentType, NumericalError
from dpproofs import mechanisms as _mechanisms
from dpproofs.mechanisms import *  # noqa: F401,F403 (every mechanism: a new one is a one-file change)
from dpproofs.mechanisms_allocation import RandomAllocationGaussian  # noqa: F401 (registers itself)
# shuffled batches: refused by both accountants (certified LOWER bounds: epsilon_lower_bound); its own
# module for the size of mechanisms.py, imported here (mechanisms.py importing it would be a cycle)
from dpproofs.mechanisms_shuffle import ShuffledGaussian
from dpproofs.mechanisms_truncated import TruncatedSampledGaussian  # noqa: F401 (registers itself)
from dpproofs.mechanisms_bounded_range import BoundedRange  # noqa: F401 (registers itself)

#: ``dpproofs.training`` (data-loader setup to steps and rate) is a public module path: it lives in
#: the accountant layer and is importable under its documented name.
sys.modules.setdefault("dpproofs.training", training)

__all__ = [
    "DPProofsError",
    "InvalidArgument",
    "InvalidArgumentType",
    "NumericalError",
    *(name for name in _mechanisms.__all__ if name != "Mechanism"),
    "RandomAllocationGaussian",
    "ShuffledGaussian",
    "TruncatedSampledGaussian",
    "BoundedRange",
    "rdp",
    "log_moment",
    "verify",
    "Verdict",
    "PrivacyAccountant",
    "Accountant",
    "calibrate_sigma",
    "epsilon_lower_bound",
    "delta_lower_bound",
    "DEFAULT_ORDERS",
    "PLDAccountant",
    "sweep",
]

__version__ = "0.1.0"

#: Public names loaded on first use (name -> module): they pull in sympy, Hypothesis and flint.
_LAZY = {
    "verify": "dpproofs.verification",
    "Verdict": "dpproofs.checker.verdicts",
    # the tight accountant loads scipy.optimize and its discretisation only when used
    "PLDAccountant": "dpproofs.accountant.pld.accountant",
    # a grid of training runs, in parallel on Dask when the extra is installed
    "sweep": "dpproofs.cli.sweep",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dpproofs' has no attribute {name!r}")
    # not cached in globals(): the package's attributes stay the same whatever was used before
    return getattr(importlib.import_module(module), name)


def __dir__():
    return sorted(set(globals()) | set(__all__))
