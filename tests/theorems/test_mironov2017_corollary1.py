"""Mironov 2017 (arXiv 1702.07476v3), Corollary 1: property tests at 50 digits and verdict tests."""

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dpproofs.checker.claims import check
from dpproofs_theorems.mironov2017 import corollary1
from tests.support import assert_not_violated
from tests.support import sized

HOLDING = [c for c in corollary1.CLAIMS if c.expected == "holds"]
FAILING = [c for c in corollary1.CLAIMS if c.expected == "fails"]


@settings(max_examples=sized(15), suppress_health_check=[HealthCheck.filter_too_much])
@given(point=corollary1.statement.strategy())
@example(point=corollary1.MUTANT_PIN)
@example(point=corollary1.NOTES_EXAMPLE)
def test_corollary1_holds_against_the_exact_optimal_composition_profile(point):
    assert_not_violated(corollary1.statement, point)


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
@settings(max_examples=sized(8), suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_every_expected_to_hold_claim_survives_random_points(claim, data):
    assert_not_violated(claim, data.draw(claim.strategy()))



def test_corollary1_mutant_with_constant_1_is_refuted():
    verdict = check(corollary1.mutant_constant_1, examples=3)
    assert verdict.status == "refuted" and verdict.certified


def test_corollary1_fails_without_the_high_privacy_hypothesis():
    verdict = check(corollary1.without_hypothesis, examples=3)
    assert verdict.status == "refuted" and verdict.counterexample["delta"] == 0.9


@pytest.mark.parametrize("claim", [corollary1.step_case1_identity, corollary1.step_case2_exponents,
                                   corollary1.step_case2_power], ids=lambda c: c.id)
def test_exact_steps_are_proved(claim):
    assert check(claim, examples=3).status == "proved"


def test_ratio_table_reproduces_the_sanity_value_and_orders_the_bounds():
    (row,) = corollary1.composition_table(configs=((50, 0.1, 1e-5),))
    assert row["exact"] == pytest.approx(2.8446672, abs=1e-7)  # docs/math.md#sanity-values
    assert row["exact"] < row["drv"] < row["corollary1"]
    assert row["corollary1"] == pytest.approx(4 * 0.1 * (2 * 50 * 11.512925464970229) ** 0.5)
