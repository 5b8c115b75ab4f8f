"""accountant.sampled_laplace: SampledLaplace in both accountants, held against exact references
(its mutants are refuted, certified, at their pins by tests/theorems/test_contract.py)."""

import pytest
from hypothesis import given, settings

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import sampled_laplace as sl
from tests.support import assert_not_violated, sized

HOLDING = [c for c in sl.CLAIMS if c.expected == "holds"]
MUTANTS = [c for c in sl.CLAIMS if c.expected == "fails"]

EDGES = {
    "accountant.sampled_laplace.rdp": [dict(alpha=1.01, q=0.001, b=20.0, T=1), dict(alpha=256.0, q=1.0, b=0.2, T=10**6),
                                       dict(alpha=1.5, q=0.5, b=1.0, T=3)],
    "accountant.sampled_laplace.rdp_integer": [dict(alpha=2, q=0.001, b=20.0, T=1), dict(alpha=256, q=0.3, b=0.2, T=7)],
    "accountant.sampled_laplace.replace_one": [dict(alpha=2, q=0.001, b=20.0, T=1), dict(alpha=128, q=1.0, b=0.5, T=2)],
    "accountant.sampled_laplace.pld.upper": [dict(q=0.001, b=20.0, delta=1e-10), dict(q=1.0, b=0.2, delta=1e-2),
                                             sl.PLD_PIN],
    "accountant.sampled_laplace.pld.lower": [dict(q=0.001, b=20.0, delta=1e-10), dict(q=1.0, b=0.2, delta=1e-2),
                                             sl.PLD_PIN],
}


def test_every_claim_is_under_the_accountant_prefix_and_has_edges():
    assert all(c.id.startswith("accountant.sampled_laplace.") for c in sl.CLAIMS)
    assert {c.id for c in HOLDING} == set(EDGES) and len(MUTANTS) == 4


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_every_claim_holds_at_the_edges_of_its_domain(claim):
    for point in EDGES[claim.id]:
        assert claim.outcome_at(point, 50) is Outcome.HOLDS, point


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_every_claim_survives_random_points(claim):
    @settings(max_examples=sized(3), deadline=None)
    @given(claim.strategy())
    def prop(point):
        assert_not_violated(claim, point)

    prop()


