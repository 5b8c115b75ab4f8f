"""accountant.rdp: the accountant's inflated RDP curve is at least the exact RDP."""

import pytest
from hypothesis import given, settings

from dpproofs.checker.decide import Outcome
from dpproofs_theorems.accountant import rdp
from tests.support import assert_not_violated, assert_refuted_at_its_pin
from tests.support import sized

HOLDING = [c for c in rdp.CLAIMS if c.expected == "holds"]

EDGES = {
    "accountant.rdp.sampled_gaussian_integer": [dict(alpha=4096, q=1.0, sigma=0.1, T=10**9),
                                                dict(alpha=2, q=1e-8, sigma=1e4, T=1), rdp.SHORTFALL_PIN],
    "accountant.rdp.sampled_gaussian_fractional": [dict(alpha=1.000001, q=0.5, sigma=0.1, T=10**9),
                                                   dict(alpha=2.5, q=0.01, sigma=4.0, T=1)],
    "accountant.rdp.sampled_gaussian_both_directions": [dict(alpha=8, q=0.5, sigma=0.5, T=3)],
    "accountant.rdp.gaussian": [dict(alpha=10000.0, sigma=0.01, T=10**9), dict(alpha=1.000001, sigma=1e4, T=1)],
    "accountant.rdp.laplace": [dict(alpha=10000.0, b=0.01, T=10**9), dict(alpha=1.000001, b=1e4, T=1)],
    "accountant.rdp.randomized_response": [dict(alpha=10000.0, epsilon=50.0, T=10**9), dict(alpha=1.000001, epsilon=1e-4, T=1)],
    "accountant.rdp.kary_randomized_response": [
        dict(alpha=10000.0, p=1e-9, k=10**9, T=10**9), dict(alpha=1.000001, p=0.999999, k=2, T=1),
        dict(alpha=1.000001, p=1e-9, k=3, T=1), dict(alpha=10000.0, p=0.999999, k=2, T=1), rdp.KARY_PIN],
    "accountant.rdp.kary_randomized_response_special": [
        dict(alpha=10000.0, p=1e-9, k=10**9, T=10**9), dict(alpha=1.000001, p=0.999999, k=2, T=1),
        dict(alpha=1.000001, p=1e-9, k=3, T=1), dict(alpha=10000.0, p=0.999999, k=2, T=1),
        dict(alpha=1.000001, p=0.999999, k=10**9, T=1), rdp.KARY_PIN],
    "accountant.rdp.kary_randomized_response_below_binary": [
        dict(alpha=10000.0, p=1e-6, k=3, T=10**9), dict(alpha=1.000001, p=0.999999, k=3, T=1),
        dict(alpha=10000.0, p=1e-6, k=10**9, T=1), dict(alpha=1.000001, p=1e-6, k=10**9, T=1), rdp.SPECIAL_PIN],
}


@pytest.mark.parametrize("claim", HOLDING, ids=lambda c: c.id)
def test_every_accountant_rdp_claim_holds_at_the_edges_of_its_domain(claim):
    for point in EDGES[claim.id]:
        assert claim.outcome_at(point, 50) is Outcome.HOLDS, point


@pytest.mark.parametrize("claim", [c for c in HOLDING if c.cost >= 0.5], ids=lambda c: c.id)
def test_every_accountant_rdp_claim_survives_random_points(claim):
    @settings(max_examples=sized(6))
    @given(claim.strategy())
    def prop(point):
        assert_not_violated(claim, point)

    prop()


def test_a_curve_1e_8_short_of_the_accountant_is_refuted_at_its_pin():
    assert_refuted_at_its_pin(rdp.mutant_shortfall)


def test_the_k_ary_curve_at_the_binary_bound_it_replaced_is_refuted_at_its_pin():
    assert_refuted_at_its_pin(rdp.mutant_kary_binary)


def test_the_special_curve_at_the_two_input_pair_is_refuted_at_its_pin():
    assert_refuted_at_its_pin(rdp.mutant_kary_two_input)


def test_the_binary_bound_at_the_special_records_log_ratio_is_refuted_at_its_pin():
    assert_refuted_at_its_pin(rdp.mutant_special_epsilon)
