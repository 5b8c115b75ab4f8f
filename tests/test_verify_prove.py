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


@pytest.mark.parametrize(
    "claim, where",
    [
        # the minimum over the box lies where alpha <= 2 sigma^2 is broken: contraction narrows
        # each box to the part the coupled condition allows instead of reducing onto that face
        ("rdp_gaussian(alpha, sigma) <= 1.1", ["1 < alpha <= 16", "0.5 <= sigma <= 4", "alpha <= 2*sigma**2"]),
        ("q*sigma <= 1.01/10", ["1 <= sigma <= 4", "0 < q < 1", "q < 1/10/sigma"]),
    ],
)
def test_a_true_claim_under_a_coupled_condition_is_proved_by_contraction(claim, where):
    result = _prove(claim, where)
    assert result.proved and result.closed.get("contracted", 0) > 0, result


@pytest.mark.parametrize(
    "claim, where",
    [
        # false within relative 1e-6 of the curve alpha = 2 sigma^2
        ("rdp_gaussian(alpha, sigma) <= 1 - 1e-6", ["1 < alpha <= 16", "0.5 <= sigma <= 4", "alpha <= 2*sigma**2"]),
        ("q*sigma <= 0.0999", ["1 <= sigma <= 4", "0 < q < 1", "q <= 1/10/sigma"]),
    ],
)
def test_a_claim_false_on_the_edge_of_a_coupled_condition_is_not_proved(claim, where):
    assert not _prove(claim, where).proved


def test_contraction_keeps_every_point_that_satisfies_the_hypotheses():
    import fractions
    import math
    import random

    from dpproofs.verification.contract import Contractor

    user_claim, problem, _ = build_claim(
        "x <= 10", ["0 < q < 1", "1 <= sigma <= 4", "q < 1/(16*sigma)", "alpha <= 2*sigma**2", "1 <= alpha <= 16",
                    "x >= 0.001", "x <= 10", "log(x) <= q*alpha - 1"])
    prover = prove._Prover(user_claim, problem, 1, None, 128)
    contractor = Contractor(user_claim.hypotheses, user_claim.variables)
    ranges = {name: (low, high) for name, (low, high, _, _) in prover.domain.items()}
    ranges["alpha"] = (fractions.Fraction(8), fractions.Fraction(16))  # a box of the proof
    narrowed, live = contractor.contract(ranges, prover.point, 128)
    # sigma >= sqrt(alpha/2) >= 2, then q <= 1/(16 sigma) <= 1/32, then x <= exp(q alpha - 1) <= e^-0.5
    assert narrowed["sigma"][0] >= 1.99 and narrowed["q"][1] <= 0.0313 and narrowed["x"][1] <= 0.61, narrowed
    rng = random.Random(3)
    kept = 0
    for _ in range(20000):
        point = {name: rng.uniform(float(low), float(high)) for name, (low, high) in ranges.items()}
        if point["q"] * 16 * point["sigma"] < 1 and point["alpha"] <= 2 * point["sigma"] ** 2 \
                and math.log(point["x"]) <= point["q"] * point["alpha"] - 1:
            kept += 1
            for name, value in point.items():
                low, high = narrowed[name]
                assert low <= fractions.Fraction(value) <= high, (name, value, narrowed[name])
    assert kept > 20


def test_a_variable_the_derivatives_always_choose_is_split_at_most_max_depth_lead_times_ahead():
    """Over a wide box the derivative enclosures can make one variable score highest forever (the
    Gaussian conversion over alpha, sigma and delta split alpha 9 times and delta never, and closed
    no box in 6000); past MAX_DEPTH_LEAD halvings ahead, the widest relative range is split."""
    from flint import arb

    from dpproofs.verification import build_claim
    from dpproofs.verification.prove import MAX_DEPTH_LEAD, _Box, _Prover

    claim, problem, _ = build_claim("delta_gaussian(rdp_gaussian(alpha, sigma) + log(1/delta)/(alpha - 1), sigma) <= delta",
                                    ["2 <= alpha <= 8", "0.5 <= sigma <= 4", "1e-8 <= delta <= 1e-4"])
    prover = _Prover(claim, problem, 100, None, 128)
    ranges = {name: (low, high) for name, (low, high, _, _) in prover.domain.items()}
    gradient = {"alpha": arb(1e9), "sigma": arb(1), "delta": arb(1)}  # alpha always scores highest
    level = _Box(ranges, False, {"alpha": MAX_DEPTH_LEAD, "sigma": 0, "delta": 0})
    assert {b.depth["alpha"] for b in prover.split(level, gradient, False)} == {MAX_DEPTH_LEAD + 1}
    low, high = ranges["alpha"]
    narrowed = {**ranges, "alpha": (low, low + (high - low) / 2 ** (MAX_DEPTH_LEAD + 1))}
    ahead = _Box(narrowed, False, {"alpha": MAX_DEPTH_LEAD + 1, "sigma": 0, "delta": 0})
    pieces = prover.split(ahead, gradient, False)
    assert all(b.depth["alpha"] == MAX_DEPTH_LEAD + 1 for b in pieces)
    assert any(b.depth["sigma"] == 1 or b.depth["delta"] == 1 for b in pieces)
