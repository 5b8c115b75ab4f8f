"""Thin violations are found with any seed: slivers along a face, inside the domain, and along a
coupled bound (the search draws the bounds often, refines from the closest approaches, and the
exact stage decides the corners and the points just inside open bounds)."""

import pytest

import dpproofs as dp

SLIVERS = [
    # false only on the face x = 1, for y in (0.113, 0.887), by at most 1.5e-9 relative
    ("x + 1e-8*y*(1 - y) <= 1 + 1e-9", ["0 <= x <= 1", "0 <= y <= 1"]),
    # false only on the face x = 1, for y in (0.276, 0.724), by at most 5e-10 relative
    ("x + 1e-8*(y*(1 - y) - 0.2) <= 1", ["0 <= x <= 1", "0 <= y <= 1"]),
    # false only for |x - 1/2| < 3.2e-5 (relative violation 4e-9)
    ("x*(1 - x) <= 0.25 - 1e-9", ["0 <= x <= 1"]),
    # false only on the face x = 1 and for |y - 0.3| < 0.001, by at most 1e-8 relative: the draws
    # on the face rarely land in it; the local descent from the closest approach finds it
    ("x + 1e-8*(1 - 10**6*(y - 0.3)**2) <= 1 + 1e-12", ["0 <= x <= 1", "0 <= y <= 1"]),
    # false only within 0.2% of the coupled bound q < 1/(16 sigma)
    ("q*sigma <= 0.0624", ["1 <= sigma <= 4", "0 < q < 1/(16*sigma)"]),
]


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("claim, where", SLIVERS)
def test_a_thin_violation_is_refuted_with_every_seed(claim, where, seed):
    verdict = dp.verify(claim, where, seed=seed)
    assert verdict.status == "refuted" and verdict.certified, verdict.evidence


COUPLED_EDGES = [
    # the kind: false only next to the edge n eps - 0.001 = eps_prime (at n = 1, eps = 1/2),
    # by relative 1e-6: delta there is (1 - e^-0.001) e^eps/(1 + e^eps), its sup on the domain
    ("delta_composed_pure(eps_prime, eps, n) <= (1 - 1e-6)*(1 - exp(-0.001))*exp(0.5)/(1 + exp(0.5))",
     ["0.01 <= eps <= 0.5", "1 <= n <= 4", "0 <= eps_prime <= 3", "n*eps - 0.001 <= eps_prime"], ["n"]),
    # false only within relative 1e-6 of the curve alpha = 2 sigma^2 (inside the box)
    ("rdp_gaussian(alpha, sigma) <= 1 - 1e-6", ["1 < alpha <= 16", "0.5 <= sigma <= 4", "alpha <= 2*sigma**2"], []),
]


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("claim, where, integers", COUPLED_EDGES)
def test_a_violation_on_the_edge_of_a_coupled_condition_is_refuted_with_every_seed(claim, where, integers, seed):
    verdict = dp.verify(claim, where, integers=integers, seed=seed)
    assert verdict.status == "refuted" and verdict.certified, verdict.evidence


def test_the_edge_points_of_a_coupled_condition_lie_on_it_and_in_the_domain():
    from dpproofs.verification import boundary, build_claim
    from dpproofs.verification.frontend import _valid

    claim, _, _ = build_claim("q*sigma <= 1", ["1 <= sigma <= 4", "0 < q < 1", "q <= 1/(16*sigma)"])
    points = boundary.edge_points(claim, 0, lambda point: _valid(claim, point))
    assert points and len(points) <= boundary.MAX_POINTS
    for point in points:
        assert _valid(claim, point)
        assert abs(point["q"] * point["sigma"] - 1 / 16) < 1e-12 or point["q"] in (0.0, 1.0)
