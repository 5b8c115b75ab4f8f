"""accountant.pld.lower_one_step.*: the lower one-step PLD of a sampled Gaussian (on a grid centred on a
heavy cell; with lifted shares merged into the next grid point) against the exact one-step profile."""

import itertools

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import pld_lower_one_step as lo
from tests.support import never_violated, sized


def test_the_claims_and_their_statements():
    assert [c.id for c in lo.CLAIMS] == ["accountant.pld.lower_one_step.heavy_cell",
                                         "accountant.pld.lower_one_step.heavy_cell.mutant.offset_dropped",
                                         "accountant.pld.lower_one_step.lifted",
                                         "accountant.pld.lower_one_step.lifted.mutant.lift_doubled"]
    assert [c.expected for c in lo.CLAIMS] == ["holds", "fails", "holds", "fails"]


def test_the_add_direction_keeps_the_centred_grid_at_the_corners_of_the_heavy_cell_domain():
    for q, sigma, step in itertools.product((1e-6, 1e-4), (0.5, 1.0), (1e-3, 1e-2)):
        assert lo.centred_is_kept(dict(q=q, sigma=sigma, step=step, eps=0.0, remove=0)), (q, sigma, step)


def test_the_heavy_cell_bound_holds_at_the_corners_of_its_domain():
    for q, sigma, step, remove, eps in itertools.product((1e-6, 1e-4), (0.5, 1.0), (1e-3, 1e-2), (0, 1), (0.0, 0.01)):
        point = dict(q=q, sigma=sigma, step=step, eps=eps, remove=remove)
        assert lo.heavy_cell.outcome_at(point, 30) is Outcome.HOLDS, point


def test_the_lifted_bound_holds_at_the_corners_of_its_domain():
    for q, sigma, step, remove, eps in itertools.product((1e-3, 1.0), (0.5, 3.0), (2e-3, 0.05), (0, 1), (0.0, 1.55, 3.0)):
        point = dict(q=q, sigma=sigma, step=step, eps=eps, remove=remove)
        assert lo.lifted.outcome_at(point, 30) is Outcome.HOLDS, point


def test_the_bounds_survive_random_points():
    never_violated(lo.heavy_cell, sized(5))()
    never_violated(lo.lifted, sized(5))()


def test_the_mutant_that_forgets_the_centring_offset_is_refuted_at_its_pin():
    assert lo.offset_dropped.ball_outcome_at(lo.OFFSET_DROPPED_PIN, 128) is Outcome.VIOLATED


def test_the_mutant_that_doubles_the_lifted_shares_is_refuted_at_its_pin():
    assert lo.lift_doubled.ball_outcome_at(lo.LIFT_DOUBLED_PIN, 128) is Outcome.VIOLATED
    assert lo.lifted.outcome_at(lo.LIFT_DOUBLED_PIN, 30) is Outcome.HOLDS
