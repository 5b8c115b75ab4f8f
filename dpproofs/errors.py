"""The exception hierarchy of dpproofs: one root, and a class per kind of failure.

Every error dpproofs raises on purpose is a :class:`DPProofsError`. Bad arguments raise
:class:`InvalidArgument` (also a ``ValueError``) or :class:`InvalidArgumentType` (also a
``TypeError``), so callers that only know the builtin exceptions still catch them.
"""

__all__ = [
    "DPProofsError",
    "InvalidArgument",
    "InvalidArgumentType",
    "OutsideDomain",
    "NumericalError",
    "POINT_ERRORS",
    "SafetyStop",
    "BOX_ERRORS",
    "reraise_internal",
    "SamplerMismatchWarning",
]


class DPProofsError(Exception):
    """Root of every exception raised on purpose by dpproofs."""


class InvalidArgument(DPProofsError, ValueError):
    """An argument has the right type but a value outside its allowed range."""


class OutsideDomain(InvalidArgument):
    """A point outside the domain of a function it is evaluated at (``log`` of a negative number,
    an order below 1): the evaluators' refusal of that point.

    The checker skips such a point of a claim's search (the claim's hypotheses should exclude it);
    any other :class:`InvalidArgument` raised during an evaluation is a wrong argument passed by the
    library's own code and propagates.
    """


class InvalidArgumentType(DPProofsError, TypeError):
    """An argument has the wrong type."""


class SamplerMismatchWarning(UserWarning):
    """The data loader a training runs does not sample the way its accountant assumes (see
    :func:`dpproofs.training.sampling_of` and ``dpproofs.integrations.opacus``): the epsilon
    reported is for another loader. The message names both schemes and rates."""


class NumericalError(DPProofsError, ArithmeticError):
    """A quantity could not be computed to the accuracy promised (e.g. an unconverged series).

    Raised instead of returning a silently wrong number.
    """


class SafetyStop(NumericalError):
    """A long evaluation (e.g. an arb integral) was ended by the safety stop of a time budget
    (:func:`dpproofs.math.ball.safety_stop`): no value, as for any unevaluable point."""


#: What one evaluation of a claim at one point may raise because of the point, caught by the
#: checker and the verifier (the point is skipped, or left undecided): arithmetic failures
#: (:class:`NumericalError`, ``ZeroDivisionError``, ``OverflowError``), the numeric libraries'
#: ``ValueError`` (``math.log(0)``) and the evaluators' refusals (:class:`OutsideDomain`, and
#: ``UnsupportedExpression`` of the vocabulary). ``InvalidArgument`` is a ``ValueError`` too: every
#: handler calls :func:`reraise_internal` first, so that a wrong argument passed by the library's own
#: code fails loudly instead of being skipped.
POINT_ERRORS = (ArithmeticError, ValueError)
#: :data:`POINT_ERRORS` and, for evaluations over interval boxes, the ``TypeError`` of a function
#: that takes no interval argument (``InvalidArgumentType``, a ``TypeError``, is re-raised).
BOX_ERRORS = POINT_ERRORS + (TypeError,)


def reraise_internal(error):
    """Raise ``error`` again when it is a wrong argument passed by the library's own code (an
    :class:`InvalidArgument` other than :class:`OutsideDomain`, or an :class:`InvalidArgumentType`);
    return otherwise. Called first in every ``except POINT_ERRORS`` handler."""
    if isinstance(error, (InvalidArgument, InvalidArgumentType)) and not isinstance(error, OutsideDomain):
        raise error
