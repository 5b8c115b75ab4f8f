"""accountant.pld.truncated.*: truncated Poisson sampling's PLD upper end against an exactly
enumerated neighbouring pair (its mutant, the cut ignored, is refuted at its pin)."""

from fractions import Fraction

import pytest

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import pld_truncated as pt
from tests.support import never_violated, sized

EDGES = [dict(q=0.05, sigma=0.5, b=1, n=2, eps=0.0), dict(q=0.95, sigma=4.0, b=6, n=8, eps=4.0),
         dict(q=0.95, sigma=0.5, b=1, n=8, eps=4.0), dict(q=0.5, sigma=1.0, b=2, n=4, eps=1.0)]


def test_the_enumerated_pair_is_a_probability_law_on_both_sides():
    for rate, batch, size in [(0.3, 1, 5), (0.9, 2, 6), (0.5, 7, 3)]:
        p_law, q_law = pt.realised_pair(rate, batch, size)
        assert sum(p_law.values()) == 1 and sum(q_law.values()) == 1
        assert all(isinstance(w, Fraction) and w >= 0 for w in (*p_law.values(), *q_law.values()))


@pytest.mark.parametrize("point", EDGES)
def test_the_upper_end_holds_at_the_edges_of_its_domain(point):
    assert pt.upper.outcome_at(point, 50) is Outcome.HOLDS, point


def test_the_upper_end_survives_random_points():
    never_violated(pt.upper, sized(4))()


def test_ignoring_the_cut_is_refuted_at_its_pin():
    assert pt.untruncated.expected == "fails"
    assert pt.untruncated.outcome_at(pt.UNTRUNCATED_PIN, 50) is Outcome.VIOLATED
