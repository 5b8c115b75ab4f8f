"""Bad input gets a clear error naming the argument, its value and the allowed range."""

import math
from fractions import Fraction

import numpy as np
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
    from dpproofs.math import precise

    assert dp.rdp(dp.SampledGaussian(0.01, 4), 20) >= precise.log_a(20, 0.01, 4) / 19 * (1 - 1e-45)


# --- the domain (dpproofs.math.limits): every accepted input answers, soundly, in bounded time ---------


def _epsilon(mechanism, orders=None):
    return dp.Accountant(orders).compose(mechanism, 1000).epsilon_and_order(1e-5)


def test_an_absurdly_small_sigma_gives_infinite_epsilon_not_a_tiny_one():
    # was (0.101, 64.0): k^2/(2 sigma^2) overflowed and the overflowing sum was read as zero
    assert _epsilon(dp.SampledGaussian(q=0.01, sigma=1e-153), list(range(2, 65)))[0] == math.inf
    assert _epsilon(dp.SampledGaussian(0.5, 1e-170))[0] == math.inf


@pytest.mark.parametrize("sigma", [1e-10, 1e-50, 1e-6])
def test_a_tiny_sigma_gives_a_huge_finite_or_infinite_epsilon_quickly(sigma):
    eps, _ = _epsilon(dp.SampledGaussian(0.5, sigma))
    assert eps >= 1 / (2 * sigma * sigma)  # RDP at order 2 is at least 1/(2 sigma^2) + 2 log q


@pytest.mark.parametrize("mechanism", [dp.Gaussian(1e155), dp.SampledGaussian(0.2, 1e160)])
def test_a_huge_sigma_gives_epsilon_zero_by_the_total_variation_bound(mechanism):
    # the output is within total variation ~1e-156 of ignoring the data: below delta, epsilon is exactly 0
    eps, _ = _epsilon(mechanism)
    assert eps == 0.0
    accountant = dp.Accountant().compose(mechanism, 10)
    assert 0 < accountant.total_variation_bound() < 1e-150 and accountant.delta(0.0) <= accountant.total_variation_bound()


@pytest.mark.parametrize("q", [1e-170, 5e-324])
def test_a_sampling_rate_far_below_float_precision_is_accounted_for(q):
    # RDP is non-decreasing in q (A_alpha is convex in q and minimal at q = 0)
    eps = _epsilon(dp.SampledGaussian(q, 1.0))[0]
    assert _epsilon(dp.SampledGaussian(0.0, 1.0))[0] <= eps <= _epsilon(dp.SampledGaussian(1e-100, 1.0))[0]


def test_the_fractional_order_fallback_is_an_upper_bound_above_the_exact_value():
    from dpproofs.math import fast
    from dpproofs.math import precise

    # outside the accuracy domain (sigma < 0.1) the value is within fast.RTOL (series, quadrature)
    # or the convexity chord between integer orders (an upper bound)
    for alpha, sigma in ((1.5, 0.05), (2.5, 0.05), (7.25, 0.05), (2.5, 1e-3), (1.5, 1e-6)):
        bound = float(fast.rdp_sampled_gaussian([alpha], 0.01, sigma)[0])
        exact = precise.rdp_sampled_gaussian(alpha, 0.01, sigma, dps=30, direction="add")
        assert bound >= exact * (1 - fast.RTOL)
    chord = float(fast._chord_log_a(np.array([2.5]), 0.01, 1e-3)[0])
    assert chord >= precise.log_a(2.5, 0.01, 1e-3, dps=30)
    assert float(fast.rdp_sampled_gaussian([2.5], 1e-120, 1.0)[0]) >= fast.TINY


def test_the_exact_sampled_gaussian_evaluator_names_its_order_limit():
    with pytest.raises(dp.InvalidArgument, match=r"alpha=1e\+300 .*at most 10000"):
        dp.rdp(dp.SampledGaussian(0.5, 1.0), 1e300)
    with pytest.raises(dp.InvalidArgument, match=r"lam=100000.0 .*at most 10000"):
        dp.log_moment(dp.SampledGaussian(0.5, 1.0), 1e5)
    with pytest.raises(dp.InvalidArgument, match=r"sigma=1e-170 .*\[1e-150, 1e\+150\]"):
        dp.rdp(dp.SampledGaussian(0.5, 1e-170), 2)
    assert dp.rdp(dp.SampledGaussian(0.0, 1.0), 1e300) == 0
    assert dp.rdp(dp.Gaussian(1.0), 1e300) == pytest.approx(5e299)


def test_ctrl_c_ends_a_command_with_one_line_and_status_130(monkeypatch, capsys):
    from dpproofs import cli
    from dpproofs.cli import epsilon as epsilon_command

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(epsilon_command, "run", interrupted)
    status = cli.main(["epsilon", "--q", "0.01", "--sigma", "1", "--steps", "10", "--delta", "1e-5"])
    captured = capsys.readouterr()
    assert status == 130
    assert captured.out == "" and captured.err.count("\n") == 1 and "interrupted" in captured.err
