"""Abadi et al. 2016, Theorem 2: property tests at 50 digits and verdicts of the mutants."""

import pytest
from hypothesis import example, given, settings

from dpproofs.checker.claims import check
from dpproofs.checker.decide import Outcome
from dpproofs_theorems.abadi2016 import theorem2
from dpproofs_theorems.abadi2016._common import ball_outcome_at, outcome_at
from tests.support import campaign_size, never_violated
from tests.support import sized

DPS = 50
BY_ID = {claim.id: claim for claim in theorem2.CLAIMS}
EXPENSIVE = {"abadi2016.theorem2.tail.sampled_gaussian"}  # two 1-D integrals per point
HOLDING = [c for c in theorem2.CLAIMS if c.expected == "holds" and c.id not in EXPENSIVE]
MUTANTS = [c for c in theorem2.CLAIMS if c.kind == "mutant"]


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_theorem2_claims_expected_to_hold_are_never_violated_at_50_digits(claim):
    never_violated(claim, 20)()


def test_theorem2_tail_bound_holds_for_the_sampled_gaussian_with_both_directions():
    never_violated(BY_ID["abadi2016.theorem2.tail.sampled_gaussian"], 3)()


@pytest.mark.campaign
def test_theorem2_tail_bound_holds_for_the_sampled_gaussian_campaign():
    never_violated(BY_ID["abadi2016.theorem2.tail.sampled_gaussian"], campaign_size(100))()


@settings(max_examples=sized(20), deadline=None)
@given(theorem2.tail_gaussian.strategy())
@example({"lam": 5.5, "eps": 3.0, "sigma": 1.0})  # pinned counterexample of the 2 lam eps mutant
def test_theorem2_gaussian_tail_bound_holds_including_at_the_mutants_counterexample(point):
    assert outcome_at(theorem2.tail_gaussian, point, DPS) is not Outcome.VIOLATED


def test_theorem2_composability_on_t_gaussians_is_proved_by_sympy():
    verdict = check(BY_ID["abadi2016.theorem2.composability.gaussian_product"], examples=5)
    assert verdict.status == "proved"


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda c: c.id)
def test_theorem2_mutant_is_refuted_with_a_certified_counterexample(mutant):
    verdict = check(mutant, examples=20)
    assert verdict.status == "refuted" and verdict.certified


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda c: c.id)
def test_theorem2_mutant_pinned_counterexample_is_violated_in_ball_arithmetic(mutant):
    assert mutant.pinned
    for point in mutant.pinned:
        assert ball_outcome_at(mutant, point) is Outcome.VIOLATED


def test_theorem2_the_unmutated_claims_hold_at_the_mutants_counterexamples():
    for mutant in MUTANTS:
        parent = BY_ID[mutant.id.split(".mutant.")[0]]
        for point in mutant.pinned:
            assert ball_outcome_at(parent, point) is Outcome.HOLDS
