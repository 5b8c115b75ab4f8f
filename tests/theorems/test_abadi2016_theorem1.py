"""Abadi et al. 2016, Theorem 1: explicit constants, findings and the c2-too-small mutant."""

import pytest
from hypothesis import HealthCheck, assume, example, given, settings

from dpproofs.checker.claims import check
from dpproofs.checker.decide import Outcome
from dpproofs_theorems.abadi2016 import theorem1
from dpproofs_theorems.abadi2016._common import ball_outcome_at, outcome_at
from tests.support import campaign_size, never_violated
from tests.support import sized

DPS = 50
BY_ID = {claim.id: claim for claim in theorem1.CLAIMS}
HOLDING = [c for c in theorem1.CLAIMS if c.expected == "holds"]
FAILING = [c for c in theorem1.CLAIMS if c.expected == "fails"]


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_theorem1_claims_expected_to_hold_are_never_violated_at_50_digits(claim):
    never_violated(claim, 4)()


@pytest.mark.campaign
@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_theorem1_claims_expected_to_hold_in_a_campaign(claim):
    never_violated(claim, campaign_size(60))()


@settings(max_examples=sized(2), deadline=None, suppress_health_check=list(HealthCheck))
@given(theorem1.statement.strategy())
@example(theorem1.statement.pinned[0])  # sigma at the c2 = 1.6 bound where c2 = 1.5 fails
def test_theorem1_with_c1_1_and_c2_1_6_holds_including_where_c2_1_5_fails(point):
    outcome = outcome_at(theorem1.statement, point, DPS)
    assume(outcome is not None)
    assert outcome is Outcome.HOLDS


def test_sigma_is_free_above_the_bound_and_no_lower_bound_on_eps_is_assumed():
    names = [v.name for v in theorem1.statement.variables]
    assert "sigma" in names
    bound = theorem1.sigma_bound(theorem1.C1, theorem1.C2)
    assert theorem1.sympy.Ge(theorem1.sigma, bound) in theorem1.statement.hypotheses
    eps = theorem1.u * theorem1.q**2 * theorem1.T
    assert not any(h.has(theorem1.sympy.Rational(1, 20)) for h in theorem1.statement.hypotheses)
    assert theorem1.sympy.Le(eps, 1) in theorem1.statement.hypotheses


def test_theorem1_holds_above_the_bound_at_the_mutant_point_and_at_eps_below_one_twentieth():
    above = {**theorem1.statement.pinned[0]}
    above["sigma"] *= 1.7
    assert outcome_at(theorem1.statement, above, DPS) is Outcome.HOLDS
    # eps = 0.2 * 1e-6 * 1e5 = 0.02 < 1/20 with Lemma 3's hypotheses holding (q sigma = 0.054)
    small = theorem1._at_bound({"q": 1e-3, "T": 10**5, "delta": 1e-2, "u": 0.2}, theorem1.C1, theorem1.C2)
    assert outcome_at(theorem1.statement, small, DPS) is Outcome.HOLDS


@pytest.mark.parametrize("claim", FAILING, ids=lambda c: c.id)
def test_theorem1_pinned_counterexample_is_violated_in_ball_arithmetic(claim):
    assert claim.pinned
    for point in claim.pinned:
        assert ball_outcome_at(claim, point) is Outcome.VIOLATED


@pytest.mark.parametrize("claim_id", ["abadi2016.theorem1.step.condition_i_algebra",
                                      "abadi2016.theorem1.step.condition_iii_algebra"])
def test_theorem1_algebra_of_the_conditions_is_proved_by_sympy(claim_id):
    assert check(BY_ID[claim_id], examples=3).status == "proved"
