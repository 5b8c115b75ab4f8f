"""accountant.delta: the shipped accountant's delta bounds exact profiles, at random points and edges."""

import pytest
from hypothesis import given, settings

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import delta
from tests.support import assert_not_violated
from tests.support import sized

HOLDING = [c for c in delta.CLAIMS if c.expected == "holds"]
MUTANTS = [c for c in delta.CLAIMS if c.expected == "fails"]

EDGES = {
    "accountant.delta.gaussian": [
        dict(sigma=0.1, T=10**6, epsilon=200.0, classic=0, certified=1),
        dict(sigma=1000.0, T=1, epsilon=1e-4, classic=1, certified=0),
        dict(sigma=1.0, T=100, epsilon=10.0, classic=0, certified=0),
    ],
    "accountant.delta.laplace": [dict(b=0.01, epsilon=200.0, classic=0, certified=1), dict(b=1e4, epsilon=1e-4, classic=1, certified=0)],
    "accountant.delta.randomized_response": [dict(eps0=50.0, T=300, epsilon=200.0, classic=0, certified=1),
                                             dict(eps0=0.1, T=100, epsilon=2.0, classic=1, certified=0)],
    "accountant.delta.sampled_gaussian": [dict(q=1e-8, sigma=0.1, epsilon=1e-4, classic=0, certified=1),
                                          dict(q=1.0, sigma=0.1, epsilon=200.0, classic=1, certified=0),
                                          dict(q=0.01, sigma=1.0, epsilon=1.0, classic=0, certified=0)],
}


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_every_accountant_delta_claim_is_not_violated_at_the_documented_edges(claim):
    for point in EDGES.get(claim.id, []):
        assert claim.outcome_at(point, 50) is not Outcome.VIOLATED, point


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_every_accountant_delta_claim_survives_random_points(claim):
    @settings(max_examples=sized(10) if claim.cost >= 1 else 3)
    @given(claim.strategy())
    def prop(point):
        assert_not_violated(claim, point)

    prop()


def test_the_accountant_delta_is_strictly_above_the_exact_profile_in_a_typical_case():
    point = dict(sigma=1.0, T=100, epsilon=30.0, classic=0, certified=0)
    assert delta.gaussian.outcome_at(point, 50) is Outcome.HOLDS
