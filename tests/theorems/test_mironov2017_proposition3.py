"""Mironov 2017 (arXiv 1702.07476v3), Prop. 3: property tests at 50 digits and verdict tests."""

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dpproofs.checker.claims import check
from dpproofs.math import precise
from dpproofs_theorems.mironov2017 import proposition3
from tests.support import assert_not_violated
from tests.support import sized

BY_ID = {c.id: c for c in proposition3.CLAIMS}
CHEAP = [c for c in proposition3.CLAIMS if c.expected == "holds" and c.cost >= 1]
FAILING = [c for c in proposition3.CLAIMS if c.expected == "fails"]


@settings(max_examples=sized(30))
@given(point=BY_ID["mironov2017.proposition3.gaussian"].strategy())
@example(point=proposition3.HALVED_PIN)
def test_proposition3_conversion_is_valid_against_the_exact_gaussian_profile(point):
    assert_not_violated(BY_ID["mironov2017.proposition3.gaussian"], point)


@settings(max_examples=sized(20))
@given(point=proposition3.finite_pairs.strategy())
@example(point=proposition3.FINITE_MUTANT_PIN)
def test_proposition3_conversion_is_valid_on_random_finite_pairs(point):
    assert_not_violated(proposition3.finite_pairs, point)


@settings(max_examples=sized(3))
@given(point=BY_ID["mironov2017.proposition3.sampled_gaussian"].strategy())
def test_proposition3_conversion_is_valid_for_the_sampled_gaussian_in_both_directions(point):
    assert_not_violated(BY_ID["mironov2017.proposition3.sampled_gaussian"], point)


@pytest.mark.parametrize("claim", CHEAP, ids=lambda c: c.id)
@settings(max_examples=sized(10), suppress_health_check=[HealthCheck.filter_too_much])
@given(data=st.data())
def test_every_expected_to_hold_claim_survives_random_points(claim, data):
    assert_not_violated(claim, data.draw(claim.strategy()))



def test_proposition3_mutant_with_halved_log_term_is_refuted_on_the_gaussian():
    verdict = check(proposition3.mutant_halved, examples=5)
    assert verdict.status == "refuted" and verdict.certified


def test_case1_identity_is_proved_by_sympy():
    verdict = check(proposition3.step_case1_identity, examples=5)
    assert verdict.status == "proved"


def test_slack_table_reproduces_the_notes_gaussian_example():
    rows = proposition3.conversion_table(1e-5, configs=proposition3.DEFAULT_TABLE_CONFIGS[:2], dps=20)
    sigma1, composed = rows
    assert sigma1["exact"] == pytest.approx(4.377178096, rel=1e-8)  # docs/math.md#sanity-values
    assert composed["classic"] == pytest.approx(15.12, abs=0.01)  # docs/math.md#the-notes-numbers: about 15.1
    assert composed["classic_alpha"] == pytest.approx(2.92, abs=0.01)
    for row in rows:
        assert row["exact"] <= row["improved"] <= row["classic"]


def test_exact_epsilon_is_where_the_profile_crosses_delta():
    eps = proposition3.exact_epsilon(lambda e, dps: precise.delta_gaussian(e, 1, dps=dps), 1e-5, upper=10)
    assert precise.delta_gaussian(eps, 1) <= 1e-5 < precise.delta_gaussian(eps * (1 - 1e-12), 1)
