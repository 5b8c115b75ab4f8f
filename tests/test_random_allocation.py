"""RandomAllocationGaussian (balls-in-bins, one application = one epoch) and dpproofs.math.allocation."""

import itertools
import math

import mpmath
import numpy as np
import pytest

from dpproofs import Accountant, InvalidArgument, RandomAllocationGaussian, SampledGaussian
from dpproofs.mechanisms import Mechanism
from dpproofs.math import allocation

ORDERS = [1.5, 2, 3, 4, 8, 16, 32]


def brute_force_log_moment(alpha, t, sigma):
    total = mpmath.mpf(0)
    for comp in itertools.product(range(alpha + 1), repeat=t):
        if sum(comp) == alpha:
            multinomial = math.factorial(alpha)
            for a in comp:
                multinomial //= math.factorial(a)
            total += multinomial * mpmath.exp(sum(a * (a - 1) for a in comp) / (2 * mpmath.mpf(sigma) ** 2))
    return mpmath.log(total / mpmath.mpf(t) ** alpha)


@pytest.mark.parametrize("alpha,t,sigma", [(2, 3, 1.0), (5, 3, 0.7), (7, 4, 2.0), (8, 2, 0.5), (6, 1, 1.0)])
def test_the_add_direction_equals_brute_force_enumeration_and_the_float_path_is_not_below_it(alpha, t, sigma):
    with mpmath.mp.workdps(40):
        exact = brute_force_log_moment(alpha, t, sigma) / (alpha - 1)
        mechanism = RandomAllocationGaussian(t, sigma)
        assert abs(mechanism.rdp_exact(alpha, 30) - exact) < mpmath.mpf(10) ** -25 * (1 + abs(exact))
    value = allocation.add_rdp_float(np.array([float(alpha)]), t, sigma)[0]
    assert value >= float(exact)
    assert value <= float(exact) * (1 + 1e-9)


def test_one_step_is_the_gaussian_in_both_directions():
    curve = RandomAllocationGaussian(1, 2.0).rdp_curve(np.array([2.0, 5.0]), "add_remove")
    assert np.all(curve >= np.array([2 / 8, 5 / 8]))
    assert np.allclose(curve, [2 / 8, 5 / 8], rtol=1e-9)


def test_the_remove_bound_is_at_least_a_quadrature_of_the_exact_value_at_small_t():
    from dpproofs_theorems.feldman2025.quantities import remove_reference

    for alpha, t, sigma in [(2, 2, 1.0), (4, 2, 1.0), (3, 10, 1.0), (12, 2, 0.7)]:
        bound = allocation.remove_rdp_bound_float(np.array([float(alpha)]), t, sigma)[0]
        assert bound >= remove_reference(alpha, t, sigma)


@pytest.mark.parametrize("kwargs", [dict(steps=0, sigma=1.0), dict(steps=10, sigma=0.0), dict(steps=10, sigma=1.0, k=11),
                                    dict(steps=10, sigma=math.nan), dict(steps=10**10, sigma=1.0)])
def test_bad_inputs_raise_invalid_argument_naming_the_argument(kwargs):
    with pytest.raises(InvalidArgument):
        RandomAllocationGaussian(**kwargs)


def test_replace_one_is_refused_with_a_clear_message_and_the_pld_accepts_every_k():
    with pytest.raises(InvalidArgument, match="replace_one"):
        Accountant(orders=ORDERS, relation="replace_one").compose(RandomAllocationGaussian(10, 1.0))
    assert RandomAllocationGaussian(10, 1.0).refusal("pld", "add_remove") is None
    assert RandomAllocationGaussian(10, 1.0, k=2).refusal("pld", "add_remove") is None  # by its components


def test_the_rdp_accountant_composes_epochs_and_the_result_is_near_poisson_of_the_same_run():
    epoch = RandomAllocationGaussian(100, 1.0)
    one = Accountant(orders=ORDERS).compose(epoch, 1).epsilon(1e-5)
    three = Accountant(orders=ORDERS).compose(epoch, 3).epsilon(1e-5)
    poisson = Accountant(orders=ORDERS).compose(SampledGaussian(0.01, 1.0), 300).epsilon(1e-5)
    assert 0 < one < three
    # not a theorem here (on this sparse grid the allocation bound is 3% above Poisson): same scale only
    assert three <= 1.1 * poisson
    assert Mechanism.from_dict(epoch.to_dict()) == epoch
