"""Shared assertions of the theorem property tests."""

from hypothesis import assume

from dpproofs.decide import Outcome

__all__ = ["DPS", "assert_not_violated"]

#: digits of every property test of a claim (the project's standard for checks)
DPS = 50


def assert_not_violated(claim, point, dps=DPS):
    """Skip points outside the hypotheses; fail when the relation is certainly violated."""
    outcome = claim.outcome_at(point, dps)
    assume(outcome is not None)
    assert outcome is not Outcome.VIOLATED, (point, claim.evaluate(point, dps))
