"""The one accountant interface (dpproofs.accountant.base.PrivacyAccountant): both accountants
implement it, accept one value or a sequence, refuse unsupported mechanisms alike, round-trip."""

import pytest

import dpproofs as dp
from dpproofs.accountant.base import Bounds, PrivacyAccountant

ACCOUNTANTS = [dp.Accountant, dp.PLDAccountant]


@pytest.mark.parametrize("cls", ACCOUNTANTS)
def test_both_accountants_implement_the_interface(cls):
    acc = cls()
    assert isinstance(acc, PrivacyAccountant) and isinstance(acc, dp.PrivacyAccountant)
    assert acc.compose(dp.Gaussian(2.0), 3) is acc
    assert acc.ledger == [(dp.Gaussian(2.0), 3)] and acc.relation == "add_remove"
    one = acc.epsilon(1e-5)
    many = acc.epsilon([1e-5, 1e-6])
    assert many[0] == one and many[1] >= one
    bounds = acc.epsilon_bounds(1e-5)
    assert isinstance(bounds, Bounds) and bounds.lower <= bounds.upper == one
    assert acc.epsilon_bounds([1e-5]) == [bounds]
    assert acc.delta([1.0]) == [acc.delta(1.0)]
    low, up = acc.delta_bounds(1.0)
    assert 0 <= low <= up == acc.delta(1.0)
    copy = cls.from_dict(acc.to_dict())
    assert type(copy) is cls and copy.ledger == acc.ledger and copy.to_dict() == acc.to_dict()


def test_the_rdp_accountant_bounds_have_lower_end_zero_and_carry_the_order():
    acc = dp.Accountant().compose(dp.SampledGaussian(0.01, 1.0), 1000)
    bounds = acc.epsilon_bounds(1e-5, "classic")
    assert bounds.lower == 0.0 and (bounds.upper, bounds.order) == acc.epsilon_and_order(1e-5, "classic")
    assert acc.delta_bounds(1.0).upper == acc.delta(1.0)


@pytest.mark.parametrize("cls", ACCOUNTANTS)
def test_supports_is_the_one_mechanism_check_and_compose_refuses_alike(cls):
    fixed = dp.FixedBatchGaussian(batch_size=10, dataset_size=100, sigma=1.0)
    acc = cls()
    assert acc.supports(dp.Gaussian(1.0)) and not acc.supports(fixed) and not acc.supports("Gaussian(1)")
    assert cls(relation="replace_one").supports(fixed)
    with pytest.raises(dp.InvalidArgument, match="add_remove"):
        acc.compose(fixed)
    with pytest.raises(dp.InvalidArgumentType, match="mechanism="):
        acc.compose(object())
    assert acc.ledger == []


@pytest.mark.parametrize("cls", ACCOUNTANTS)
def test_a_bad_item_of_a_sequence_is_named_by_its_index(cls):
    acc = cls().compose(dp.Gaussian(2.0))
    with pytest.raises(dp.InvalidArgument, match=r"delta\[1\]"):
        acc.epsilon([1e-5, 2.0])
    with pytest.raises(dp.InvalidArgument, match=r"epsilon\[0\]"):
        acc.delta_bounds([-1.0])


def test_one_public_calibrate_sigma():
    assert "calibrate_sigma_pld" not in dp.__all__ and not hasattr(dp, "calibrate_sigma_pld")
    with pytest.raises(dp.InvalidArgument, match="pld"):
        dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=100, tolerance=1e-2)
    with pytest.raises(dp.InvalidArgument, match="rdp"):
        dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=100, accountant="pld", conversion="classic")


@pytest.mark.parametrize("cls", [dp.Accountant, dp.PLDAccountant])
@pytest.mark.parametrize("mechanism, steps, pure", [(dp.RandomizedResponse(1.0), 10, 10.0),
                                                    (dp.RandomizedResponse(0.1), 3, 0.30000000000000004)])
def test_delta_is_exactly_zero_at_the_summed_pure_epsilon_and_positive_just_below(cls, mechanism, steps, pure):
    """Pure DP composes by summation (Dwork & Roth 2014, Thm 3.16): at epsilon equal to the exact sum
    of the steps' epsilons (0.1 + 0.1 + 0.1 is 0.30000000000000004 in floats, above the exact 0.3)
    delta is 0, not a rounding-widened positive bound; just below it the exact delta is positive."""
    accountant = cls().compose(mechanism, steps)
    assert accountant.delta(pure) == 0.0
    assert accountant.delta(pure * (1 - 1e-6)) > 0.0
