"""Mironov 2017 (arXiv 1702.07476v3), Prop. 10: property and verdict tests."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpproofs.checker.claims import check
from dpproofs_theorems.mironov2017 import proposition10
from tests.support import assert_not_violated
from tests.support import sized

CLAIMS = proposition10.CLAIMS
HOLDING = [c for c in CLAIMS if c.expected == "holds"]
FAILING = [c for c in CLAIMS if c.expected == "fails"]


@settings(max_examples=sized(20))
@given(point=proposition10.statement.strategy())
def test_proposition10_holds_on_random_events_of_random_finite_pairs(point):
    assert_not_violated(proposition10.statement, point)


@settings(max_examples=sized(30))
@given(point=proposition10.gaussian.strategy())
@example(point=proposition10.GAUSSIAN_MUTANT_PIN)
def test_proposition10_holds_on_gaussian_half_lines(point):
    assert_not_violated(proposition10.gaussian, point)


def test_proposition10_mutant_without_the_exponent_is_refuted():
    verdict = check(proposition10.mutant_exponent_dropped, examples=5)
    assert verdict.status == "refuted" and verdict.certified



@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
@settings(max_examples=sized(10))
@given(data=st.data())
def test_every_expected_to_hold_claim_survives_random_points(claim, data):
    assert_not_violated(claim, data.draw(claim.strategy()))
