"""The exception hierarchy of dpproofs: one root, and a class per kind of failure.

Every error dpproofs raises on purpose is a :class:`DPProofsError`. Bad arguments raise
:class:`InvalidArgument` (also a ``ValueError``) or :class:`InvalidArgumentType` (also a
``TypeError``), so callers that only know the builtin exceptions still catch them.
"""

__all__ = [
    "DPProofsError",
    "InvalidArgument",
    "InvalidArgumentType",
    "NumericalError",
]


class DPProofsError(Exception):
    """Root of every exception raised on purpose by dpproofs."""


class InvalidArgument(DPProofsError, ValueError):
    """An argument has the right type but a value outside its allowed range."""


class InvalidArgumentType(DPProofsError, TypeError):
    """An argument has the wrong type."""


class NumericalError(DPProofsError, ArithmeticError):
    """A quantity could not be computed to the accuracy promised (e.g. an unconverged series).

    Raised instead of returning a silently wrong number.
    """
