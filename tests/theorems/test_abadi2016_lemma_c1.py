"""Abadi et al. 2016, Lemma C.1: property tests at 50 digits and verdicts of steps and mutants."""

import pytest
from hypothesis import HealthCheck, assume, example, given, settings

from dpproofs.checker.claims import check
from dpproofs.checker.decide import Outcome
from dpproofs_theorems.abadi2016 import lemma_c1
from dpproofs_theorems.abadi2016._common import ball_outcome_at, outcome_at
from tests.support import sized

DPS = 50
BY_ID = {claim.id: claim for claim in lemma_c1.CLAIMS}
HOLDING = [claim for claim in lemma_c1.CLAIMS if claim.expected == "holds"]
MUTANTS = [claim for claim in lemma_c1.CLAIMS if claim.kind == "mutant"]
SETTINGS = settings(max_examples=sized(25), deadline=None, suppress_health_check=list(HealthCheck))


def _never_violated(claim):
    @SETTINGS
    @given(claim.strategy())
    def prop(point):
        outcome = outcome_at(claim, point, DPS)
        assume(outcome is not None)
        assert outcome is not Outcome.VIOLATED, point

    return prop


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_lemma_c1_claims_expected_to_hold_are_never_violated_at_50_digits(claim):
    _never_violated(claim)()


@SETTINGS
@given(lemma_c1.statement.strategy())
@example({"lam": 64.0, "eps": 0.01})  # the pinned counterexample of the halved-second-term mutant
@example({"lam": 0.01, "eps": 0.01})  # the pinned counterexample of the dropped-first-term mutant
def test_lemma_c1_holds_for_randomized_response_including_the_mutants_counterexamples(point):
    assert outcome_at(lemma_c1.statement, point, DPS) is not Outcome.VIOLATED


def test_lemma_c1_is_proved_on_the_certified_box():
    verdict = check(BY_ID["abadi2016.lemma_c1.certified_box"], examples=5)
    assert verdict.status == "proved" and verdict.certified


@pytest.mark.parametrize("claim_id", ["abadi2016.lemma_c1.step.mean", "abadi2016.lemma_c1.step.centred_range"])
def test_lemma_c1_printed_bounds_on_the_mean_and_the_centred_range_are_proved_for_rr(claim_id):
    verdict = check(BY_ID[claim_id], examples=10)
    assert verdict.status == "proved" and verdict.certified


def test_lemma_c1_dropping_the_factor_e_2eps_still_holds_so_it_is_a_variant_not_a_mutant():
    assert BY_ID["abadi2016.lemma_c1.variant.range_2eps"].expected == "holds"
    assert check(BY_ID["abadi2016.lemma_c1.variant.range_2eps"], examples=40).status == "holds"


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda c: c.id)
def test_lemma_c1_mutant_is_refuted_with_a_certified_counterexample(mutant):
    verdict = check(mutant, examples=20)
    assert verdict.status == "refuted" and verdict.certified


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda c: c.id)
def test_lemma_c1_mutant_pinned_counterexample_is_violated_in_ball_arithmetic(mutant):
    assert mutant.pinned
    for point in mutant.pinned:
        assert ball_outcome_at(mutant, point) is Outcome.VIOLATED


def test_lemma_c1_has_a_mutant_with_the_second_term_halved_and_one_with_the_first_term_dropped():
    assert {"abadi2016.lemma_c1.mutant.second_term_halved",
            "abadi2016.lemma_c1.mutant.first_term_dropped"} <= set(BY_ID)
