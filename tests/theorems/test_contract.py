"""The registry's contract, over every registered claim at once (no per-module copies).

Every result has a statement, a source and at least one mutant; every claim expected to fail is
refuted, certified, at its pinned counterexample; every claim expected to hold is never certainly
violated on examples drawn from its domain (how many: the Hypothesis profile's ``max_examples``
scaled by the claim's ``cost``).
"""

import collections

import pytest
import sympy
from hypothesis import settings

from dpproofs.checker import registry
from tests.support import assert_refuted_at_its_pin, never_violated

CLAIMS = registry.all_claims()
EXPECTED_TO_FAIL = [c for c in CLAIMS if c.expected == "fails"]
EXPECTED_TO_HOLD = [c for c in CLAIMS if c.expected == "holds"]


def _result(claim):
    return ".".join(claim.id.split(".")[:2])


def _is_label(side, claim):
    """A bare symbol that is not one of the claim's variables: a label, not mathematics."""
    names = {v.name for v in claim.variables} | set(claim.extra)
    return isinstance(side, sympy.Symbol) and side.name not in names


def test_every_result_has_a_statement_a_source_and_a_mutant():
    by_result = collections.defaultdict(list)
    for claim in CLAIMS:
        by_result[_result(claim)].append(claim)
    assert by_result
    for result, claims in by_result.items():
        assert any(c.kind in ("statement", "support") for c in claims), f"{result} states nothing"
        assert all(c.source.strip() for c in claims), result
        assert any(c.kind == "mutant" for c in claims), f"{result} has no mutant"


def test_claim_ids_are_unique():
    assert len({c.id for c in CLAIMS}) == len(CLAIMS)


def test_every_claim_expected_to_fail_pins_its_counterexample():
    assert not [c.id for c in EXPECTED_TO_FAIL if not c.pinned]


@pytest.mark.parametrize("claim", EXPECTED_TO_FAIL, ids=lambda c: c.id)
def test_a_claim_expected_to_fail_is_refuted_with_a_certificate_at_its_pin(claim):
    assert_refuted_at_its_pin(claim)


@pytest.mark.parametrize("claim", EXPECTED_TO_HOLD, ids=lambda c: c.id)
def test_a_claim_expected_to_hold_is_never_violated_on_its_domain(claim):
    examples = max(2, round(settings().max_examples * claim.cost))
    never_violated(claim, examples)()
