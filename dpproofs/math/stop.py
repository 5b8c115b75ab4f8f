"""The safety stop of a time budget, read inside long evaluations (arb and mpmath integrals).

Budgets count work; the wall clock is only a safety stop. A caller (``dpproofs verify``) sets it
around its work with :func:`safety_stop`; the integrals of :mod:`.ball` and :mod:`.precise` call
:func:`check` at every integrand evaluation, so that one integral cannot overrun the budget: past
the stop they raise :class:`~dpproofs.errors.SafetyStop` (a ``NumericalError``: the point or box
is unevaluable, and the stage that asked says the budget stopped it). ``clock`` is injectable, so
that tests count clock reads instead of seconds. Imports neither flint nor sympy (the accountant
path imports :mod:`.precise`).
"""

import contextlib
import time

from dpproofs.errors import SafetyStop

__all__ = ["safety_stop", "stopped", "check"]

_STOP = {"at": None, "clock": None}


@contextlib.contextmanager
def safety_stop(at, clock=None):
    """Within the block, long evaluations end once ``clock()`` (default ``time.perf_counter``)
    passes ``at`` (None: no stop). A nested stop never extends an enclosing earlier one."""
    saved = dict(_STOP)
    if at is not None and (saved["at"] is None or at < saved["at"]):
        _STOP.update(at=at, clock=clock or time.perf_counter)
    try:
        yield
    finally:
        _STOP.update(saved)


def stopped():
    """Whether the safety stop set by :func:`safety_stop` has passed."""
    return _STOP["at"] is not None and _STOP["clock"]() > _STOP["at"]


def check(what):
    """Raise :class:`~dpproofs.errors.SafetyStop` naming ``what`` if the safety stop has passed."""
    if stopped():
        raise SafetyStop(f"the time budget's safety stop ended {what}")
