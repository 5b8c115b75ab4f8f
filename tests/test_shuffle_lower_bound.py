"""Shuffled fixed-size batches: the accountants refuse them; epsilon_lower_bound is a true lower bound.

Ground truth, independent of dpproofs.accountant.lower_bounds:

* the loader, enumerated: every permutation of a tiny dataset (n = 4..6, b = 1..3, with and without
  drop_last) cut into batches, on the pair of Chua et al. (arXiv 2403.17673v2, Sec. 4): every record
  -1, the target +1 in x and 0 (zero-out) or -1 (replace-one) in x'. The law of the batch sums'
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

Why tests and not a theorem module: the claim is "this number is at most the tight delta of the
shuffled mechanism", whose right side is a 2-D integral over an enumeration of permutations, not an
expression over the checker's sympy vocabulary.
"""

import itertools
import math
from fractions import Fraction

import mpmath
import pytest

import dpproofs as dp
from dpproofs.accountant import lower_bounds as lb


# --- ground truth ------------------------------------------------------------------------------


def enumerated_mixture(n, b, target_value, drop_last):
    """{batch-sum vector shifted by the batch sizes: probability} over all n! orders (exact)."""
    records = [-1] * (n - 1) + [target_value]
    counts = {}
    for order in itertools.permutations(range(n)):
        batches = [order[i:i + b] for i in range(0, n, b)]
        if drop_last and len(batches[-1]) < b:
            batches = batches[:-1]
        vector = tuple(sum(records[j] for j in batch) + len(batch) for batch in batches)
        counts[vector] = counts.get(vector, 0) + 1
    total = math.factorial(n)
    return {vector: Fraction(count, total) for vector, count in counts.items()}


def mixture_cube(mixture, cap, sigma):
    """mpmath P(max_t w_t <= cap) under sum_k p_k N(mu_k, sigma^2 I)."""
    cap, sigma = mpmath.mpf(cap), mpmath.mpf(sigma)
    return sum(
        mpmath.mpf(weight.numerator) / weight.denominator
        * mpmath.fprod(mpmath.ncdf((cap - mu) / sigma) for mu in vector)
        for vector, weight in mixture.items()
    )


def exact_delta_two_batches(epsilon, sigma, lower_mean):
    """Exact delta of (1/2 N(2 e_1) + 1/2 N(2 e_2), 1/2 N(m e_1) + 1/2 N(m e_2)), m = lower_mean in
    {1, 0}, noise sigma^2 I_2 (module docstring: |v| > v*(u) for each u, closed form inside)."""
    with mpmath.workdps(30):
        s, eps = mpmath.mpf(sigma), mpmath.mpf(epsilon)
        root2 = mpmath.sqrt(2)
        a, m = 2 / root2, mpmath.mpf(lower_mean) / root2  # the means' coordinates along u and +-v
        alpha, beta = a / s**2, m / s**2

        def h(v):  # log cosh(alpha v) - log cosh(beta v), increasing in |v|, h(0) = 0
            return mpmath.log(mpmath.cosh(alpha * v)) - mpmath.log(mpmath.cosh(beta * v))

        def tails(v_star, mean):  # P(|v| > v*) under 1/2 N(mean) + 1/2 N(-mean)
            return mpmath.ncdf(-(v_star - mean) / s) + mpmath.ncdf(-(v_star + mean) / s)

        def threshold(u):  # p/q = exp((a - m) u / s^2 - (a^2 - m^2)/s^2 ... ) cosh/cosh
            return eps - (a - m) * u / s**2 + (a**2 - m**2) / s**2

        def inner(u):
            tau = threshold(u)
            if tau <= 0:
                v_star = mpmath.mpf(0)
            else:
                v_star = mpmath.findroot(lambda v: h(v) - tau, (mpmath.mpf(0), tau / (alpha - beta) + 10 * s),
                                         solver="illinois", verify=False)
            p = mpmath.npdf(u, a, s) * tails(v_star, a)
            q = mpmath.npdf(u, m, s) * tails(v_star, m)
            return p - mpmath.exp(eps) * q

        kink = (eps + (a**2 - m**2) / s**2) * s**2 / (a - m)  # threshold(kink) = 0
        return mpmath.quad(inner, [-mpmath.inf, kink - 4 * s, kink, kink + 4 * s, mpmath.inf])


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


def test_calibrate_sigma_refuses_shuffled_batches():
    with pytest.raises(dp.InvalidArgument, match="no sound upper bound"):
        dp.calibrate_sigma(lambda sigma: dp.ShuffledGaussian(256, 50000, sigma), 100, 3.0, 1e-5)


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
