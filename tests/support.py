"""Shared helpers of the test suite: the property-test assertion for claims, campaign sizes."""

import os

from hypothesis import assume

from dpproofs.decide import Outcome

__all__ = ["DPS", "assert_not_violated", "campaign_size"]

#: digits of every property test of a claim (the project's standard for checks)
DPS = 50


def assert_not_violated(claim, point, dps=DPS):
    """Skip points outside the hypotheses; fail when the relation is certainly violated."""
    outcome = claim.outcome_at(point, dps)
    assume(outcome is not None)
    assert outcome is not Outcome.VIOLATED, (point, claim.evaluate(point, dps))


def campaign_size(full):
    """Examples for a campaign test: ``full``, or a fifth of it (at least 2) under the ``ci``
    Hypothesis profile, which CI uses to run every campaign at a modest size."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "ci":
        return max(2, full // 5)
    return full
