"""accountant.calibrate: calibrate_sigma never overshoots and is within its stated 1e-6."""

import pytest

from dpproofs.checker.claims import check
from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import calibrate
from tests.support import assert_refuted_at_its_pin

EDGES = [
    calibrate.PIN,
    dict(epsilon=0.05, delta=1e-12, q=1.0, T=1, classic=1),
    dict(epsilon=20.0, delta=0.1, q=1e-4, T=10**5, classic=0),
    dict(epsilon=8.0, delta=1e-5, q=256 / 60000, T=15000, classic=0),
]


@pytest.mark.parametrize("claim", [calibrate.never_overshoots, calibrate.within], ids=lambda c: c.id)
def test_calibration_claims_hold_at_typical_and_edge_targets(claim):
    for point in EDGES:
        assert claim.outcome_at(point, 50) is Outcome.HOLDS, point


@pytest.mark.parametrize("claim", [calibrate.never_overshoots, calibrate.within], ids=lambda c: c.id)
def test_calibration_claims_hold_in_a_short_search(claim):
    verdict = check(claim, examples=6)
    assert verdict.status == "holds", verdict.evidence


def test_a_calibration_two_ppm_too_small_is_refuted_at_its_pin():
    assert_refuted_at_its_pin(calibrate.mutant_smaller)
