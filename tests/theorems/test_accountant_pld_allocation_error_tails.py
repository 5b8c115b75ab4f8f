"""accountant.pld.allocation_error_tails.*: random allocation's upper one-step PLD against the worst
error its lattice law allows on any tail (L2 per window or plain per atom, both orders)."""

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import pld_allocation_error_tails as et
from tests.support import never_violated, sized


def test_the_claims_and_their_statements():
    assert [c.id for c in et.CLAIMS] == ["accountant.pld.allocation_error_tails.upper",
                                         "accountant.pld.allocation_error_tails.upper.mutant.tails_dropped"]
    assert [c.expected for c in et.CLAIMS] == ["holds", "fails"]


def test_the_bound_holds_at_the_corners_of_its_domain():
    for kind in (0, 1):
        for remove in (0, 1):
            for share, eps, above in ((0.05, 0.0, -1.0), (0.05, 1.5, 2.0), (1e-4, 0.3, 0.3)):
                point = dict(kind=kind, remove=remove, share=share, eps=eps, above=above)
                assert et.upper.outcome_at(point, 30) is Outcome.HOLDS, point


def test_the_bound_survives_random_points():
    never_violated(et.upper, sized(3))()


def test_the_mutant_without_the_tail_masses_is_refuted_at_its_pin():
    assert et.tails_dropped.ball_outcome_at(et.TAILS_DROPPED_PIN, 128) is Outcome.VIOLATED
