"""accountant.pld.replace_one.poisson.dominating: records at any angle stay below the two-sided
mixture (x' = -x) that the PLD accountant composes under replace-one; its mutants are refuted."""

import pytest

from dpproofs.checker.decide import Outcome
from dpproofs.math import ball
from dpproofs_theorems.accountant import pld_replace_one_poisson_dominating as pd
from dpproofs_theorems.accountant.pld_replace_one import two_sided_delta_precise
from tests.support import never_violated, sized


def test_the_claims_and_their_statements():
    assert [c.id for c in pd.CLAIMS] == [
        "accountant.pld.replace_one.poisson.dominating",
        "accountant.pld.replace_one.poisson.dominating.mutant.add_remove_pair",
        "accountant.pld.replace_one.poisson.dominating.mutant.orthogonal_records"]
    assert [c.expected for c in pd.CLAIMS] == ["holds", "fails", "fails"]


@pytest.mark.parametrize("point", [(0.5, 0.1, 1.0), (2.68, 0.0047, 2.56), (0.0, 0.9, 0.3), (3.0, 0.001, 4.0)])
def test_at_180_degrees_the_configuration_is_the_two_sided_mixture(point):
    eps, q, s = point
    assert abs(pd.configuration_delta_precise(eps, q, s, 1.0, dps=30)
               - two_sided_delta_precise(eps, q, s, dps=30)) <= 1e-25 * two_sided_delta_precise(eps, q, s, dps=30)


@pytest.mark.parametrize("point", [(0.5, 0.1, 1.0, 0.5), (2.68, 0.0047, 2.56, 0.999), (1.0, 0.5, 0.5, 0.2)])
def test_the_quadrature_lies_in_its_certified_enclosure(point):
    eps, q, s, angle = point
    value = pd.configuration_delta_precise(eps, q, s, angle, dps=30)
    enclosure = pd.configuration_delta_ball(eps, q, s, angle, prec=128)
    assert enclosure.lower() <= ball.to_arb(value) <= enclosure.upper()
    assert enclosure.rad() <= 1e-20 * enclosure.mid()  # relative, even for deltas of 1e-95


def test_the_delta_grows_with_the_angle_between_the_records():
    values = [pd.configuration_delta_precise(0.5, 0.1, 1.0, a / 10, dps=20) for a in range(11)]
    assert values[0] == 0
    assert all(x < y for x, y in zip(values, values[1:]))


def test_the_claim_survives_random_points():
    never_violated(pd.dominating, sized(6))()


def test_the_mutants_are_refuted_at_their_pins():
    for mutant in (pd.add_remove_pair, pd.orthogonal_records):
        assert mutant.ball_outcome_at(mutant.pinned[0], 128) is Outcome.VIOLATED
