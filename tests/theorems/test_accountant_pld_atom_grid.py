"""accountant.pld.atom_grid.*: the PLD bracket of randomized response (T steps) and of one Laplace
step, whose upper grids have a point just below the heaviest loss atom, against exact profiles."""

import itertools

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import pld_atom_grid as ag
from tests.support import never_violated, sized


def test_the_claims_and_their_statements():
    assert [c.id for c in ag.CLAIMS] == ["accountant.pld.atom_grid.randomized_response.upper",
                                         "accountant.pld.atom_grid.randomized_response.lower",
                                         "accountant.pld.atom_grid.randomized_response.upper.mutant.shift_doubled",
                                         "accountant.pld.atom_grid.laplace.upper",
                                         "accountant.pld.atom_grid.laplace.lower"]
    assert [c.expected for c in ag.CLAIMS] == ["holds", "holds", "fails", "holds", "holds"]


def test_the_randomized_response_bracket_holds_at_the_corners_of_its_domain():
    for eps0, steps, delta in itertools.product((0.1, 3.0, 5.0), (1, 10, 100), (1e-10, 1e-3, 1e-2)):
        point = dict(eps0=eps0, steps=steps, delta=delta)
        assert ag.rr_upper_claim.ball_outcome_at(point, 128) is Outcome.HOLDS, point
        assert ag.rr_lower_claim.ball_outcome_at(point, 128) is Outcome.HOLDS, point


def test_the_laplace_bracket_holds_at_the_corners_of_its_domain():
    for b, delta in itertools.product((0.2, 1.0, 20.0), (1e-10, 1e-3, 0.3)):
        point = dict(b=b, delta=delta)
        assert ag.laplace_upper_claim.ball_outcome_at(point, 128) is Outcome.HOLDS, point
        assert ag.laplace_lower_claim.ball_outcome_at(point, 128) is Outcome.HOLDS, point


def test_the_brackets_survive_random_points():
    for claim in (ag.rr_upper_claim, ag.rr_lower_claim, ag.laplace_upper_claim, ag.laplace_lower_claim):
        never_violated(claim, sized(5))()


def test_the_mutant_that_records_the_shift_twice_is_refuted_at_its_pin():
    assert ag.shift_doubled.ball_outcome_at(ag.SHIFT_DOUBLED_PIN, 128) is Outcome.VIOLATED
    assert ag.rr_upper_claim.ball_outcome_at(ag.SHIFT_DOUBLED_PIN, 128) is Outcome.HOLDS
