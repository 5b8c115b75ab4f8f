"""dp_accounting's main-branch events (not in the installed 0.6), built as its main branch defines
them (dp_accounting/dp_event.py at google/differential-privacy b5b0286: attrs classes, frozen, slots,
auto_attribs, subclasses of DpEvent, the same names and fields): the bridge recognises them by class
name. Shared by tests/test_integrations_dp_accounting_main_events.py and
benchmarks/main_events_vs_dp_accounting_main.py."""

from typing import Optional

import attr
import dp_accounting as dpa

__all__ = ["EpsilonDeltaDpEvent", "ExponentialMechanismDpEvent", "PermuteAndFlipDpEvent", "DiscreteGaussianDpEvent"]


@attr.s(frozen=True, slots=True, auto_attribs=True)
class EpsilonDeltaDpEvent(dpa.DpEvent):
    epsilon: float
    delta: float


@attr.s(frozen=True, slots=True, auto_attribs=True)
class ExponentialMechanismDpEvent(dpa.DpEvent):
    epsilon: float


@attr.s(frozen=True, slots=True, auto_attribs=True)
class PermuteAndFlipDpEvent(dpa.DpEvent):
    epsilon: float


@attr.s(frozen=True, slots=True, auto_attribs=True)
class DiscreteGaussianDpEvent(dpa.DpEvent):
    sigma: float
    sensitivity: float = 1.0
    dimension: Optional[int] = None
