"""dpproofs.accountant.training.steps_and_rate: steps = ceil(E N / B), q = B / N, validated."""

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpproofs as dp
from dpproofs.accountant.training import steps_and_rate


def test_mnist_and_cifar_shaped_runs():
    assert steps_and_rate(60000, 256, 15) == (3516, 256 / 60000)  # 3515.625 steps, rounded up
    assert steps_and_rate(50000, 256, 100) == (19532, 256 / 50000)
    assert steps_and_rate(25, 1, 90) == (2250, 0.04)  # Opacus' scenario: q = 0.04, 90 epochs


def test_a_whole_number_of_batches_is_not_rounded_up():
    assert steps_and_rate(1000, 100, 3) == (30, 0.1)
    assert steps_and_rate(1000, 1000, 1) == (1, 1.0)


def test_a_float_epoch_count_is_read_as_the_decimal_it_prints_as():
    # Fraction(0.1) * 10 is 1.0000000000000000555: ceil would give 2 steps
    assert math.ceil(Fraction(0.1) * 10) == 2
    assert steps_and_rate(1000, 100, 0.1) == (1, 0.1)
    assert steps_and_rate(1000, 100, 0.7) == (7, 0.1)
    assert steps_and_rate(1000, 100, 2.5) == (25, 0.1)
    assert steps_and_rate(1000, 300, 0.5) == (2, 0.3)  # 1.67 steps -> 2
    assert steps_and_rate(1000, 100, Fraction(1, 3)) == (4, 0.1)


@given(
    n=st.integers(1, 10**7),
    b=st.integers(1, 10**7),
    epochs=st.integers(1, 1000),
)
def test_steps_cover_every_epoch_and_no_more_than_one_extra_batch(n, b, epochs):
    b = min(b, n)
    steps, q = steps_and_rate(n, b, epochs)
    assert steps * b >= epochs * n > (steps - 1) * b
    assert q == b / n and 0 < q <= 1


def test_the_result_feeds_the_accountant():
    steps, q = steps_and_rate(60000, 256, 15)
    epsilon = dp.Accountant().compose(dp.SampledGaussian(q, 1.1), steps).epsilon(1e-5)
    assert 0 < epsilon < math.inf


def test_integral_floats_are_accepted_as_counts():
    assert steps_and_rate(6e4, 256.0, 15) == steps_and_rate(60000, 256, 15)


@pytest.mark.parametrize(
    "args, match",
    [
        ((0, 1, 1), "dataset_size"),
        ((-5, 1, 1), "dataset_size"),
        ((10.5, 1, 1), "dataset_size"),
        ((100, 0, 1), "batch_size"),
        ((100, 101, 1), "batch_size"),
        ((100, 10, 0), "epochs"),
        ((100, 10, -1), "epochs"),
        ((100, 10, float("nan")), "epochs"),
        ((100, 10, float("inf")), "epochs"),
    ],
)
def test_bad_values_are_named(args, match):
    with pytest.raises(dp.InvalidArgument, match=match):
        steps_and_rate(*args)


@pytest.mark.parametrize(
    "args, match",
    [(("100", 10, 1), "dataset_size"), ((100, True, 1), "batch_size"), ((100, 10, "3"), "epochs"), ((100, 10, None), "epochs")],
)
def test_bad_types_are_named(args, match):
    with pytest.raises(dp.InvalidArgumentType, match=match):
        steps_and_rate(*args)


def test_a_sampling_scheme_it_does_not_know_is_refused_by_name():
    assert steps_and_rate(100, 10, 1, sampling="poisson") == (10, 0.1)
    with pytest.raises(dp.InvalidArgument, match="sampling='weighted'"):
        steps_and_rate(100, 10, 1, sampling="weighted")


def test_shuffling_counts_each_epochs_short_last_batch_as_a_step():
    # 10 records in batches of 3: 3 + 3 + 3 + 1 per epoch, so 2 epochs are 8 steps (Poisson: ceil(20/3) = 7)
    assert steps_and_rate(10, 3, 2, sampling="shuffle") == (8, 0.3)
    assert steps_and_rate(10, 3, 2, sampling="poisson") == (7, 0.3)
    assert steps_and_rate(60000, 256, 15, sampling="shuffle") == (15 * 235, 256 / 60000)
    assert steps_and_rate(10, 3, 0.5, sampling="shuffle") == (2, 0.3)  # half of 4 steps


def test_balls_in_bins_is_one_of_t_steps_per_epoch_at_rate_one_over_t():
    # t = ceil(N / B) bins; each record in exactly one: rate 1/t, E * t steps
    assert steps_and_rate(10, 3, 2, sampling="balls-in-bins") == (8, 0.25)
    assert steps_and_rate(60000, 256, 15, sampling="balls-in-bins") == (15 * 235, 1 / 235)
    assert steps_and_rate(1000, 100, 3, sampling="balls-in-bins") == (30, 0.1)
    assert steps_and_rate(1000, 100, 0.1, sampling="balls-in-bins") == (1, 0.1)  # a float epoch read as its decimal


@given(n=st.integers(1, 10**7), b=st.integers(1, 10**7), epochs=st.integers(1, 1000))
def test_shuffle_and_balls_in_bins_steps_are_whole_epochs_of_ceil_n_over_b(n, b, epochs):
    b = min(b, n)
    per_epoch = -(-n // b)
    assert steps_and_rate(n, b, epochs, sampling="shuffle") == (epochs * per_epoch, b / n)
    steps, rate = steps_and_rate(n, b, epochs, sampling="balls-in-bins")
    assert steps == epochs * per_epoch and rate == 1 / per_epoch and n <= b * per_epoch
