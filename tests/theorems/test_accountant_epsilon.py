"""accountant.epsilon: the shipped accountant's epsilon against exact profiles, at random points and at
the documented edges (q near 0 and 1, sigma at the ends of its range, delta near 0 and 1, large T)."""

import pytest
from hypothesis import example, given, settings

from dpproofs.checker.claims import check
from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import epsilon
from tests.support import assert_not_violated
from tests.support import sized

BELOW_ONE = 1 - 2**-53  # the largest delta the accountant accepts
HOLDING = [c for c in epsilon.CLAIMS if c.expected == "holds"]
MUTANTS = [c for c in epsilon.CLAIMS if c.expected == "fails"]

EDGES = {
    "accountant.epsilon.gaussian": [
        dict(sigma=0.1, T=10**6, delta=1e-100, classic=0, refine=0, certified=1),
        dict(sigma=1000.0, T=1, delta=BELOW_ONE, classic=1, refine=1, certified=0),
        dict(sigma=0.1, T=1, delta=1e-5, classic=0, refine=1, certified=0),
    ],
    "accountant.epsilon.laplace": [
        dict(b=0.01, delta=1e-100, classic=0, refine=1, certified=0),
        dict(b=1e4, delta=BELOW_ONE, classic=1, refine=0, certified=1),
    ],
    "accountant.epsilon.randomized_response": [
        dict(epsilon=50.0, T=300, delta=1e-100, classic=0, refine=0, certified=1),
        dict(epsilon=1e-4, T=300, delta=BELOW_ONE, classic=1, refine=1, certified=0),
    ],
    "accountant.epsilon.sampled_gaussian": [
        dict(q=1e-8, sigma=0.1, delta=1e-100, classic=0, refine=1, certified=0),
        dict(q=1.0, sigma=1e4, delta=BELOW_ONE, classic=1, refine=0, certified=1),
        dict(q=0.5, sigma=0.1, delta=1e-5, classic=0, refine=0, certified=1),
    ],
    "accountant.epsilon.sampled_gaussian_steps.improved": [
        dict(q=1e-8, sigma=0.1, T=10**8, delta=1e-100, refine=1, certified=0),
        dict(q=1.0, sigma=1e4, T=10**8, delta=1e-5, refine=0, certified=1),
    ],
    "accountant.epsilon.sampled_gaussian_steps.classic": [
        dict(q=0.3, sigma=0.7, T=10**5, delta=1e-10, refine=1, certified=0),
    ],
}


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_every_accountant_epsilon_claim_holds_at_the_documented_edges_and_its_pins(claim):
    for point in EDGES.get(claim.id, []) + list(claim.pinned):
        assert claim.outcome_at(point, 50) is Outcome.HOLDS, point


@pytest.mark.parametrize("claim", [c for c in HOLDING if c.cost >= 1], ids=lambda c: c.id)
def test_every_cheap_accountant_epsilon_claim_survives_random_points(claim):
    @settings(max_examples=sized(10))
    @given(claim.strategy())
    def prop(point):
        assert_not_violated(claim, point)

    prop()


@settings(max_examples=sized(3))
@given(point=epsilon.steps_improved.strategy())
@example(point=epsilon.STEPS_PINS[2])
def test_the_accountant_epsilon_is_at_least_the_exact_conversion_at_its_order(point):
    assert_not_violated(epsilon.steps_improved, point)


def test_the_flags_cover_refine_and_certified_but_never_both():
    claim = epsilon.gaussian
    base = dict(sigma=1.0, T=10, delta=1e-5, classic=0)
    assert claim.hypotheses_at({**base, "refine": 1, "certified": 0}, 50) is Outcome.HOLDS
    assert claim.hypotheses_at({**base, "refine": 0, "certified": 1}, 50) is Outcome.HOLDS
    assert claim.hypotheses_at({**base, "refine": 1, "certified": 1}, 50) is Outcome.VIOLATED



def test_the_gaussian_claim_holds_in_a_short_search():
    verdict = check(epsilon.gaussian, examples=8)
    assert verdict.status == "holds" and verdict.examples >= 8
