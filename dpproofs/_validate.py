"""Small argument validators shared by every public entry point.

Each validator returns the value converted to a canonical type, or raises with a message
built from the same data as the check: ``name=value!r`` and the allowed range.
"""

import math
import numbers

from dpproofs.errors import InvalidArgument, InvalidArgumentType

__all__ = ["real", "integer", "choice", "interval_text", "shown"]


#: Longest ``repr`` of a value quoted in full in a message (a 10**400 would fill the screen).
SHOWN_CHARACTERS = 60


def shown(value):
    """``repr(value)``, shortened when long: a huge integer as its leading digits and length."""
    text = repr(value)
    if len(text) <= SHOWN_CHARACTERS:
        return text
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        digits = str(abs(int(value)))
        return f"{'-' if value < 0 else ''}{digits[0]}.{digits[1:4]}e+{len(digits) - 1} (an integer of {len(digits)} digits)"
    return text[:SHOWN_CHARACTERS] + "..."


def interval_text(low, high, low_open, high_open):
    """Render an interval such as ``(0, inf)`` or ``[0, 1]``."""
    return f"{'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"


def real(name, value, low=-math.inf, high=math.inf, *, low_open=False, high_open=False):
    """Return ``value`` as a float after checking it is a finite real in the given interval.

    ``bool`` is rejected (it is an ``int`` subclass but never a meaningful parameter).
    Infinite bounds are always open: nan and +-inf are always rejected.
    """
    allowed = interval_text(low, high, low_open or low == -math.inf, high_open or high == math.inf)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidArgumentType(
            f"{name}={shown(value)} must be a real number in {allowed}, not {type(value).__name__}"
        )
    try:
        as_float = float(value)
    except (OverflowError, ValueError) as error:  # e.g. a huge Fraction
        raise InvalidArgument(f"{name}={shown(value)} is not representable as a float: {error}") from None
    if not math.isfinite(as_float):
        raise InvalidArgument(f"{name}={shown(value)} must be a finite number in {allowed}")
    too_low = as_float <= low if low_open else as_float < low
    too_high = as_float >= high if high_open else as_float > high
    if too_low or too_high:
        raise InvalidArgument(f"{name}={shown(value)} is outside the allowed range {allowed}")
    return as_float


def integer(name, value, low=None, high=None):
    """Return ``value`` as an int after checking it is an integer in ``[low, high]``.

    Accepts ints and integral floats such as ``1e9`` (common on command lines and in configs);
    rejects bools, non-integral floats, nan and inf.
    """
    allowed = f"[{low if low is not None else '-inf'}, {high if high is not None else 'inf'}]"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidArgumentType(
            f"{name}={shown(value)} must be an integer in {allowed}, not {type(value).__name__}"
        )
    if isinstance(value, numbers.Integral):
        as_int = int(value)
    else:
        try:
            as_float = float(value)
        except (OverflowError, ValueError) as error:  # e.g. a huge Fraction
            raise InvalidArgument(f"{name}={shown(value)} is not representable as a float: {error}") from None
        if not math.isfinite(as_float) or as_float != math.floor(as_float):
            raise InvalidArgument(f"{name}={shown(value)} must be an integer in {allowed}")
        as_int = int(as_float)
    if (low is not None and as_int < low) or (high is not None and as_int > high):
        raise InvalidArgument(f"{name}={shown(value)} is outside the allowed range {allowed}")
    return as_int


def choice(name, value, allowed):
    """Return ``value`` after checking it is one of ``allowed``."""
    if not isinstance(value, str):
        raise InvalidArgumentType(f"{name}={shown(value)} must be a str, one of {sorted(allowed)!r}")
    if value not in allowed:
        raise InvalidArgument(f"{name}={shown(value)} is not one of {sorted(allowed)!r}")
    return value
