"""Shared helpers of the test suite: the property-test assertion for claims, campaign sizes."""

import os

from hypothesis import HealthCheck, assume, given, settings

from dpproofs.checker.decide import Outcome
from dpproofs.errors import NumericalError

__all__ = ["DPS", "sized", "assert_not_violated", "assert_refuted_at_its_pin", "campaign_size", "never_violated"]

#: digits of every property test of a claim (the project's standard for checks)
DPS = 50


def assert_not_violated(claim, point, dps=DPS):
    """Skip points outside the hypotheses; fail when the relation is certainly violated."""
    try:
        outcome = claim.outcome_at(point, dps)
    except (NumericalError, ZeroDivisionError, OverflowError, ValueError):
        outcome = None  # unevaluable at this point: skipped, as the checker's search skips it
    assume(outcome is not None)
    assert outcome is not Outcome.VIOLATED, (point, claim.evaluate(point, dps))


def campaign_size(full):
    """Examples for a campaign test: ``full``, or a fifth of it (at least 2) under the ``ci``
    Hypothesis profile, which CI uses to run every campaign at a modest size."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "ci":
        return max(2, full // 5)
    return full


def never_violated(claim, examples, dps=DPS):
    """A Hypothesis property (call it) that ``claim`` is never certainly violated at ``dps``
    digits on ``examples`` points of its domain."""

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(claim.strategy())
    def prop(point):
        assert_not_violated(claim, point, dps)

    return prop


def assert_refuted_at_its_pin(claim, examples=5):
    """``claim`` (expected to fail) is refuted, certified, at its first pinned point."""
    from dpproofs.checker.claims import check

    assert claim.pinned, f"{claim.id} must pin its counterexample"
    verdict = check(claim, examples=examples)
    assert verdict.status == "refuted" and verdict.certified, verdict.evidence
    pinned = claim.pinned[0]
    # numeric coordinates come back as given; structured ones (pairs, compositions) as text
    assert all(verdict.counterexample[k] == v for k, v in pinned.items() if isinstance(v, (int, float)))


#: The ``max_examples`` of the default profile, which per-test sizes are written against.
_DEFAULT_EXAMPLES = 20


def sized(examples):
    """A per-test Hypothesis size written for the default profile, scaled to the active one
    (``default`` 20, ``ci`` 40, ``campaign`` 1000 examples): profiles, not tests, set the effort."""
    from hypothesis import settings

    return max(1, round(examples * settings.default.max_examples / _DEFAULT_EXAMPLES))
