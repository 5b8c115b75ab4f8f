"""Working precision: digits <-> bits, and the one escalation policy of the checker.

Pure Python (no mpmath, sympy or flint), so every layer may use it.

* :func:`to_bits` / :func:`to_digits` convert decimal digits to binary precision and back, with
  :data:`GUARD_BITS` guard bits;
* :func:`doubling` is the sequence of precisions tried when a comparison is undecided: the
  precision doubles from a start value up to a ceiling, and stops early when a time rule says the
  next step is not affordable;
* :func:`escalation` is that policy for the mpmath reference (digits), :func:`ball_escalation`
  for ball arithmetic (bits).
"""

import time

__all__ = [
    "BITS_PER_DIGIT",
    "GUARD_BITS",
    "MAX_ESCALATION_DPS",
    "SLOW_STEP_SECONDS",
    "MAX_BALL_BITS",
    "to_bits",
    "to_digits",
    "doubling",
    "escalation",
    "ball_escalation",
]

#: log2(10) = 3.3219..., rounded up so that ``dps`` digits always fit in ``to_bits(dps)`` bits.
BITS_PER_DIGIT = 3.33
#: Guard bits added to every conversion: rounding in the arithmetic that combines evaluator
#: outputs must not eat into the digits asked for.
GUARD_BITS = 64
#: Most digits an escalation of the mpmath reference reaches while its steps stay cheap.
MAX_ESCALATION_DPS = 1600
#: A reference step slower than this (seconds) ends an escalation once it has reached 4 dps.
SLOW_STEP_SECONDS = 1.0
#: Highest ball precision (bits) an escalation in ball arithmetic tries.
MAX_BALL_BITS = 8192
#: The next step of a doubling costs about this many times the last one (precision doubled:
#: multiplication is super-linear in the number of limbs); used to predict a budget overrun.
NEXT_STEP_FACTOR = 3


def to_bits(dps, guard=GUARD_BITS):
    """Binary precision (bits) that holds ``dps`` decimal digits, plus ``guard`` guard bits
    (truncated to an int: less than one bit short of ``dps log2(10) + guard``)."""
    return int(BITS_PER_DIGIT * dps) + guard


def to_digits(bits, guard=GUARD_BITS):
    """Decimal digits (at least 1) that ``bits`` bits hold beyond ``guard`` guard bits."""
    return max(1, int((bits - guard) / BITS_PER_DIGIT))


def doubling(start, ceiling, *, keep_until=None, slow_seconds=None, budget_seconds=None):
    """Yield ``start, 2 start, 4 start, ...`` up to ``ceiling``; the caller's work between two
    yields is timed.

    After a step the sequence stops when that step took more than ``slow_seconds`` and the
    precision has reached ``keep_until`` (every precision up to ``keep_until`` is always tried),
    or when the time spent so far plus :data:`NEXT_STEP_FACTOR` times the last step exceeds
    ``budget_seconds``.
    """
    started = time.perf_counter()
    value = start
    while value <= ceiling:
        before = time.perf_counter()
        yield value
        now = time.perf_counter()
        step = now - before
        if slow_seconds is not None and step > slow_seconds and value >= (keep_until or 0):
            return
        if budget_seconds is not None and now - started + NEXT_STEP_FACTOR * step > budget_seconds:
            return
        value *= 2


def escalation(dps):
    """Digits tried when a comparison at ``dps`` digits is undecided (or must be confirmed):
    ``2 dps, 4 dps, ...`` up to ``max(MAX_ESCALATION_DPS, 4 dps)``; always ``2 dps`` and
    ``4 dps``, beyond that only while one step takes under :data:`SLOW_STEP_SECONDS`."""
    return doubling(2 * dps, max(MAX_ESCALATION_DPS, 4 * dps), keep_until=4 * dps,
                    slow_seconds=SLOW_STEP_SECONDS)


def ball_escalation(bits, budget_seconds, ceiling=MAX_BALL_BITS):
    """Bits tried for a ball evaluation whose enclosures neither decide nor are tight:
    ``bits, 2 bits, ...`` up to ``ceiling`` while the next step fits in ``budget_seconds``."""
    return doubling(bits, ceiling, budget_seconds=budget_seconds)
