"""accountant.rdp.bounded_range.*: the accountant's BoundedRange curve against the exact Rényi
divergence of two-point bounded-range pairs (its mutant, half the curve, is refuted at its pin)."""

import pytest

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import rdp_bounded_range as br
from tests.support import never_violated, sized

EDGES = [dict(alpha=1.01, epsilon=1e-3, p=1e-6), dict(alpha=1000, epsilon=10, p=1 - 1e-6),
         dict(alpha=1.01, epsilon=10, p=0.5), dict(alpha=1000, epsilon=1e-3, p=0.5),
         dict(alpha=2, epsilon=0.1, p=0.5), dict(alpha=64, epsilon=1, p=0.01)]


def test_the_claims_are_under_the_rdp_prefix():
    assert all(c.id.startswith("accountant.rdp.bounded_range") for c in br.CLAIMS)
    assert [c.expected for c in br.CLAIMS] == ["holds", "fails"]


@pytest.mark.parametrize("point", EDGES)
def test_it_holds_at_the_edges_of_its_domain(point):
    assert br.two_point.outcome_at(point, 50) is Outcome.HOLDS, point


def test_it_survives_random_points():
    never_violated(br.two_point, sized(5))()


def test_half_the_curve_is_refuted_at_its_pin():
    assert br.mutant_half.outcome_at(br.HALF_PIN, 50) is Outcome.VIOLATED
