"""Mironov 2017 (arXiv 1702.07476v3), Prop. 1: property and verdict tests."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpproofs.checker.claims import check
from dpproofs_theorems.mironov2017 import proposition1
from tests.support import assert_not_violated
from tests.support import sized

CLAIMS = proposition1.CLAIMS
HOLDING = [c for c in CLAIMS if c.expected == "holds"]
FAILING = [c for c in CLAIMS if c.expected == "fails"]


@settings(max_examples=sized(20))
@given(point=proposition1.statement.strategy())
@example(point=proposition1.MUTANT_PIN)
def test_proposition1_joint_divergence_is_at_most_the_sum_of_step_budgets(point):
    assert_not_violated(proposition1.statement, point)


def test_proposition1_mutant_with_max_instead_of_sum_is_refuted():
    verdict = check(proposition1.mutant_max_instead_of_sum, examples=5)
    assert verdict.status == "refuted" and verdict.certified


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
@settings(max_examples=sized(10))
@given(data=st.data())
def test_every_expected_to_hold_claim_survives_random_points(claim, data):
    assert_not_violated(claim, data.draw(claim.strategy()))
