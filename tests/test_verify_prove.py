"""Proofs of user claims on their whole domain (dpproofs.verification.prove)."""

import pytest

import dpproofs as dp
from dpproofs.verification import build_claim, prove


def _prove(claim, where, integers=()):
    user_claim, problem, _ = build_claim(claim, where, integers=integers)
    return prove.prove(user_claim, problem)


@pytest.mark.parametrize(
    "claim, where",
    [
        ("q*sigma <= 0.06", ["1 <= sigma <= 4", "0 < q < 1/(16*sigma)"]),  # false near the coupled bound
        ("x < 0.1", ["0 <= x <= 0.1"]),  # false at the exact bound x = 1/10
        ("x*(1 - x) <= 0.25 - 1e-9", ["0 <= x <= 1"]),  # false on an interior sliver
        ("delta_randomized_response(eps_prime, eps) > 0", ["0 <= eps_prime <= 0.1", "0.1 <= eps <= 0.2"]),
        ("rdp_gaussian(alpha, 1) <= 31.9999999999999999", ["1 < alpha <= 63.99999999999999999"]),
        ("n <= 2**60", ["1 <= n <= 2**60 + 1"]),
    ],
)
def test_a_false_claim_is_never_proved(claim, where):
    integers = ["n"] if "n <=" in claim else []
    assert not _prove(claim, where, integers).proved


def test_a_face_reached_by_monotonicity_is_not_discarded_by_a_hypothesis_it_breaks():
    # the minimum of 0.06 - q*sigma over the box lies at q = 1/16, which breaks q < 1/(16 sigma):
    # discarding that face would "prove" a false claim
    result = _prove("q*sigma <= 0.06", ["1 <= sigma <= 4", "0 < q < 1/(16*sigma)"])
    assert not result.proved and result.closed["discarded"] == 0


@pytest.mark.parametrize(
    "claim, where",
    [
        ("x <= 1", ["0 < x < 1"]),  # tight at the open bound: the exact endpoint closes it
        ("x < 1", ["0 < x < 1"]),  # strict, tight at an open bound that is not in the domain
        ("log(1 + x) <= x", ["0 <= x <= 10"]),  # a tie at a face, closed by the derivative's proof
        ("rdp_gaussian(alpha, sigma) <= alpha/sigma**2", ["1 < alpha <= 64", "0.5 <= sigma <= 10"]),
        ("alpha <= 2", ["1 < alpha <= 1 + 10**(-20)"]),  # no float inside: exact boxes
    ],
)
def test_true_claims_tight_at_a_bound_are_proved(claim, where):
    result = _prove(claim, where)
    assert result.proved, result.note


def test_an_unfinished_proof_names_the_face_it_leaves():
    verdict = dp.verify("1/x >= 1", ["0 < x <= 1"])
    assert verdict.status == "holds"
    assert "along the face x = 0" in verdict.evidence


def test_the_proof_budget_counts_boxes_not_seconds():
    first = _prove("sqrt(x*y) <= (x + y)/2", ["0.1 <= x <= 10", "0.1 <= y <= 10"])
    assert not first.proved and first.boxes == prove.MAX_PROOF_BOXES and not first.stopped
    assert first == _prove("sqrt(x*y) <= (x + y)/2", ["0.1 <= x <= 10", "0.1 <= y <= 10"])
