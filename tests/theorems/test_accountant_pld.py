"""accountant.pld.*: the PLD accountant's bracket contains the exact tight epsilon; mutants refuted."""

import os

import pytest

from dpproofs.checker.claims import check
from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import pld

FAILING = [c for c in pld.CLAIMS if c.expected == "fails"]


@pytest.mark.parametrize("claim", [pld.gaussian_upper, pld.gaussian_lower], ids=lambda c: c.id)
def test_gaussian_bracket_ends_hold_on_random_configurations(claim):
    verdict = check(claim, examples=6)
    assert verdict.status == "holds", verdict.evidence


@pytest.mark.parametrize("claim", [pld.one_step_upper, pld.one_step_lower], ids=lambda c: c.id)
@pytest.mark.parametrize("point", [
    {"q": 0.01, "sigma": 4.0, "delta": 1e-5},
    {"q": 0.5, "sigma": 0.6, "delta": 1e-12},
    {"q": 1e-4, "sigma": 6.764949535565443, "delta": 0.0006409821906695889},  # exact epsilon 0
])
def test_one_step_bracket_ends_hold_at_small_and_large_delta(claim, point):
    assert claim.ball_outcome_at(point, 128) is Outcome.HOLDS



@pytest.mark.campaign
@pytest.mark.skipif(os.environ.get("HYPOTHESIS_PROFILE") == "ci",
                    reason="the Bromwich reference takes many minutes per point: full campaign only, not CI")
@pytest.mark.parametrize("claim", [pld.sampled_upper, pld.sampled_lower], ids=lambda c: c.id)
def test_sampled_gaussian_bracket_ends_hold_against_the_inversion_reference(claim):
    point = {"q": 0.01, "sigma": 4.0, "steps": 100, "delta": 1e-5}
    assert claim.outcome_at(point, 20) is Outcome.HOLDS


@pytest.mark.parametrize("claim", FAILING, ids=lambda c: c.id)
def test_each_mutant_is_refuted_with_a_certificate_at_its_pin(claim):
    for point in claim.pinned:
        assert claim.ball_outcome_at(point, 128) is Outcome.VIOLATED
