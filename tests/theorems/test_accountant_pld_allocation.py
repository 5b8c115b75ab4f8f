"""accountant.pld.allocation.*: random allocation's PLD bracket against the exact one-epoch profile
(dpproofs.math.allocation_exact): the accountant's sides and the exact sides."""

import pytest

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import pld_allocation as pa
from tests.support import never_violated, sized



EDGES = [dict(t=1, sigma=0.7, eps=0.0), dict(t=2, sigma=0.7, eps=0.0), dict(t=2, sigma=4.0, eps=3.0),
         dict(t=2, sigma=0.7, eps=3.0), dict(t=1, sigma=4.0, eps=3.0)]


def test_the_claims_and_their_statements():
    assert [c.id for c in pa.CLAIMS] == ["accountant.pld.allocation.upper", "accountant.pld.allocation.lower",
                                         "accountant.pld.allocation.upper.mutant.twice_the_steps",
                                         "accountant.pld.allocation.lower.mutant.remove_only",
                                         "accountant.pld.allocation.every_step.lower",
                                         "accountant.pld.allocation.every_step.lower.mutant.sensitivity_1_2k"]
    assert [c.expected for c in pa.CLAIMS] == ["holds", "holds", "fails", "fails", "holds", "fails"]
    assert "allocation_exact_delta(t, sigma, eps) <= pld_allocation_delta_upper" in pa.upper.describe()


@pytest.mark.parametrize("key", [(1, 1.0, 1.0), (2, 2.0, 1.0)])
def test_the_exact_side_lies_in_its_certified_enclosure(key):
    for remove_only in (False, True):
        value, enclosure = pa._exact(*key, 30, remove_only), pa._exact_ball(*key, 128, remove_only)
        assert enclosure.lower() <= pa.ball.to_arb(value) <= enclosure.upper()


def test_the_mutants_pins_differ_from_the_claims_exact_side():
    # twice the steps: one step's exact value is far above two steps'; remove only: below add
    assert pa._exact(1, 1.0, 1.0, 20, False) > 2 * pa.allocation_exact.delta_exact(1.0, 2, 1.0, 20)
    assert pa._exact(2, 2.0, 1.0, 20, True) < 0.75 * pa._exact(2, 2.0, 1.0, 20, False)


@pytest.mark.parametrize("point", EDGES)
def test_the_bracket_holds_at_the_edges_of_its_domain(point):
    assert pa.upper.outcome_at(point, 30) is Outcome.HOLDS, point
    assert pa.lower.outcome_at(point, 30) is Outcome.HOLDS, point


def test_the_bracket_survives_random_points():
    never_violated(pa.upper, sized(4))()
    never_violated(pa.lower, sized(4))()


def test_the_mutants_are_refuted_at_their_pins():
    assert pa.twice_the_steps.ball_outcome_at(pa.TWICE_PIN, 128) is Outcome.VIOLATED
    assert pa.remove_only.ball_outcome_at(pa.REMOVE_ONLY_PIN, 128) is Outcome.VIOLATED


def test_the_k_of_k_lower_end_meets_the_exact_gaussian_composition_and_its_mutant_is_refuted():
    # at k = t the sum of the outputs is sufficient: the lower end equals the exact value to the closed
    # form's certification, at the edges of the domain and at random points
    for point in (dict(k=2, sigma=0.7, eps=0.0), dict(k=6, sigma=4.0, eps=3.0), dict(k=6, sigma=0.7, eps=3.0)):
        assert pa.every_step_lower.outcome_at(point, 30) is Outcome.HOLDS, point
    never_violated(pa.every_step_lower, sized(4))()
    assert pa.every_step_lower_wide.ball_outcome_at(pa.WIDE_SUM_PIN, 128) is Outcome.VIOLATED
