"""Verdicts: the answer of every check (theorem claims and user claims alike).

A :class:`Verdict` is immutable: the verdict pipeline (:mod:`dpproofs.checker.pipeline`) builds it once.

* **proved**: certified on the whole domain, by sympy or by ball arithmetic with subdivision;
* **holds**: no counterexample among the high-precision examples tried (with the count and the
  closest approach);
* **refuted**: a counterexample that ball arithmetic certifies and the mpmath reference confirms;
* **undecided**: the numbers could not separate the two sides, or nothing could be evaluated.

A theorem claim carries what the project expects of it (``expected``: ``"holds"`` or
``"fails"``); a user's claim has no expectation (``expected`` is None and ``to_dict()`` has
neither ``expected`` nor ``matches_expectation``).
"""

import dataclasses
import types
from collections.abc import Mapping

__all__ = ["STATUSES", "EXPECTATIONS", "Verdict", "frozen", "thawed"]

STATUSES = ("proved", "holds", "refuted", "undecided")
EXPECTATIONS = ("holds", "fails")


def frozen(value):
    """A read-only copy: mappings become ``MappingProxyType``, lists become tuples (recursively)."""
    if isinstance(value, Mapping):
        return types.MappingProxyType({k: frozen(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    return value


def thawed(value):
    """The plain-JSON copy of a :func:`frozen` value (dicts and lists)."""
    if isinstance(value, Mapping):
        return {k: thawed(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [thawed(v) for v in value]
    return value


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The answer of a check. ``to_dict()`` gives the plain-JSON form.

    ``counterexample`` holds only the values of the claim's variables at the counterexample;
    ``sides`` what was computed there (``lhs``/``rhs`` texts, ``lhs_ball``/``rhs_ball``
    enclosures, the mpmath ``reference`` note). ``closest`` is the point of smallest normalised
    margin (``point``, ``lhs``, ``rhs``, ``margin``).
    """

    claim_id: str
    status: str
    expected: str | None = None
    examples: int = 0
    certified: bool = False
    closest: Mapping | None = None
    counterexample: Mapping | None = None
    sides: Mapping | None = None
    evidence: str = ""
    seconds: float = 0.0
    boxes: int = 0

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status={self.status!r} is not one of {STATUSES}")
        if self.expected is not None and self.expected not in EXPECTATIONS:
            raise ValueError(f"expected={self.expected!r} is not one of {EXPECTATIONS} or None")
        for name in ("closest", "counterexample", "sides"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, frozen(value))  # construction, not mutation

    @property
    def verdict(self):
        """The result (same as ``status``)."""
        return self.status

    @property
    def matches_expectation(self):
        """Whether the status is what the claim expects; None for a claim without expectation."""
        if self.expected is None:
            return None
        if self.expected == "holds":
            return self.status in ("proved", "holds")
        return self.status == "refuted"

    def to_dict(self):
        """Plain JSON: ``id``, ``verdict`` (and ``status``, the same value), the fields, and
        ``expected``/``matches_expectation`` only for a claim with an expectation."""
        data = {"id": self.claim_id, "verdict": self.status, "status": self.status}
        if self.expected is not None:
            data["expected"] = self.expected
            data["matches_expectation"] = self.matches_expectation
        for field in dataclasses.fields(self):
            if field.name not in ("claim_id", "status", "expected"):
                data[field.name] = thawed(getattr(self, field.name))
        return data
