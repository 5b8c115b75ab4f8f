"""dpproofs: falsifiable checks of differential-privacy accounting theorems, and the accountant
those checks validate.

Public facade (the names below are a contract; everything else is internal):
mechanisms, exact quantities (``rdp``, ``log_moment``), the accountant, and ``verify``.
"""

from dpproofs.accountant import DEFAULT_ORDERS, Accountant, calibrate_sigma
from dpproofs.errors import DPProofsError, InvalidArgument, InvalidArgumentType, NumericalError
from dpproofs.mechanisms import Gaussian, Laplace, RandomizedResponse, SampledGaussian
from dpproofs.quantities import log_moment, rdp
from dpproofs.verify import Verdict, verify

__all__ = [
    "DPProofsError",
    "InvalidArgument",
    "InvalidArgumentType",
    "NumericalError",
    "Gaussian",
    "SampledGaussian",
    "Laplace",
    "RandomizedResponse",
    "rdp",
    "log_moment",
    "verify",
    "Verdict",
    "Accountant",
    "calibrate_sigma",
    "DEFAULT_ORDERS",
]

__version__ = "0.1.0"
