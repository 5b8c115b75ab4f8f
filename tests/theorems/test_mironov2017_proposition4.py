"""Mironov 2017 (arXiv 1702.07476v3), Prop. 4: property tests at 50 digits and verdict tests."""

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dpproofs.checker.claims import check
from dpproofs_theorems.mironov2017 import proposition4
from tests.support import assert_not_violated
from tests.support import sized

HOLDING = [c for c in proposition4.CLAIMS if c.expected == "holds"]
FAILING = [c for c in proposition4.CLAIMS if c.expected == "fails"]


@settings(max_examples=sized(20))
@given(point=proposition4.statement.strategy())
@example(point=proposition4.MUTANT_PIN)
@example(point={"eps": 0.05, "n": 1000, "u": 0.77, "shape": 0})
def test_proposition4_holds_on_every_threshold_and_level_event_of_n_fold_randomized_response(point):
    assert_not_violated(proposition4.statement, point)


@settings(max_examples=sized(15))
@given(point=proposition4.adaptive_finite.strategy())
def test_proposition4_holds_on_random_events_of_adaptive_finite_compositions(point):
    assert_not_violated(proposition4.adaptive_finite, point)


@settings(max_examples=sized(30))
@given(point=proposition4.variant_chain_bun_steinke.strategy())
@example(point=proposition4.CHAIN_PIN)
def test_the_chain_with_the_bun_steinke_constant_ends_below_the_proposition4_bound(point):
    assert_not_violated(proposition4.variant_chain_bun_steinke, point)


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
@settings(max_examples=sized(8), suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_every_expected_to_hold_claim_survives_random_points(claim, data):
    assert_not_violated(claim, data.draw(claim.strategy()))



def test_proposition4_mutant_with_constant_1_is_refuted_on_100_fold_randomized_response():
    verdict = check(proposition4.mutant_constant_1, examples=5)
    assert verdict.status == "refuted" and verdict.certified


def test_printed_strict_chain_inequality_fails_once_alpha_reaches_2():
    verdict = check(proposition4.step_chain_strict, examples=5)
    assert verdict.status == "refuted" and verdict.counterexample["L"] == 9.0


@pytest.mark.parametrize("claim", [proposition4.step_alpha_at_least_one, proposition4.step_final_identity],
                         ids=lambda c: c.id)
def test_algebraic_steps_are_proved_by_sympy(claim):
    assert check(claim, examples=5).status == "proved"
