"""accountant.pld.heavy_cell.*: the lower one-step PLD of a sampled Gaussian whose bulk sits inside one
grid cell, on the grid centred on that cell, against the exact one-step profile."""

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import pld_heavy_cell as hc
from tests.support import never_violated, sized


def test_the_claims_and_their_statements():
    assert [c.id for c in hc.CLAIMS] == ["accountant.pld.heavy_cell.lower",
                                         "accountant.pld.heavy_cell.lower.mutant.offset_dropped"]
    assert [c.expected for c in hc.CLAIMS] == ["holds", "fails"]


def test_the_add_direction_keeps_the_centred_grid_at_the_corners_of_the_domain():
    for q in (1e-6, 1e-4):
        for sigma in (0.5, 1.0):
            for step in (1e-3, 1e-2):
                assert hc.centred_is_kept(dict(q=q, sigma=sigma, step=step, eps=0.0, remove=0)), (q, sigma, step)


def test_the_bound_holds_at_the_corners_of_its_domain():
    for q in (1e-6, 1e-4):
        for sigma in (0.5, 1.0):
            for step in (1e-3, 1e-2):
                for remove in (0, 1):
                    for eps in (0.0, 0.01):
                        point = dict(q=q, sigma=sigma, step=step, eps=eps, remove=remove)
                        assert hc.lower.outcome_at(point, 30) is Outcome.HOLDS, point


def test_the_bound_survives_random_points():
    never_violated(hc.lower, sized(5))()


def test_the_mutant_that_forgets_the_centring_offset_is_refuted_at_its_pin():
    assert hc.offset_dropped.ball_outcome_at(hc.OFFSET_DROPPED_PIN, 128) is Outcome.VIOLATED
