"""Mironov 2017 (arXiv 1702.07476v3), Lemma 1: property tests at 50 digits and verdict tests."""

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dpproofs.checker.claims import check
from dpproofs_theorems.mironov2017 import lemma1
from tests.support import assert_not_violated
from tests.support import sized

BY_ID = {c.id: c for c in lemma1.CLAIMS}
HOLDING = [c for c in lemma1.CLAIMS if c.expected == "holds"]
FAILING = [c for c in lemma1.CLAIMS if c.expected == "fails"]


@settings(max_examples=sized(30))
@given(point=lemma1.statement.strategy())
@example(point=lemma1.MUTANT_ALPHA_PIN)
@example(point=lemma1.BS_MUTANT_PIN)
def test_lemma1_bound_2_alpha_eps_squared_holds_for_randomized_response(point):
    assert_not_violated(lemma1.statement, point)


@settings(max_examples=sized(30))
@given(point=lemma1.bun_steinke_claim.strategy())
@example(point=lemma1.BS_MUTANT_PIN)
def test_bun_steinke_bound_alpha_eps_squared_over_2_holds_for_randomized_response(point):
    assert_not_violated(lemma1.bun_steinke_claim, point)


@settings(max_examples=sized(15))
@given(point=lemma1.finite_pairs.strategy())
def test_lemma1_holds_for_random_finite_pairs_with_bounded_likelihood_ratio(point):
    assert_not_violated(lemma1.finite_pairs, point)


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
@settings(max_examples=sized(20), suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_every_expected_to_hold_claim_survives_random_points(claim, data):
    assert_not_violated(claim, data.draw(claim.strategy()))


@pytest.mark.parametrize(
    "claim_id",
    [
        "mironov2017.lemma1.certified",
        "mironov2017.lemma1.at_order_one",
        "mironov2017.lemma1.step.large_order_algebra",
        "mironov2017.lemma1.variant.eps_times_min_bound",
        "mironov2017.lemma1.bun_steinke.certified",
    ],
)
def test_certified_claims_are_proved(claim_id):
    verdict = check(BY_ID[claim_id], examples=10)
    assert verdict.status == "proved" and verdict.certified, verdict.evidence



def test_lemma1_mutant_with_alpha_minus_one_is_refuted():
    verdict = check(lemma1.mutant_alpha_minus_one, examples=5)
    assert verdict.status == "refuted" and verdict.certified


def test_bun_steinke_mutant_with_constant_0_49_is_refuted():
    verdict = check(lemma1.bun_steinke_mutant, examples=5)
    assert verdict.status == "refuted" and verdict.certified


def test_printed_bound_min_2_expm1_by_2_eps_squared_is_false_at_eps_0_1():
    verdict = check(lemma1.step_min_bound_printed, examples=5)
    assert verdict.status == "refuted" and verdict.counterexample["eps"] == 0.1


def test_bun_steinke_function_gives_half_alpha_eps_squared():
    assert lemma1.bun_steinke(0.2, 3) == pytest.approx(3 * 0.04 / 2)
    assert lemma1.bun_steinke(0.2) == pytest.approx(0.02)
