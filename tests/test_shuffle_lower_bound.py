"""Shuffled fixed-size batches: the accountants refuse them; epsilon_lower_bound is a true lower bound.

Ground truth, independent of dpproofs.accountant.lower_bounds:

* the loader, enumerated: every permutation of a tiny dataset (n = 4..6, b = 1..5, with and without
  drop_last) cut into batches, on the pair of Chua et al. (arXiv 2403.17673v2; their reference
  implementation's ShuffleAccountant, (MoG(2), MoG(1))): every record -1, the target +1 in x and 0
  (zero-out) or -1 (replace-one) in x'. The law of the batch sums'
  maximum, integrated over the enumerated Gaussian mixture in mpmath, equals the closed form the
  lower bound evaluates (unequal batch sizes and dropped records included);
* the exact delta of the pair with T = 2 batches: the 2-D Gaussian mixtures' hockey-stick divergence,
  in rotated coordinates u = (w1 + w2)/sqrt 2, v = (w1 - w2)/sqrt 2 where the likelihood ratio is
  exp(linear in u) cosh(alpha v)/cosh(beta v): for each u the set {p > e^eps q} is |v| > v*(u), so the
  inner integral is closed-form and the outer one is an mpmath quadrature. Persistent shuffling over
  E epochs is the same at sigma/sqrt(E) (the per-batch mean over epochs is sufficient);
* per-epoch shuffling with one batch (b = n): E independent N(2, s^2) vs N(1, s^2), the Gaussian
  mechanism at mu = sqrt(E)/s, exact delta in closed form (Balle & Wang 2018, arXiv 1805.06530v2,
  Theorem 8).

The enumeration and the exact delta live in the theorem module :mod:`dpproofs_theorems.chua2024.shuffle`
(``dpproofs check 'chua2024*'`` runs its claims at random points); the tests here pin the cases,
the closeness of the bound, and the library's behaviour.
"""

import math
from fractions import Fraction

import mpmath
import pytest

import dpproofs as dp
from dpproofs.accountant import lower_bounds as lb
from dpproofs_theorems.chua2024.shuffle import enumerated_mixture, exact_delta_two_batches, mixture_cube


# --- ground truth ------------------------------------------------------------------------------


def gaussian_delta(epsilon, mu):
    """Exact delta of N(mu, 1) vs N(0, 1) at epsilon (Balle & Wang 2018, Theorem 8)."""
    eps, mu = mpmath.mpf(epsilon), mpmath.mpf(mu)
    return mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)


# --- the accountants refuse it ------------------------------------------------------------------


@pytest.mark.parametrize("accountant", ["rdp", "pld"])
@pytest.mark.parametrize("relation", ["add_remove", "replace_one"])
def test_both_accountants_refuse_shuffled_batches_and_point_to_the_lower_bound(accountant, relation):
    mechanism = dp.ShuffledGaussian(256, 50000, 1.0)
    cls = dp.Accountant if accountant == "rdp" else dp.PLDAccountant
    with pytest.raises(dp.InvalidArgument) as error:
        cls(relation=relation).compose(mechanism, 3)
    message = str(error.value)
    assert "no sound upper bound" in message and "epsilon_lower_bound" in message
    assert "Poisson" in message and "balls-in-bins" in message
    assert not cls(relation=relation).supports(mechanism)


def test_the_mechanism_round_trips_through_a_dict_and_counts_its_batches():
    mechanism = dp.ShuffledGaussian(256, 50000, 0.8, "per-epoch", drop_last=True)
    assert dp.Mechanism.from_dict(mechanism.to_dict()) == mechanism
    assert mechanism.steps_per_epoch == 195 and mechanism.dropped == 50000 - 195 * 256
    assert dp.ShuffledGaussian(256, 50000, 0.8).steps_per_epoch == 196


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(batch_size=0, dataset_size=10, sigma=1.0), "batch_size=0"),
    (dict(batch_size=11, dataset_size=10, sigma=1.0), "batch_size=11"),
    (dict(batch_size=2, dataset_size=10, sigma=0.0), "sigma=0.0"),
    (dict(batch_size=2, dataset_size=10, sigma=1.0, shuffle="random"), "shuffle='random'"),
    (dict(batch_size=2, dataset_size=10, sigma=1.0, drop_last=1), "drop_last=1"),
])
def test_bad_mechanism_parameters_are_refused_with_their_name(kwargs, fragment):
    with pytest.raises((dp.InvalidArgument, dp.InvalidArgumentType), match=fragment.replace("(", r"\(")):
        dp.ShuffledGaussian(**kwargs)


def test_bad_arguments_of_the_lower_bounds_are_refused_with_their_name():
    mechanism = dp.ShuffledGaussian(2, 10, 1.0)
    with pytest.raises(dp.InvalidArgumentType, match="ShuffledGaussian"):
        dp.epsilon_lower_bound(dp.SampledGaussian(0.1, 1.0), 1, 1e-5)
    for epochs in (0, -1, 1.5, lb.MAX_EPOCHS + 1):
        with pytest.raises(dp.InvalidArgument, match="epochs="):
            dp.epsilon_lower_bound(mechanism, epochs, 1e-5)
    for delta in (0.0, 1.0, -1e-5, math.nan):
        with pytest.raises(dp.InvalidArgument, match="delta="):
            dp.epsilon_lower_bound(mechanism, 1, delta)
    for epsilon in (-1.0, math.inf):
        with pytest.raises(dp.InvalidArgument, match="epsilon="):
            dp.delta_lower_bound(mechanism, 1, epsilon)
    with pytest.raises(dp.InvalidArgument, match="pair='add_remove'"):
        dp.epsilon_lower_bound(mechanism, 1, 1e-5, pair="add_remove")
    with pytest.raises(dp.InvalidArgumentType, match="delta="):
        dp.epsilon_lower_bound(mechanism, 1, "1e-5")


# --- ground truth: the loader, enumerated --------------------------------------------------------


@pytest.mark.parametrize("n, b, drop_last", [
    (4, 2, False), (4, 1, False), (5, 2, False), (5, 2, True), (6, 4, False), (6, 4, True), (5, 5, False),
])
def test_the_enumerated_loader_gives_the_law_of_the_maximum_that_the_bound_evaluates(n, b, drop_last):
    sigma = 0.7
    mechanism = dp.ShuffledGaussian(b, n, sigma, drop_last=drop_last)
    cases = [(1, "zero_out", 2), (0, "zero_out", 1), (-1, "replace_one", 0)]  # (target in x or x', pair, mean)
    from flint import ctx

    saved, ctx.prec = ctx.prec, 256
    try:
        for target, pair, mean in cases:
            mixture = enumerated_mixture(n, b, target, drop_last)
            for divisor in (1, 2):  # persistent shuffling over 2 epochs: the mean of the epochs, at sigma/sqrt 2
                epoch = lb._Epoch(mechanism, pair, divisor)
                for cap in (-0.3, 0.9, 2.5):
                    exact = mixture_cube(mixture, cap, sigma / math.sqrt(divisor))
                    ball = epoch.cube(cap, mean)
                    assert abs(float(ball.mid()) - float(exact)) <= 1e-14 * float(exact) + 1e-300
                    assert float(ball.rad()) < 1e-60
    finally:
        ctx.prec = saved


def test_two_batches_of_two_give_the_pair_of_chua_et_al():
    half = Fraction(1, 2)
    assert enumerated_mixture(4, 2, 1, False) == {(2, 0): half, (0, 2): half}
    assert enumerated_mixture(4, 2, 0, False) == {(1, 0): half, (0, 1): half}
    assert enumerated_mixture(4, 2, -1, False) == {(0, 0): 1}


# --- ground truth: the exact delta ---------------------------------------------------------------


@pytest.mark.parametrize("sigma, pair, epochs, epsilon, closeness", [
    (0.8, "zero_out", 1, 1.0, 0.995),     # measured 0.998
    (0.5, "zero_out", 1, 2.0, 0.9999),    # measured 0.99998
    (1.0, "replace_one", 1, 0.5, 0.99),   # measured 0.995
    (1.2, "zero_out", 2, 1.0, 0.99),      # persistent over 2 epochs: exact at sigma / sqrt 2
])
def test_the_lower_bound_is_at_most_the_exact_delta_of_the_pair_with_two_batches(sigma, pair, epochs, epsilon, closeness):
    mechanism = dp.ShuffledGaussian(2, 4, sigma, "persistent")
    lower_mean = 1 + lb.PAIRS[pair]
    exact = exact_delta_two_batches(epsilon, sigma / math.sqrt(epochs), lower_mean)
    low = dp.delta_lower_bound(mechanism, epochs, epsilon, pair=pair)
    assert closeness * exact <= low <= exact
    # the epsilon: exact delta there is above the target (the bound's certificate, checked independently)
    target = float(exact) / 3
    eps = dp.epsilon_lower_bound(mechanism, epochs, target, pair=pair)
    assert eps > epsilon and exact_delta_two_batches(eps, sigma / math.sqrt(epochs), lower_mean) > target


@pytest.mark.parametrize("sigma, epochs, closeness", [(0.5, 2, 0.995), (1.0, 5, 0.99), (2.0, 20, 0.98)])
def test_per_epoch_composition_is_at_most_the_exact_gaussian_with_one_batch(sigma, epochs, closeness):
    # b = n: every epoch is N(2, s^2) against N(1, s^2); E epochs: the Gaussian at mu = sqrt(E)/s
    mechanism = dp.ShuffledGaussian(3, 3, sigma, "per-epoch")
    mu = math.sqrt(epochs) / sigma
    for epsilon in (0.5, 2.0):  # measured ratios >= 0.986 (sigma = 2, E = 20, eps = 2)
        exact = gaussian_delta(epsilon, mu)
        low = dp.delta_lower_bound(mechanism, epochs, epsilon)
        assert closeness * exact <= low <= exact
    eps = dp.epsilon_lower_bound(mechanism, epochs, 1e-5)
    assert gaussian_delta(eps, mu) > 1e-5
    assert gaussian_delta(eps * 1.01, mu) < 1e-5  # within 1 % of the exact epsilon


# --- sanity ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("shuffle", ["persistent", "per-epoch"])
def test_more_epochs_never_give_a_smaller_bound(shuffle):
    mechanism = dp.ShuffledGaussian(100, 1000, 1.0, shuffle)
    bounds = [dp.epsilon_lower_bound(mechanism, epochs, 1e-5) for epochs in (1, 2, 3, 5, 8)]
    assert bounds == sorted(bounds) and bounds[0] > 0
    deltas = [dp.delta_lower_bound(mechanism, epochs, 2.0) for epochs in (1, 2, 3, 5, 8)]
    assert deltas == sorted(deltas)


def test_persistent_shuffling_is_never_more_private_than_reshuffling():
    # the same order every epoch concentrates the target's influence in one batch
    for epochs in (2, 5):
        persistent = dp.epsilon_lower_bound(dp.ShuffledGaussian(100, 1000, 1.0, "persistent"), epochs, 1e-5)
        per_epoch = dp.epsilon_lower_bound(dp.ShuffledGaussian(100, 1000, 1.0, "per-epoch"), epochs, 1e-5)
        assert persistent >= per_epoch


def test_the_replace_one_pair_gives_a_larger_bound_than_the_zero_out_pair():
    mechanism = dp.ShuffledGaussian(256, 50000, 1.0)
    assert dp.epsilon_lower_bound(mechanism, 1, 1e-5, pair="replace_one") > dp.epsilon_lower_bound(mechanism, 1, 1e-5)


def test_a_delta_above_every_test_gives_the_trivial_bound_zero():
    mechanism = dp.ShuffledGaussian(256, 50000, 20.0)
    assert dp.epsilon_lower_bound(mechanism, 1, 0.5) == 0.0
    assert dp.delta_lower_bound(mechanism, 1, 50.0) == 0.0


# --- the pinned run: shuffling is less private than the Poisson number says -----------------------


def test_one_cifar_epoch_of_shuffled_batches_is_provably_less_private_than_poisson_accounting_says():
    # N = 50000, B = 256, sigma = 0.8, one epoch, delta = 1e-5 (benchmarks/shuffle_lower_bounds.py)
    shuffled = dp.epsilon_lower_bound(dp.ShuffledGaussian(256, 50000, 0.8), 1, 1e-5)
    poisson = dp.PLDAccountant().compose(dp.SampledGaussian(256 / 50000, 0.8), 196).epsilon_bounds(1e-5)
    assert 5.5733 < shuffled <= 5.57336770  # the reference's float search gives 5.5733676937
    assert poisson.upper < 1.01 < shuffled / 5
