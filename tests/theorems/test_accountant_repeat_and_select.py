"""accountant.rdp.repeat_and_select_gaussian: the accountant's RepeatAndSelect curve against Theorem 2
of Papernot & Steinke 2022 (its mutant is refuted, certified, at its pin by tests/theorems/test_contract.py)."""

import pytest
from hypothesis import given, settings

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import repeat_and_select as rs
from tests.support import assert_not_violated, sized

HOLDING = [c for c in rs.CLAIMS if c.expected == "holds"]
MUTANTS = [c for c in rs.CLAIMS if c.expected == "fails"]

EDGES = [dict(alpha=1.01, sigma=0.3, mean=1, shape=0), dict(alpha=1000, sigma=100, mean=1e6, shape=5),
         dict(alpha=1.01, sigma=100, mean=1e6, shape=0), dict(alpha=1000, sigma=0.3, mean=1.001, shape=0.5),
         dict(alpha=3, sigma=2, mean=50, shape=1)]


def test_the_claims_are_under_the_rdp_prefix():
    assert all(c.id.startswith("accountant.rdp.repeat_and_select") for c in rs.CLAIMS)
    assert len(HOLDING) == 1 and len(MUTANTS) == 1


@pytest.mark.parametrize("point", EDGES)
def test_it_holds_at_the_edges_of_its_domain(point):
    assert HOLDING[0].outcome_at(point, 50) is Outcome.HOLDS, point


def test_it_survives_random_points():
    @settings(max_examples=sized(5), deadline=None)
    @given(HOLDING[0].strategy())
    def prop(point):
        assert_not_violated(HOLDING[0], point)

    prop()


def test_the_mutant_without_log_mean_is_violated_at_its_pin():
    assert MUTANTS[0].outcome_at(rs.NO_LOG_MEAN_PIN, 50) is Outcome.VIOLATED
