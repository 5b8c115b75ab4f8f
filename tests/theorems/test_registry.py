"""House rules of the registry: every result can fail, and every failure is pinned."""

import collections

import dpproofs_theorems as theorems


def test_every_result_has_a_mutant_and_every_expected_failure_pins_its_counterexample():
    claims = theorems.all_claims()
    mutants = collections.Counter(".".join(c.id.split(".")[:2]) for c in claims if c.kind == "mutant")
    results = {".".join(c.id.split(".")[:2]) for c in claims}
    assert results and all(mutants[r] >= 1 for r in results), sorted(results - set(mutants))
    unpinned = [c.id for c in claims if c.expected == "fails" and not c.pinned]
    assert not unpinned, unpinned


def test_every_claim_names_its_source_and_ids_are_unique():
    claims = theorems.all_claims()
    assert len({c.id for c in claims}) == len(claims)
    assert all(c.source.strip() for c in claims)
