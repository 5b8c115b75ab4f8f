"""Bad input gets a clear error naming the argument, its value and the allowed range."""

import math
from fractions import Fraction

import pytest

import dpproofs as dp
from dpproofs import _validate


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -1.0, 0.0])
def test_a_sigma_that_is_not_a_positive_finite_number_is_rejected_by_name(value):
    with pytest.raises(dp.InvalidArgument, match=r"sigma=.*\(0, inf\)"):
        dp.Gaussian(value)


@pytest.mark.parametrize("q", [-0.1, 1.5, math.nan])
def test_a_sampling_rate_outside_0_1_is_rejected(q):
    with pytest.raises(dp.InvalidArgument, match=r"q=.*\[0, 1\]"):
        dp.SampledGaussian(q, 1.0)


@pytest.mark.parametrize("value", ["1.0", None, True, [1.0]])
def test_a_parameter_of_the_wrong_type_is_a_type_error(value):
    with pytest.raises(TypeError, match="sigma="):
        dp.Gaussian(value)


def test_mechanisms_are_frozen_and_round_trip_through_dicts():
    mechanism = dp.SampledGaussian(0.01, 4)
    with pytest.raises(AttributeError):
        mechanism.q = 0.5
    assert dp.SampledGaussian.from_dict(mechanism.to_dict()) == mechanism
    with pytest.raises(dp.InvalidArgument, match="type"):
        dp.SampledGaussian.from_dict({"type": "Exponential", "scale": 1})


def test_integer_validation_accepts_integral_floats_and_rejects_fractions_of_a_step():
    assert _validate.integer("steps", 1e9, 0) == 10**9
    with pytest.raises(dp.InvalidArgument, match="steps=1.5"):
        _validate.integer("steps", 1.5, 0)
    assert _validate.real("x", Fraction(1, 3), 0, 1) == pytest.approx(1 / 3)


@pytest.mark.parametrize("alpha", [1, 0.5, math.nan, math.inf])
def test_rdp_rejects_orders_that_are_not_above_one(alpha):
    with pytest.raises(dp.InvalidArgument, match="alpha="):
        dp.rdp(dp.Gaussian(1.0), alpha)


def test_rdp_and_log_moment_reject_things_that_are_not_mechanisms():
    with pytest.raises(TypeError, match="mechanism="):
        dp.rdp("gaussian", 2)
    with pytest.raises(dp.InvalidArgument, match="lam="):
        dp.log_moment(dp.Laplace(1.0), -1)


def test_rdp_and_log_moment_agree_with_the_closed_forms():
    assert abs(dp.rdp(dp.Gaussian(2.0), 3) - 3 / 8) < 1e-40
    # Abadi's alpha(lam) = lam * D_{lam+1}
    assert abs(dp.log_moment(dp.Gaussian(2.0), 2) - 2 * 3 / 8) < 1e-40
    # for the sampled Gaussian, the max of both directions: never below the add direction
    from dpproofs.evaluator import precise

    assert dp.rdp(dp.SampledGaussian(0.01, 4), 20) >= precise.log_a(20, 0.01, 4) / 19 * (1 - 1e-45)
