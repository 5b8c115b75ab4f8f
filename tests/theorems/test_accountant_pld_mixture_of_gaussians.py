"""accountant.pld.mixture_of_gaussians: one MixtureOfGaussians step in the PLD accountant against the
exact mixture profile (its mutant is refuted, certified, at its pin by tests/theorems/test_contract.py;
here too, directly)."""

import pytest

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import pld_mixture_of_gaussians as mog
from tests.support import never_violated, sized

HOLDING = [c for c in mog.CLAIMS if c.expected == "holds"]
MUTANTS = [c for c in mog.CLAIMS if c.expected == "fails"]

#: corners of the domain: the widest and the narrowest mixtures, tiny and large delta
EDGES = [dict(sigma=0.5, c=3.0, w=0.5, delta=1e-10), dict(sigma=4.0, c=1.0, w=0.05, delta=1e-3),
         dict(sigma=0.5, c=1.0, w=0.05, delta=1e-10), mog.DROPPED_PIN]


def test_every_claim_is_under_the_accountant_prefix():
    assert all(c.id.startswith("accountant.pld.mixture_of_gaussians.") for c in mog.CLAIMS)
    assert len(HOLDING) == 2 and len(MUTANTS) == 1


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_every_claim_holds_at_the_edges_of_its_domain(claim):
    for point in EDGES:
        assert claim.outcome_at(point, 50) is Outcome.HOLDS, point


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_every_claim_survives_random_points(claim):
    never_violated(claim, sized(3))()


def test_the_mutant_without_the_largest_component_is_refuted_at_its_pin():
    [mutant] = MUTANTS
    assert mutant.outcome_at(mog.DROPPED_PIN, 50) is Outcome.VIOLATED
